//! The table, and records to rows and back.

use std::sync::Arc;

use rusqlite::{Connection, OptionalExtension, Row, params};
use serde_json::{Map, Value};

use crate::activity::{ActivityRecord, ActivityStatus, Conversation};

/// The schema version this build writes and understands (`PRAGMA user_version`); older
/// files are upgraded when opened (version 1: the `process` column added; version 2: the
/// table rebuilt to take `awaiting_approval` and the `allowed` column, see [`upgrade`]).
pub(super) const SCHEMA_VERSION: i64 = 3;

/// `seq` orders records as they began across every process sharing the file; `changed` is
/// the number of the write that last touched a row (from `counter`), which a follower reads
/// on from; `process` names the process that records the call (see `owner`; version 2);
/// `allowed` is how a call came to run, as JSON (version 3).
pub(super) const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS activity (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE,
    name            TEXT NOT NULL,
    status          TEXT NOT NULL
                    CHECK (status IN ('awaiting_approval', 'in_progress', 'success', 'failure')),
    input           TEXT NOT NULL,
    data            TEXT NOT NULL,
    display_message TEXT,
    error           TEXT,
    status_line     TEXT,
    preview         TEXT,
    user_facing     INTEGER NOT NULL,
    started_at_ms   INTEGER NOT NULL,
    finished_at_ms  INTEGER,
    conversation    TEXT,
    conversation_key TEXT,
    principal       TEXT,
    changed         INTEGER NOT NULL,
    process         TEXT,
    allowed         TEXT
);
CREATE INDEX IF NOT EXISTS activity_started ON activity (started_at_ms);
CREATE INDEX IF NOT EXISTS activity_changed ON activity (changed);
CREATE TABLE IF NOT EXISTS counter (
    id    INTEGER PRIMARY KEY CHECK (id = 1),
    value INTEGER NOT NULL
);
INSERT OR IGNORE INTO counter (id, value) VALUES (1, 0);
";

/// The index of the calls not finished (made after [`upgrade`]: a version 2 table's index
/// named only `in_progress`).
pub(super) const OPEN_INDEX: &str = "
DROP INDEX IF EXISTS activity_open;
CREATE INDEX IF NOT EXISTS activity_waiting ON activity (status)
    WHERE status IN ('awaiting_approval', 'in_progress');
";

/// The columns every version's table has, copied when a table is rebuilt.
const KEPT_COLUMNS: &str = "seq, id, name, status, input, data, display_message, error, \
    status_line, preview, user_facing, started_at_ms, finished_at_ms, conversation, \
    conversation_key, principal, changed, process";

/// Upgrades a table made before version 3, inside the opening transaction: SQLite cannot
/// change a `CHECK`, so the table is made anew with the version 3 columns and the rows
/// copied (their `seq` kept, so the order and followers' cursors hold). A version 1 table
/// has its `process` column added first. Returns whether the table was rebuilt.
pub(super) fn upgrade(tx: &Connection) -> rusqlite::Result<bool> {
    let column = |name: &str| -> rusqlite::Result<bool> {
        tx.query_row(
            "SELECT COUNT(*) > 0 FROM pragma_table_info('activity') WHERE name = ?1",
            [name],
            |r| r.get(0),
        )
    };
    if column("allowed")? {
        return Ok(false);
    }
    if !column("process")? {
        tx.execute_batch("ALTER TABLE activity ADD COLUMN process TEXT")?;
    }
    tx.execute_batch(&format!(
        "ALTER TABLE activity RENAME TO activity_v2;
         DROP INDEX IF EXISTS activity_started;
         DROP INDEX IF EXISTS activity_open;
         DROP INDEX IF EXISTS activity_changed;
         {SCHEMA}
         INSERT INTO activity ({KEPT_COLUMNS}) SELECT {KEPT_COLUMNS} FROM activity_v2;
         DROP TABLE activity_v2;"
    ))?;
    Ok(true)
}

/// The columns a record is read from, in [`record_of`]'s order.
pub(super) const COLUMNS: &str = "id, name, status, input, data, display_message, error, \
    status_line, preview, user_facing, started_at_ms, finished_at_ms, conversation, changed, \
    allowed";

fn status_of(text: &str) -> ActivityStatus {
    match text {
        "success" => ActivityStatus::Success,
        "failure" => ActivityStatus::Failure,
        "awaiting_approval" => ActivityStatus::AwaitingApproval,
        _ => ActivityStatus::InProgress,
    }
}

/// A row read back as a record, and the write that last changed it. A column another
/// program filled with something else reads as empty rather than failing the whole list.
pub(super) fn record_of(row: &Row<'_>) -> rusqlite::Result<(ActivityRecord, u64)> {
    let text = |i: usize| row.get::<_, Option<String>>(i);
    let input: Value = text(3)?
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    let data: Map<String, Value> = text(4)?
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let conversation = text(12)?
        .and_then(|t| serde_json::from_str::<Conversation>(&t).ok())
        .map(Arc::new);
    let mut record = ActivityRecord::new(
        text(0)?.unwrap_or_default(),
        text(1)?.unwrap_or_default(),
        input,
        row.get::<_, Option<bool>>(9)?.unwrap_or(true),
    );
    record.status = status_of(&text(2)?.unwrap_or_default());
    record.data = data;
    record.display_message = text(5)?;
    record.error = text(6)?;
    record.status_line = text(7)?;
    record.preview = text(8)?;
    record.started_at_ms = row.get::<_, Option<i64>>(10)?.unwrap_or(0).max(0) as u64;
    record.finished_at_ms = row.get::<_, Option<i64>>(11)?.map(|v| v.max(0) as u64);
    record.conversation = conversation;
    record.allowed = text(14)?.and_then(|t| serde_json::from_str(&t).ok());
    let changed = row.get::<_, Option<i64>>(13)?.unwrap_or(0).max(0) as u64;
    Ok((record, changed))
}

/// The record `id`, if the file has it.
pub(super) fn load(conn: &Connection, id: &str) -> rusqlite::Result<Option<ActivityRecord>> {
    let sql = format!("SELECT {COLUMNS} FROM activity WHERE id = ?1");
    conn.prepare_cached(&sql)?
        .query_row([id], record_of)
        .optional()
        .map(|r| r.map(|(record, _)| record))
}

/// Writes `record` (inserted, or updated in place, keeping its `seq`), stamped with the
/// write `changed`; `conversation` is its conversation's JSON.
pub(super) fn save(
    conn: &Connection,
    record: &ActivityRecord,
    conversation: Option<&str>,
    changed: u64,
) -> rusqlite::Result<()> {
    let input = record.input.to_string();
    let data = serde_json::to_string(&record.data).unwrap_or_else(|_| "{}".to_owned());
    let key = record.conversation.as_ref().map(|c| c.key.as_str());
    let principal = record
        .conversation
        .as_ref()
        .and_then(|c| c.principal.as_deref());
    conn.prepare_cached(
        "INSERT INTO activity (id, name, status, input, data, display_message, error, \
         status_line, preview, user_facing, started_at_ms, finished_at_ms, conversation, \
         conversation_key, principal, changed, process, allowed) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, \
         ?18) \
         ON CONFLICT (id) DO UPDATE SET name = excluded.name, status = excluded.status, \
         input = excluded.input, data = excluded.data, \
         display_message = excluded.display_message, error = excluded.error, \
         status_line = excluded.status_line, preview = excluded.preview, \
         user_facing = excluded.user_facing, started_at_ms = excluded.started_at_ms, \
         finished_at_ms = excluded.finished_at_ms, conversation = excluded.conversation, \
         conversation_key = excluded.conversation_key, principal = excluded.principal, \
         changed = excluded.changed, process = excluded.process, allowed = excluded.allowed",
    )?
    .execute(params![
        record.id,
        record.name,
        record.status.as_str(),
        input,
        data,
        record.display_message,
        record.error,
        record.status_line,
        record.preview,
        record.user_facing,
        record.started_at_ms as i64,
        record.finished_at_ms.map(|v| v as i64),
        conversation,
        key,
        principal,
        changed as i64,
        super::owner::this_process(),
        record
            .allowed
            .as_ref()
            .and_then(|a| serde_json::to_string(a).ok()),
    ])?;
    Ok(())
}

/// Takes the next write number (inside the write's transaction, so processes sharing the
/// file never take the same one).
pub(super) fn next_change(conn: &Connection) -> rusqlite::Result<u64> {
    conn.prepare_cached("UPDATE counter SET value = value + 1 WHERE id = 1 RETURNING value")?
        .query_row([], |r| r.get::<_, i64>(0))
        .map(|v| v.max(0) as u64)
}
