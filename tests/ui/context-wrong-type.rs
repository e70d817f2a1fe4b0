use toolsmith::{ToolResult, tool};

/// Search file contents.
#[tool]
async fn grep(ctx: &String, pattern: String) -> ToolResult<String> {
    Ok(format!("{ctx}{pattern}"))
}

fn main() {}
