use toolsmith::{ToolResult, tool};

/// Reads a file.
#[tool(defer_loading = "yes", namespace = files)]
async fn read_file() -> ToolResult<String> {
    Ok(String::new())
}

fn main() {}
