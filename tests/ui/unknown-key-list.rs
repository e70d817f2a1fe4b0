use toolsmith::{ToolResult, tool};

/// Search file contents.
#[tool(colour = "blue")]
async fn grep(pattern: String) -> ToolResult<String> {
    Ok(pattern)
}

fn main() {}
