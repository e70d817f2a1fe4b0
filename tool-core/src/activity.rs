//! The activity lifecycle (seed 002): every call leaves a record that goes from
//! `in_progress` to `success` or `failure`, which a UI can show while the tool runs.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::call::Arguments;
use crate::output::ToolOutput;
use crate::validate::MAX_ARGUMENTS_BYTES;

/// Where a call's activity stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActivityStatus {
    /// Running.
    InProgress,
    /// Finished with a result.
    Success,
    /// Finished with an error.
    Failure,
}

impl ActivityStatus {
    /// Whether the activity has finished.
    pub fn is_terminal(self) -> bool {
        !matches!(self, ActivityStatus::InProgress)
    }
}

/// One call's activity record (seed 002's `tool_activity`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ActivityRecord {
    /// The call's id.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// Where it stands.
    pub status: ActivityStatus,
    /// The call's arguments.
    pub input: Value,
    /// All output data of the tool (the result lands here on success).
    pub data: Map<String, Value>,
    /// A UI message while the tool runs; cleared when it finishes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display_message: Option<String>,
    /// The error message on failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Whether a UI shows this activity.
    pub user_facing: bool,
    /// When it started, in milliseconds since the Unix epoch.
    pub started_at_ms: u64,
    /// When it finished.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finished_at_ms: Option<u64>,
}

impl ActivityRecord {
    /// A new in-progress record.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        input: Value,
        user_facing: bool,
    ) -> Self {
        ActivityRecord {
            id: id.into(),
            name: name.into(),
            status: ActivityStatus::InProgress,
            input,
            data: Map::new(),
            display_message: None,
            error: None,
            user_facing,
            started_at_ms: crate::events::now_ms(),
            finished_at_ms: None,
        }
    }

    /// Applies an update.
    pub fn apply(&mut self, update: ActivityUpdate) {
        match update {
            ActivityUpdate::DisplayMessage(m) => self.display_message = m,
            ActivityUpdate::MergeData(map) => {
                for (k, v) in map {
                    self.data.insert(k, v);
                }
            }
            ActivityUpdate::DeleteData(keys) => {
                for k in keys {
                    self.data.remove(&k);
                }
            }
            ActivityUpdate::Finish {
                status,
                data,
                error,
            } => {
                self.status = status;
                if let Some(d) = data {
                    for (k, v) in d {
                        self.data.insert(k, v);
                    }
                }
                self.error = error;
                self.display_message = None;
                self.finished_at_ms = Some(crate::events::now_ms());
            }
        }
    }
}

/// A change to an activity record.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ActivityUpdate {
    /// Sets or clears the display message.
    DisplayMessage(Option<String>),
    /// Merges fields into `data`.
    MergeData(Map<String, Value>),
    /// Removes fields from `data`.
    DeleteData(Vec<String>),
    /// Finishes the activity.
    Finish {
        /// `success` or `failure`.
        status: ActivityStatus,
        /// Data to merge (the result).
        data: Option<Map<String, Value>>,
        /// The error message.
        error: Option<String>,
    },
}

/// A call's start as the runtime reports it to a store ([`ActivityStore::begin`]): the
/// parts of its [`ActivityRecord`], with the arguments as the call gave them (shared, not
/// copied), so a store that shows them rarely need not parse them on every call.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ActivityStart {
    /// The activity id.
    pub id: Arc<str>,
    /// The tool's name.
    pub name: Arc<str>,
    /// The arguments as the call gave them: JSON text or a tree.
    pub arguments: Arc<Arguments>,
    /// Whether a UI shows this activity.
    pub user_facing: bool,
    /// Data the record starts with (`duplicate_of` for a call answered from an earlier one).
    pub data: Map<String, Value>,
}

impl ActivityStart {
    /// A start with no initial data.
    pub fn new(
        id: impl Into<Arc<str>>,
        name: impl Into<Arc<str>>,
        arguments: Arc<Arguments>,
        user_facing: bool,
    ) -> Self {
        ActivityStart {
            id: id.into(),
            name: name.into(),
            arguments,
            user_facing,
            data: Map::new(),
        }
    }

    /// The arguments as a record keeps them ([`record_input`]).
    pub fn input(&self) -> Value {
        record_input(&self.arguments)
    }

    /// The in-progress record: [`ActivityRecord::new`] with the [`input`](Self::input) and
    /// the initial data.
    pub fn into_record(self) -> ActivityRecord {
        let mut record = ActivityRecord::new(
            String::from(&*self.id),
            String::from(&*self.name),
            record_input(&self.arguments),
            self.user_facing,
        );
        record.data = self.data;
        record
    }
}

/// Arguments as an activity record (and a START event) keeps them: the tree, the text
/// parsed, the text itself when it does not parse, an empty object for empty text, and a
/// note in place of text over [`MAX_ARGUMENTS_BYTES`].
pub fn record_input(arguments: &Arguments) -> Value {
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

impl ActivityUpdate {
    /// The update that finishes a record with a successful call's `output`: the status is
    /// `success`, or `failure` when the output reports one ([`ToolOutput::is_success`]); the
    /// output's JSON object is merged into `data` (JSON that is not an object as
    /// `{"result": json}`, `null` when it fails to serialize).
    pub fn succeeded(output: &ToolOutput) -> Self {
        ActivityUpdate::Finish {
            status: if output.is_success() {
                ActivityStatus::Success
            } else {
                ActivityStatus::Failure
            },
            data: Some(output_data(output)),
            error: None,
        }
    }
}

/// The fields an output merges into a record's `data` (see [`ActivityUpdate::succeeded`]).
fn output_data(output: &ToolOutput) -> Map<String, Value> {
    match output.to_value().unwrap_or(Value::Null) {
        Value::Object(m) => m,
        other => {
            let mut m = Map::new();
            m.insert("result".into(), other);
            m
        }
    }
}

/// Keeps activity records. Implement it to put them in a database; the runtime uses
/// [`InMemoryActivityStore`] by default. Updates to a finished record are ignored.
///
/// **The write side never blocks a call.** The runtime calls [`begin`](Self::begin),
/// [`update`](Self::update) and [`succeed`](Self::succeed) on the call's own path (and from
/// `Drop` when a call is abandoned), so they take what they are given and return at once,
/// the way [`EventStream::emit`](crate::EventStream::emit) does: a store that writes to a
/// database or a file queues the write to a task of its own. Reads are async.
#[async_trait]
pub trait ActivityStore: Send + Sync + 'static {
    /// A call began: keep its in-progress record ([`ActivityStart::into_record`] makes it).
    fn begin(&self, start: ActivityStart);
    /// Changes a record: its display message or data while it runs, or its end.
    fn update(&self, id: &str, update: ActivityUpdate);
    /// A call succeeded with `output`: finishes its record. By default the
    /// [`ActivityUpdate::succeeded`] update; a store may keep the output as it came instead
    /// and make its JSON when the record is read.
    fn succeed(&self, id: &str, output: &ToolOutput) {
        self.update(id, ActivityUpdate::succeeded(output));
    }
    /// A record by id.
    async fn get(&self, id: &str) -> Option<ActivityRecord>;
    /// All records kept, oldest first.
    async fn list(&self) -> Vec<ActivityRecord>;
}

/// The default number of records [`InMemoryActivityStore`] keeps.
pub const DEFAULT_ACTIVITY_CAPACITY: usize = 10_000;

/// An in-memory store that keeps the newest records up to a capacity; when full, the oldest
/// finished records go first.
///
/// A call's arguments and output are kept as the runtime hands them over (shared with the
/// call, not copied) and turned into the record's `input` and `data` the first time the
/// record is read, so a call nobody looks at costs no JSON.
pub struct InMemoryActivityStore {
    capacity: usize,
    inner: Mutex<MemInner>,
}

impl std::fmt::Debug for InMemoryActivityStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InMemoryActivityStore")
            .field("capacity", &self.capacity)
            .field("records", &self.lock().records.len())
            .finish()
    }
}

#[derive(Default)]
struct MemInner {
    /// By id; the key is shared with `order`.
    records: HashMap<Arc<str>, Kept, foldhash::fast::RandomState>,
    /// Ids, oldest first.
    order: VecDeque<Arc<str>>,
}

/// A record as kept: what was read of it, and what has not been turned into JSON yet.
struct Kept {
    /// The record; its `id` and `name` are empty while `name` below is pending.
    record: ActivityRecord,
    /// The tool's name, until the record is read (the record's `id` is the table's key).
    name: Option<Arc<str>>,
    /// The arguments, until the record is read (`record.input` is `null` until then).
    input: Option<Arc<Arguments>>,
    /// The successful output, until the record is read; merged into `data` then.
    output: Option<ToolOutput>,
}

impl Kept {
    /// The whole record of `id`, its pending parts made (once: they are kept made).
    fn read(&mut self, id: &str) -> &ActivityRecord {
        if let Some(name) = self.name.take() {
            self.record.id = id.to_owned();
            self.record.name = String::from(&*name);
        }
        if let Some(args) = self.input.take() {
            self.record.input = record_input(&args);
        }
        if let Some(output) = self.output.take() {
            self.record
                .apply(ActivityUpdate::MergeData(output_data(&output)));
        }
        &self.record
    }
}

impl Default for InMemoryActivityStore {
    fn default() -> Self {
        Self::with_capacity(DEFAULT_ACTIVITY_CAPACITY)
    }
}

impl InMemoryActivityStore {
    /// A store keeping [`DEFAULT_ACTIVITY_CAPACITY`] records.
    pub fn new() -> Self {
        Self::default()
    }

    /// A store keeping at most `capacity` records (at least 1).
    pub fn with_capacity(capacity: usize) -> Self {
        InMemoryActivityStore {
            capacity: capacity.max(1),
            inner: Mutex::new(MemInner::default()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, MemInner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn keep(&self, kept: Kept, id: Arc<str>) {
        let mut inner = self.lock();
        // Replacing a record already kept takes no room; only a new one may evict.
        let gone = match inner.records.get_mut(&*id) {
            Some(slot) => Some(std::mem::replace(slot, kept)),
            None => {
                let mut gone = None;
                if inner.records.len() >= self.capacity {
                    // Evict the oldest finished record, else the oldest of all.
                    let pos = inner
                        .order
                        .iter()
                        .position(|id| {
                            inner
                                .records
                                .get(id)
                                .is_none_or(|k| k.record.status.is_terminal())
                        })
                        .unwrap_or(0);
                    if let Some(old) = inner.order.remove(pos) {
                        gone = inner.records.remove(&old);
                    }
                }
                inner.records.insert(id.clone(), kept);
                inner.order.push_back(id);
                gone
            }
        };
        // What went is dropped after the lock is released.
        drop(inner);
        drop(gone);
    }
}

#[async_trait]
impl ActivityStore for InMemoryActivityStore {
    fn begin(&self, start: ActivityStart) {
        // The record's id and name are made when it is first read.
        let mut record =
            ActivityRecord::new(String::new(), String::new(), Value::Null, start.user_facing);
        record.data = start.data;
        let kept = Kept {
            record,
            name: Some(start.name),
            input: Some(start.arguments),
            output: None,
        };
        self.keep(kept, start.id);
    }

    fn update(&self, id: &str, update: ActivityUpdate) {
        let mut inner = self.lock();
        if let Some(k) = inner.records.get_mut(id)
            && !k.record.status.is_terminal()
        {
            k.record.apply(update);
        }
    }

    fn succeed(&self, id: &str, output: &ToolOutput) {
        let mut inner = self.lock();
        if let Some(k) = inner.records.get_mut(id)
            && !k.record.status.is_terminal()
        {
            // Finished now; the output's data is merged when the record is read.
            let status = if output.is_success() {
                ActivityStatus::Success
            } else {
                ActivityStatus::Failure
            };
            k.record.apply(ActivityUpdate::Finish {
                status,
                data: None,
                error: None,
            });
            k.output = Some(output.clone());
        }
    }

    async fn get(&self, id: &str) -> Option<ActivityRecord> {
        self.lock().records.get_mut(id).map(|k| k.read(id).clone())
    }

    async fn list(&self) -> Vec<ActivityRecord> {
        let mut guard = self.lock();
        let inner = &mut *guard;
        inner
            .order
            .iter()
            .filter_map(|id| inner.records.get_mut(&**id).map(|k| k.read(id).clone()))
            .collect()
    }
}
