use toolsmith::{ToolResult, tool};

/// Set the pace.
#[tool(name = "pace")]
async fn pace(
    /// Bounds nothing.
    #[param(range())]
    a: u32,
    /// No value would pass.
    #[param(range(min = 30, max = 5))]
    b: u32,
    /// Not a number.
    #[param(range(min = "five"))]
    c: u32,
    /// Not a bound.
    #[param(range(minimum = 5))]
    d: u32,
) -> ToolResult<String> {
    let _ = (a, b, c, d);
    Ok(String::new())
}

fn main() {}
