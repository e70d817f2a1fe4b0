//! [`InMemoryActivityStore`]: the default store, the newest records in memory.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::{Map, Value};

use super::bound::{
    self, MAX_FAILED_INPUT_BYTES, MAX_RECORD_INPUT_BYTES, MAX_RECORD_RESULT_BYTES, PREVIEW_BYTES,
    RECORD_OVERHEAD, tree_bytes,
};
use super::{
    ActivityRecord, ActivityStart, ActivityStatus, ActivityStore, ActivityUpdate, output_data,
    record_input, result_preview,
};
use crate::call::Arguments;
use crate::output::ToolOutput;

/// The default number of records [`InMemoryActivityStore`] keeps.
pub const DEFAULT_ACTIVITY_CAPACITY: usize = 10_000;

/// The default memory budget of [`InMemoryActivityStore`], in bytes.
pub const DEFAULT_ACTIVITY_BUDGET_BYTES: usize = 64 * 1024 * 1024;

/// An in-memory store that keeps the newest records up to a count and a memory budget; when
/// either is reached, the oldest finished records go first.
///
/// A record's size is bounded ([`MAX_RECORD_INPUT_BYTES`] of arguments,
/// [`MAX_RECORD_RESULT_BYTES`] of result, [`MAX_FAILED_INPUT_BYTES`] of a failed call's
/// arguments), and the store counts what each record takes against its budget
/// ([`DEFAULT_ACTIVITY_BUDGET_BYTES`] unless [`with_budget`](Self::with_budget) says
/// otherwise), so what callers send cannot grow it past the budget.
///
/// A call's arguments and output are kept as the runtime hands them over (shared with the
/// call, not copied) and turned into the record's `input` and `data` the first time the
/// record is read, so a call nobody looks at costs no JSON.
pub struct InMemoryActivityStore {
    capacity: usize,
    budget: usize,
    inner: Mutex<MemInner>,
}

impl std::fmt::Debug for InMemoryActivityStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = self.lock();
        f.debug_struct("InMemoryActivityStore")
            .field("capacity", &self.capacity)
            .field("budget", &self.budget)
            .field("records", &inner.records.len())
            .field("bytes", &inner.bytes)
            .finish()
    }
}

#[derive(Default)]
struct MemInner {
    /// By id; the key is shared with `order`.
    records: HashMap<Arc<str>, Kept, foldhash::fast::RandomState>,
    /// Ids, oldest first.
    order: VecDeque<Arc<str>>,
    /// What the records take, the sum of their `cost`.
    bytes: usize,
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
    /// What the record takes, in bytes (an estimate that errs on the large side).
    cost: usize,
    /// Of which the arguments.
    input_cost: usize,
    /// Of which the pending output.
    output_cost: usize,
}

impl Kept {
    /// The whole record of `id`, its pending parts made (once: they are kept made), and
    /// what it takes now.
    fn read(&mut self, id: &str) -> &ActivityRecord {
        if let Some(name) = self.name.take() {
            self.record.id = id.to_owned();
            self.record.name = String::from(&*name);
        }
        if let Some(args) = self.input.take() {
            // Text parsed into a tree may take more than the text did.
            let input = record_input(&args);
            let bytes = tree_bytes(&input, MAX_RECORD_INPUT_BYTES);
            self.record.input = match bytes {
                Some(_) => input,
                None => bound::arguments_marker(&args, MAX_RECORD_INPUT_BYTES),
            };
            let now = tree_bytes(&self.record.input, usize::MAX).unwrap_or(0);
            self.recost(self.input_cost, now);
            self.input_cost = now;
        }
        if let Some(output) = self.output.take() {
            self.recost(self.output_cost, 0);
            self.output_cost = 0;
            self.merge(output_data(&output));
            self.summarize(output.status(), Some(result_preview(&output)));
        }
        &self.record
    }

    /// Cuts a failed call's arguments to a summary.
    fn summarize_input(&mut self) {
        let input = match &self.input {
            Some(args) if bound::arguments_bytes(args, MAX_FAILED_INPUT_BYTES).is_none() => {
                bound::arguments_marker(args, MAX_FAILED_INPUT_BYTES)
            }
            Some(_) => return,
            None if tree_bytes(&self.record.input, MAX_FAILED_INPUT_BYTES).is_none() => {
                let head = bound::json_head(&self.record.input, PREVIEW_BYTES);
                bound::marker("arguments", None, MAX_FAILED_INPUT_BYTES, &head)
            }
            None => return,
        };
        let now = tree_bytes(&input, usize::MAX).unwrap_or(0);
        self.input = None;
        self.record.input = input;
        self.recost(self.input_cost, now);
        self.input_cost = now;
    }

    /// Sets the status line and preview (bounded), keeping `cost` in step.
    fn summarize(&mut self, status_line: Option<String>, preview: Option<String>) {
        let status_line = status_line.map(bound::bounded_error);
        let preview = preview.map(|p| super::preview_of(&p));
        let len = |s: &Option<String>| s.as_ref().map_or(0, String::len);
        let old = len(&self.record.status_line) + len(&self.record.preview);
        self.recost(old, len(&status_line) + len(&preview));
        self.record.status_line = status_line;
        self.record.preview = preview;
    }

    /// The cost with `old` bytes replaced by `new`.
    fn recost(&mut self, old: usize, new: usize) {
        self.cost = self.cost.saturating_sub(old) + new;
    }

    /// Applies `update` with its parts bounded, keeping `cost` in step.
    fn apply(&mut self, update: ActivityUpdate) {
        match update {
            ActivityUpdate::DisplayMessage(m) => {
                let m = m.map(bound::bounded_error);
                let old = self.record.display_message.as_ref().map_or(0, String::len);
                self.recost(old, m.as_ref().map_or(0, String::len));
                self.record.display_message = m;
            }
            ActivityUpdate::MergeData(data) => self.merge(data),
            ActivityUpdate::Summary {
                status_line,
                preview,
            } => self.summarize(status_line, preview),
            ActivityUpdate::DeleteData(keys) => {
                for key in &keys {
                    self.recost(self.data_cost(key), 0);
                }
                self.record.apply(ActivityUpdate::DeleteData(keys));
            }
            ActivityUpdate::Approved(allowed) => {
                let rule = allowed.rule.as_ref().map_or(0, String::len);
                self.recost(0, rule);
                self.record.apply(ActivityUpdate::Approved(allowed));
            }
            ActivityUpdate::Unanswered { error } => {
                let error = bound::bounded_error(error);
                self.recost(0, error.len());
                self.record.apply(ActivityUpdate::Unanswered { error });
            }
            ActivityUpdate::Finish {
                status,
                data,
                error,
            } => {
                if let Some(data) = data {
                    self.merge(data);
                }
                let error = error.map(bound::bounded_error);
                let old = self.record.display_message.as_ref().map_or(0, String::len);
                self.recost(old, error.as_ref().map_or(0, String::len));
                self.record.apply(ActivityUpdate::Finish {
                    status,
                    data: None,
                    error,
                });
                if status == ActivityStatus::Failure {
                    self.summarize_input();
                }
            }
        }
    }

    fn merge(&mut self, data: Map<String, Value>) {
        for key in data.keys() {
            self.recost(self.data_cost(key), 0);
        }
        let (data, bytes) = bound::bounded_data(data);
        self.cost += bytes;
        self.record.apply(ActivityUpdate::MergeData(data));
    }

    /// What the data field `key` takes, as [`bound::bounded_data`] counted it.
    fn data_cost(&self, key: &str) -> usize {
        self.record.data.get(key).map_or(0, |v| {
            let value = tree_bytes(v, usize::MAX).unwrap_or(0);
            key.len() + size_of::<String>() + 16 + value
        })
    }
}

impl Default for InMemoryActivityStore {
    fn default() -> Self {
        Self::with_capacity(DEFAULT_ACTIVITY_CAPACITY)
    }
}

impl InMemoryActivityStore {
    /// A store keeping [`DEFAULT_ACTIVITY_CAPACITY`] records within
    /// [`DEFAULT_ACTIVITY_BUDGET_BYTES`].
    pub fn new() -> Self {
        Self::default()
    }

    /// A store keeping at most `capacity` records (at least 1) within
    /// [`DEFAULT_ACTIVITY_BUDGET_BYTES`].
    pub fn with_capacity(capacity: usize) -> Self {
        InMemoryActivityStore {
            capacity: capacity.max(1),
            budget: DEFAULT_ACTIVITY_BUDGET_BYTES,
            inner: Mutex::new(MemInner::default()),
        }
    }

    /// The same store with a memory budget of `bytes`: when its records take more, the
    /// oldest finished ones go. The newest record is always kept.
    pub fn with_budget(mut self, bytes: usize) -> Self {
        self.budget = bytes;
        self
    }

    /// The bytes the records take now, as the store counts them against its budget.
    pub fn bytes(&self) -> usize {
        self.lock().bytes
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, MemInner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn keep(&self, kept: Kept, id: Arc<str>) {
        let mut inner = self.lock();
        inner.bytes += kept.cost;
        let mut gone = Vec::new();
        match inner.records.get_mut(&*id) {
            // Replacing a record already kept takes no place in the order.
            Some(slot) => gone.push(std::mem::replace(slot, kept)),
            None => {
                inner.records.insert(id.clone(), kept);
                inner.order.push_back(id);
            }
        }
        for old in &gone {
            inner.bytes = inner.bytes.saturating_sub(old.cost);
        }
        self.evict(&mut inner, &mut gone);
        // What went is dropped after the lock is released.
        drop(inner);
        drop(gone);
    }

    /// Changes the record `id` (if kept and still running) by `change`, then evicts what the
    /// count and budget no longer hold.
    fn change(&self, id: &str, change: impl FnOnce(&mut Kept)) {
        let mut inner = self.lock();
        let Some(k) = inner.records.get_mut(id) else {
            return;
        };
        if k.record.status.is_terminal() {
            return;
        }
        let before = k.cost;
        change(k);
        let after = k.cost;
        inner.bytes = inner.bytes.saturating_sub(before) + after;
        let mut gone = Vec::new();
        self.evict(&mut inner, &mut gone);
        drop(inner);
        drop(gone);
    }

    /// Removes the oldest finished records while there are more than the capacity or they
    /// take more than the budget (when none has finished and the count is over, the oldest of
    /// all); the newest record stays.
    fn evict(&self, inner: &mut MemInner, gone: &mut Vec<Kept>) {
        while inner.order.len() > 1
            && (inner.order.len() > self.capacity || inner.bytes > self.budget)
        {
            let finished = inner.order.iter().position(|id| {
                inner
                    .records
                    .get(id)
                    .is_none_or(|k| k.record.status.is_terminal())
            });
            let pos = match finished {
                Some(pos) => pos,
                None if inner.order.len() > self.capacity => 0,
                None => break,
            };
            let Some(old) = inner.order.remove(pos) else {
                break;
            };
            if let Some(kept) = inner.records.remove(&old) {
                inner.bytes = inner.bytes.saturating_sub(kept.cost);
                gone.push(kept);
            }
        }
    }
}

#[async_trait]
impl ActivityStore for InMemoryActivityStore {
    fn begin(&self, start: ActivityStart) {
        // The record's id and name are made when it is first read.
        let mut record =
            ActivityRecord::new(String::new(), String::new(), Value::Null, start.user_facing);
        let (data, data_cost) = bound::bounded_data(start.data);
        record.data = data;
        record.conversation = start.conversation;
        record.status = start.status;
        record.allowed = start.allowed;
        record.started_at_ms = start.started_at_ms;
        let (input, input_cost) =
            match bound::arguments_bytes(&start.arguments, MAX_RECORD_INPUT_BYTES) {
                Some(n) => (Some(start.arguments), n),
                None => {
                    record.input =
                        bound::arguments_marker(&start.arguments, MAX_RECORD_INPUT_BYTES);
                    (None, tree_bytes(&record.input, usize::MAX).unwrap_or(0))
                }
            };
        let kept = Kept {
            record,
            cost: RECORD_OVERHEAD + start.name.len() + input_cost + data_cost,
            name: Some(start.name),
            input,
            output: None,
            input_cost,
            output_cost: 0,
        };
        self.keep(kept, start.id);
    }

    fn update(&self, id: &str, update: ActivityUpdate) {
        self.change(id, |k| k.apply(update));
    }

    fn resume(&self, start: ActivityStart) {
        if !self.lock().records.contains_key(&*start.id) {
            self.begin(start);
        }
    }

    fn succeed(&self, id: &str, output: &ToolOutput) {
        // Measured outside the lock: it writes the output's JSON (to a counter).
        let len = output.metered(MAX_RECORD_RESULT_BYTES, 0).len;
        // A result too large to keep has its status line and preview made now.
        let cut = len.is_none().then(|| {
            let head = output.metered(PREVIEW_BYTES, PREVIEW_BYTES).head;
            let marker = bound::marker("result", None, MAX_RECORD_RESULT_BYTES, &head);
            (marker, output.status(), result_preview(output))
        });
        self.change(id, |k| {
            // Finished now; the output's data is merged when the record is read.
            let status = if output.is_success() {
                ActivityStatus::Success
            } else {
                ActivityStatus::Failure
            };
            k.apply(ActivityUpdate::Finish {
                status,
                data: None,
                error: output.failure(),
            });
            match cut {
                None => {
                    k.output = Some(output.clone());
                    k.output_cost = len.unwrap_or(0);
                    k.cost += k.output_cost;
                }
                Some((marker, status_line, preview)) => {
                    let mut data = Map::new();
                    data.insert("result_truncated".into(), marker);
                    k.merge(data);
                    k.summarize(status_line, Some(preview));
                }
            }
        });
    }

    async fn get(&self, id: &str) -> Option<ActivityRecord> {
        let mut inner = self.lock();
        let k = inner.records.get_mut(id)?;
        let before = k.cost;
        let record = k.read(id).clone();
        let after = k.cost;
        inner.bytes = inner.bytes.saturating_sub(before) + after;
        Some(record)
    }

    async fn list(&self) -> Vec<ActivityRecord> {
        let mut guard = self.lock();
        let inner = &mut *guard;
        for id in &inner.order {
            if let Some(k) = inner.records.get_mut(&**id) {
                let before = k.cost;
                k.read(id);
                inner.bytes = inner.bytes.saturating_sub(before) + k.cost;
            }
        }
        let mut gone = Vec::new();
        self.evict(inner, &mut gone);
        let records = inner
            .order
            .iter()
            .filter_map(|id| inner.records.get_mut(&**id).map(|k| k.read(id).clone()))
            .collect();
        drop(guard);
        drop(gone);
        records
    }
}
