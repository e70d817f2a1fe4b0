use toolsmith::{ToolResult, tool};

/// Add two numbers.
#[tool]
async fn add((a, b): (i64, i64)) -> ToolResult<String> {
    Ok((a + b).to_string())
}

fn main() {}
