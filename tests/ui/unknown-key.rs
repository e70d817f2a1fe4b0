use toolsmith::{ToolResult, tool};

/// Search file contents.
#[tool(nmae = "grep")]
async fn grep(pattern: String) -> ToolResult<String> {
    Ok(pattern)
}

// The function and its tool type are still emitted: this code type-checks.
fn main() {
    let _future = grep(String::new());
    let _tool = GrepTool;
}
