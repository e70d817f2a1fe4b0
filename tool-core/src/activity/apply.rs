//! A call's changes applied to its record, as a store that writes to a database keeps it:
//! each part bounded as the in-memory store bounds it. The SQLite and Postgres writers share
//! this.

use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::Map;

use crate::activity::bound::{self, MAX_FAILED_INPUT_BYTES, MAX_RECORD_INPUT_BYTES, PREVIEW_BYTES};
use crate::activity::{
    ActivityRecord, ActivityStart, ActivityStatus, ActivityUpdate, MAX_RECORD_RESULT_BYTES,
    output_data, result_preview,
};
use crate::output::ToolOutput;

/// The changes a store's writer dropped, counted, and when a drop was last logged: a store
/// logs drops at most once a second, whatever the rate.
#[derive(Debug, Default)]
pub(crate) struct Drops {
    total: AtomicU64,
    last_logged_ms: AtomicU64,
}

impl Drops {
    /// Counts `n` drops; the total so far when they are to be logged now (no log in the
    /// last second), else `None`.
    pub(crate) fn count(&self, n: u64) -> Option<u64> {
        let total = self.total.fetch_add(n, Ordering::Relaxed) + n;
        let now = crate::events::now_ms();
        let last = self.last_logged_ms.load(Ordering::Relaxed);
        (now.saturating_sub(last) >= 1000
            && self
                .last_logged_ms
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok())
        .then_some(total)
    }

    /// The drops counted so far.
    pub(crate) fn total(&self) -> u64 {
        self.total.load(Ordering::Relaxed)
    }
}

/// A call's record as it began (when its start says): its arguments bounded as the
/// in-memory store bounds them.
pub(crate) fn begun(start: ActivityStart) -> ActivityRecord {
    let input = match bound::arguments_bytes(&start.arguments, MAX_RECORD_INPUT_BYTES) {
        Some(_) => start.input(),
        None => bound::arguments_marker(&start.arguments, MAX_RECORD_INPUT_BYTES),
    };
    let mut record = ActivityRecord::new(&*start.id, &*start.name, input, start.user_facing);
    record.data = bound::bounded_data(start.data).0;
    record.conversation = start.conversation;
    record.status = start.status;
    record.allowed = start.allowed;
    record.started_at_ms = start.started_at_ms;
    record
}

/// Applies `update` with its parts bounded; a failed call's arguments are cut to a summary.
pub(crate) fn change(record: &mut ActivityRecord, update: ActivityUpdate, at: u64) {
    let update = match update {
        ActivityUpdate::DisplayMessage(m) => {
            ActivityUpdate::DisplayMessage(m.map(bound::bounded_error))
        }
        ActivityUpdate::MergeData(data) => ActivityUpdate::MergeData(bound::bounded_data(data).0),
        ActivityUpdate::Summary {
            status_line,
            preview,
        } => ActivityUpdate::Summary {
            status_line: status_line.map(bound::bounded_error),
            preview: preview.map(|p| crate::activity::preview_of(&p)),
        },
        ActivityUpdate::Finish {
            status,
            data,
            error,
        } => ActivityUpdate::Finish {
            status,
            data: data.map(|d| bound::bounded_data(d).0),
            error: error.map(bound::bounded_error),
        },
        ActivityUpdate::Unanswered { error } => ActivityUpdate::Unanswered {
            error: bound::bounded_error(error),
        },
        other => other,
    };
    let finishing = matches!(
        update,
        ActivityUpdate::Finish { .. } | ActivityUpdate::Unanswered { .. }
    );
    let was = record.status;
    record.apply(update);
    if finishing && record.status != was {
        record.finished_at_ms = Some(at);
        if record.status == ActivityStatus::Failure
            && bound::tree_bytes(&record.input, MAX_FAILED_INPUT_BYTES).is_none()
        {
            let head = bound::json_head(&record.input, PREVIEW_BYTES);
            record.input = bound::marker("arguments", None, MAX_FAILED_INPUT_BYTES, &head);
        }
    }
}

/// Finishes a record with a successful call's output: its status line, preview and data
/// (a result past [`MAX_RECORD_RESULT_BYTES`] as a marker).
pub(crate) fn succeed(record: &mut ActivityRecord, output: &ToolOutput, at: u64) {
    let status = if output.is_success() {
        ActivityStatus::Success
    } else {
        ActivityStatus::Failure
    };
    let data = match output.metered(MAX_RECORD_RESULT_BYTES, 0).len {
        Some(_) => output_data(output),
        None => {
            let head = output.metered(PREVIEW_BYTES, PREVIEW_BYTES).head;
            let mut data = Map::new();
            data.insert(
                "result_truncated".into(),
                bound::marker("result", None, MAX_RECORD_RESULT_BYTES, &head),
            );
            data
        }
    };
    change(
        record,
        ActivityUpdate::Summary {
            status_line: output.status(),
            preview: Some(result_preview(output)),
        },
        at,
    );
    change(
        record,
        ActivityUpdate::Finish {
            status,
            data: Some(data),
            error: output.failure(),
        },
        at,
    );
}
