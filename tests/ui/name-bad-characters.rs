use toolsmith::{ToolResult, tool};

/// Reads a file.
#[tool(name = "read file")]
async fn read_file() -> ToolResult<String> {
    Ok(String::new())
}

fn main() {}
