use toolsmith::{ToolResult, tool};

/// Search file contents.
#[tool(permissions(read_file))]
async fn grep(pattern: String) -> ToolResult<String> {
    Ok(pattern)
}

fn main() {}
