use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tokio::sync::mpsc;

use crate::activity::Conversation;

/// The default number of events a subscription buffers before it starts dropping.
pub const DEFAULT_SUBSCRIPTION_CAPACITY: usize = 4096;
/// The most subscribers one stream accepts.
pub const MAX_SUBSCRIBERS: usize = 1024;

/// The type of an event: written upper-case (`TOOL_CALL_START`), read in either case (seed
/// 004's `tool_call_start` too).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[non_exhaustive]
pub enum EventKind {
    /// A call was taken up: its activity record exists, `in_progress` (or
    /// `awaiting_approval`, which `AWAITING_APPROVAL` follows). Every call gets one,
    /// followed by exactly one `TOOL_CALL_END` or `ERROR`; a call refused before its tool
    /// runs (unknown tool, permission, validation, approval) gets `ERROR` right after.
    #[serde(alias = "tool_call_start")]
    ToolCallStart,
    /// A piece of streamed output (a command's stdout, say).
    #[serde(alias = "tool_output_chunk")]
    ToolOutputChunk,
    /// A progress message (the activity's `display_message`).
    #[serde(alias = "progress")]
    Progress,
    /// The tool changed its activity's `data` (fields set or deleted) or cleared its
    /// display message while it runs ([`ToolContext::update_data`](crate::ToolContext::update_data),
    /// [`delete_data`](crate::ToolContext::delete_data),
    /// [`clear_display_message`](crate::ToolContext::clear_display_message)).
    #[serde(alias = "activity_update")]
    ActivityUpdate,
    /// The call waits for someone to approve it: its record is `awaiting_approval`, after
    /// its `TOOL_CALL_START`. `APPROVED` follows when it is allowed, `ERROR` when not.
    #[serde(alias = "awaiting_approval")]
    AwaitingApproval,
    /// The call waiting for approval was allowed and runs (`in_progress`); says by whom and
    /// after how long.
    #[serde(alias = "approved")]
    Approved,
    /// A call finished with a result.
    #[serde(alias = "tool_call_end")]
    ToolCallEnd,
    /// A call finished with an error.
    #[serde(alias = "error")]
    Error,
}

impl EventKind {
    /// The name seed 004 gives this event: lower-case (`tool_call_start`), where the wire
    /// name is upper-case (`TOOL_CALL_START`).
    ///
    /// ```
    /// use tool_core::EventKind;
    /// assert_eq!(EventKind::ToolCallStart.seed_name(), "tool_call_start");
    /// let read: EventKind = serde_json::from_str("\"tool_call_end\"").unwrap();
    /// assert_eq!(read, EventKind::ToolCallEnd);
    /// assert_eq!(serde_json::to_string(&read).unwrap(), "\"TOOL_CALL_END\"");
    /// ```
    pub fn seed_name(self) -> &'static str {
        match self {
            EventKind::ToolCallStart => "tool_call_start",
            EventKind::ToolOutputChunk => "tool_output_chunk",
            EventKind::Progress => "progress",
            EventKind::ActivityUpdate => "activity_update",
            EventKind::AwaitingApproval => "awaiting_approval",
            EventKind::Approved => "approved",
            EventKind::ToolCallEnd => "tool_call_end",
            EventKind::Error => "error",
        }
    }
}

/// What an event carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum EventData {
    /// The call's arguments.
    Start {
        /// The arguments as validated.
        arguments: Value,
    },
    /// A chunk of output.
    Chunk {
        /// The text.
        text: String,
    },
    /// A progress message.
    Progress {
        /// The message.
        message: String,
    },
    /// A change to the activity's data or display message.
    Update {
        /// Fields set in `data`.
        #[serde(default, skip_serializing_if = "Map::is_empty")]
        set: Map<String, Value>,
        /// Fields removed from `data`.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        deleted: Vec<String>,
        /// Whether the display message was cleared.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        display_message_cleared: bool,
    },
    /// What the call waits for.
    Awaiting {
        /// What asks for approval ([`ApprovalRequest::asked_by`](crate::ApprovalRequest::asked_by)).
        asked_by: String,
        /// What "allow for this session" would grant
        /// ([`ApprovalRequest::scope`](crate::ApprovalRequest::scope)).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        scope: Vec<String>,
    },
    /// How the waiting call was allowed.
    Approved {
        /// Who allowed it, and after how long.
        allowed: crate::activity::Allowed,
    },
    /// The result.
    End {
        /// Whether the output reports success.
        success: bool,
        /// The structured result.
        result: Value,
        /// The tool's status line ([`Render::status`](crate::Render::status)).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        status_line: Option<String>,
        /// A short preview of the result ([`result_preview`](crate::activity::result_preview)).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        preview: Option<String>,
        /// For an output that reports a failure, what went wrong
        /// ([`ToolOutput::failure`](crate::ToolOutput::failure)): the record's `error`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// The error, in its JSON form.
    Error {
        /// The error.
        error: Value,
    },
}

/// One event of one call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Event {
    /// The type.
    #[serde(rename = "type")]
    pub kind: EventKind,
    /// The call's id (the activity id).
    pub call_id: String,
    /// The tool's name.
    pub tool: String,
    /// Milliseconds since the Unix epoch.
    pub timestamp_ms: u64,
    /// The payload.
    pub data: EventData,
    /// The conversation the call belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation: Option<Arc<Conversation>>,
}

impl Event {
    /// An event stamped now.
    pub fn new(
        kind: EventKind,
        call_id: impl Into<String>,
        tool: impl Into<String>,
        data: EventData,
    ) -> Self {
        Event {
            kind,
            call_id: call_id.into(),
            tool: tool.into(),
            timestamp_ms: now_ms(),
            data,
            conversation: None,
        }
    }

    /// The same event, naming the conversation its call belongs to.
    pub fn with_conversation(mut self, conversation: Option<Arc<Conversation>>) -> Self {
        self.conversation = conversation;
        self
    }
}

pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// Sees the chunk and progress events of one call as its tool emits them (called on the
/// tool's task: it must not block). Every `Fn(&Event) + Send + Sync` closure is one.
pub trait EventObserver: Send + Sync {
    /// Sees one event.
    fn observe(&self, event: &Event);
}

impl<F: Fn(&Event) + Send + Sync> EventObserver for F {
    fn observe(&self, event: &Event) {
        self(event);
    }
}

/// A call's (or a session's) observer, shared with the call's context.
pub type CallObserver = Arc<dyn EventObserver>;

/// Which events a subscription receives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum EventFilter {
    /// Every event (`'*'` in seed 004).
    All,
    /// Events of one type.
    Kind(EventKind),
}

impl EventFilter {
    fn matches(&self, kind: EventKind) -> bool {
        match self {
            EventFilter::All => true,
            EventFilter::Kind(k) => *k == kind,
        }
    }
}

impl From<EventKind> for EventFilter {
    fn from(k: EventKind) -> Self {
        EventFilter::Kind(k)
    }
}

/// Identifies a subscription, for [`EventStream::unsubscribe`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SubscriptionId(u64);

struct Subscriber {
    id: u64,
    filter: EventFilter,
    tx: mpsc::Sender<Event>,
    dropped: Arc<AtomicU64>,
}

#[derive(Default)]
struct Inner {
    subscribers: Mutex<Vec<Subscriber>>,
    next_id: AtomicU64,
}

/// A cloneable handle to an event stream; clones share subscribers.
///
/// The activity event stream (seed 004): every call emits `TOOL_CALL_START`, then any number
/// of `TOOL_OUTPUT_CHUNK`, `PROGRESS` and `ACTIVITY_UPDATE` events, then `TOOL_CALL_END` or
/// `ERROR`; a call that waits for someone's approval emits `AWAITING_APPROVAL` after its START
/// and `APPROVED` once allowed. Each event names the [`Conversation`] its call belongs to.
///
/// **Names on the wire.** Event types are written upper-case (`TOOL_CALL_START`), as the
/// AG-UI protocol writes its event types and as the activity page and the records read them;
/// seed 004 writes the same names lower-case (`tool_call_start`). They are the same events:
/// [`EventKind::seed_name`] gives seed 004's spelling, and [`EventKind`] reads either.
///
/// Subscribers receive events through their own bounded queue. Emitting never waits: when a
/// subscriber's queue is full the event is dropped for that subscriber and counted
/// ([`Subscription::dropped`]), so a slow subscriber cannot block tool execution.
#[derive(Clone, Default)]
pub struct EventStream {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for EventStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.inner.subscribers.lock().map(|s| s.len()).unwrap_or(0);
        f.debug_struct("EventStream")
            .field("subscribers", &n)
            .finish()
    }
}

/// An error subscribing.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SubscribeError {
    /// The stream already has [`MAX_SUBSCRIBERS`] subscribers.
    TooManySubscribers,
}

impl std::fmt::Display for SubscribeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the event stream already has {MAX_SUBSCRIBERS} subscribers; drop one first"
        )
    }
}

impl std::error::Error for SubscribeError {}

impl EventStream {
    /// A stream with no subscriber.
    pub fn new() -> Self {
        Self::default()
    }

    /// Subscribes with the default capacity.
    pub fn subscribe(
        &self,
        filter: impl Into<EventFilter>,
    ) -> Result<Subscription, SubscribeError> {
        self.subscribe_with_capacity(filter, DEFAULT_SUBSCRIPTION_CAPACITY)
    }

    /// Subscribes with a queue of `capacity` events (at least 1, at most
    /// [`tokio::sync::Semaphore::MAX_PERMITS`]).
    pub fn subscribe_with_capacity(
        &self,
        filter: impl Into<EventFilter>,
        capacity: usize,
    ) -> Result<Subscription, SubscribeError> {
        let mut subs = self.lock();
        subs.retain(|s| !s.tx.is_closed());
        if subs.len() >= MAX_SUBSCRIBERS {
            return Err(SubscribeError::TooManySubscribers);
        }
        // tokio's channel panics on a capacity of 0 or past its semaphore's limit.
        let (tx, rx) = mpsc::channel(capacity.clamp(1, tokio::sync::Semaphore::MAX_PERMITS));
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let dropped = Arc::new(AtomicU64::new(0));
        subs.push(Subscriber {
            id,
            filter: filter.into(),
            tx,
            dropped: dropped.clone(),
        });
        Ok(Subscription {
            id: SubscriptionId(id),
            rx,
            dropped,
        })
    }

    /// Calls `f` for each matching event on a task of its own (needs a Tokio runtime). Returns
    /// the id to unsubscribe with.
    pub fn subscribe_fn<F>(
        &self,
        filter: impl Into<EventFilter>,
        mut f: F,
    ) -> Result<SubscriptionId, SubscribeError>
    where
        F: FnMut(Event) + Send + 'static,
    {
        let mut sub = self.subscribe(filter)?;
        let id = sub.id();
        tokio::spawn(async move {
            while let Some(e) = sub.recv().await {
                f(e);
            }
        });
        Ok(id)
    }

    /// Removes a subscription; its receiver sees the end of the stream. Returns whether it
    /// existed.
    pub fn unsubscribe(&self, id: SubscriptionId) -> bool {
        let mut subs = self.lock();
        let before = subs.len();
        subs.retain(|s| s.id != id.0);
        subs.len() != before
    }

    /// The number of live subscriptions.
    pub fn subscriber_count(&self) -> usize {
        let mut subs = self.lock();
        subs.retain(|s| !s.tx.is_closed());
        subs.len()
    }

    /// Sends an event to every matching subscriber without waiting.
    pub fn emit(&self, event: Event) {
        let mut subs = self.lock();
        if subs.is_empty() {
            return;
        }
        subs.retain(|s| {
            if !s.filter.matches(event.kind) {
                return !s.tx.is_closed();
            }
            match s.tx.try_send(event.clone()) {
                Ok(()) => true,
                Err(mpsc::error::TrySendError::Full(_)) => {
                    s.dropped.fetch_add(1, Ordering::Relaxed);
                    true
                }
                Err(mpsc::error::TrySendError::Closed(_)) => false,
            }
        });
    }

    /// Whether a subscriber wants events of `kind`: an emitter may skip building an event
    /// nobody receives (one that copies a call's arguments or result, say).
    pub fn wants(&self, kind: EventKind) -> bool {
        self.lock().iter().any(|s| s.filter.matches(kind))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Subscriber>> {
        // A poisoned lock only means a panic elsewhere while holding it; the list itself is
        // still consistent, so keep going.
        self.inner
            .subscribers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }
}

/// A live subscription. Dropping it unsubscribes.
#[derive(Debug)]
pub struct Subscription {
    id: SubscriptionId,
    rx: mpsc::Receiver<Event>,
    dropped: Arc<AtomicU64>,
}

impl Subscription {
    /// The id, for [`EventStream::unsubscribe`].
    pub fn id(&self) -> SubscriptionId {
        self.id
    }

    /// The next event; `None` once unsubscribed and drained.
    pub async fn recv(&mut self) -> Option<Event> {
        self.rx.recv().await
    }

    /// The next event if one is queued.
    pub fn try_recv(&mut self) -> Option<Event> {
        self.rx.try_recv().ok()
    }

    /// How many events were dropped because the queue was full.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}
