//! [`Session`]: one conversation: its mode, its role's permissions, its turn.

use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;

use super::call::Call;
use super::turn::TurnCache;
use super::{CallOutcome, Runtime};
use crate::call::ToolCall;
use crate::context::{SessionParts, SessionState};
use crate::error::ToolError;
use crate::events::CallObserver;
use crate::spec::{Mode, PermissionSet};

/// One conversation: mode, permissions, turn state. Cheap to clone; clones share state.
#[derive(Clone)]
pub struct Session {
    pub(super) runtime: Runtime,
    pub(super) permissions: PermissionSet,
    /// What every call's context of this session shares (mode, state, services, token).
    pub(super) parts: Arc<SessionParts>,
    pub(super) turn: Arc<Mutex<TurnCache>>,
}

/// How [`Session::call_with`] runs one call: a cancellation token of its own and a watcher
/// of its events.
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct CallOptions {
    /// Cancels this call alone (the session's other calls go on): the tool's token fires and
    /// the call is answered `cancelled`, its activity ending `failure`.
    pub cancel: Option<CancellationToken>,
    /// Sees the call's `TOOL_OUTPUT_CHUNK` and `PROGRESS` events (they still go to the
    /// runtime's event stream too).
    pub observer: Option<CallObserver>,
    /// The parent of the call's span (default: the span current when the call is made).
    pub parent: Option<tracing::Span>,
    /// A remote caller's trace context: the parent of the exported span (with tool-core's
    /// feature `otel`), and `toolsmith.traceparent` on the span.
    pub trace_context: Option<crate::trace::TraceContext>,
    /// Decides this call's approval instead of the runtime's approver (an MCP server asks
    /// the client's user through it).
    pub approver: Option<Arc<dyn crate::approval::Approver>>,
    /// The conversation this call belongs to, in place of the session's (an MCP request
    /// that names its conversation, say).
    pub conversation: Option<Arc<crate::activity::Conversation>>,
    /// The question this call answers, asked by an earlier call whose approver deferred
    /// ([`ApprovalDecision::Defer`](crate::ApprovalDecision::Defer)): that call's record
    /// continues as this call's (see [`continues`](Self::continues)).
    pub continues: Option<Continues>,
}

/// The earlier call whose question a call answers ([`CallOptions::continues`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Continues {
    /// The earlier call's activity record (`awaiting_approval`).
    pub activity_id: Arc<str>,
    /// When it asked, in milliseconds since the Unix epoch: the record's wait is counted
    /// from it.
    pub asked_at_ms: u64,
}

impl Continues {
    /// The question the call `activity_id` asked at `asked_at_ms`.
    pub fn new(activity_id: impl Into<Arc<str>>, asked_at_ms: u64) -> Self {
        Continues {
            activity_id: activity_id.into(),
            asked_at_ms,
        }
    }
}

impl std::fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallOptions")
            .field("cancel", &self.cancel)
            .field("observer", &self.observer.is_some())
            .field("parent", &self.parent)
            .field("trace_context", &self.trace_context)
            .field("approver", &self.approver.is_some())
            .field("conversation", &self.conversation)
            .field("continues", &self.continues)
            .finish()
    }
}

impl CallOptions {
    /// No token, no observer: the same as [`Session::call`].
    pub fn new() -> Self {
        Self::default()
    }

    /// Has `approver` decide this call's approval (see [`approver`](Self::approver)).
    pub fn approver(mut self, approver: Arc<dyn crate::approval::Approver>) -> Self {
        self.approver = Some(approver);
        self
    }

    /// Cancels the call when `token` fires.
    pub fn cancel(mut self, token: CancellationToken) -> Self {
        self.cancel = Some(token);
        self
    }

    /// Sets the observer of the call's chunk and progress events.
    pub fn observer(mut self, f: impl Fn(&crate::events::Event) + Send + Sync + 'static) -> Self {
        self.observer = Some(Arc::new(f));
        self
    }

    /// Sets the parent of the call's span (see [`CALL_TARGET`](crate::CALL_TARGET)).
    pub fn parent(mut self, span: tracing::Span) -> Self {
        self.parent = Some(span);
        self
    }

    /// Sets the conversation this call belongs to (see [`conversation`](Self::conversation)).
    pub fn conversation(mut self, conversation: Arc<crate::activity::Conversation>) -> Self {
        self.conversation = Some(conversation);
        self
    }

    /// Makes the call the one that brings the answer to the question an earlier call asked
    /// and deferred ([`ApprovalDecision::Defer`](crate::ApprovalDecision::Defer)): it runs
    /// under that call's activity id, and the record, `awaiting_approval` since
    /// `continues.asked_at_ms`, goes on as this call's (`in_progress` once allowed, or
    /// `failure` when not) instead of a new one.
    pub fn continues(mut self, continues: Continues) -> Self {
        self.continues = Some(continues);
        self
    }

    /// Sets the remote caller's trace context (see [`CALL_TARGET`](crate::CALL_TARGET)).
    pub fn trace_context(mut self, context: crate::trace::TraceContext) -> Self {
        self.trace_context = Some(context);
        self
    }
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("mode", &self.parts.mode)
            .field("permissions", &self.permissions)
            .finish_non_exhaustive()
    }
}

impl Session {
    /// The runtime.
    pub fn runtime(&self) -> &Runtime {
        &self.runtime
    }

    /// The session's mode.
    pub fn mode(&self) -> Mode {
        self.parts.mode
    }

    /// The session's permissions.
    pub fn permissions(&self) -> PermissionSet {
        self.permissions
    }

    /// The session's tool selection, if it has one
    /// ([`SessionConfig::tools`](field@crate::SessionConfig::tools)).
    pub fn selected_tools(&self) -> Option<&crate::SelectedTools> {
        self.parts.tools.as_ref()
    }

    /// The tools the session offers, sorted by name: those of its mode and, when it has
    /// one, its selection. What an agent loop exports to its model; a call of any other tool
    /// is refused.
    pub fn offered(&self) -> impl Iterator<Item = &std::sync::Arc<crate::ToolEntry>> {
        self.runtime
            .registry()
            .offered(self.parts.mode, self.parts.tools.as_ref())
    }

    /// The conversation the session's calls belong to.
    pub fn conversation(&self) -> &Arc<crate::activity::Conversation> {
        &self.parts.conversation
    }

    /// The session state (turn counters, session values).
    pub fn state(&self) -> &SessionState {
        &self.parts.state
    }

    /// Ends the current turn: per-turn counters and the redundancy cache reset.
    pub fn clear_current_turn(&self) {
        self.parts.state.clear_turn();
        self.turn().clear();
    }

    /// Clears all session state, turn included (the turn number moves on by one).
    pub fn clear_state(&self) {
        self.turn().clear();
        self.parts.state.clear_all();
    }

    /// Cancels every call running in this session; later calls are answered `cancelled`.
    pub fn cancel(&self) {
        self.parts.cancel.cancel();
    }

    /// The turn's memory of calls, for the redundancy check.
    pub(super) fn turn(&self) -> std::sync::MutexGuard<'_, TurnCache> {
        self.turn.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs one call like [`Session::call`], with its own cancellation token and an observer
    /// of its events ([`CallOptions`]). A cancelled call still ends through the runtime's
    /// path: the tool's token fires, the answer is a `cancelled` error and the activity ends
    /// `failure`.
    pub fn call_with(
        &self,
        call: ToolCall,
        options: CallOptions,
    ) -> impl Future<Output = CallOutcome> + Send + '_ {
        Call::new(self, call, options).run()
    }

    /// Runs several calls concurrently, each on a task of its own, answering in the order
    /// given. Dropping the future abandons the calls still running.
    pub async fn call_all(&self, calls: Vec<ToolCall>) -> Vec<CallOutcome> {
        let names: Vec<_> = calls
            .iter()
            .map(|c| (c.id.clone(), c.name.clone()))
            .collect();
        let mut set = tokio::task::JoinSet::new();
        for (i, call) in calls.into_iter().enumerate() {
            let s = self.clone();
            set.spawn(async move { (i, s.call(call).await) });
        }
        let mut out: Vec<Option<CallOutcome>> = names.iter().map(|_| None).collect();
        while let Some(joined) = set.join_next().await {
            if let Ok((i, outcome)) = joined {
                out[i] = Some(outcome);
            }
        }
        // `call` does not panic (a tool's panic is caught where it is polled), but should it,
        // the caller still gets one answer per call, in order.
        let failed = || ToolError::system("the call failed inside the runtime");
        let answers = out.into_iter().zip(names);
        answers
            .map(|(o, (id, name))| o.unwrap_or_else(|| CallOutcome::rejected(id, name, failed())))
            .collect()
    }

    /// Runs one call through the whole path and answers with its outcome; never panics,
    /// every failure is a [`ToolError`] in the outcome.
    ///
    /// Call it inside a tokio runtime with the time driver on (`enable_all()`, or
    /// `enable_time()`; `#[tokio::main]` and `#[tokio::test]` have it): every call runs under
    /// a deadline. Without the driver the call does not run, and is answered with a
    /// `system_error` that says so (tokio's own panic message is caught on the way, so it is
    /// printed by the panic hook; a build with `panic = "abort"` aborts there instead).
    ///
    /// Dropping the future before it is done abandons the call: its tool's token fires and,
    /// if it had begun, its activity ends `failure` with its `ERROR` event.
    pub fn call(&self, call: ToolCall) -> impl Future<Output = CallOutcome> + Send + '_ {
        Call::new(self, call, CallOptions::default()).run()
    }
}
