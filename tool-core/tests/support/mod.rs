//! What the tests share: hand-written tools (no macros) and the helpers to call them, here;
//! the helpers of one area in a submodule; the provider fixtures and the activity tools, which
//! the benchmarks (and the facade's tests) include by path from where they are.
// `pub` for the test modules; a test binary exports nothing.
#![allow(unreachable_pub)]

#[cfg(feature = "http")]
#[path = "../activity_common/mod.rs"]
pub mod activity;
#[cfg(feature = "mcp")]
pub mod browser;
#[path = "../fixtures/mod.rs"]
pub mod fixtures;
pub mod provider;
pub mod validation;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use tool_core::{
    ActionSet, ActionSpec, ErrorKind, Permission, Registry, Render, ResourcesTracker, Runtime,
    Session, Tool, ToolCall, ToolContext, ToolError, ToolSpec,
};

// ---------------------------------------------------------------------------------------------
// add: the simplest typed tool.

/// Arguments of `add`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AddArgs {
    /// The first number.
    pub a: i64,
    /// The second number.
    pub b: i64,
}

/// Output of `add`.
#[derive(Debug, Serialize, JsonSchema, PartialEq)]
pub struct Sum {
    pub sum: i64,
}
impl Render for Sum {}

/// Adds two integers.
pub struct Add;

impl Tool for Add {
    type Input = AddArgs;
    type Output = Sum;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("add", "Add two integers.")
    }
    async fn call(&self, _: &ToolContext, args: AddArgs) -> Result<Sum, ToolError> {
        args.a
            .checked_add(args.b)
            .map(|sum| Sum { sum })
            .ok_or_else(|| ToolError::user("the sum overflows a 64-bit integer"))
    }
}

// ---------------------------------------------------------------------------------------------
// echo: custom Render (status line and model text).

/// Arguments of `echo`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct EchoArgs {
    /// The text to send back.
    pub text: String,
}

/// Output of `echo`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Echoed {
    pub r#type: &'static str,
    pub text: String,
}
impl Render for Echoed {
    fn status(&self) -> Option<String> {
        Some(format!("Echoed {} byte(s)", self.text.len()))
    }
    fn render(&self, _: &mut ResourcesTracker) -> Option<String> {
        Some(format!("ECHO: {}", self.text))
    }
}

/// Sends the text back.
pub struct Echo;

impl Tool for Echo {
    type Input = EchoArgs;
    type Output = Echoed;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("echo", "Send the text back.")
    }
    async fn call(&self, _: &ToolContext, args: EchoArgs) -> Result<Echoed, ToolError> {
        Ok(Echoed {
            r#type: "echoed",
            text: args.text,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// counted: counts its invocations; optional delay; optional failure.

/// Arguments of `counted`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CountedArgs {
    /// A key that makes calls distinct.
    pub key: String,
    /// Milliseconds to sleep before answering.
    pub delay_ms: Option<u64>,
    /// Fail with a user error instead of answering.
    #[serde(default)]
    pub fail: bool,
}

/// Output of `counted`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CountedOut {
    pub key: String,
    pub run: usize,
}
impl Render for CountedOut {}

/// Counts how often it ran.
#[derive(Clone, Default)]
pub struct Counted {
    pub runs: Arc<AtomicUsize>,
}

impl Tool for Counted {
    type Input = CountedArgs;
    type Output = CountedOut;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("counted", "Count invocations.")
    }
    async fn call(&self, _: &ToolContext, args: CountedArgs) -> Result<CountedOut, ToolError> {
        let run = self.runs.fetch_add(1, Ordering::SeqCst) + 1;
        if let Some(ms) = args.delay_ms {
            tokio::time::sleep(Duration::from_millis(ms)).await;
        }
        if args.fail {
            return Err(ToolError::user(format!("asked to fail for {}", args.key))
                .with_suggestion("Do not ask it to fail."));
        }
        Ok(CountedOut { key: args.key, run })
    }
}

// ---------------------------------------------------------------------------------------------
// sleepy: sleeps, keeping its cancellation token where the test can see it.

/// Arguments of `sleepy`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SleepArgs {
    /// Milliseconds to sleep.
    pub ms: u64,
}

/// Sleeps for a while.
#[derive(Clone, Default)]
pub struct Sleepy {
    pub token: Arc<Mutex<Option<CancellationToken>>>,
    pub timeout: Option<Duration>,
    pub started: Arc<Notify>,
}

impl Tool for Sleepy {
    type Input = SleepArgs;
    type Output = Value;
    fn spec(&self) -> ToolSpec {
        let spec = ToolSpec::new("sleepy", "Sleep for a while.");
        match self.timeout {
            Some(t) => spec.timeout(t),
            None => spec,
        }
    }
    async fn call(&self, ctx: &ToolContext, args: SleepArgs) -> Result<Value, ToolError> {
        *self.token.lock().unwrap() = Some(ctx.cancellation().clone());
        self.started.notify_one();
        tokio::time::sleep(Duration::from_millis(args.ms)).await;
        Ok(json!({"slept_ms": args.ms}))
    }
}

// ---------------------------------------------------------------------------------------------
// panicky: a bug in a tool.

/// Panics.
pub struct Panicky;

impl Tool for Panicky {
    type Input = tool_core::NoArgs;
    type Output = Value;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("panicky", "Panic.")
    }
    async fn call(&self, _: &ToolContext, _: tool_core::NoArgs) -> Result<Value, ToolError> {
        panic!("boom")
    }
}

// ---------------------------------------------------------------------------------------------
// search: a rich schema for validation (range, enums, nested objects).

/// How results are ordered.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum SortOrder {
    Relevance,
    Newest,
    Oldest,
}

/// What to search.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum Corpus {
    /// Source code.
    Code,
    /// Documentation pages.
    Docs,
    /// Issue threads.
    Issues,
}

/// One filter.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)] // parameters the schema offers and the tool does not read
pub struct Filter {
    /// The field to filter on.
    pub name: String,
    /// The value it must have.
    pub value: Option<String>,
}

/// Arguments of `search`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// The query.
    pub query: String,
    /// Where to search.
    pub corpus: Corpus,
    /// The most results.
    #[schemars(range(min = 1, max = 100))]
    pub limit: u32,
    /// The order.
    pub sort: Option<SortOrder>,
    /// Filters.
    #[serde(default)]
    pub filters: Vec<Filter>,
}

/// Output of `search`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SearchOut {
    pub r#type: &'static str,
    pub query: String,
    pub limit: u32,
}
impl Render for SearchOut {}

/// Searches nothing, checks its arguments.
pub struct Search;

impl Tool for Search {
    type Input = SearchArgs;
    type Output = SearchOut;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("search", "Search a corpus.")
    }
    async fn call(&self, _: &ToolContext, a: SearchArgs) -> Result<SearchOut, ToolError> {
        Ok(SearchOut {
            r#type: "search_results",
            query: a.query,
            limit: a.limit,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// prompt_manager: a polymorphic tool written by hand with an ActionSet.

/// The action.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum PromptAction {
    View,
    Update,
}

/// Which prompt.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum PromptType {
    /// The system prompt.
    System,
    /// The conversation consolidation prompt.
    ConversationConsolidation,
    /// The memory management prompt.
    MemoryManagement,
    /// The agent's name.
    Name,
}

/// Arguments of `prompt_manager` (the flat union of the actions' parameters).
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)] // parameters the schema offers and the tool does not read
pub struct PromptArgs {
    /// What to do.
    pub action: PromptAction,
    /// Which prompt.
    pub prompt_type: PromptType,
    /// The new content (update only).
    pub content: Option<String>,
}

/// View or update your prompts.
#[derive(Clone, Default)]
pub struct PromptManager {
    pub runs: Arc<AtomicUsize>,
}

impl Tool for PromptManager {
    type Input = PromptArgs;
    type Output = Value;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("prompt_manager", "View or update your prompts and name.")
            .permission(Permission::ViewPrompts)
            .alias("view_system_prompt")
            .alias("update_system_prompt")
            .actions(ActionSet::new(
                "action",
                vec![
                    ActionSpec::new("view", "View a prompt.")
                        .required("prompt_type")
                        .read_only(true),
                    ActionSpec::new("update", "Update a prompt.")
                        .required("prompt_type")
                        .required("content")
                        .permission(Permission::ManagePrompts),
                ],
            ))
    }
    async fn call(&self, _: &ToolContext, a: PromptArgs) -> Result<Value, ToolError> {
        self.runs.fetch_add(1, Ordering::SeqCst);
        Ok(match a.action {
            PromptAction::View => json!({"type": "view_result", "content": "You are helpful."}),
            PromptAction::Update => json!({"type": "update_result", "content": a.content}),
        })
    }
}

// ---------------------------------------------------------------------------------------------
// notes: a polymorphic tool whose discriminator is a plain string in the schema; the action
// set alone says which values are allowed.

/// Arguments of `notes`.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)] // parameters the schema offers and the tool does not read
pub struct NotesArgs {
    /// What to do.
    pub action: String,
    /// The note's text.
    pub text: Option<String>,
    /// Which note.
    pub index: Option<u32>,
}

/// Keeps notes.
pub struct Notes;

impl Tool for Notes {
    type Input = NotesArgs;
    type Output = Value;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("notes", "Keep notes.").actions(ActionSet::new(
            "action",
            vec![
                ActionSpec::new("add", "Add a note.").required("text"),
                ActionSpec::new("list", "List the notes."),
                ActionSpec::new("remove", "Remove a note.").required("index"),
            ],
        ))
    }
    async fn call(&self, _: &ToolContext, a: NotesArgs) -> Result<Value, ToolError> {
        Ok(json!({"type": "notes", "action": a.action}))
    }
}

// ---------------------------------------------------------------------------------------------
// waiter: reports progress and data, then waits to be released.

/// Reports progress, then waits on `release`.
#[derive(Clone, Default)]
pub struct Waiter {
    pub started: Arc<Notify>,
    pub release: Arc<Notify>,
}

impl Tool for Waiter {
    type Input = tool_core::NoArgs;
    type Output = Value;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("waiter", "Wait to be released.")
    }
    async fn call(&self, ctx: &ToolContext, _: tool_core::NoArgs) -> Result<Value, ToolError> {
        ctx.progress("Waiting for release");
        let mut data = Map::new();
        data.insert("step".into(), json!(1));
        ctx.update_data(data);
        ctx.emit_chunk("first chunk\n");
        self.started.notify_one();
        self.release.notified().await;
        Ok(json!({"released": true}))
    }
}

// ---------------------------------------------------------------------------------------------
// risky: `counted` with approval required by its spec.

/// `counted` with approval required by its spec.
#[derive(Clone, Default)]
pub struct Risky {
    pub inner: Counted,
}

impl Tool for Risky {
    type Input = CountedArgs;
    type Output = CountedOut;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("risky", "Needs approval.").requires_approval(true)
    }
    async fn call(&self, ctx: &ToolContext, a: CountedArgs) -> Result<CountedOut, ToolError> {
        Tool::call(&self.inner, ctx, a).await
    }
}

// ---------------------------------------------------------------------------------------------
// Named: a no-op tool whose spec the test chooses.

/// A no-op tool whose spec the test chooses.
#[derive(Clone)]
pub struct Named(pub ToolSpec);

impl Tool for Named {
    type Input = tool_core::NoArgs;
    type Output = Value;
    fn spec(&self) -> ToolSpec {
        self.0.clone()
    }
    async fn call(&self, _: &ToolContext, _: tool_core::NoArgs) -> Result<Value, ToolError> {
        Ok(json!({"ran": true}))
    }
}

// ---------------------------------------------------------------------------------------------
// Helpers.

/// A registry of the given tools.
pub fn registry(
    build: impl FnOnce(tool_core::RegistryBuilder) -> tool_core::RegistryBuilder,
) -> Registry {
    build(Registry::builder()).build().expect("registry builds")
}

/// A session over a runtime with the given tools and defaults.
pub fn session_of(
    build: impl FnOnce(tool_core::RegistryBuilder) -> tool_core::RegistryBuilder,
) -> Session {
    Runtime::builder(registry(build)).build().session()
}

/// A session whose host marks turns (`SessionConfig::turns`), as an agent loop's: identical
/// calls of a turn run once.
pub fn turn_session_of(
    build: impl FnOnce(tool_core::RegistryBuilder) -> tool_core::RegistryBuilder,
) -> Session {
    with_turns(&Runtime::builder(registry(build)).build())
}

/// A session of `runtime` whose host marks turns.
pub fn with_turns(runtime: &Runtime) -> Session {
    runtime.session_with(tool_core::SessionConfig::default().turns(true))
}

/// A call with JSON value arguments.
pub fn call(id: &str, name: &str, args: Value) -> ToolCall {
    ToolCall::new(id, name, args)
}

/// A call with JSON text arguments.
pub fn call_text(id: &str, name: &str, args: &str) -> ToolCall {
    ToolCall::new(id, name, args)
}

/// The error of a failed call, panicking with the output when it succeeded.
pub fn expect_err(outcome: &tool_core::CallOutcome) -> &ToolError {
    match &outcome.result {
        Ok(_) => panic!("expected an error, got {}", outcome.to_json()),
        Err(e) => e,
    }
}

/// Asserts the kind of an error.
pub fn assert_kind(err: &ToolError, kind: ErrorKind) {
    assert_eq!(err.kind(), kind, "wrong kind for {}", err.to_json());
}
