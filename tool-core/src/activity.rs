//! The activity lifecycle (seed 002): every call leaves a record that goes from
//! `in_progress` to `success` or `failure`, which a UI can show while the tool runs.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

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

/// Keeps activity records. Implement it to put them in a database; the runtime uses
/// [`InMemoryActivityStore`] by default. Updates to a finished record are ignored.
#[async_trait]
pub trait ActivityStore: Send + Sync + 'static {
    /// Stores a new record.
    async fn create(&self, record: ActivityRecord);
    /// Updates a record.
    async fn update(&self, id: &str, update: ActivityUpdate);
    /// A record by id.
    async fn get(&self, id: &str) -> Option<ActivityRecord>;
    /// All records kept, oldest first.
    async fn list(&self) -> Vec<ActivityRecord>;
}

/// The default number of records [`InMemoryActivityStore`] keeps.
pub const DEFAULT_ACTIVITY_CAPACITY: usize = 10_000;

/// An in-memory store that keeps the newest records up to a capacity; when full, the oldest
/// finished records go first.
#[derive(Debug)]
pub struct InMemoryActivityStore {
    capacity: usize,
    inner: Mutex<MemInner>,
}

#[derive(Debug, Default)]
struct MemInner {
    records: HashMap<String, ActivityRecord>,
    order: VecDeque<String>,
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
}

#[async_trait]
impl ActivityStore for InMemoryActivityStore {
    async fn create(&self, record: ActivityRecord) {
        let mut inner = self.lock();
        // Replacing a record already kept takes no room; only a new one may evict.
        if !inner.records.contains_key(&record.id) && inner.records.len() >= self.capacity {
            // Evict the oldest finished record, else the oldest of all.
            let pos = inner
                .order
                .iter()
                .position(|id| inner.records.get(id).is_none_or(|r| r.status.is_terminal()))
                .unwrap_or(0);
            if let Some(old) = inner.order.remove(pos) {
                inner.records.remove(&old);
            }
        }
        let id = record.id.clone();
        if inner.records.insert(id.clone(), record).is_none() {
            inner.order.push_back(id);
        }
    }

    async fn update(&self, id: &str, update: ActivityUpdate) {
        let mut inner = self.lock();
        if let Some(r) = inner.records.get_mut(id)
            && !r.status.is_terminal()
        {
            r.apply(update);
        }
    }

    async fn get(&self, id: &str) -> Option<ActivityRecord> {
        self.lock().records.get(id).cloned()
    }

    async fn list(&self) -> Vec<ActivityRecord> {
        let inner = self.lock();
        inner
            .order
            .iter()
            .filter_map(|id| inner.records.get(id).cloned())
            .collect()
    }
}
