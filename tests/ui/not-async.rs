use toolsmith::{ToolResult, tool};

/// Search file contents.
#[tool]
fn grep(pattern: String) -> ToolResult<String> {
    Ok(pattern)
}

fn main() {}
