//! toolsmith: declare, validate, export and run the tools an LLM calls.
//!
//! This is the facade. It re-exports the trait layer of [`tool_core`] (tools, specs, the
//! registry, validation, the runtime, provider formats), the `#[tool]` and
//! `#[derive(Action)]` macros of `tool-macros`, and with the default `std` feature the
//! standard web, prompt, file, search and shell tools of `tool-std` as [`std_tools`].
//!
//! Depend on this crate and write tools with the macros, or against [`Tool`] by hand; then
//! build a [`Registry`], a [`Runtime`] and a [`Session`] per conversation, and feed the
//! model's tool calls to [`Session::call`].
//!
//! ```
//! use toolsmith::{Registry, Render, Runtime, Tool, ToolCall, ToolContext, ToolError, ToolSpec};
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Args {
//!     /// Who to greet.
//!     name: String,
//! }
//!
//! #[derive(serde::Serialize, schemars::JsonSchema)]
//! struct Greeting {
//!     greeting: String,
//! }
//! impl Render for Greeting {}
//!
//! struct Greet;
//!
//! impl Tool for Greet {
//!     type Input = Args;
//!     type Output = Greeting;
//!     fn spec(&self) -> ToolSpec {
//!         ToolSpec::new("greet", "Greet someone by name.")
//!     }
//!     async fn call(&self, _: &ToolContext, args: Args) -> Result<Greeting, ToolError> {
//!         Ok(Greeting { greeting: format!("Hello, {}!", args.name) })
//!     }
//! }
//!
//! # tokio::runtime::Runtime::new()?.block_on(async {
//! let registry = Registry::builder().register(Greet).build()?;
//! let session = Runtime::builder(registry).build().session();
//! let outcome = session.call(ToolCall::new("1", "greet", r#"{"name":"Ada"}"#)).await;
//! assert_eq!(outcome.to_json()["greeting"], "Hello, Ada!");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]

pub use tool_core::*;
pub use tool_macros::*;

#[cfg(feature = "otel")]
pub mod otel;

/// The standard tools (feature `std`).
#[cfg(feature = "std")]
pub use tool_std as std_tools;

/// The rig adapter (feature `rig`): a session's tools as rig tools, run through the runtime.
#[cfg(feature = "rig")]
pub use tool_rig as rig;

/// The testing kit (feature `testing`, for `[dev-dependencies]`): [`testing::Harness`] runs a
/// tool through the runtime's whole path and gives back what a call left ([`testing::Called`]);
/// [`testing::Surface`] holds the tools' surface to snapshots, failing only what breaks
/// callers in its default mode; with `std`, [`testing::TestWorkspace`] is a temporary workspace
/// made from a list of files for the standard tools.
#[cfg(feature = "testing")]
pub mod testing {
    pub use tool_core::testing::*;
    #[cfg(feature = "std")]
    pub use tool_std::testing::TestWorkspace;
}

/// The testing chapter's examples (`docs/testing.md`), compiled and run as doctests.
#[cfg(all(doctest, feature = "testing", feature = "std", feature = "mcp"))]
#[doc = include_str!("../docs/testing.md")]
pub struct TestingDoctests;

/// The README's Rust example, compiled and run as a doctest so it cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
