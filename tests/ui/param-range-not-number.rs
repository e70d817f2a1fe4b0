use toolsmith::{ToolResult, tool};

/// Greet someone.
#[tool(name = "greet")]
async fn greet(
    /// The name.
    #[param(range(min = 1, max = 20))]
    name: String,
) -> ToolResult<String> {
    Ok(name)
}

fn main() {}
