//! A crate author's server: one tool of its own beside the standard tools, over MCP on stdio.
//!
//! ```text
//! cargo run --manifest-path examples/downstream/Cargo.toml
//! ```

use toolsmith::mcp::{ServeOptions, serve_stdio};
use toolsmith::std_tools::trust::sandbox::SandboxConfig;
use toolsmith::{Registry, Render, Runtime, ToolResult, tool};

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Greeting {
    /// The greeting.
    text: String,
}
impl Render for Greeting {}

/// Greet someone by name.
#[tool(read_only, register = false)]
async fn greet(
    /// Who to greet.
    name: String,
) -> ToolResult<Greeting> {
    Ok(Greeting {
        text: format!("Hello, {name}!"),
    })
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // How `bash` would confine a command here: Landlock on Linux, Seatbelt on macOS, none on
    // Windows (where it is refused).
    eprintln!("bash sandbox: {}", SandboxConfig::default().status());
    let registry = Registry::builder()
        .register(GreetTool)
        .with_inventory()
        .build()?;
    let runtime = Runtime::builder(registry).build();
    serve_stdio(runtime, ServeOptions::new("downstream")).await?;
    Ok(())
}
