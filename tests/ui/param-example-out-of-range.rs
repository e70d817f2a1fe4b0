use toolsmith::{ToolResult, tool};

/// Set the pace.
#[tool(name = "pace")]
async fn pace(
    /// Minutes per lap.
    #[param(range(min = 5, max = 30), example = 1.5, example = 12)]
    target: f64,
) -> ToolResult<String> {
    Ok(target.to_string())
}

fn main() {}
