//! What a running tool sees: [`ToolContext`], the host's [`Services`] and the session's
//! per-turn state.

use std::any::{Any, TypeId, type_name};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::activity::{ActivityStore, ActivityUpdate, Conversation, InMemoryActivityStore};
use crate::error::ToolError;
use crate::events::{CallObserver, Event, EventData, EventKind, EventStream};
use crate::spec::Mode;

/// Typed values a host injects for tools to use: stores, an HTTP client, a workspace policy.
/// One value per type.
///
/// ```
/// use std::sync::Arc;
/// let mut services = tool_core::Services::new();
/// services.insert(Arc::new(String::from("hello")));
/// assert_eq!(services.get::<String>().as_deref().map(String::as_str), Some("hello"));
/// ```
#[derive(Clone, Default)]
pub struct Services {
    map: HashMap<TypeId, (Arc<dyn Any + Send + Sync>, &'static str)>,
}

impl std::fmt::Debug for Services {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set()
            .entries(self.map.values().map(|(_, n)| n))
            .finish()
    }
}

impl Services {
    /// No services.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) the service of type `T`.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: Arc<T>) {
        self.map
            .insert(TypeId::of::<T>(), (value, type_name::<T>()));
    }

    /// Adds a service, builder style.
    pub fn with<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.insert(Arc::new(value));
        self
    }

    /// The service of type `T`.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.map
            .get(&TypeId::of::<T>())
            .and_then(|(v, _)| v.clone().downcast::<T>().ok())
    }

    /// Whether a service of type `T` is present.
    pub fn contains<T: Send + Sync + 'static>(&self) -> bool {
        self.map.contains_key(&TypeId::of::<T>())
    }
}

/// What the checks before a tool worked out about its call (a policy's parse of a command
/// line), left for the tool so that it need not work it out again: one value per type.
///
/// The runtime gives a call's [`PolicyCall`](crate::policy::PolicyCall) the notes of the
/// context its tool then runs with ([`ToolContext::notes`]). A note is made from the same
/// validated arguments the tool reads, but a tool called outside the runtime gets none, so a
/// tool takes a note only when it is about its own input and otherwise works it out itself.
///
/// ```
/// use std::sync::Arc;
/// let notes = tool_core::CallNotes::new();
/// notes.insert(Arc::new(String::from("parsed")));
/// assert_eq!(notes.get::<String>().as_deref().map(String::as_str), Some("parsed"));
/// assert!(notes.get::<u32>().is_none());
/// ```
#[derive(Default)]
pub struct CallNotes {
    values: Mutex<Vec<(TypeId, Arc<dyn Any + Send + Sync>)>>,
}

/// The most notes one call keeps; one more replaces none and is dropped.
const MAX_CALL_NOTES: usize = 16;

impl CallNotes {
    /// No notes.
    pub fn new() -> Self {
        Self::default()
    }

    /// Leaves (or replaces) the note of type `T`.
    pub fn insert<T: Send + Sync + 'static>(&self, value: Arc<T>) {
        let mut values = self.values.lock().unwrap_or_else(|e| e.into_inner());
        let id = TypeId::of::<T>();
        if let Some(slot) = values.iter_mut().find(|(t, _)| *t == id) {
            slot.1 = value;
        } else if values.len() < MAX_CALL_NOTES {
            values.push((id, value));
        }
    }

    /// The note of type `T`, if one was left.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        let values = self.values.lock().unwrap_or_else(|e| e.into_inner());
        let id = TypeId::of::<T>();
        values
            .iter()
            .find(|(t, _)| *t == id)
            .and_then(|(_, v)| v.clone().downcast::<T>().ok())
    }
}

impl Clone for CallNotes {
    fn clone(&self) -> Self {
        let values = self.values.lock().unwrap_or_else(|e| e.into_inner());
        CallNotes {
            values: Mutex::new(values.clone()),
        }
    }
}

impl std::fmt::Debug for CallNotes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let count = self.values.lock().map_or(0, |v| v.len());
        f.debug_struct("CallNotes").field("count", &count).finish()
    }
}

/// The most counters one turn keeps.
pub const MAX_TURN_COUNTERS: usize = 1024;

/// State that lives for one conversation (a session) and its current turn.
#[derive(Debug, Default)]
pub struct SessionState {
    turn: Mutex<TurnState>,
    values: Mutex<Map<String, Value>>,
}

#[derive(Debug, Default)]
struct TurnState {
    number: u64,
    counters: HashMap<String, u64>,
}

impl SessionState {
    /// The current turn's number (starts at 0, bumped by `clear_current_turn`).
    pub fn turn_number(&self) -> u64 {
        self.turn.lock().unwrap_or_else(|e| e.into_inner()).number
    }

    /// Adds one to a per-turn counter and returns the new value (the web tool's search
    /// limit). At most [`MAX_TURN_COUNTERS`] distinct counters exist per turn; past it a new
    /// key counts as `u64::MAX`, so limits fail closed.
    pub fn increment(&self, key: &str) -> u64 {
        let mut turn = self.turn.lock().unwrap_or_else(|e| e.into_inner());
        if !turn.counters.contains_key(key) && turn.counters.len() >= MAX_TURN_COUNTERS {
            return u64::MAX;
        }
        let c = turn.counters.entry(key.to_owned()).or_insert(0);
        *c = c.saturating_add(1);
        *c
    }

    /// A per-turn counter's value.
    pub fn count(&self, key: &str) -> u64 {
        let turn = self.turn.lock().unwrap_or_else(|e| e.into_inner());
        turn.counters.get(key).copied().unwrap_or(0)
    }

    /// Starts a new turn: counters reset.
    pub(crate) fn clear_turn(&self) {
        let mut turn = self.turn.lock().unwrap_or_else(|e| e.into_inner());
        turn.counters.clear();
        turn.number += 1;
    }

    /// Clears the turn and every session value.
    pub(crate) fn clear_all(&self) {
        self.clear_turn();
        self.values
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }

    /// A session value (kept across turns until `clear_state`).
    pub fn value(&self, key: &str) -> Option<Value> {
        self.values
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(key)
            .cloned()
    }

    /// Sets a session value.
    pub fn set_value(&self, key: impl Into<String>, value: Value) {
        self.values
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key.into(), value);
    }
}

/// What every call of one runtime shares: the host's services, the event stream and the
/// activity store.
pub(crate) struct Host {
    pub(crate) services: Services,
    pub(crate) events: EventStream,
    pub(crate) activities: Arc<dyn ActivityStore>,
    /// The records waiting for an answer a later call brings.
    pub(crate) deferred: crate::activity::Deferrals,
}

impl Drop for Host {
    fn drop(&mut self) {
        crate::activity::Deferrals::end_all(self);
    }
}

/// What every call of one session shares: its mode, its state, its own services and its
/// cancellation token.
pub(crate) struct SessionParts {
    pub(crate) mode: Mode,
    pub(crate) state: SessionState,
    pub(crate) services: Services,
    /// The session's token; each call's own is a child of it.
    pub(crate) cancel: CancellationToken,
    /// Whether the host marks the session's turns ([`crate::SessionConfig::turns`]).
    pub(crate) turns: bool,
    /// Who the session's calls are for, as their spans say.
    pub(crate) who: crate::trace::Who,
    /// The tools the session is offered and may call; every tool of its mode when `None`.
    pub(crate) tools: Option<crate::selection::SelectedTools>,
    /// The conversation the session's calls belong to (a call may name its own).
    pub(crate) conversation: Arc<Conversation>,
}

/// What a tool gets while it runs: the call's identity, the session, the host's services,
/// a cancellation token and deadline, and handles to report progress.
pub struct ToolContext {
    call_id: Arc<str>,
    tool: Arc<str>,
    host: Arc<Host>,
    session: Arc<SessionParts>,
    /// The call's token, made when first asked for: a call whose tool never looks at it (nor
    /// is cancelled) makes none. A child of the session's.
    cancel: OnceLock<CancellationToken>,
    /// Set once the call has its concurrency slot (its future is made before, and borrows
    /// the context).
    deadline: OnceLock<Instant>,
    /// Sees this call's chunk and progress events too (a per-call watcher, such as the MCP
    /// server forwarding them as progress notifications).
    observer: Option<CallObserver>,
    /// The conversation the call belongs to.
    conversation: Arc<Conversation>,
    /// What the checks before the tool left for it.
    notes: CallNotes,
}

/// A clone shares the call's cancellation token (made now if it was not yet), so the
/// runtime's cancellation reaches every clone.
impl Clone for ToolContext {
    fn clone(&self) -> Self {
        ToolContext {
            call_id: self.call_id.clone(),
            tool: self.tool.clone(),
            host: self.host.clone(),
            session: self.session.clone(),
            cancel: OnceLock::from(self.cancellation().clone()),
            deadline: self.deadline.clone(),
            observer: self.observer.clone(),
            conversation: self.conversation.clone(),
            notes: self.notes.clone(),
        }
    }
}

impl std::fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolContext")
            .field("call_id", &self.call_id)
            .field("tool", &self.tool)
            .field("mode", &self.session.mode)
            .finish_non_exhaustive()
    }
}

impl ToolContext {
    /// The context of one call of `tool` in a session of a runtime.
    pub(crate) fn new(
        call_id: Arc<str>,
        tool: Arc<str>,
        host: &Arc<Host>,
        session: &Arc<SessionParts>,
        observer: Option<CallObserver>,
        conversation: Arc<Conversation>,
    ) -> Self {
        ToolContext {
            call_id,
            tool,
            host: host.clone(),
            session: session.clone(),
            cancel: OnceLock::new(),
            deadline: OnceLock::new(),
            observer,
            conversation,
            notes: CallNotes::new(),
        }
    }

    /// A context outside any runtime, for unit-testing a tool: mode `agent`, no deadline, its
    /// own session and activity store.
    pub fn detached(tool: &str, services: Services) -> Self {
        let host = Arc::new(Host {
            services,
            events: EventStream::new(),
            activities: Arc::new(InMemoryActivityStore::new()),
            deferred: Default::default(),
        });
        let session = Arc::new(SessionParts {
            mode: Mode::Agent,
            state: SessionState::default(),
            services: Services::new(),
            cancel: CancellationToken::new(),
            turns: true,
            who: crate::trace::Who::default(),
            tools: None,
            conversation: Arc::new(Conversation::generated()),
        });
        let conversation = session.conversation.clone();
        ToolContext::new(
            Arc::from("detached"),
            Arc::from(tool),
            &host,
            &session,
            None,
            conversation,
        )
    }

    /// What the checks before the tool (the runtime's [`CallPolicy`](crate::policy::CallPolicy))
    /// left for it; empty outside the runtime.
    pub fn notes(&self) -> &CallNotes {
        &self.notes
    }

    /// The call's id (also its activity id).
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// The tool's name (never an alias).
    pub fn tool_name(&self) -> &str {
        &self.tool
    }

    /// The session's mode.
    pub fn mode(&self) -> Mode {
        self.session.mode
    }

    /// The conversation the call belongs to.
    pub fn conversation(&self) -> &Conversation {
        &self.conversation
    }

    /// The session state: per-turn counters and session values.
    pub fn session(&self) -> &SessionState {
        &self.session.state
    }

    /// Whether this session's calls come in turns its host marks
    /// ([`SessionConfig::turns`](crate::SessionConfig::turns)): when not (an MCP server, a
    /// command line), per-turn limits mean nothing and a tool limits by time instead.
    pub fn has_turns(&self) -> bool {
        self.session.turns
    }

    /// A host service of type `T`: the session's own first, then the runtime's.
    pub fn service<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.session
            .services
            .get::<T>()
            .or_else(|| self.host.services.get::<T>())
    }

    /// A host service, or its default when the host gave none (a tool family's configuration,
    /// say, whose defaults are the documented limits).
    pub fn service_or_default<T: Default + Send + Sync + 'static>(&self) -> Arc<T> {
        self.service::<T>()
            .unwrap_or_else(|| Arc::new(T::default()))
    }

    /// A host service, or a `system_error` naming the missing type.
    pub fn require_service<T: Send + Sync + 'static>(&self) -> Result<Arc<T>, ToolError> {
        self.service::<T>().ok_or_else(|| {
            ToolError::system(format!(
                "the host did not configure `{}`, which this tool needs",
                type_name::<T>()
            ))
        })
    }

    /// The call's cancellation token: cancelled at the deadline or when the host cancels.
    pub fn cancellation(&self) -> &CancellationToken {
        self.cancel
            .get_or_init(|| self.session.cancel.child_token())
    }

    /// Whether the call was cancelled.
    pub fn is_cancelled(&self) -> bool {
        match self.cancel.get() {
            Some(token) => token.is_cancelled(),
            None => self.session.cancel.is_cancelled(),
        }
    }

    /// Cancels the call's token (the deadline passed, or the call was abandoned).
    pub(crate) fn cancel_call(&self) {
        self.cancellation().cancel();
    }

    /// When the call must be done by.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline.get().copied()
    }

    /// Sets the deadline, once the call has its slot.
    pub(crate) fn set_deadline(&self, deadline: Instant) {
        let _ = self.deadline.set(deadline);
    }

    /// Streams a chunk of output (`TOOL_OUTPUT_CHUNK`).
    pub fn emit_chunk(&self, text: impl Into<String>) {
        self.emit(Event::new(
            EventKind::ToolOutputChunk,
            &*self.call_id,
            &*self.tool,
            EventData::Chunk { text: text.into() },
        ));
    }

    fn emit(&self, event: Event) {
        let event = event.with_conversation(Some(self.conversation.clone()));
        if let Some(observer) = &self.observer {
            observer.observe(&event);
        }
        self.host.events.emit(event);
    }

    /// Sets the activity's display message and emits a `PROGRESS` event. Never waits: the
    /// activity store takes the update at once.
    pub fn progress(&self, message: impl Into<String>) {
        let message = message.into();
        self.host.activities.update(
            &self.call_id,
            ActivityUpdate::DisplayMessage(Some(message.clone())),
        );
        self.emit(Event::new(
            EventKind::Progress,
            &*self.call_id,
            &*self.tool,
            EventData::Progress { message },
        ));
    }

    /// Merges fields into the activity's `data` while the tool runs (seed 002's
    /// `update_tool_activity_data`) and emits an `ACTIVITY_UPDATE` event, so an open page
    /// shows them at once. Never waits.
    pub fn update_data(&self, data: Map<String, Value>) {
        self.change(
            ActivityUpdate::MergeData(data.clone()),
            data,
            Vec::new(),
            false,
        );
    }

    /// Removes fields from the activity's `data` while the tool runs (seed 002's
    /// `delete_tool_activity_fields`) and emits an `ACTIVITY_UPDATE` event. Never waits.
    pub fn delete_data<I, K>(&self, keys: I)
    where
        I: IntoIterator<Item = K>,
        K: Into<String>,
    {
        let keys: Vec<String> = keys.into_iter().map(Into::into).collect();
        self.change(
            ActivityUpdate::DeleteData(keys.clone()),
            Map::new(),
            keys,
            false,
        );
    }

    /// Clears the activity's display message (set by [`progress`](Self::progress)) while the
    /// tool runs and emits an `ACTIVITY_UPDATE` event. Never waits.
    pub fn clear_display_message(&self) {
        self.change(
            ActivityUpdate::DisplayMessage(None),
            Map::new(),
            Vec::new(),
            true,
        );
    }

    /// Hands `update` to the activity store and emits it as an `ACTIVITY_UPDATE` event (built
    /// only when a subscriber or the call's observer wants it).
    fn change(
        &self,
        update: ActivityUpdate,
        set: Map<String, Value>,
        deleted: Vec<String>,
        cleared: bool,
    ) {
        self.host.activities.update(&self.call_id, update);
        if self.observer.is_none() && !self.host.events.wants(EventKind::ActivityUpdate) {
            return;
        }
        self.emit(Event::new(
            EventKind::ActivityUpdate,
            &*self.call_id,
            &*self.tool,
            EventData::Update {
                set,
                deleted,
                display_message_cleared: cleared,
            },
        ));
    }
}
