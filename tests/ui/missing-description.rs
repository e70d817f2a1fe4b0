use toolsmith::{ToolResult, tool};

#[tool(name = "grep")]
async fn grep(pattern: String) -> ToolResult<String> {
    Ok(pattern)
}

fn main() {}
