//! toolsmith tools as [rig](https://docs.rs/rig-agent) tools, run through the toolsmith
//! runtime.
//!
//! [`RigTools`] turns a toolsmith [`Session`] (and so any registry, the standard tools of
//! `tool-std` included) into rig tools: one per tool the session offers
//! ([`Session::offered`]), with the spec's name and description and its input schema as the
//! parameters ([`neutral_schema`]: the canonical schema without `$schema` and without
//! schemars' Rust-type formats, which rig's providers then fit to their own rules). A call
//! the model makes goes through the session's whole path, as any other host's does:
//!
//! - the arguments are fitted to the schema as toolsmith's importer fits every provider's
//!   ([`repair_arguments`]: `"5"` for a number, one value where a list is wanted), then
//!   validated; a bad call is answered with toolsmith's error, every problem with its path,
//!   the allowed values and an example call, which the model reads as the tool's (failed)
//!   result and corrects itself from;
//! - mode and permission checks, the permission rules, and approval through the runtime's
//!   [`Approver`](tool_core::Approver) (a denial is an error result the model reads, not a
//!   failed run);
//! - the deadline and the cancellation token, the activity record and its events, the call's
//!   `tracing` span;
//! - the answer ([`answer`]): the text toolsmith gives the model on success (with the images
//!   a result carries), and on failure a [`ToolExecutionError`] whose model-visible output is
//!   toolsmith's whole error and whose kind is rig's nearest ([`error_kind`]).
//!
//! rig answers a failed tool call to the model as an error tool result and the run goes on,
//! so the model sees every toolsmith error as it would through any other host.
//!
//! # Why `DynamicTool`
//!
//! rig 0.44 offers three ways to define a tool: the [`Tool`](rig_core::tool::Tool) trait
//! (and the context-free `PortableTool`), [`ErasedTool`](rig_core::tool::ErasedTool), and the
//! [`DynamicTool`] type. A toolsmith tool is known only at run time (which tools a session
//! offers depends on its registry, mode and selection), so:
//!
//! - `Tool` does not fit: its name is an associated `const NAME: &'static str`, one per Rust
//!   type, and its arguments are deserialized into a typed `Args` by rig before the tool
//!   runs, which would answer a bad call with serde's message instead of toolsmith's
//!   validation.
//! - `ErasedTool` (raw arguments in, a result out) is object-safe, but rig's tool registry
//!   takes none: a builder and a tool server take a `Tool` or a `DynamicTool`.
//! - `DynamicTool` is rig's tool defined at run time: a name, a description, a parameters
//!   schema and a callback over the arguments as JSON. It takes toolsmith's spec as it is,
//!   and its callback hands the arguments to the session untouched.
//!
//! # Turns
//!
//! A session answers a call from an earlier identical call's result only within a turn its
//! host marks, and only when it was built with
//! [`SessionConfig::turns(true)`](tool_core::SessionConfig::turns). For a rig agent the turn
//! is rig's model turn: [`RigTools::hook`] (which [`RigTools::attach`] adds) ends the
//! session's turn before every completion call, so two identical calls in one model response
//! run once (the second is answered with the first's result and says so), and the same call
//! in a later response runs again and sees what changed. A session built without turns (the
//! default) runs every call, hook or no hook. Use the hook with every session built with
//! turns: without it nothing would end the turn, and a call would be answered from an
//! identical one made any time before in the conversation (a tool answered that way without
//! a hook logs a warning saying so).
//!
//! # Cancellation
//!
//! rig cancels a tool call by dropping its future (an agent run dropped, or aborted, drops
//! the calls it is waiting on). Dropping the session's call abandons it: the tool's
//! cancellation token fires and its activity record ends `failure` ("the call was abandoned
//! before it finished") with its `ERROR` event. [`Session::cancel`] cancels every call of the
//! session from outside; each is answered `cancelled`, which reaches rig as
//! [`ToolErrorKind::Cancelled`](rig_core::tool::ToolErrorKind::Cancelled).
//!
//! # Example
//!
//! ```
//! use rig_agent::AgentBuilder;
//! use rig_core::test_utils::{MockCompletionModel, MockTurn};
//! use serde_json::json;
//! use tool_core::{Registry, Render, Runtime, SessionConfig, Tool, ToolContext, ToolError, ToolSpec};
//! use tool_rig::RigTools;
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
//! let session = Runtime::builder(registry)
//!     .build()
//!     .session_with(SessionConfig::default().turns(true));
//! let tools = RigTools::new(session);
//!
//! // A scripted model: it calls `greet`, then answers.
//! let model = MockCompletionModel::from_turns([
//!     MockTurn::tool_call("call_1", "greet", json!({"name": "Ada"})),
//!     MockTurn::text("done"),
//! ]);
//! let agent = tools.attach(AgentBuilder::new(model.clone())).build();
//! let answer = agent.prompt("Greet Ada.").max_turns(4).await?;
//! assert_eq!(answer.output(), "done");
//! assert!(format!("{:?}", model.requests()[1].chat_history).contains("Hello, Ada!"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]

mod answer;
mod hook;

use std::sync::Arc;

use rig_agent::agent::{AgentBuilder, NoToolConfig, WithBuilderTools};
use rig_core::message::ToolName;
use rig_core::tool::{DynamicTool, ToolExecutionError, ToolOutput};
use serde_json::Value;
use tool_core::provider::{generate_id, neutral_schema, repair_arguments};
use tool_core::{Session, ToolCall, ToolEntry};

pub use answer::{answer, error_kind};
pub use hook::{MAX_PENDING_CALL_IDS, TurnHook};

use hook::CallIds;

/// A session's tools as rig tools, and the hook that marks rig's turns for the session.
/// Cheap to clone; clones share the session.
///
/// See the [crate docs](crate) for what a call goes through.
#[derive(Clone)]
pub struct RigTools {
    session: Session,
    ids: Arc<CallIds>,
}

impl std::fmt::Debug for RigTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RigTools")
            .field("session", &self.session)
            .finish_non_exhaustive()
    }
}

impl RigTools {
    /// The tools `session` offers, for rig. Build the session with
    /// [`SessionConfig::turns(true)`](tool_core::SessionConfig::turns) for an agent, and add
    /// [`hook`](Self::hook) with the tools (as [`attach`](Self::attach) does).
    pub fn new(session: Session) -> Self {
        RigTools {
            session,
            ids: Arc::default(),
        }
    }

    /// The session the calls run in (its runtime, activity store, events, [`Session::cancel`]).
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// One rig tool per tool the session offers, sorted by name: the spec's name and
    /// description, its [`neutral_schema`] as the parameters, and a callback that runs the
    /// call through the session.
    pub fn tools(&self) -> Vec<DynamicTool> {
        self.session
            .offered()
            .filter_map(|entry| self.tool(entry))
            .collect()
    }

    /// The agent hook that tells the session where rig's model turns begin, so that identical
    /// calls are answered once only within one model response, and that gives each call the
    /// model's own call id (see [`TurnHook`]).
    pub fn hook(&self) -> TurnHook {
        TurnHook {
            session: self.session.clone(),
            ids: Arc::clone(&self.ids),
        }
    }

    /// Adds [`tools`](Self::tools) and [`hook`](Self::hook) to an agent builder, with or
    /// without tools of its own.
    pub fn attach<B: Attach>(&self, builder: B) -> AgentBuilder<WithBuilderTools> {
        builder.attach(self)
    }

    /// The rig tool for one of the session's tools; `None` for a name rig refuses (empty,
    /// which no registered tool has).
    fn tool(&self, entry: &Arc<ToolEntry>) -> Option<DynamicTool> {
        let spec = entry.spec();
        let name = ToolName::new(spec.name.as_ref()).ok()?;
        let call = Caller {
            session: self.session.clone(),
            ids: Arc::clone(&self.ids),
            name: Arc::from(spec.name.as_ref()),
            schema: Arc::clone(&spec.input_schema),
        };
        Some(DynamicTool::new(
            name,
            spec.description.as_ref(),
            neutral_schema(spec),
            move |arguments| Box::pin(call.clone().run(arguments)),
        ))
    }
}

/// What a rig tool's callback needs to run a call of one tool.
#[derive(Clone)]
struct Caller {
    session: Session,
    ids: Arc<CallIds>,
    name: Arc<str>,
    /// The tool's canonical input schema, which the arguments are fitted to.
    schema: Arc<Value>,
}

impl Caller {
    /// Runs one call through the session. Dropping the future abandons the call (see the
    /// crate docs).
    async fn run(self, arguments: Value) -> Result<ToolOutput, ToolExecutionError> {
        let id = self
            .ids
            .take(&self.name, &arguments)
            .unwrap_or_else(generate_id);
        let (arguments, repairs) = repair_arguments(&self.schema, arguments);
        for repair in &repairs {
            tracing::debug!(tool = %self.name, call_id = %id, ?repair, "arguments repaired");
        }
        let outcome = self
            .session
            .call(ToolCall::new(id, &*self.name, arguments))
            .await;
        if let Some(first) = &outcome.duplicate_of
            && !self.ids.marked()
        {
            tracing::warn!(
                tool = %self.name,
                call_id = %outcome.call_id,
                duplicate_of = %first,
                "a call was answered from an identical earlier one, but no hook marks this \
                 session's turns: add RigTools::hook to the agent (or use RigTools::attach)"
            );
        }
        answer(&outcome)
    }
}

/// An agent builder [`RigTools::attach`] adds tools to: one without tools yet
/// ([`NoToolConfig`]) or one with tools of its own ([`WithBuilderTools`]). Sealed.
pub trait Attach: sealed::Sealed {
    /// Adds `tools`' tools and hook.
    fn attach(self, tools: &RigTools) -> AgentBuilder<WithBuilderTools>;
}

impl Attach for AgentBuilder<NoToolConfig> {
    fn attach(self, tools: &RigTools) -> AgentBuilder<WithBuilderTools> {
        self.add_hook(tools.hook()).dynamic_tools(tools.tools())
    }
}

impl Attach for AgentBuilder<WithBuilderTools> {
    fn attach(self, tools: &RigTools) -> AgentBuilder<WithBuilderTools> {
        self.add_hook(tools.hook()).dynamic_tools(tools.tools())
    }
}

mod sealed {
    /// Only rig's agent builders are [`Attach`](super::Attach).
    pub trait Sealed {}
    impl Sealed for super::AgentBuilder<super::NoToolConfig> {}
    impl Sealed for super::AgentBuilder<super::WithBuilderTools> {}
}
