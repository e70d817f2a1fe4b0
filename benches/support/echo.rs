//! The tool both MCP benchmarks serve: it echoes a number, so a call costs the server's path
//! and nothing else.

use toolsmith::{Render, ToolResult, tool};

#[derive(serde::Serialize, schemars::JsonSchema)]
pub(crate) struct Echoed {
    n: u64,
}
impl Render for Echoed {}

/// Echo a number.
#[tool(name = "echo", read_only, register = false)]
pub(crate) async fn echo(
    /// Any number.
    n: u64,
) -> ToolResult<Echoed> {
    Ok(Echoed { n })
}
