//! The feed: the runtime's events numbered, serialized once, kept in a bounded ring and read
//! by cursor.
//!
//! One pump task takes the runtime's events from an [`EventStream`](crate::EventStream)
//! subscription, gives each an id and appends its JSON to the ring. A reader holds nothing
//! but a cursor (the last id it saw): it copies what is newer than its cursor, a batch at a
//! time, and waits on a [`watch`] channel for more. Emitting never waits on a reader, and a
//! reader costs the calls nothing: one that falls so far behind that the ring has dropped
//! what it had not read yet is told so and closed, and can resume from what is still there.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::sync::watch;
use tokio_util::sync::{CancellationToken, DropGuard};

use super::{ActivityConfig, ActivityError};
use crate::activity::ActivityRecord;
use crate::events::{Event, EventFilter};
use crate::registry::Registry;
use crate::runtime::Runtime;

/// How many buffered events a reader copies under one lock.
const BATCH: usize = 256;
/// How much of an over-long payload an event keeps as a preview.
const PREVIEW_BYTES: usize = 2048;

/// What the page shows of a tool, besides its calls.
pub(super) struct ToolMeta {
    pub(super) toolsets: Value,
    pub(super) category: Value,
    pub(super) user_facing: bool,
    /// `suppress_execution_animation`.
    pub(super) quiet: bool,
}

/// The runtime's events as the activity page reads them: numbered, bounded, resumable.
///
/// Made by [`Activity::new`](super::Activity::new), which starts the task that fills it;
/// [`ActivityFeed::detached`] makes one that only [`push`](ActivityFeed::push) fills. Cheap
/// to clone; the task stops when the last clone is dropped.
#[derive(Clone)]
pub struct ActivityFeed {
    inner: Arc<FeedInner>,
}

impl std::fmt::Debug for ActivityFeed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ring = self.inner.lock();
        f.debug_struct("ActivityFeed")
            .field("epoch", &self.inner.epoch)
            .field("buffered", &ring.items.len())
            .field("last_seq", &(ring.next_seq - 1))
            .finish_non_exhaustive()
    }
}

struct FeedInner {
    ring: Mutex<Ring>,
    /// The newest sequence number pushed; readers wait on its changes.
    head: watch::Sender<u64>,
    /// Tells this feed's events apart from another process's (or another feed's), so that a
    /// `Last-Event-ID` from before a restart is not mistaken for a position in this one.
    epoch: String,
    registry: Option<Arc<Registry>>,
    config: ActivityConfig,
    clients: AtomicUsize,
    _stop: Option<DropGuard>,
}

struct Ring {
    items: VecDeque<Arc<FeedItem>>,
    bytes: usize,
    next_seq: u64,
}

impl Ring {
    fn oldest_seq(&self) -> u64 {
        self.items.front().map_or(self.next_seq, |i| i.seq)
    }
}

/// One buffered event: its position, its SSE id and its JSON, serialized once for every
/// reader.
#[derive(Debug)]
#[non_exhaustive]
pub struct FeedItem {
    /// The position in the feed, from 1, without gaps.
    pub seq: u64,
    /// The id sent as the SSE `id:` field: `<epoch>.<seq>`.
    pub id: String,
    /// The event as one line of JSON: the runtime's [`Event`] plus `event_id`, `seq`,
    /// `toolsets`, `category` and `user_facing`; or `{"type": "EVENTS_LOST", "count": n}`
    /// when the feed's own queue overflowed.
    pub json: String,
}

/// What a [`FeedSubscription`] yields.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum FeedMessage {
    /// The next event.
    Event(Arc<FeedItem>),
    /// The position asked to resume from is not in the buffer (too old, from another feed, or
    /// malformed): the events after it may be lost. The buffer follows from its oldest event.
    Reset {
        /// Why, in words.
        reason: String,
    },
    /// This reader fell behind by more than the buffer holds and is closed; nothing follows.
    Dropped {
        /// How many events it missed.
        missed: u64,
        /// The id of the last event it was given, to resume from.
        last_event_id: Option<String>,
    },
}

/// A reader of the feed: a cursor and a wake-up signal, nothing buffered per reader.
#[derive(Debug)]
pub struct FeedSubscription {
    feed: ActivityFeed,
    cursor: u64,
    last_id: Option<String>,
    head: watch::Receiver<u64>,
    pending: VecDeque<FeedMessage>,
    done: bool,
}

/// Holds one of the feed's client slots ([`ActivityConfig::max_clients`]).
#[derive(Debug)]
pub(super) struct ClientSlot(ActivityFeed);

impl Drop for ClientSlot {
    fn drop(&mut self) {
        self.0.inner.clients.fetch_sub(1, Ordering::AcqRel);
    }
}

impl ActivityFeed {
    /// A feed that [`push`](Self::push) alone fills, with the tool metadata of `registry`
    /// (toolsets, category, `user_facing`) added to each event when given.
    pub fn detached(registry: Option<Arc<Registry>>, config: ActivityConfig) -> Self {
        Self::build(registry, config, None)
    }

    fn build(
        registry: Option<Arc<Registry>>,
        config: ActivityConfig,
        stop: Option<DropGuard>,
    ) -> Self {
        let config = config.normalized();
        let epoch = format!(
            "{:x}",
            crate::events::now_ms() ^ (FEEDS.fetch_add(1, Ordering::Relaxed) as u64) << 48
        );
        ActivityFeed {
            inner: Arc::new(FeedInner {
                ring: Mutex::new(Ring {
                    items: VecDeque::new(),
                    bytes: 0,
                    next_seq: 1,
                }),
                head: watch::Sender::new(0),
                epoch,
                registry,
                config,
                clients: AtomicUsize::new(0),
                _stop: stop,
            }),
        }
    }

    /// A feed of `runtime`'s events, filled by a task spawned on the current Tokio runtime.
    pub(super) fn start(runtime: &Runtime, config: ActivityConfig) -> Result<Self, ActivityError> {
        let handle = tokio::runtime::Handle::try_current().map_err(|_| ActivityError::NoRuntime)?;
        let config = config.normalized();
        let mut sub = runtime
            .events()
            .subscribe_with_capacity(EventFilter::All, config.queue)
            .map_err(ActivityError::Subscribe)?;
        let stop = CancellationToken::new();
        let feed = Self::build(
            Some(runtime.registry().clone()),
            config,
            Some(stop.clone().drop_guard()),
        );
        let weak = Arc::downgrade(&feed.inner);
        handle.spawn(async move {
            let mut lost_seen = 0;
            loop {
                let event = tokio::select! {
                    () = stop.cancelled() => break,
                    e = sub.recv() => e,
                };
                let (Some(event), Some(inner)) = (event, weak.upgrade()) else {
                    break;
                };
                let feed = ActivityFeed { inner };
                feed.push(&event);
                let lost = sub.dropped();
                if lost > lost_seen {
                    feed.push_lost(lost - lost_seen);
                    lost_seen = lost;
                }
            }
        });
        Ok(feed)
    }

    /// The configuration in force (limits applied).
    pub fn config(&self) -> &ActivityConfig {
        &self.inner.config
    }

    /// This feed's epoch, the part of every event id before the dot.
    pub fn epoch(&self) -> &str {
        &self.inner.epoch
    }

    /// The id of the newest event, if any.
    pub fn last_event_id(&self) -> Option<String> {
        let ring = self.inner.lock();
        (ring.next_seq > 1).then(|| self.event_id(ring.next_seq - 1))
    }

    /// How many events the buffer holds now.
    pub fn buffered(&self) -> usize {
        self.inner.lock().items.len()
    }

    /// How many events the server's clients hold open (`/activity/events` streams).
    pub fn clients(&self) -> usize {
        self.inner.clients.load(Ordering::Acquire)
    }

    fn event_id(&self, seq: u64) -> String {
        format!("{}.{seq}", self.inner.epoch)
    }

    /// Appends an event; the oldest ones leave the buffer past its limits.
    pub fn push(&self, event: &Event) {
        let mut value = serde_json::to_value(event).unwrap_or(Value::Null);
        if let Value::Object(map) = &mut value {
            let meta = self.tool_meta(&event.tool);
            map.insert("toolsets".into(), meta.toolsets);
            map.insert("category".into(), meta.category);
            map.insert("user_facing".into(), Value::Bool(meta.user_facing));
            if meta.quiet {
                map.insert("suppress_execution_animation".into(), Value::Bool(true));
            }
        }
        self.append(value, Some(&event.call_id));
    }

    /// Appends a record written elsewhere (a replica sharing the activity store) as an
    /// `ACTIVITY_RECORD` event carrying the record as `GET activity/records` gives it: the page
    /// shows that call as the record stands, though its events never reached this feed. A
    /// record over [`ActivityConfig::max_event_bytes`] is sent without its input and data,
    /// with where to read them.
    pub fn push_record(&self, record: &ActivityRecord) {
        let meta = self.tool_meta(&record.name);
        let mut value = serde_json::to_value(record).unwrap_or(Value::Null);
        if let Value::Object(map) = &mut value {
            map.insert("toolsets".into(), meta.toolsets);
            map.insert("category".into(), meta.category);
            if meta.quiet {
                map.insert("suppress_execution_animation".into(), Value::Bool(true));
            }
            if value.to_string().len() > self.inner.config.max_event_bytes
                && let Value::Object(map) = &mut value
            {
                let more = format!("GET activity/records?id={} for the whole record", record.id);
                map.insert(
                    "input".into(),
                    json!({"truncated": true, "more": more.clone()}),
                );
                map.insert("data".into(), json!({"truncated": true, "more": more}));
            }
        }
        self.append(
            json!({
                "type": "ACTIVITY_RECORD",
                "call_id": record.id,
                "tool": record.name,
                "timestamp_ms": crate::events::now_ms(),
                "record": value,
            }),
            None,
        );
    }

    /// Appends the note that `count` events were lost before they reached the feed.
    fn push_lost(&self, count: u64) {
        self.append(json!({"type": "EVENTS_LOST", "count": count}), None);
    }

    fn append(&self, mut value: Value, call_id: Option<&str>) {
        let mut ring = self.inner.lock();
        let seq = ring.next_seq;
        let id = self.event_id(seq);
        if let Value::Object(map) = &mut value {
            map.insert("event_id".into(), Value::String(id.clone()));
            map.insert("seq".into(), Value::from(seq));
        }
        let mut json = value.to_string();
        if json.len() > self.inner.config.max_event_bytes {
            shrink(&mut value, call_id, self.inner.config.max_event_bytes);
            json = value.to_string();
        }
        ring.next_seq += 1;
        ring.bytes += json.len();
        ring.items.push_back(Arc::new(FeedItem { seq, id, json }));
        let cfg = &self.inner.config;
        while ring.items.len() > cfg.buffer_events
            || (ring.bytes > cfg.buffer_bytes && ring.items.len() > 1)
        {
            if let Some(old) = ring.items.pop_front() {
                ring.bytes -= old.json.len();
            }
        }
        drop(ring);
        self.inner.head.send_replace(seq);
    }

    /// What the page shows of a tool by name; an unknown tool (a refused call) is shown, in
    /// no toolset.
    pub(super) fn tool_meta(&self, name: &str) -> ToolMeta {
        match self.inner.registry.as_ref().and_then(|r| r.get(name)) {
            Some(entry) => {
                let spec = entry.spec();
                ToolMeta {
                    toolsets: json!(spec.toolsets),
                    category: json!(spec.category),
                    user_facing: spec.user_facing,
                    quiet: spec.suppress_execution_animation,
                }
            }
            None => ToolMeta {
                toolsets: json!([]),
                category: Value::Null,
                user_facing: true,
                quiet: false,
            },
        }
    }

    /// Reads the feed after the event `last_event_id` names (a `Last-Event-ID`); from the
    /// oldest buffered event when `None`. An id this feed cannot resume from yields
    /// [`FeedMessage::Reset`] first.
    pub fn subscribe(&self, last_event_id: Option<&str>) -> FeedSubscription {
        let ring = self.inner.lock();
        let oldest = ring.oldest_seq();
        let newest = ring.next_seq - 1;
        let mut pending = VecDeque::new();
        let mut cursor = oldest - 1;
        let mut last_id = None;
        if let Some(given) = last_event_id.map(str::trim).filter(|s| !s.is_empty()) {
            let parsed = given
                .split_once('.')
                .and_then(|(e, s)| Some((e, s.parse::<u64>().ok()?)));
            let reason = match parsed {
                None => Some(format!(
                    "the Last-Event-ID `{}` is not an id of this feed (`<epoch>.<number>`)",
                    cut(given, 64)
                )),
                Some((epoch, _)) if epoch != self.inner.epoch => Some(format!(
                    "the Last-Event-ID `{}` is from an earlier run of the server",
                    cut(given, 64)
                )),
                Some((_, seq)) if seq > newest => Some(format!(
                    "the Last-Event-ID `{}` is past the newest event",
                    cut(given, 64)
                )),
                Some((_, seq)) if seq + 1 < oldest => Some(format!(
                    "the {} events after `{given}` are no longer buffered",
                    oldest - seq - 1
                )),
                Some((_, seq)) => {
                    cursor = seq;
                    last_id = Some(given.to_owned());
                    None
                }
            };
            if let Some(reason) = reason {
                pending.push_back(FeedMessage::Reset {
                    reason: format!(
                        "{reason}; reload the records (GET activity/records) and read on from \
                         the oldest buffered event"
                    ),
                });
            }
        }
        drop(ring);
        FeedSubscription {
            feed: self.clone(),
            cursor,
            last_id,
            head: self.inner.head.subscribe(),
            pending,
            done: false,
        }
    }

    /// Takes a client slot, or `None` when [`ActivityConfig::max_clients`] are taken.
    pub(super) fn acquire_client(&self) -> Option<ClientSlot> {
        let max = self.inner.config.max_clients;
        self.inner
            .clients
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < max).then_some(n + 1)
            })
            .ok()
            .map(|_| ClientSlot(self.clone()))
    }
}

static FEEDS: AtomicUsize = AtomicUsize::new(0);

impl FeedInner {
    fn lock(&self) -> std::sync::MutexGuard<'_, Ring> {
        // A panic while holding the lock leaves the ring consistent (each step is complete).
        self.ring.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl FeedSubscription {
    /// The next message: an event as soon as there is one, a [`FeedMessage::Reset`] first if
    /// the resume point was lost, a [`FeedMessage::Dropped`] (then `None`) if this reader fell
    /// behind the buffer. `None` when the feed is gone.
    pub async fn next(&mut self) -> Option<FeedMessage> {
        loop {
            if let Some(m) = self.pending.pop_front() {
                if let FeedMessage::Event(item) = &m {
                    self.last_id = Some(item.id.clone());
                }
                return Some(m);
            }
            if self.done {
                return None;
            }
            // Mark the head seen before looking, so a push after the look wakes us.
            self.head.borrow_and_update();
            {
                let ring = self.feed.inner.lock();
                let oldest = ring.oldest_seq();
                if self.cursor + 1 < oldest {
                    self.done = true;
                    return Some(FeedMessage::Dropped {
                        missed: oldest - self.cursor - 1,
                        last_event_id: self.last_id.clone(),
                    });
                }
                let start = (self.cursor + 1 - oldest) as usize;
                for item in ring.items.iter().skip(start).take(BATCH) {
                    self.cursor = item.seq;
                    self.pending.push_back(FeedMessage::Event(item.clone()));
                }
            }
            if self.pending.is_empty() && self.head.changed().await.is_err() {
                return None;
            }
        }
    }

    /// The next message if one is there now, without waiting.
    pub fn try_next(&mut self) -> Option<FeedMessage> {
        let waker = futures_util::task::noop_waker();
        let mut cx = std::task::Context::from_waker(&waker);
        let fut = std::pin::pin!(self.next());
        match fut.poll(&mut cx) {
            std::task::Poll::Ready(m) => m,
            std::task::Poll::Pending => None,
        }
    }
}

use std::future::Future as _;

/// Cuts the payload of an over-long event to a preview that says where the rest is.
fn shrink(value: &mut Value, call_id: Option<&str>, max: usize) {
    let more = match call_id {
        Some(id) => format!("GET activity/records?id={id} for the whole record"),
        None => "GET activity/records for the records".to_owned(),
    };
    let Some(data) = value.get_mut("data").and_then(Value::as_object_mut) else {
        return;
    };
    for key in ["text", "arguments", "result", "error", "message"] {
        let Some(field) = data.get_mut(key) else {
            continue;
        };
        let text = match &mut *field {
            Value::String(s) => std::mem::take(s),
            other => other.to_string(),
        };
        let keep = PREVIEW_BYTES.min(max / 2);
        if text.len() <= keep {
            *field = Value::String(text);
            continue;
        }
        let preview = cut(&text, keep);
        *field = if key == "text" || key == "message" {
            Value::String(format!(
                "{preview}\n… ({} more bytes not shown; the event limit is {max} bytes)",
                text.len() - preview.len()
            ))
        } else {
            json!({
                "truncated": true,
                "bytes": text.len(),
                "preview": preview,
                "more": more,
            })
        };
    }
}

/// The longest prefix of `s` of at most `max` bytes that ends on a character boundary.
fn cut(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
#[path = "feed_tests.rs"]
mod tests;
