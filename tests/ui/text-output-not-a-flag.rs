use toolsmith::{ToolResult, tool};

/// Runs a command.
#[tool(text_output = "yes")]
async fn bash() -> ToolResult<String> {
    Ok(String::new())
}

fn main() {}
