//! [`Harness`]: a tool's test through the runtime's whole path, and [`Called`], what one call
//! gave back.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::Value;

use crate::activity::ActivityRecord;
use crate::approval::{ApprovalDecision, ApprovalRequest, ApprovedBy, Approver};
use crate::call::ToolCall;
use crate::error::{ErrorKind, ToolError};
use crate::events::{
    DEFAULT_SUBSCRIPTION_CAPACITY, Event, EventData, EventFilter, EventKind, Subscription,
};
use crate::policy::CallPolicy;
use crate::registry::Registry;
use crate::render::ResourcesTracker;
use crate::runtime::{CallOutcome, Runtime, RuntimeBuilder, Session, SessionConfig};

/// An approver that answers from a script and records what it was asked.
///
/// ```
/// use tool_core::testing::ScriptedApprover;
/// use tool_core::ApprovalDecision;
/// let approver = ScriptedApprover::answers([
///     ApprovalDecision::Approve,
///     ApprovalDecision::Deny { reason: Some("not now".into()) },
/// ]);
/// // Past the script: denied.
/// assert!(approver.asked().is_empty());
/// ```
#[derive(Debug)]
pub struct ScriptedApprover {
    answers: Mutex<VecDeque<ApprovalDecision>>,
    otherwise: ApprovalDecision,
    asked: Mutex<Vec<ApprovalRequest>>,
}

impl ScriptedApprover {
    /// Approves every call (as the user once).
    pub fn always() -> Arc<ScriptedApprover> {
        Self::with([], ApprovalDecision::ApproveAs(ApprovedBy::UserOnce))
    }

    /// Denies every call ("the test's approver denies it").
    pub fn never() -> Arc<ScriptedApprover> {
        Self::with([], denied())
    }

    /// Answers `answers` in order, then denies.
    pub fn answers(answers: impl IntoIterator<Item = ApprovalDecision>) -> Arc<ScriptedApprover> {
        Self::with(answers, denied())
    }

    fn with(
        answers: impl IntoIterator<Item = ApprovalDecision>,
        otherwise: ApprovalDecision,
    ) -> Arc<ScriptedApprover> {
        Arc::new(ScriptedApprover {
            answers: Mutex::new(answers.into_iter().collect()),
            otherwise,
            asked: Mutex::default(),
        })
    }

    /// The requests it was asked, in order.
    pub fn asked(&self) -> Vec<ApprovalRequest> {
        self.asked.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

fn denied() -> ApprovalDecision {
    ApprovalDecision::Deny {
        reason: Some("the test's approver denies it".into()),
    }
}

#[async_trait]
impl Approver for ScriptedApprover {
    async fn approve(&self, request: &ApprovalRequest) -> ApprovalDecision {
        self.asked
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(request.clone());
        let next = self
            .answers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop_front();
        next.unwrap_or_else(|| self.otherwise.clone())
    }
}

/// The scripted approver as the runtime holds it.
struct Shared(Arc<ScriptedApprover>);

#[async_trait]
impl Approver for Shared {
    async fn approve(&self, request: &ApprovalRequest) -> ApprovalDecision {
        self.0.approve(request).await
    }
}

/// Configures a [`Harness`].
pub struct HarnessBuilder {
    runtime: RuntimeBuilder,
    approver: Arc<ScriptedApprover>,
    session: SessionConfig,
}

impl HarnessBuilder {
    /// Answers the calls that ask for approval with `approver` (default:
    /// [`ScriptedApprover::never`], as a host with nobody to ask).
    pub fn approver(mut self, approver: Arc<ScriptedApprover>) -> Self {
        self.approver = approver;
        self
    }

    /// Decides calls by `policy` before the approver, as a host's rules do.
    pub fn policy(mut self, policy: Arc<dyn CallPolicy>) -> Self {
        self.runtime = self.runtime.policy(policy);
        self
    }

    /// Gives the tools `service` ([`ToolContext::service`](crate::ToolContext::service)).
    pub fn service<T: Send + Sync + 'static>(mut self, service: Arc<T>) -> Self {
        self.runtime = self.runtime.service(service);
        self
    }

    /// The session the calls run in (mode, permissions, turns).
    pub fn session(mut self, config: SessionConfig) -> Self {
        self.session = config;
        self
    }

    /// Anything else of the runtime (timeouts, approval required, an activity store).
    pub fn runtime(mut self, f: impl FnOnce(RuntimeBuilder) -> RuntimeBuilder) -> Self {
        self.runtime = f(self.runtime);
        self
    }

    /// The harness.
    pub fn build(self) -> Harness {
        let runtime = self.runtime.approver(Shared(self.approver.clone())).build();
        let events = runtime
            .events()
            .subscribe(EventFilter::All)
            .expect("a new event stream takes a subscriber");
        let session = runtime.session_with(self.session);
        Harness {
            runtime,
            session,
            approver: self.approver,
            events: Mutex::new(events),
            backlog: Mutex::default(),
            next_id: std::sync::atomic::AtomicU64::new(1),
        }
    }
}

/// A tool's test through the runtime's whole path: name resolution, validation, the rules,
/// approval, the deadline, the activity record and rendering, as a host runs a model's call.
///
/// ```
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// use tool_core::testing::Harness;
/// use tool_core::{ErrorKind, Registry};
/// let harness = Harness::builder(Registry::builder().build().unwrap()).build();
/// let called = harness.call("nothing_here", serde_json::json!({})).await;
/// let error = called.expect_err(ErrorKind::NotFound);
/// assert!(error.message().contains("nothing_here"));
/// # });
/// ```
pub struct Harness {
    runtime: Runtime,
    session: Session,
    approver: Arc<ScriptedApprover>,
    events: Mutex<Subscription>,
    /// Events read but not yet handed to their call.
    backlog: Mutex<Vec<Event>>,
    next_id: std::sync::atomic::AtomicU64,
}

impl std::fmt::Debug for Harness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Harness")
            .field("runtime", &self.runtime)
            .finish_non_exhaustive()
    }
}

impl Harness {
    /// A harness over `registry`'s tools, in a new session (agent mode, every permission),
    /// records in memory, calls that ask denied.
    pub fn builder(registry: impl Into<Arc<Registry>>) -> HarnessBuilder {
        HarnessBuilder {
            runtime: Runtime::builder(registry),
            approver: ScriptedApprover::never(),
            session: SessionConfig::default(),
        }
    }

    /// A harness over the tools this test binary links (`#[tool]`s registered through
    /// `inventory`, tool-std's when it is linked).
    ///
    /// # Panics
    ///
    /// When the linked tools do not make a registry (two of one name): the message says which.
    pub fn linked() -> HarnessBuilder {
        match Registry::from_inventory() {
            Ok(registry) => Self::builder(registry),
            Err(e) => panic!("the linked tools do not make a registry: {e}"),
        }
    }

    /// The runtime the calls run in.
    pub fn runtime(&self) -> &Runtime {
        &self.runtime
    }

    /// The session the calls run in.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// What the approver was asked, in order.
    pub fn asked(&self) -> Vec<ApprovalRequest> {
        self.approver.asked()
    }

    /// Calls `tool` with `arguments` as a model would, in a turn of its own (no earlier call
    /// answers it), and gives back everything the call left: its outcome, the text the model
    /// reads, its events and its activity record.
    pub async fn call(&self, tool: &str, arguments: Value) -> Called {
        let n = self
            .next_id
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.call_as(ToolCall::new(format!("call_{n}"), tool, arguments))
            .await
    }

    /// Calls `call` as it is (its id, and arguments as text or JSON).
    pub async fn call_as(&self, call: ToolCall) -> Called {
        self.session.clear_current_turn();
        let outcome = self.session.call(call).await;
        let record = self.runtime.activities().get(&outcome.activity_id).await;
        let events = self.events_of(&outcome.activity_id);
        let text = outcome.model_text(&mut ResourcesTracker::new());
        Called {
            outcome,
            text,
            events,
            record,
        }
    }

    /// The events of the call `id` emitted so far; the others' are kept for their calls.
    fn events_of(&self, id: &str) -> Vec<Event> {
        let mut backlog = self.backlog.lock().unwrap_or_else(|e| e.into_inner());
        {
            let mut events = self.events.lock().unwrap_or_else(|e| e.into_inner());
            while let Some(event) = events.try_recv() {
                backlog.push(event);
            }
        }
        let (mine, mut others): (Vec<Event>, Vec<Event>) =
            backlog.drain(..).partition(|e| e.call_id == id);
        // Events of calls made around the harness (through its session) are never claimed:
        // the newest are kept, within the subscription's own bound.
        let excess = others.len().saturating_sub(DEFAULT_SUBSCRIPTION_CAPACITY);
        others.drain(..excess);
        *backlog = others;
        mine
    }
}

/// What one call gave back: assert on it.
#[derive(Debug)]
#[non_exhaustive]
pub struct Called {
    /// The outcome, as a host answers the provider with it.
    pub outcome: CallOutcome,
    /// The text the model reads.
    pub text: String,
    /// The call's events, in order (START, chunks, progress, END or ERROR).
    pub events: Vec<Event>,
    /// Its activity record.
    pub record: Option<ActivityRecord>,
}

impl Called {
    /// The tool's typed result.
    ///
    /// # Panics
    ///
    /// When the call failed (with the error's text) or the tool's output is another type.
    pub fn output<T: 'static>(&self) -> &T {
        let output = self.ok();
        output.downcast_ref::<T>().unwrap_or_else(|| {
            panic!(
                "`{}` answered with another type than {}: {}",
                self.outcome.tool,
                std::any::type_name::<T>(),
                self.outcome.to_json()
            )
        })
    }

    /// The structured result: the output's JSON, or the error's.
    pub fn json(&self) -> Value {
        self.outcome.to_json()
    }

    /// Whether the call succeeded.
    pub fn is_ok(&self) -> bool {
        self.outcome.is_success()
    }

    /// The error, if the call failed.
    pub fn error(&self) -> Option<&ToolError> {
        self.outcome.error()
    }

    /// Asserts that the call succeeded; the call, to go on asserting.
    ///
    /// # Panics
    ///
    /// With the error's text, when it failed.
    pub fn expect_ok(&self) -> &Self {
        self.ok();
        self
    }

    /// Asserts that the call failed with `kind`; the error, with its fields (the allowed
    /// values, the nearest name, the example call).
    ///
    /// # Panics
    ///
    /// When the call succeeded, or failed with another kind.
    pub fn expect_err(&self, kind: ErrorKind) -> &ToolError {
        match &self.outcome.result {
            Ok(_) => panic!(
                "`{}` succeeded where a {} error was expected: {}",
                self.outcome.tool,
                kind.as_str(),
                self.outcome.to_json()
            ),
            Err(e) if e.kind() == kind => e,
            Err(e) => panic!(
                "`{}` failed with {} where {} was expected: {}",
                self.outcome.tool,
                e.kind().as_str(),
                kind.as_str(),
                e.full_message()
            ),
        }
    }

    /// The progress messages the tool reported, in order.
    pub fn progress(&self) -> Vec<&str> {
        self.events
            .iter()
            .filter_map(|e| match (&e.kind, &e.data) {
                (EventKind::Progress, EventData::Progress { message }) => Some(message.as_str()),
                _ => None,
            })
            .collect()
    }

    /// The output the tool streamed (its `TOOL_OUTPUT_CHUNK`s), joined.
    pub fn streamed(&self) -> String {
        self.events
            .iter()
            .filter_map(|e| match &e.data {
                EventData::Chunk { text } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }

    /// The activity record.
    ///
    /// # Panics
    ///
    /// When the store no longer holds it.
    pub fn record(&self) -> &ActivityRecord {
        self.record
            .as_ref()
            .expect("the call's activity record is kept (the harness keeps records in memory)")
    }

    fn ok(&self) -> &crate::output::ToolOutput {
        match &self.outcome.result {
            Ok(output) if output.is_success() => output,
            Ok(output) => panic!(
                "`{}` reported a failure: {}",
                self.outcome.tool,
                output.failure().unwrap_or_default()
            ),
            Err(e) => panic!("`{}` failed: {}", self.outcome.tool, e.full_message()),
        }
    }
}
