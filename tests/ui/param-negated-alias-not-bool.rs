use toolsmith::{ToolResult, tool};

/// Search.
#[tool(name = "find")]
async fn find(
    /// The pattern.
    #[param(negated_alias = "-v")]
    pattern: String,
    /// Match case.
    #[param(default, negated_alias = "-i", alias = "-v")]
    case_sensitive: bool,
) -> ToolResult<String> {
    let _ = (pattern, case_sensitive);
    Ok(String::new())
}

fn main() {}
