use toolsmith::{ToolResult, tool};

/// Set the pace.
#[tool(name = "pace")]
async fn pace(
    /// Laps.
    #[param(example = "ten")]
    laps: Option<u32>,
) -> ToolResult<String> {
    Ok(format!("{laps:?}"))
}

fn main() {}
