//! [`InMemoryActivityStore`]: the default store, the newest records in memory.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::Value;

use super::{
    ActivityRecord, ActivityStart, ActivityStatus, ActivityStore, ActivityUpdate, output_data,
    record_input,
};
use crate::call::Arguments;
use crate::output::ToolOutput;

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
