//! The runtime: a call's whole path, from a provider's tool call to a result message.
//!
//! ```text
//! ToolCall -> lookup (aliases; unknown name -> tools of this mode + nearest)
//!          -> mode and permission checks (tool and action)
//!          -> validation (every problem at once)
//!          -> redundancy check (same call twice in one turn)
//!          -> approval gate
//!          -> activity in_progress + TOOL_CALL_START
//!          -> the tool runs in a concurrency slot, with a deadline (counted from when it
//!             starts) and a cancellation token
//!          -> activity success/failure + TOOL_CALL_END or ERROR
//! ```
//!
//! A call refused on the way (unknown tool, mode, permission, validation, approval, a
//! cancelled session) still gets an activity record, which fails at once, and a
//! `TOOL_CALL_START` + `ERROR` pair: every call's events pair up. A call answered by the
//! redundancy check gets its own record (with `data.duplicate_of`) and pair as well.
//!
//! A [`Runtime`] is shared by every conversation; a [`Session`] is one conversation (its
//! mode, its role's permissions, its turn state).

mod approval;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use tokio::sync::{Semaphore, watch};
use tokio_util::sync::CancellationToken;

pub use approval::{ApprovalDecision, ApprovalRequest, ApproveAll, Approver, DenyAll, FnApprover};

use crate::activity::{
    ActivityRecord, ActivityStatus, ActivityStore, ActivityUpdate, InMemoryActivityStore,
};
use crate::call::{Arguments, ToolCall, signature_of_arguments};
use crate::context::{Services, SessionState, ToolContext};
use crate::error::ToolError;
use crate::events::{Event, EventData, EventKind, EventStream};
use crate::registry::{Registry, ToolEntry};
use crate::render::ResourcesTracker;
use crate::spec::{Mode, PermissionSet, ToolSpec};
use crate::tool::AnyOutput;
use crate::validate::{MAX_ARGUMENTS_BYTES, nearest};

/// The default deadline of a call whose tool sets none.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// The default number of calls running at once in one runtime.
pub const DEFAULT_MAX_CONCURRENT: usize = 64;
/// The most distinct calls remembered per turn for the redundancy check.
pub const MAX_DEDUPE_ENTRIES: usize = 1024;

struct Inner {
    registry: Arc<Registry>,
    approver: Arc<dyn Approver>,
    activities: Arc<dyn ActivityStore>,
    events: EventStream,
    services: Arc<Services>,
    default_timeout: Duration,
    max_timeout: Duration,
    limiter: Arc<Semaphore>,
    dedupe: bool,
    approval_required: Vec<(String, Option<String>)>,
}

/// The next activity id's number, shared by every runtime of the process.
static NEXT_ACTIVITY: AtomicU64 = AtomicU64::new(1);

/// Runs calls against a registry. Cheap to clone.
#[derive(Clone)]
pub struct Runtime {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("tools", &self.inner.registry.len())
            .field("default_timeout", &self.inner.default_timeout)
            .finish_non_exhaustive()
    }
}

/// Configures a [`Runtime`].
pub struct RuntimeBuilder {
    registry: Arc<Registry>,
    approver: Arc<dyn Approver>,
    activities: Arc<dyn ActivityStore>,
    events: EventStream,
    services: Services,
    default_timeout: Duration,
    max_timeout: Duration,
    max_concurrent: usize,
    dedupe: bool,
    approval_required: Vec<(String, Option<String>)>,
}

impl std::fmt::Debug for RuntimeBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RuntimeBuilder").finish_non_exhaustive()
    }
}

impl RuntimeBuilder {
    /// Sets the approver (default: [`DenyAll`]).
    pub fn approver(mut self, a: impl Approver) -> Self {
        self.approver = Arc::new(a);
        self
    }

    /// Sets the activity store (default: [`InMemoryActivityStore`]).
    pub fn activity_store(mut self, s: Arc<dyn ActivityStore>) -> Self {
        self.activities = s;
        self
    }

    /// Uses an existing event stream (to share it with other parts of the host).
    pub fn events(mut self, e: EventStream) -> Self {
        self.events = e;
        self
    }

    /// Adds a service every tool can reach through [`ToolContext::service`].
    pub fn service<T: Send + Sync + 'static>(mut self, value: Arc<T>) -> Self {
        self.services.insert(value);
        self
    }

    /// Sets the deadline of calls whose tool sets none (default 60 s).
    pub fn default_timeout(mut self, d: Duration) -> Self {
        self.default_timeout = d;
        self
    }

    /// Caps every call's deadline, whatever the tool says (default 10 minutes).
    pub fn max_timeout(mut self, d: Duration) -> Self {
        self.max_timeout = d;
        self
    }

    /// Sets how many calls run at once; others wait their turn (default 64, at least 1).
    pub fn max_concurrent(mut self, n: usize) -> Self {
        self.max_concurrent = n.clamp(1, Semaphore::MAX_PERMITS);
        self
    }

    /// Turns the redundancy check on or off (default on).
    pub fn dedupe(mut self, on: bool) -> Self {
        self.dedupe = on;
        self
    }

    /// Requires approval for a tool, or for one action of it, on top of what the tool
    /// declares (e.g. `prompt_manager`'s `update` alone).
    pub fn require_approval(mut self, tool: impl Into<String>, action: Option<&str>) -> Self {
        self.approval_required
            .push((tool.into(), action.map(str::to_owned)));
        self
    }

    /// Builds the runtime.
    pub fn build(self) -> Runtime {
        Runtime {
            inner: Arc::new(Inner {
                registry: self.registry,
                approver: self.approver,
                activities: self.activities,
                events: self.events,
                services: Arc::new(self.services),
                default_timeout: self.default_timeout,
                max_timeout: self.max_timeout,
                limiter: Arc::new(Semaphore::new(self.max_concurrent)),
                dedupe: self.dedupe,
                approval_required: self.approval_required,
            }),
        }
    }
}

impl Runtime {
    /// A builder over a registry.
    pub fn builder(registry: impl Into<Arc<Registry>>) -> RuntimeBuilder {
        RuntimeBuilder {
            registry: registry.into(),
            approver: Arc::new(DenyAll),
            activities: Arc::new(InMemoryActivityStore::new()),
            events: EventStream::new(),
            services: Services::new(),
            default_timeout: DEFAULT_TIMEOUT,
            max_timeout: Duration::from_secs(600),
            max_concurrent: DEFAULT_MAX_CONCURRENT,
            dedupe: true,
            approval_required: Vec::new(),
        }
    }

    /// The registry.
    pub fn registry(&self) -> &Arc<Registry> {
        &self.inner.registry
    }

    /// The event stream.
    pub fn events(&self) -> &EventStream {
        &self.inner.events
    }

    /// The activity store.
    pub fn activities(&self) -> &Arc<dyn ActivityStore> {
        &self.inner.activities
    }

    /// A new session in mode `agent` with every permission.
    pub fn session(&self) -> Session {
        self.session_with(SessionConfig::default())
    }

    /// A new session.
    pub fn session_with(&self, config: SessionConfig) -> Session {
        Session {
            runtime: self.clone(),
            mode: config.mode,
            permissions: config.permissions,
            services: Arc::new(config.services),
            state: Arc::new(SessionState::default()),
            turn: Arc::new(Mutex::new(TurnCache::default())),
            cancel: CancellationToken::new(),
        }
    }
}

/// How a session is set up: its mode, its role's permissions, its own services (the current
/// agent, say).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SessionConfig {
    /// The mode (default `agent`).
    pub mode: Mode,
    /// The role's permissions (default: all).
    pub permissions: PermissionSet,
    /// Services for this session only; they shadow the runtime's.
    pub services: Services,
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            mode: Mode::Agent,
            permissions: PermissionSet::all(),
            services: Services::new(),
        }
    }
}

impl SessionConfig {
    /// Sets the mode.
    pub fn mode(mut self, m: Mode) -> Self {
        self.mode = m;
        self
    }
    /// Sets the permissions.
    pub fn permissions(mut self, p: PermissionSet) -> Self {
        self.permissions = p;
        self
    }
    /// Adds a session service.
    pub fn service<T: Send + Sync + 'static>(mut self, value: Arc<T>) -> Self {
        self.services.insert(value);
        self
    }
}

type SharedResult = Result<Arc<dyn AnyOutput>, ToolError>;

/// The calls of the current turn, for the redundancy check: `(tool, arguments)` to the first
/// call's id and a receiver of its result (`None` while it runs).
#[derive(Default)]
struct TurnCache {
    calls: HashMap<(String, String), (String, ResultSlot)>,
}

/// Where the first of identical calls publishes its result: `None` while it runs.
type ResultSlot = watch::Receiver<Option<SharedResult>>;

/// One conversation: mode, permissions, turn state. Cheap to clone; clones share state.
#[derive(Clone)]
pub struct Session {
    runtime: Runtime,
    mode: Mode,
    permissions: PermissionSet,
    services: Arc<Services>,
    state: Arc<SessionState>,
    turn: Arc<Mutex<TurnCache>>,
    cancel: CancellationToken,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("mode", &self.mode)
            .field("permissions", &self.permissions)
            .finish_non_exhaustive()
    }
}

/// The result of one call, with what the host needs to answer the provider.
#[derive(Clone)]
pub struct CallOutcome {
    /// The provider's call id.
    pub call_id: String,
    /// The activity id of this call.
    pub activity_id: String,
    /// The tool's name (alias resolved), or the name as called when unknown.
    pub tool: String,
    /// The output or the error.
    pub result: Result<Arc<dyn AnyOutput>, ToolError>,
    /// When the redundancy check answered from an earlier identical call, its call id.
    pub duplicate_of: Option<String>,
    /// How long the call took.
    pub elapsed: Duration,
}

impl std::fmt::Debug for CallOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallOutcome")
            .field("call_id", &self.call_id)
            .field("tool", &self.tool)
            .field("result", &self.to_json())
            .field("duplicate_of", &self.duplicate_of)
            .finish()
    }
}

impl CallOutcome {
    /// Whether the call succeeded (and its output reports success).
    pub fn is_success(&self) -> bool {
        self.result.as_ref().is_ok_and(|o| o.is_success())
    }

    /// The error, if it failed.
    pub fn error(&self) -> Option<&ToolError> {
        self.result.as_ref().err()
    }

    /// The structured result: the output's JSON, or the error's.
    pub fn to_json(&self) -> Value {
        match &self.result {
            Ok(o) => o.to_value().unwrap_or_else(|e| e.to_json()),
            Err(e) => e.to_json(),
        }
    }

    /// The status line for an activity list.
    pub fn status(&self) -> String {
        match &self.result {
            Ok(o) => o
                .status()
                .unwrap_or_else(|| format!("{} succeeded", self.tool)),
            Err(e) => format!("{} failed: {}", self.tool, e.message()),
        }
    }

    /// The text for the model, de-duplicating resources through `tracker`.
    pub fn model_text(&self, tracker: &mut ResourcesTracker) -> String {
        match &self.result {
            Ok(o) => o.model_text(tracker),
            Err(e) => e.to_json().to_string(),
        }
    }
}

impl Session {
    /// The runtime.
    pub fn runtime(&self) -> &Runtime {
        &self.runtime
    }

    /// The session's mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The session's permissions.
    pub fn permissions(&self) -> PermissionSet {
        self.permissions
    }

    /// The session state (turn counters, session values).
    pub fn state(&self) -> &SessionState {
        &self.state
    }

    /// Ends the current turn: per-turn counters and the redundancy cache reset.
    pub fn clear_current_turn(&self) {
        self.state.clear_turn();
        self.turn
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .calls
            .clear();
    }

    /// Clears all session state, turn included (the turn number moves on by one).
    pub fn clear_state(&self) {
        self.turn
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .calls
            .clear();
        self.state.clear_all();
    }

    /// Cancels every call running in this session; later calls are answered `cancelled`.
    pub fn cancel(&self) {
        self.cancel.cancel();
    }

    /// Runs several calls concurrently, answering in the order given.
    pub async fn call_all(&self, calls: Vec<ToolCall>) -> Vec<CallOutcome> {
        let mut set = tokio::task::JoinSet::new();
        let mut tasks = HashMap::new();
        let n = calls.len();
        for (i, call) in calls.into_iter().enumerate() {
            let s = self.clone();
            let (id, name) = (call.id.clone(), call.name.clone());
            let handle = set.spawn(async move { (i, s.call(call).await) });
            tasks.insert(handle.id(), (i, id, name));
        }
        let mut out: Vec<Option<CallOutcome>> = (0..n).map(|_| None).collect();
        while let Some(joined) = set.join_next_with_id().await {
            match joined {
                Ok((_, (i, outcome))) => out[i] = Some(outcome),
                // `call` does not panic (tools run on tasks of their own), but should it,
                // the caller still gets one answer per call, in order.
                Err(e) => {
                    if let Some((i, call_id, tool)) = tasks.remove(&e.id()) {
                        out[i] = Some(CallOutcome {
                            call_id,
                            activity_id: String::new(),
                            tool,
                            result: Err(ToolError::system("the call failed inside the runtime")),
                            duplicate_of: None,
                            elapsed: Duration::ZERO,
                        });
                    }
                }
            }
        }
        out.into_iter().flatten().collect()
    }

    /// Runs one call through the whole path and answers with its outcome; never panics,
    /// every failure is a [`ToolError`] in the outcome.
    pub async fn call(&self, call: ToolCall) -> CallOutcome {
        let started = Instant::now();
        // Activity ids are unique in the process, not only in this runtime: runtimes may
        // share one activity store.
        let activity_id = format!("act_{}", NEXT_ACTIVITY.fetch_add(1, Ordering::Relaxed));
        let mut outcome = CallOutcome {
            call_id: call.id.clone(),
            activity_id,
            tool: call.name.clone(),
            result: Err(ToolError::system("not run")),
            duplicate_of: None,
            elapsed: Duration::ZERO,
        };
        let result = self.run(&call, &mut outcome).await;
        outcome.result = result;
        outcome.elapsed = started.elapsed();
        outcome
    }

    async fn run(&self, call: &ToolCall, outcome: &mut CallOutcome) -> SharedResult {
        let inner = &self.runtime.inner;
        let Some(entry) = self.lookup(&call.name) else {
            let err = self.unknown_tool(call);
            return self
                .reject(outcome, &call.name, &call.arguments, false, err)
                .await;
        };
        let entry = entry.clone();
        let spec = entry.spec().clone();
        outcome.tool = spec.name.to_string();

        // A polymorphic tool's action decides permissions and approval, so its arguments are
        // parsed once up front (unless they are over the size limit, which validation
        // refuses unread); plain tools keep the text for the fast decode.
        let mut arguments = call.arguments.clone();
        let mut action: Option<String> = None;
        if let Some(set) = &spec.actions {
            if let Arguments::Text(t) = &arguments
                && t.len() <= MAX_ARGUMENTS_BYTES
                && let Ok(v) =
                    serde_json::from_str::<Value>(if t.trim().is_empty() { "{}" } else { t })
            {
                arguments = Arguments::Value(v);
            }
            if let Arguments::Value(v) = &arguments {
                action = v
                    .get(set.field.as_ref())
                    .and_then(Value::as_str)
                    .filter(|a| set.get(a).is_some())
                    .map(str::to_owned);
            }
        }
        let signature = || signature_of_arguments(&spec.name, &arguments);

        // A cancelled session runs nothing more.
        if self.cancel.is_cancelled() {
            let err = cancelled_error().with_signature(signature());
            return self
                .reject(outcome, &spec.name, &arguments, spec.user_facing, err)
                .await;
        }

        // Permissions: the tool's, then the chosen action's.
        let needed = spec.required_permissions(action.as_deref());
        let missing = self.permissions.missing(&needed);
        if !missing.is_empty() {
            let names: Vec<&str> = missing.iter().map(|p| p.as_str()).collect();
            let whose = match &action {
                Some(a) if self.permissions.contains_all(&spec.permissions) => {
                    format!("action `{a}`")
                }
                _ => "this tool".to_owned(),
            };
            let err = ToolError::permission(format!(
                "this session's role lacks the permission(s) {} that {whose} needs",
                names.join(", "),
            ))
            .with_field("missing_permissions", names)
            .with_signature(signature());
            return self
                .reject(outcome, &spec.name, &arguments, spec.user_facing, err)
                .await;
        }

        // Validation.
        let decoded = match entry.tool().decode(&arguments, entry.schema()) {
            Ok(d) => d,
            Err(e) => {
                let e = sign(e, signature);
                return self
                    .reject(outcome, &spec.name, &arguments, spec.user_facing, e)
                    .await;
            }
        };

        // Redundancy check: the same call twice in one turn runs once. The first call holds
        // the sender of a watch channel and publishes its result; an identical call waits
        // on a receiver and never runs the tool, however the two are scheduled.
        let mut publish = None;
        let mut wait_for = None;
        if inner.dedupe {
            let key = (spec.name.to_string(), arguments.to_json_text());
            let mut turn = self.turn.lock().unwrap_or_else(|e| e.into_inner());
            // A first call that was dropped before it finished leaves a closed, empty
            // channel: forget it and run again.
            let live = turn
                .calls
                .get(&key)
                .filter(|(_, rx)| rx.borrow().is_some() || rx.has_changed().is_ok())
                .cloned();
            match live {
                Some((first_id, rx)) => {
                    outcome.duplicate_of = Some(first_id);
                    wait_for = Some(rx);
                }
                None if turn.calls.len() < MAX_DEDUPE_ENTRIES || turn.calls.contains_key(&key) => {
                    let (tx, rx) = watch::channel(None);
                    turn.calls.insert(key, (call.id.clone(), rx));
                    publish = Some(tx);
                }
                None => {}
            }
        }

        if let Some(mut rx) = wait_for {
            return self
                .answer_duplicate(outcome, &spec, &arguments, &mut rx)
                .await;
        }
        let result = self
            .execute(
                call,
                &outcome.activity_id,
                &entry,
                action,
                &arguments,
                decoded,
            )
            .await;
        if let Some(tx) = publish {
            tx.send_replace(Some(result.clone()));
        }
        result
    }

    /// Answers a call identical to one made earlier in the turn with that call's result,
    /// once it is there. The duplicate gets its own activity (with `data.duplicate_of`) and
    /// its own START and END/ERROR pair; the tool does not run.
    async fn answer_duplicate(
        &self,
        outcome: &CallOutcome,
        spec: &ToolSpec,
        arguments: &Arguments,
        rx: &mut ResultSlot,
    ) -> SharedResult {
        let inner = &self.runtime.inner;
        let first_id = outcome.duplicate_of.clone().unwrap_or_default();
        let mut record = ActivityRecord::new(
            outcome.activity_id.clone(),
            spec.name.to_string(),
            bounded_input(arguments),
            spec.user_facing,
        );
        record
            .data
            .insert("duplicate_of".into(), Value::String(first_id.clone()));
        let input = record.input.clone();
        inner.activities.create(record).await;
        inner.events.emit(Event::new(
            EventKind::ToolCallStart,
            outcome.activity_id.clone(),
            spec.name.to_string(),
            EventData::Start { arguments: input },
        ));
        let result = tokio::select! {
            waited = rx.wait_for(Option::is_some) => match waited {
                // `wait_for` returns once the value is `Some`.
                Ok(r) => r.clone().unwrap_or_else(|| Err(cancelled_error())),
                Err(_) => Err(ToolError::system(format!(
                    "the identical call `{first_id}` was abandoned before it finished; call again"
                ))
                .with_signature(signature_of_arguments(&spec.name, arguments))),
            },
            _ = self.cancel.cancelled() => {
                Err(cancelled_error().with_signature(signature_of_arguments(&spec.name, arguments)))
            }
        };
        self.finish(&outcome.activity_id, &spec.name, &result).await;
        result
    }

    fn lookup(&self, name: &str) -> Option<&Arc<ToolEntry>> {
        self.runtime
            .inner
            .registry
            .get(name)
            .filter(|e| e.spec().supports_mode(self.mode))
    }

    fn unknown_tool(&self, call: &ToolCall) -> ToolError {
        let registry = &self.runtime.inner.registry;
        let available = registry.names_in_mode(self.mode);
        if let Some(e) = registry.get(&call.name) {
            return ToolError::permission(format!(
                "tool `{}` is not available in mode `{}`",
                e.name(),
                self.mode
            ))
            .with_field("available_tools", available.clone())
            .with_signature(call.signature());
        }
        let aliases: Vec<&str> = registry
            .iter()
            .filter(|e| e.spec().supports_mode(self.mode))
            .flat_map(|e| e.spec().aliases.iter().map(|a| a.as_ref()))
            .collect();
        let near = nearest(
            &call.name,
            available.iter().copied().chain(aliases.iter().copied()),
        )
        .map(|n| registry.get(n).map_or(n, |e| e.name()));
        let mut err = ToolError::not_found(format!("Unknown tool '{}'", call.name))
            .with_field("available_tools", available.clone())
            .with_signature(call.signature());
        let list = available.join(", ");
        err = match near {
            Some(n) => err
                .with_field("did_you_mean", n)
                .with_suggestion(format!("Did you mean `{n}`? Tools available: {list}")),
            None => err.with_suggestion(format!("Tools available: {list}")),
        };
        err
    }

    /// Answers a call refused before its tool ran (unknown tool, mode, permission,
    /// validation, approval, a cancelled session). It still gets an activity record, which
    /// fails at once, and a START + ERROR pair, so every call's events pair up.
    async fn reject(
        &self,
        outcome: &CallOutcome,
        name: &str,
        args: &Arguments,
        user_facing: bool,
        err: ToolError,
    ) -> SharedResult {
        let inner = &self.runtime.inner;
        let input = bounded_input(args);
        inner
            .activities
            .create(ActivityRecord::new(
                outcome.activity_id.clone(),
                name,
                input.clone(),
                user_facing,
            ))
            .await;
        inner.events.emit(Event::new(
            EventKind::ToolCallStart,
            outcome.activity_id.clone(),
            name,
            EventData::Start { arguments: input },
        ));
        let result = Err(err);
        self.finish(&outcome.activity_id, name, &result).await;
        result
    }

    async fn finish(&self, activity_id: &str, tool: &str, result: &SharedResult) {
        let inner = &self.runtime.inner;
        match result {
            Ok(output) => {
                let value = output.to_value().unwrap_or(Value::Null);
                let data = match &value {
                    Value::Object(m) => m.clone(),
                    other => {
                        let mut m = Map::new();
                        m.insert("result".into(), other.clone());
                        m
                    }
                };
                inner
                    .activities
                    .update(
                        activity_id,
                        ActivityUpdate::Finish {
                            status: if output.is_success() {
                                ActivityStatus::Success
                            } else {
                                ActivityStatus::Failure
                            },
                            data: Some(data),
                            error: None,
                        },
                    )
                    .await;
                inner.events.emit(Event::new(
                    EventKind::ToolCallEnd,
                    activity_id,
                    tool,
                    EventData::End {
                        success: output.is_success(),
                        result: value,
                    },
                ));
            }
            Err(e) => {
                inner
                    .activities
                    .update(
                        activity_id,
                        ActivityUpdate::Finish {
                            status: ActivityStatus::Failure,
                            data: None,
                            error: Some(e.full_message()),
                        },
                    )
                    .await;
                inner.events.emit(Event::new(
                    EventKind::Error,
                    activity_id,
                    tool,
                    EventData::Error { error: e.to_json() },
                ));
            }
        }
    }

    async fn execute(
        &self,
        call: &ToolCall,
        activity_id: &str,
        entry: &Arc<ToolEntry>,
        action: Option<String>,
        arguments: &Arguments,
        decoded: crate::tool::DecodedInput,
    ) -> SharedResult {
        let inner = &self.runtime.inner;
        let spec = entry.spec().clone();
        let signature = || signature_of_arguments(&spec.name, arguments);
        let outcome_stub = |err: &ToolError| CallOutcome {
            call_id: call.id.clone(),
            activity_id: activity_id.to_owned(),
            tool: spec.name.to_string(),
            result: Err(err.clone()),
            duplicate_of: None,
            elapsed: Duration::ZERO,
        };

        // Approval gate.
        let forced = inner.approval_required.iter().any(|(t, a)| {
            t == spec.name.as_ref() && (a.is_none() || a.as_deref() == action.as_deref())
        });
        if spec.needs_approval(action.as_deref()) || forced {
            let request = ApprovalRequest {
                call_id: call.id.clone(),
                tool: spec.name.to_string(),
                action: action.clone(),
                arguments: arguments.to_value().unwrap_or(Value::Null),
                signature: signature(),
            };
            if let ApprovalDecision::Deny { reason } = inner.approver.approve(&request).await {
                let msg = match reason {
                    Some(r) => format!("the call was not approved: {r}"),
                    None => "the call was not approved".to_owned(),
                };
                let err = ToolError::new(crate::error::ErrorKind::ApprovalDenied, msg)
                    .with_suggestion(
                        "Do not retry the same call; ask the user or take another approach.",
                    )
                    .with_signature(request.signature);
                return self
                    .reject(
                        &outcome_stub(&err),
                        &spec.name,
                        arguments,
                        spec.user_facing,
                        err,
                    )
                    .await;
            }
        }

        // Activity record and START.
        let input = bounded_input(arguments);
        inner
            .activities
            .create(ActivityRecord::new(
                activity_id.to_owned(),
                spec.name.to_string(),
                input.clone(),
                spec.user_facing,
            ))
            .await;
        inner.events.emit(Event::new(
            EventKind::ToolCallStart,
            activity_id.to_owned(),
            spec.name.to_string(),
            EventData::Start { arguments: input },
        ));

        // Run on a task of its own (a panic stays there), in a concurrency slot, under a
        // deadline that starts once the slot is got, with a cancellation token the deadline
        // and the session both cancel.
        let timeout = spec
            .timeout
            .unwrap_or(inner.default_timeout)
            .min(inner.max_timeout);
        let cancel = self.cancel.child_token();
        let mut ctx = ToolContext {
            call_id: Arc::from(activity_id),
            tool: Arc::from(spec.name.as_ref()),
            mode: self.mode,
            session: self.state.clone(),
            services: inner.services.clone(),
            session_services: self.services.clone(),
            cancel: cancel.clone(),
            deadline: None,
            events: inner.events.clone(),
            activities: inner.activities.clone(),
        };
        let tool = entry.tool().clone();
        let limiter = inner.limiter.clone();
        let task = tokio::spawn(async move {
            let _permit = limiter.acquire_owned().await;
            ctx.deadline = Instant::now().checked_add(timeout);
            match tokio::time::timeout(timeout, tool.invoke(&ctx, decoded)).await {
                Ok(result) => result,
                Err(_) => {
                    ctx.cancel.cancel();
                    Err(ToolError::new(
                        crate::error::ErrorKind::Timeout,
                        format!("the call did not finish within {}", human_duration(timeout)),
                    )
                    .with_suggestion(
                        "Try a smaller request, or raise the tool's timeout if it allows one.",
                    ))
                }
            }
        });
        // If this call is dropped (its caller gave up), the tool is stopped too.
        let guard = AbortOnDrop(task.abort_handle(), cancel.clone());
        let result: SharedResult = tokio::select! {
            joined = task => match joined {
                Ok(r) => r,
                Err(join) if join.is_panic() => Err(ToolError::system(
                    "the tool panicked; this is a bug in the tool, not in the call",
                )),
                Err(_) => Err(cancelled_error()),
            },
            _ = self.cancel.cancelled() => Err(cancelled_error()),
        };
        drop(guard);
        let result = result.map_err(|e| sign(e, signature));
        self.finish(activity_id, &spec.name, &result).await;
        result
    }
}

/// Aborts a tool's task and cancels its token when dropped: when the call is answered (the
/// task is done by then, or must stop because the session was cancelled) or abandoned.
struct AbortOnDrop(tokio::task::AbortHandle, CancellationToken);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if !self.0.is_finished() {
            self.1.cancel();
            self.0.abort();
        }
    }
}

fn cancelled_error() -> ToolError {
    ToolError::new(crate::error::ErrorKind::Cancelled, "the call was cancelled")
}

/// Prefixes an error with the call's signature unless it already has one.
fn sign(err: ToolError, signature: impl FnOnce() -> String) -> ToolError {
    if err.signature().is_some() {
        err
    } else {
        err.with_signature(signature())
    }
}

/// The arguments as an activity record and a START event keep them: the parsed value, the
/// text when it does not parse, a note when it is over the size limit.
fn bounded_input(arguments: &Arguments) -> Value {
    match arguments {
        Arguments::Value(v) => v.clone(),
        Arguments::Text(t) if t.len() > MAX_ARGUMENTS_BYTES => Value::String(format!(
            "({} bytes of arguments, over the {MAX_ARGUMENTS_BYTES}-byte limit; not kept)",
            t.len()
        )),
        Arguments::Text(t) if t.trim().is_empty() => Value::Object(Map::new()),
        Arguments::Text(t) => serde_json::from_str(t).unwrap_or_else(|_| Value::String(t.clone())),
    }
}

fn human_duration(d: Duration) -> String {
    if d.as_millis() < 1000 {
        format!("{} ms", d.as_millis())
    } else if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}
