#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) mod apply;
pub(crate) mod bound;
mod conversation;
mod deferred;
mod guard;
mod memory;
#[cfg(feature = "sqlite")]
mod sqlite;

pub use bound::{MAX_FAILED_INPUT_BYTES, MAX_RECORD_INPUT_BYTES, MAX_RECORD_RESULT_BYTES};
pub(crate) use bound::{Meter, Metered, meter_with, text_head};
pub use conversation::{Conversation, MAX_CONVERSATION_FIELD_BYTES};
pub(crate) use deferred::Deferrals;
pub use deferred::MAX_DEFERRED_CALLS;
pub(crate) use guard::ActivityGuard;
pub use memory::{DEFAULT_ACTIVITY_BUDGET_BYTES, DEFAULT_ACTIVITY_CAPACITY, InMemoryActivityStore};
#[cfg(feature = "sqlite")]
pub use sqlite::{
    ActivityStoreError, DEFAULT_SQLITE_GATHER, DEFAULT_SQLITE_MAX_AGE, DEFAULT_SQLITE_MAX_BYTES,
    DEFAULT_SQLITE_MAX_RECORDS, SqliteActivityConfig, SqliteActivityStore, SqliteStats,
};

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::approval::ApprovedBy;
use crate::call::Arguments;
use crate::output::ToolOutput;

/// The error a call left open by a server that stopped is closed with (by the SQLite store
/// when the next process opens the file, by the Postgres store when the replica's lease runs
/// out).
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub const ABANDONED: &str = "the server running this call stopped before it finished";

/// The next activity id's number, shared by every runtime of the process.
static NEXT_ACTIVITY: AtomicU64 = AtomicU64::new(1);

/// The next activity id, `act_<process>_N` (written by hand: `format!` costs a noticeable
/// part of a call's path). The process's tag keeps ids apart when several processes share
/// one store.
pub(crate) fn next_activity_id() -> Arc<str> {
    activity_id(
        process_tag(),
        NEXT_ACTIVITY.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
    )
}

/// `act_<tag>_N`.
fn activity_id(tag: &str, n: u64) -> Arc<str> {
    let mut digits = [0u8; 20];
    let digits = crate::call::decimal_digits(n, &mut digits);
    let mut id = [0u8; 48];
    id[..4].copy_from_slice(b"act_");
    let tag = &tag.as_bytes()[..tag.len().min(16)];
    let mut len = 4 + tag.len();
    id[4..len].copy_from_slice(tag);
    id[len] = b'_';
    len += 1;
    id[len..len + digits.len()].copy_from_slice(digits);
    len += digits.len();
    // ASCII after `act_`: always UTF-8.
    Arc::from(std::str::from_utf8(&id[..len]).unwrap_or("act_"))
}

/// Eight hex digits telling this process apart from others that share a store: made once
/// from the process id and the time it was first asked for.
pub(crate) fn process_tag() -> &'static str {
    static TAG: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TAG.get_or_init(|| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        let mixed =
            (nanos ^ (u64::from(std::process::id()) << 32)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        format!("{:08x}", (mixed >> 32) as u32)
    })
}

/// The most a record's result preview ([`result_preview`]) holds, in bytes.
pub const MAX_PREVIEW_BYTES: usize = 240;

/// A short preview of a result, as a cell shows it before it is unfolded: the text the model
/// reads ([`ToolOutput::model_text`]) with its lines kept (a diff stays a diff; blank lines and
/// trailing spaces go), cut at [`MAX_PREVIEW_BYTES`] with `…`.
pub fn result_preview(output: &ToolOutput) -> String {
    let text = output.model_text(&mut crate::render::ResourcesTracker::new());
    preview_of(&text)
}

/// `text` as a preview: its non-blank lines, trailing spaces trimmed (and the first line's
/// leading ones), cut at [`MAX_PREVIEW_BYTES`].
pub(crate) fn preview_of(text: &str) -> String {
    let mut out = String::with_capacity(MAX_PREVIEW_BYTES.min(text.len()) + 4);
    let lines = text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty());
    for (i, line) in lines.enumerate() {
        // The preview starts at the text, not at its first line's indentation.
        let line = if i == 0 { line.trim_start() } else { line };
        if !out.is_empty() {
            if out.len() + 1 > MAX_PREVIEW_BYTES {
                out.push('…');
                return out;
            }
            out.push('\n');
        }
        for c in line.chars() {
            if out.len() + c.len_utf8() > MAX_PREVIEW_BYTES {
                out.push('…');
                return out;
            }
            out.push(c);
        }
    }
    out
}

/// Where a call's activity stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ActivityStatus {
    /// Waiting for someone to approve it; it runs (`in_progress`) once approved, and ends
    /// `failure` when denied.
    AwaitingApproval,
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
        !matches!(
            self,
            ActivityStatus::InProgress | ActivityStatus::AwaitingApproval
        )
    }

    /// Its name on the wire: `awaiting_approval`, `in_progress`, `success`, `failure`.
    pub fn as_str(self) -> &'static str {
        match self {
            ActivityStatus::AwaitingApproval => "awaiting_approval",
            ActivityStatus::InProgress => "in_progress",
            ActivityStatus::Success => "success",
            ActivityStatus::Failure => "failure",
        }
    }
}

/// How a call that needed someone's (or a rule's) leave came to run: the record's
/// `allowed`. A call nothing asked about has none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Allowed {
    /// Who allowed it.
    pub by: ApprovedBy,
    /// The `allow` rule, for [`ApprovedBy::Rule`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// How long the call waited for the answer, in milliseconds (part of its duration).
    pub waited_ms: u64,
}

impl Allowed {
    /// Allowed by `by` after waiting `waited_ms`.
    pub fn new(by: ApprovedBy, waited_ms: u64) -> Self {
        Allowed {
            by,
            rule: None,
            waited_ms,
        }
    }

    /// Allowed by the rule `rule`, without waiting.
    pub fn by_rule(rule: impl Into<String>) -> Self {
        Allowed {
            by: ApprovedBy::Rule,
            rule: Some(rule.into()),
            waited_ms: 0,
        }
    }

    /// How a person reads it: `allowed by the rule `allow: bash(git status *)``, `allowed by
    /// the user (once) after 5.0 s`.
    pub fn describe(&self) -> String {
        let mut text = match (&self.rule, self.by) {
            (Some(rule), ApprovedBy::Rule) => format!("allowed by the rule `{rule}`"),
            (_, by) => format!("allowed by {}", by.describe()),
        };
        if self.waited_ms > 0 {
            let secs = self.waited_ms as f64 / 1000.0;
            text.push_str(&format!(" after {secs:.1} s"));
        }
        text
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
    /// The tool's status line for a finished call ([`Render::status`](crate::Render::status)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_line: Option<String>,
    /// A short preview of the result ([`result_preview`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<String>,
    /// The conversation the call belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation: Option<Arc<Conversation>>,
    /// How the call came to run, when a rule or someone had to allow it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed: Option<Allowed>,
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
            status_line: None,
            preview: None,
            conversation: None,
            allowed: None,
        }
    }

    /// How long the call took, once it has finished.
    pub fn duration_ms(&self) -> Option<u64> {
        self.finished_at_ms
            .map(|f| f.saturating_sub(self.started_at_ms))
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
            ActivityUpdate::Summary {
                status_line,
                preview,
            } => {
                self.status_line = status_line;
                self.preview = preview;
            }
            ActivityUpdate::Approved(allowed) => {
                if self.status == ActivityStatus::AwaitingApproval {
                    self.status = ActivityStatus::InProgress;
                    self.allowed = Some(allowed);
                }
            }
            ActivityUpdate::Unanswered { error } => {
                if self.status == ActivityStatus::AwaitingApproval {
                    self.status = ActivityStatus::Failure;
                    self.error = Some(error);
                    self.finished_at_ms = Some(crate::events::now_ms());
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
    /// Sets the status line and the result's preview (sent before a successful call's
    /// [`Finish`](Self::Finish) by [`ActivityStore::succeed`]'s default).
    Summary {
        /// The tool's status line.
        status_line: Option<String>,
        /// A short preview of the result.
        preview: Option<String>,
    },
    /// The call waiting for approval was allowed: it runs now (`in_progress`), and the
    /// record keeps how. Ignored unless the record is `awaiting_approval`.
    Approved(Allowed),
    /// The question the call waits on expired or was withdrawn: the record ends `failure`
    /// with `error`. Ignored unless the record is `awaiting_approval` (a call continued
    /// elsewhere is not ended by the process that asked).
    Unanswered {
        /// Why it ended.
        error: String,
    },
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
    /// The conversation the call belongs to.
    pub conversation: Option<Arc<Conversation>>,
    /// `in_progress`, or `awaiting_approval` for a call that waits to be allowed.
    pub status: ActivityStatus,
    /// How the call came to run, when a rule allowed it before its record began.
    pub allowed: Option<Allowed>,
    /// When the call began, in milliseconds since the Unix epoch (a call continuing another's
    /// question began when it was asked).
    pub started_at_ms: u64,
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
            conversation: None,
            status: ActivityStatus::InProgress,
            allowed: None,
            started_at_ms: crate::events::now_ms(),
        }
    }

    /// The same start in `conversation`.
    pub fn with_conversation(mut self, conversation: Arc<Conversation>) -> Self {
        self.conversation = Some(conversation);
        self
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
        record.conversation = self.conversation;
        record.status = self.status;
        record.allowed = self.allowed;
        record.started_at_ms = self.started_at_ms;
        record
    }
}

/// Arguments as an activity record (and a START event) keeps them: the tree, the text
/// parsed, the text itself when it does not parse, an empty object for empty text, and in
/// place of arguments over [`MAX_RECORD_INPUT_BYTES`] a marker string that says how large
/// they were and shows how they began.
pub fn record_input(arguments: &Arguments) -> Value {
    if bound::arguments_bytes(arguments, MAX_RECORD_INPUT_BYTES).is_none() {
        return bound::arguments_marker(arguments, MAX_RECORD_INPUT_BYTES);
    }
    match arguments {
        Arguments::Value(v) => v.clone(),
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
            error: output.failure(),
        }
    }
}

/// The fields an output merges into a record's `data` (see [`ActivityUpdate::succeeded`]).
pub(super) fn output_data(output: &ToolOutput) -> Map<String, Value> {
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
///
/// The activity lifecycle (seed 002): every call leaves a record that goes from
/// `in_progress` to `success` or `failure`, which a UI can show while the tool runs.
///
/// The runtime opens and closes a call's record through a guard (`guard.rs`) that pairs
/// the call's `TOOL_CALL_START` with its `TOOL_CALL_END` or `ERROR` on every exit; the
/// default store is [`InMemoryActivityStore`] (`memory.rs`). What a record keeps is bounded in
/// bytes (`bound.rs`): arguments past [`MAX_RECORD_INPUT_BYTES`] and results past
/// [`MAX_RECORD_RESULT_BYTES`] are kept as a marker that says how large they were and shows how
/// they began; a failed call keeps a summary of [`MAX_FAILED_INPUT_BYTES`].
///
/// A record says who made the call ([`Conversation`]: the MCP session, the client, the
/// principal and agent), so a UI can group calls by conversation, and keeps the tool's status
/// line ([`Render::status`](crate::Render::status)) and a short preview of its result
/// ([`result_preview`], at most [`MAX_PREVIEW_BYTES`]) beside the whole result.
///
/// With the feature `sqlite`, [`SqliteActivityStore`] keeps the records in an SQLite file
/// that survives restarts and that several processes may share (`sqlite/`).
#[async_trait]
pub trait ActivityStore: Send + Sync + 'static {
    /// A call began: keep its in-progress record ([`ActivityStart::into_record`] makes it).
    fn begin(&self, start: ActivityStart);
    /// Changes a record: its display message or data while it runs, or its end.
    fn update(&self, id: &str, update: ActivityUpdate);
    /// A call succeeded with `output`: finishes its record. By default an
    /// [`ActivityUpdate::Summary`] (status line and preview) then the
    /// [`ActivityUpdate::succeeded`] update; a store may keep the output as it came instead
    /// and make its JSON when the record is read.
    fn succeed(&self, id: &str, output: &ToolOutput) {
        let summary = ActivityUpdate::Summary {
            status_line: output.status(),
            preview: Some(result_preview(output)),
        };
        self.update(id, summary);
        self.update(id, ActivityUpdate::succeeded(output));
    }
    /// A call whose question was asked by an earlier call (perhaps in another process
    /// sharing the store) continues here: its record, `awaiting_approval`, is `start.id`.
    /// A store that keeps that record goes on with it (and, when processes share it, counts
    /// it as this process's from now); one that does not keeps `start` as a new record. The
    /// default is [`begin`](Self::begin), right for a store that replaces a record begun
    /// twice.
    fn resume(&self, start: ActivityStart) {
        self.begin(start);
    }
    /// A record by id.
    async fn get(&self, id: &str) -> Option<ActivityRecord>;
    /// All records kept, oldest first.
    async fn list(&self) -> Vec<ActivityRecord>;
    /// One page of the records, newest first (what the activity page reads): at most `limit`
    /// records after the record `after` (the last of the page before) or, without it, after
    /// skipping `offset`; `None` when `after` names no record kept. The default reads
    /// [`list`](Self::list); a store in a database reads only the page.
    async fn newest(
        &self,
        after: Option<&str>,
        offset: usize,
        limit: usize,
    ) -> Option<ActivityPage> {
        let mut all = self.list().await;
        all.reverse();
        let total = all.len();
        let start = match after {
            Some(id) => all.iter().position(|r| r.id == id)? + 1,
            None => offset.min(total),
        };
        let records: Vec<ActivityRecord> = all.into_iter().skip(start).take(limit).collect();
        Some(ActivityPage {
            offset: start,
            total,
            records,
        })
    }
}

/// One page of activity records, newest first ([`ActivityStore::newest`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ActivityPage {
    /// The records.
    pub records: Vec<ActivityRecord>,
    /// How many newer records come before the first.
    pub offset: usize,
    /// How many records the store keeps in all.
    pub total: usize,
}

impl ActivityPage {
    /// A page of `records` that begins `offset` records after the newest, of `total`.
    pub fn new(records: Vec<ActivityRecord>, offset: usize, total: usize) -> Self {
        ActivityPage {
            records,
            offset,
            total,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_preview_keeps_its_lines_and_its_bound() {
        let diff = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old   \n+new\n\n\n";
        assert_eq!(
            preview_of(diff),
            "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new"
        );
        assert_eq!(preview_of("  \n\n one  two \n"), "one  two");
        let long = "line\n".repeat(200);
        let cut = preview_of(&long);
        assert!(
            cut.ends_with('…') && cut.len() <= MAX_PREVIEW_BYTES + '…'.len_utf8(),
            "{cut}"
        );
        assert!(cut.starts_with("line\nline\n"));
    }

    #[test]
    fn activity_ids_are_act_and_a_new_number() {
        let a = next_activity_id();
        let b = next_activity_id();
        let tag = process_tag();
        assert_eq!(tag.len(), 8);
        let number = |id: &str| -> u64 {
            let n = id
                .strip_prefix("act_")
                .and_then(|r| r.strip_prefix(tag))
                .and_then(|r| r.strip_prefix('_'))
                .expect("act_<tag>_N");
            assert!(n.bytes().all(|c| c.is_ascii_digit()), "{id}");
            n.parse().expect("a number")
        };
        assert!(number(&b) > number(&a), "{a} then {b}");
        for n in [0, 7, 10, 99, 12_345, u64::MAX] {
            assert_eq!(*activity_id("0badc0de", n), format!("act_0badc0de_{n}"));
        }
    }

    #[test]
    fn a_preview_is_short() {
        assert_eq!(
            preview_of("  Found 3\n\n  results\t "),
            "Found 3\n  results"
        );
        let long = preview_of(&"é".repeat(1000));
        assert!(long.len() <= MAX_PREVIEW_BYTES + '…'.len_utf8());
        assert!(long.ends_with('…'));
    }
}
