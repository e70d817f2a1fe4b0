//! Serve your own tools over MCP: a registry of two tools, on stdio (what an MCP host that
//! spawns the server uses) or on streamable HTTP.
//!
//! ```text
//! cargo run --example mcp_server                         # stdio
//! cargo run --example mcp_server -- --http 127.0.0.1:8080  # http://127.0.0.1:8080/mcp
//! ```
//!
//! `convert` takes a closed set of units (a bad one is answered with the allowed values);
//! `countdown` reports progress (MCP progress notifications when the client sends a
//! progress token) and stops when the client cancels the call.

use std::time::Duration;

use toolsmith::mcp::{HttpServer, ServeOptions, serve_stdio};
use toolsmith::{Action, Registry, Render, Runtime, ToolContext, ToolError, ToolResult, tool};

/// A temperature unit.
#[derive(Action, Clone, Copy)]
enum Unit {
    /// Degrees Celsius.
    Celsius,
    /// Degrees Fahrenheit.
    Fahrenheit,
    /// Kelvin.
    Kelvin,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Converted {
    /// The converted value.
    value: f64,
}
impl Render for Converted {}

fn to_kelvin(value: f64, unit: Unit) -> f64 {
    match unit {
        Unit::Celsius => value + 273.15,
        Unit::Fahrenheit => (value - 32.0) * 5.0 / 9.0 + 273.15,
        Unit::Kelvin => value,
    }
}

/// Convert a temperature between units.
#[tool(read_only, idempotent, register = false)]
async fn convert(
    /// The temperature.
    value: f64,
    /// Its unit.
    from: Unit,
    /// The unit wanted.
    to: Unit,
) -> ToolResult<Converted> {
    let k = to_kelvin(value, from);
    let value = match to {
        Unit::Celsius => k - 273.15,
        Unit::Fahrenheit => (k - 273.15) * 9.0 / 5.0 + 32.0,
        Unit::Kelvin => k,
    };
    Ok(Converted { value })
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Done {
    /// The steps counted.
    counted: u32,
}
impl Render for Done {}

/// Count down from a number, one step per tick, reporting each step; stops when cancelled.
#[tool(read_only, register = false)]
async fn countdown(
    ctx: &ToolContext,
    /// Where to start (at most 1000).
    from: u32,
    /// Milliseconds per step (at most 1000).
    #[param(default = 50u64)]
    tick_ms: u64,
) -> ToolResult<Done> {
    if from > 1000 || tick_ms > 1000 {
        return Err(ToolError::validation(
            "`from` and `tick_ms` are at most 1000; count in several calls",
        ));
    }
    // A cancelled call's task is stopped where it waits; what must happen then (ending a
    // child process, removing a temp file) belongs in a guard's `drop`.
    let mut guard = Cleanup {
        token: ctx.cancellation().clone(),
        left: from,
    };
    for step in (1..=from).rev() {
        guard.left = step;
        ctx.progress(format!("{step} to go"));
        tokio::time::sleep(Duration::from_millis(tick_ms)).await;
    }
    guard.left = 0;
    Ok(Done { counted: from })
}

/// Reports a countdown stopped by cancellation.
struct Cleanup {
    token: tokio_util::sync::CancellationToken,
    left: u32,
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        if self.left > 0 && self.token.is_cancelled() {
            eprintln!("countdown: cancelled with {} to go", self.left);
        }
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::builder()
        .register(ConvertTool)
        .register(CountdownTool)
        .build()?;
    let runtime = Runtime::builder(registry).build();
    let options = ServeOptions::new("temperature-tools");
    let mut args = std::env::args().skip(1);
    match (args.next().as_deref(), args.next()) {
        (Some("--http"), Some(addr)) => {
            let server = HttpServer::bind(addr.parse()?, runtime, options).await?;
            eprintln!("serving MCP on {}", server.endpoint()?);
            server.run().await?;
        }
        (None, _) => serve_stdio(runtime, options).await?,
        _ => return Err("usage: mcp_server [--http ADDR]".into()),
    }
    Ok(())
}
