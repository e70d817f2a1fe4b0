use toolsmith::{ToolResult, tool};

#[tool(description_file = "docs/no-such-file.md")]
async fn grep(pattern: String) -> ToolResult<String> {
    Ok(pattern)
}

fn main() {}
