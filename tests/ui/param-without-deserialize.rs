use toolsmith::{ToolResult, tool};

#[derive(schemars::JsonSchema)]
struct Pattern {
    text: String,
}

/// Search file contents.
#[tool]
async fn grep(pattern: Pattern) -> ToolResult<String> {
    Ok(pattern.text)
}

fn main() {}
