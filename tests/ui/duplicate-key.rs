use toolsmith::{ToolResult, tool};

/// Search file contents.
#[tool(name = "grep", category = "search", name = "find")]
async fn grep(pattern: String) -> ToolResult<String> {
    Ok(pattern)
}

fn main() {}
