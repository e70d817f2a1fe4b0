use toolsmith::{ToolResult, tool};

/// Run a command.
#[tool(timeout = 30)]
async fn bash(command: String) -> ToolResult<String> {
    Ok(command)
}

fn main() {}
