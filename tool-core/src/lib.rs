//! The trait layer of toolsmith: declare, validate, export and run the tools an LLM calls.
//!
//! A *tool* is a typed async function a model may call. This crate gives it a [`ToolSpec`]
//! (name, description, canonical JSON Schema, modes, permissions, approval, annotations),
//! keeps tools in a [`Registry`], checks every call against the schema and answers bad calls
//! with a [`ToolError`] that lists every problem, the allowed values, the nearest match and
//! an example call — so a model can correct itself in one step. The [`Runtime`] runs a call's
//! whole path: mode and permission checks, validation, the redundancy check (the same call
//! twice in one turn runs once), the approval gate, an activity record and events while the
//! tool runs under a deadline and a cancellation token.
//!
//! # Design
//!
//! - **The trait is the product.** Everything the `#[tool]` macro of `tool-macros` generates
//!   can be written by hand against [`Tool`]; the macro is sugar.
//! - **Errors are values.** A [`ToolError`] is part of the conversation, with a `type: "error"`
//!   JSON form; a host mistake (a duplicate tool name) is a [`RegistryError`] at build time.
//! - **One canonical schema.** Derived from the input type with schemars (draft 2020-12),
//!   computed once at registration; provider formats are derived from it.
//! - **Bounded everywhere.** Arguments size, problems listed, event queues, activity records,
//!   the redundancy cache and concurrent calls all have limits.
//!
//! # Brief overview
//!
//! - [`Tool`] / [`DynTool`]: a tool, typed and erased. [`Render`] shapes its output.
//! - [`ToolSpec`], [`Mode`], [`Permission`], [`Annotations`], [`ActionSet`]: what a tool is.
//! - [`Actions`]: an input that is one of several actions picked by a discriminator (a
//!   polymorphic tool, seed 000's `action`); [`Choice`]: a closed set of string values
//!   (`prompt_type`). `#[derive(Action)]` implements one or the other.
//! - [`Registry`]: tools by name and alias, filters by mode, toolset, category, permissions.
//! - [`ToolSelection`] / [`SelectedTools`]: the tools a session is offered and may call, by
//!   toolset, name or alias, with exclusions ([`SessionConfig::tools`]).
//! - [`validate::CompiledSchema`]: validation with every problem at once.
//! - [`Runtime`] / [`Session`]: a call's path; [`Approver`] gates risky calls;
//!   [`CallOutcome`] is what a call answers with.
//! - [`provider`]: tool definitions exported to OpenAI, Anthropic, Gemini, MCP and an XML
//!   prompt ([`provider::export`]), their tool calls imported ([`provider::Importer`]) and
//!   outcomes rendered back as their result messages ([`provider::render_result`]).
//! - [`EventStream`], [`ActivityStore`]: what a UI watches; with the `http` feature,
//!   `http::activity` serves them to a browser as a live page.
//! - [`ResourcesTracker`]: show each resource once per conversation.
//! - `mcp` (feature `mcp`): a registry served over the Model Context Protocol, on stdio or
//!   streamable HTTP, with the official `rmcp` SDK.
//!
//! # Example
//!
//! ```
//! use tool_core::{Registry, Render, Runtime, Tool, ToolCall, ToolContext, ToolError, ToolSpec};
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct AddArgs {
//!     /// The first number.
//!     a: i64,
//!     /// The second number.
//!     b: i64,
//! }
//!
//! #[derive(serde::Serialize, schemars::JsonSchema)]
//! struct Sum {
//!     sum: i64,
//! }
//! impl Render for Sum {}
//!
//! struct Add;
//!
//! impl Tool for Add {
//!     type Input = AddArgs;
//!     type Output = Sum;
//!     fn spec(&self) -> ToolSpec {
//!         ToolSpec::new("add", "Add two integers.")
//!     }
//!     async fn call(&self, _: &ToolContext, args: AddArgs) -> Result<Sum, ToolError> {
//!         args.a
//!             .checked_add(args.b)
//!             .map(|sum| Sum { sum })
//!             .ok_or_else(|| ToolError::user("the sum overflows a 64-bit integer"))
//!     }
//! }
//!
//! # tokio::runtime::Runtime::new()?.block_on(async {
//! let registry = Registry::builder().register(Add).build()?;
//! let session = Runtime::builder(registry).build().session();
//!
//! let ok = session.call(ToolCall::new("1", "add", r#"{"a": 2, "b": 3}"#)).await;
//! assert_eq!(ok.to_json(), serde_json::json!({"sum": 5}));
//!
//! let bad = session.call(ToolCall::new("2", "add", r#"{"a": "two"}"#)).await;
//! let err = bad.error().expect("invalid call");
//! assert_eq!(err.problems().len(), 2); // wrong type for `a`, missing `b`
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]

mod action;
mod activity;
mod approval;
mod call;
mod context;
mod error;
mod events;
#[cfg(feature = "http")]
pub mod http;
#[cfg(feature = "mcp")]
pub mod mcp;
mod output;
mod policy;
#[cfg(feature = "postgres")]
pub mod postgres;
pub mod provider;
mod registry;
mod render;
mod runtime;
mod schema;
mod selection;
mod spec;
#[cfg(feature = "testing")]
pub mod testing;
mod tool;
mod trace;
mod validate;
mod windows;

pub use action::{Actions, Choice};
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub use activity::ABANDONED;
pub use activity::{
    ActivityPage, ActivityRecord, ActivityStart, ActivityStatus, ActivityStore, ActivityUpdate,
    Allowed, Conversation, DEFAULT_ACTIVITY_BUDGET_BYTES, DEFAULT_ACTIVITY_CAPACITY,
    InMemoryActivityStore, MAX_CONVERSATION_FIELD_BYTES, MAX_DEFERRED_CALLS,
    MAX_FAILED_INPUT_BYTES, MAX_PREVIEW_BYTES, MAX_RECORD_INPUT_BYTES, MAX_RECORD_RESULT_BYTES,
    record_input, result_preview,
};
#[cfg(feature = "sqlite")]
pub use activity::{
    ActivityStoreError, DEFAULT_SQLITE_GATHER, DEFAULT_SQLITE_MAX_AGE, DEFAULT_SQLITE_MAX_BYTES,
    DEFAULT_SQLITE_MAX_RECORDS, SqliteActivityConfig, SqliteActivityStore, SqliteStats,
};
pub use approval::{
    ApprovalDecision, ApprovalRequest, ApproveAll, ApprovedBy, Approver, DenyAll, FnApprover,
};
pub use call::{Arguments, MAX_ARGUMENTS_BYTES, ToolCall, signature_of};
pub use context::{CallNotes, MAX_TURN_COUNTERS, Services, SessionState, ToolContext};
pub use error::{ErrorKind, Problem, RegistryError, SpecError, ToolError};
pub use events::{
    CallObserver, DEFAULT_SUBSCRIPTION_CAPACITY, Event, EventData, EventFilter, EventKind,
    EventObserver, EventStream, MAX_SUBSCRIBERS, SubscribeError, Subscription, SubscriptionId,
};
pub use output::ToolOutput;
pub use policy::{
    CallPolicy, Effect, MAX_RULE_BYTES, Match, PolicyCall, PolicyDecision, Rule, decide,
};
pub use registry::{Registration, Registry, RegistryBuilder, ToolEntry, ToolFilter};
pub use render::{Image, MAX_TRACKED_RESOURCES, Render, ResourcesTracker};
pub use runtime::{
    CallOptions, CallOutcome, Continues, DEFAULT_MAX_CONCURRENT, DEFAULT_TIMEOUT,
    MAX_DEDUPE_ENTRIES, Runtime, RuntimeBuilder, Session, SessionConfig,
};
pub use schema::{
    NoArgs, canonicalize_input, input_schema_for, object_output_schema, output_schema_for,
};
pub use selection::{MAX_SELECTION_NAMES, SelectedTools, SelectionError, ToolSelection};
pub use spec::{
    ActionSet, ActionSpec, Annotations, ArgAlias, MAX_NAME_LEN, Mode, Permission, PermissionSet,
    ToolSpec, validate_name,
};
pub use tool::{DynTool, Tool, ToolFuture};
pub use trace::{BadTraceparent, CALL_TARGET, MAX_TRACED_CONTENT_BYTES, TraceContext};
pub use validate::{
    CompiledSchema, MAX_INPUT_EXAMPLES, MAX_PROBLEMS, example_call, input_examples, nearest,
};
pub use windows::{RateDecision, RateWindows};

/// A shorthand for a tool's result.
pub type ToolResult<T> = Result<T, ToolError>;

/// Items the macros of `tool-macros` expand to. Not public API: no stability promise.
///
/// The name carries this crate's version, and `tool-macros` names the module after its own
/// version (the two share the workspace's, and this crate pins `tool-macros` exactly; see
/// the `cfg(any())` dependency in its Cargo.toml): code generated by one release of the
/// macros compiles only against the same release of this crate, as serde's `__private` with
/// its patch version. **Rename this module with every version** (`__private_0_1_1` for
/// 0.1.1): the macros derive the name from the version, so a missed rename fails every test
/// that uses them.
#[doc(hidden)]
pub mod __private_0_1_0 {
    pub use inventory;
    pub use schemars;
    pub use serde;
    pub use serde_json;
    pub use std::sync::Arc;

    pub use crate::action::support::*;
}
