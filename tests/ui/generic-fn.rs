use toolsmith::{ToolResult, tool};

/// Echo a value.
#[tool]
async fn echo<T: Into<String>>(text: String) -> ToolResult<String> {
    Ok(text)
}

fn main() {}
