use toolsmith::{ToolResult, tool};

/// Search file contents.
#[tool(modes())]
async fn grep(pattern: String) -> ToolResult<String> {
    Ok(pattern)
}

fn main() {}
