use toolsmith::{Render, ToolResult, tool};

#[derive(schemars::JsonSchema)]
struct Matches {
    lines: Vec<String>,
}
impl Render for Matches {}

/// Search file contents.
#[tool]
async fn grep(pattern: String) -> ToolResult<Matches> {
    Ok(Matches { lines: vec![pattern] })
}

fn main() {}
