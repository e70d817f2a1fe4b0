//! A testing kit for crate authors (feature `testing`, meant for `[dev-dependencies]`).
//!
//! - [`Harness`]: a tool's test through the runtime's whole path (resolution, validation, the
//!   rules, approval by a [`ScriptedApprover`], the deadline, the activity record, rendering);
//!   [`Harness::call`] gives back a [`Called`] to assert on: the typed result, the text the
//!   model reads, the error with its fields, the events and the record.
//! - [`Surface`]: snapshots of the tools' surface, one file per tool per export format under the
//!   crate's `tests/snapshots/tools/`, held [`Strict`](SnapshotMode::Strict)ly,
//!   [`Structural`](SnapshotMode::Structural)ly (descriptions aside) or
//!   [`Compatible`](SnapshotMode::Compatible)ly (only what breaks a caller fails: a parameter
//!   removed, renamed or newly required, a type, enum or bound narrowed, an output field
//!   removed or retyped), each failure naming the tool, the format, the JSON path and why.
//! - [`assert_exports`]: every tool exports to every format within each provider's documented
//!   rules (OpenAI strict's and Gemini's schema subsets, name length and characters, MCP's
//!   fields), its schemas valid JSON Schema 2020-12 ([`export_problems`], [`entry_problems`]).
//! - [`ScriptedModel`] and [`AgentLoop`]: a model answering from a script in OpenAI Chat
//!   Completions', OpenAI Responses' or Anthropic's tool-calling shape ([`Dialect`]), calls
//!   malformed as models send them included ([`ScriptedCall::raw`]), and the host's loop around
//!   it (import, repair, validation, the call, the result message), for an agent loop's test.
//! - [`McpClient`] (with the feature `mcp`): an MCP client in the test's process, over an
//!   in-memory pipe through the same server as `toolsmith serve`, under each protocol version
//!   ([`McpVersion`]), answering the user's questions from a script ([`Elicit`]) and keeping
//!   every frame and notification.
//!
//! ```
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! use serde_json::json;
//! use tool_core::testing::{Harness, ScriptedApprover};
//! use tool_core::{ErrorKind, Registry};
//!
//! let harness = Harness::builder(Registry::builder().build().unwrap())
//!     .approver(ScriptedApprover::always())
//!     .build();
//! let missing = harness.call("reed_file", json!({})).await;
//! missing.expect_err(ErrorKind::NotFound);
//! assert_eq!(missing.record().name, "reed_file");
//! # });
//! ```

mod compat;
mod exports;
mod harness;
#[cfg(feature = "mcp")]
mod mcp;
mod model;
#[cfg(feature = "postgres")]
pub mod postgres;
mod rules;
mod surface;

pub use exports::{
    ExportProblem, assert_exports, entry_problems, export_problems, meta_schema_problems,
    schemas_of, xml_problems,
};
pub use harness::{Called, Harness, HarnessBuilder, ScriptedApprover};
#[cfg(feature = "mcp")]
pub use mcp::{ANSWER_TIMEOUT, Elicit, Frame, McpCalled, McpClient, McpClientBuilder, McpVersion};
pub use model::{
    AgentLoop, Dialect, MAX_TURNS, Respond, ScriptedCall, ScriptedModel, Transcript, Turn,
};
pub use surface::{
    DEFAULT_FORMATS, SnapshotMode, Surface, SurfaceChange, SurfaceReport, UPDATE_SNAPSHOTS,
};
