use toolsmith::{ToolResult, tool};

/// Does nothing.
#[tool(name = "")]
async fn nothing() -> ToolResult<String> {
    Ok(String::new())
}

fn main() {}
