//! [`Session`]: one conversation, and a call's path up to the redundancy check.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::dedupe::{Admission, TurnCache};
use super::execute::{Prepared, cancelled_error, sign};
use super::{CallOutcome, Runtime, SharedResult, next_activity_id};
use crate::call::{Arguments, ToolCall, signature_of_arguments};
use crate::context::{Services, SessionState};
use crate::error::ToolError;
use crate::registry::ToolEntry;
use crate::spec::{Mode, PermissionSet};
use crate::validate::{MAX_ARGUMENTS_BYTES, nearest};

/// What [`Session::run`] learns about a call besides its result.
struct Answer {
    /// The tool's name when it was called by an alias (else the name as called stands).
    tool: Option<String>,
    /// The earlier identical call that answered this one.
    duplicate_of: Option<String>,
}

/// One conversation: mode, permissions, turn state. Cheap to clone; clones share state.
#[derive(Clone)]
pub struct Session {
    pub(super) runtime: Runtime,
    pub(super) mode: Mode,
    pub(super) permissions: PermissionSet,
    pub(super) services: Arc<Services>,
    pub(super) state: Arc<SessionState>,
    pub(super) turn: Arc<Mutex<TurnCache>>,
    pub(super) cancel: CancellationToken,
    pub(super) observer: Option<CallObserver>,
}

/// Sees the chunk and progress events of one call as its tool emits them (called on the
/// tool's task: it must not block). Every `Fn(&Event) + Send + Sync` closure is one.
pub trait EventObserver: Send + Sync {
    /// Sees one event.
    fn observe(&self, event: &crate::events::Event);
}

impl<F: Fn(&crate::events::Event) + Send + Sync> EventObserver for F {
    fn observe(&self, event: &crate::events::Event) {
        self(event);
    }
}

/// A call's (or a session's) observer, shared with the call's context.
pub type CallObserver = Arc<dyn EventObserver>;

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
}

impl CallOptions {
    /// Whether the session or the call was cancelled.
    pub(super) fn is_cancelled(&self, session: &CancellationToken) -> bool {
        session.is_cancelled() || self.cancel.as_ref().is_some_and(|t| t.is_cancelled())
    }

    /// Completes once the session or the call is cancelled.
    pub(super) async fn cancelled(&self, session: &CancellationToken) {
        match &self.cancel {
            None => session.cancelled().await,
            Some(call) => {
                tokio::select! {
                    biased;
                    () = session.cancelled() => {}
                    () = call.cancelled() => {}
                }
            }
        }
    }

    /// The call's observer, else the session's.
    pub(super) fn observer_or(&self, session: &Option<CallObserver>) -> Option<CallObserver> {
        self.observer.clone().or_else(|| session.clone())
    }
}

impl std::fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallOptions")
            .field("cancel", &self.cancel)
            .field("observer", &self.observer.is_some())
            .finish()
    }
}

impl CallOptions {
    /// No token, no observer: the same as [`Session::call`].
    pub fn new() -> Self {
        Self::default()
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
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("mode", &self.mode)
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
        self.clear_turn();
    }

    /// Clears all session state, turn included (the turn number moves on by one).
    pub fn clear_state(&self) {
        self.clear_turn();
        self.state.clear_all();
    }

    /// Cancels every call running in this session; later calls are answered `cancelled`.
    pub fn cancel(&self) {
        self.cancel.cancel();
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
        self.call_in(call, options)
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
                // `call` does not panic (a tool's panic is caught where it is polled), but
                // should it, the caller still gets one answer per call, in order.
                Err(e) => {
                    if let Some((i, call_id, tool)) = tasks.remove(&e.id()) {
                        out[i] = Some(CallOutcome::rejected(
                            call_id,
                            tool,
                            ToolError::system("the call failed inside the runtime"),
                        ));
                    }
                }
            }
        }
        out.into_iter().flatten().collect()
    }

    /// Runs one call through the whole path and answers with its outcome; never panics,
    /// every failure is a [`ToolError`] in the outcome.
    ///
    /// Call it inside a tokio runtime with the time driver on (`enable_all()`, or
    /// `enable_time()`; `#[tokio::main]` and `#[tokio::test]` have it): every call runs under
    /// a deadline. Without the driver the call does not run, and is answered with a
    /// `system_error` that says so (tokio's own panic message is caught on the way, so it is
    /// printed by the panic hook; a build with `panic = "abort"` aborts there instead).
    pub fn call(&self, call: ToolCall) -> impl Future<Output = CallOutcome> + Send + '_ {
        self.call_in(call, CallOptions::default())
    }

    /// The call's future. Not an `async fn`: what is made before the first await is made
    /// here and moved into the future once, not kept twice in it (a future is copied whole
    /// each time it moves, and servers spawn one per call).
    fn call_in(
        &self,
        mut call: ToolCall,
        scope: CallOptions,
    ) -> impl Future<Output = CallOutcome> + Send + '_ {
        let started = Instant::now();
        // Activity ids are unique in the process, not only in this runtime: runtimes may
        // share one activity store.
        let activity_id = next_activity_id();
        // The arguments are shared from here on (the activity record keeps them as they
        // came), not copied.
        let arguments = Arc::new(std::mem::replace(
            &mut call.arguments,
            Arguments::Text(String::new()),
        ));
        async move {
            let mut answer = Answer {
                tool: None,
                duplicate_of: None,
            };
            let result = self
                .run(&call, arguments, &activity_id, &mut answer, &scope)
                .await;
            CallOutcome {
                call_id: call.id,
                activity_id,
                tool: answer.tool.unwrap_or(call.name),
                result,
                duplicate_of: answer.duplicate_of,
                elapsed: started.elapsed(),
            }
        }
    }

    async fn run(
        &self,
        call: &ToolCall,
        arguments: Arc<Arguments>,
        activity_id: &Arc<str>,
        answer: &mut Answer,
        scope: &CallOptions,
    ) -> SharedResult {
        let inner = &self.runtime.inner;
        let Some(entry) = self.lookup(&call.name) else {
            let err = self.unknown_tool(&call.name, &arguments);
            return self
                .reject(activity_id, &call.name, &arguments, false, err)
                .await;
        };
        let entry = entry.clone();
        let spec = entry.spec();
        // Called by an alias: the outcome names the tool.
        if spec.name != call.name.as_str() {
            answer.tool = Some(spec.name.to_string());
        }

        // A polymorphic tool's action decides permissions and approval, so its arguments are
        // parsed once up front (unless they are over the size limit, which validation
        // refuses unread); plain tools keep the text for the fast decode.
        let mut arguments = arguments;
        let mut action: Option<String> = None;
        if let Some(set) = &spec.actions {
            if let Arguments::Text(t) = &*arguments
                && t.len() <= MAX_ARGUMENTS_BYTES
                && let Ok(v) =
                    serde_json::from_str::<Value>(if t.trim().is_empty() { "{}" } else { t })
            {
                arguments = Arc::new(Arguments::Value(v));
            }
            if let Arguments::Value(v) = &*arguments {
                action = v
                    .get(set.field.as_ref())
                    .and_then(Value::as_str)
                    .filter(|a| set.get(a).is_some())
                    .map(str::to_owned);
            }
        }
        let arguments = &arguments;
        let signature = || signature_of_arguments(&spec.name, arguments);

        // A cancelled session runs nothing more (nor a call cancelled before it began).
        if scope.is_cancelled(&self.cancel) {
            let err = cancelled_error().with_signature(signature());
            return self.refuse(activity_id, spec, arguments, err).await;
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
            return self.refuse(activity_id, spec, arguments, err).await;
        }

        // Validation. The typed input goes straight into the call's future, made here and
        // polled once the call has passed the gates below.
        let ctx = self.context(activity_id, &entry, scope);
        let future = match entry.tool().start(&ctx, arguments, entry.schema()) {
            Ok(f) => f,
            Err(e) => {
                let e = sign(e, signature);
                return self.refuse(activity_id, spec, arguments, e).await;
            }
        };

        // Redundancy check (see the module docs): the same call twice in one turn runs once.
        let key = inner
            .dedupe
            .then(|| (spec.name.to_string(), arguments.to_json_text()));
        let publish = match &key {
            None => None,
            Some(key) => match self.admit(key.clone(), &call.id) {
                Admission::Duplicate { first_id, mut slot } => {
                    answer.duplicate_of = Some(first_id.clone());
                    // Boxed: only duplicates take this path.
                    return Box::pin(self.answer_duplicate(
                        activity_id,
                        first_id,
                        spec,
                        arguments,
                        &mut slot,
                        scope,
                    ))
                    .await;
                }
                Admission::First(tx) => Some(tx),
                Admission::Untracked => None,
            },
        };
        let writes = key.filter(|_| !spec.is_read_only(action.as_deref()));
        let prepared = Prepared {
            call,
            activity_id,
            entry: &entry,
            action,
            arguments,
            writes,
            ctx: &ctx,
            scope,
        };
        let result = self.execute(&prepared, future).await;
        if let Some(tx) = publish {
            tx.send_replace(Some(result.clone()));
        }
        result
    }

    fn lookup(&self, name: &str) -> Option<&Arc<ToolEntry>> {
        self.runtime
            .inner
            .registry
            .get(name)
            .filter(|e| e.spec().supports_mode(self.mode))
    }

    fn unknown_tool(&self, name: &str, arguments: &Arguments) -> ToolError {
        let registry = &self.runtime.inner.registry;
        let available = registry.names_in_mode(self.mode);
        if let Some(e) = registry.get(name) {
            return ToolError::permission(format!(
                "tool `{}` is not available in mode `{}`",
                e.name(),
                self.mode
            ))
            .with_field("available_tools", available.clone())
            .with_signature(signature_of_arguments(name, arguments));
        }
        let aliases: Vec<&str> = registry
            .iter()
            .filter(|e| e.spec().supports_mode(self.mode))
            .flat_map(|e| e.spec().aliases.iter().map(|a| a.as_ref()))
            .collect();
        let near = nearest(
            name,
            available.iter().copied().chain(aliases.iter().copied()),
        )
        .map(|n| registry.get(n).map_or(n, |e| e.name()));
        let mut err = ToolError::not_found(format!("Unknown tool '{name}'"))
            .with_field("available_tools", available.clone())
            .with_signature(signature_of_arguments(name, arguments));
        let list = available.join(", ");
        err = match near {
            Some(n) => err
                .with_field("did_you_mean", n)
                .with_suggestion(format!("Did you mean `{n}`? Tools available: {list}")),
            None => err.with_suggestion(format!("Tools available: {list}")),
        };
        err
    }
}
