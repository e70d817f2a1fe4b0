use toolsmith::{ToolResult, tool};

/// Echo a value.
#[tool]
async fn echo(&self, text: String) -> ToolResult<String> {
    Ok(text)
}

fn main() {}
