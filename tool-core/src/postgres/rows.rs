//! Activity records to rows and back, the change counter and its notification.

use std::sync::Arc;

use serde_json::{Map, Value};
use tokio_postgres::{GenericClient, Row};

use super::PostgresError;
use super::replicas::CHANNEL;
use crate::activity::{ActivityRecord, ActivityStatus, Conversation};

/// The columns a record is read from, in [`record_of`]'s order.
pub(super) const COLUMNS: &str = "id, name, status, input, data, display_message, error, \
    status_line, preview, user_facing, started_at_ms, finished_at_ms, conversation, changed, \
    allowed, process";

fn status_of(text: &str) -> ActivityStatus {
    match text {
        "success" => ActivityStatus::Success,
        "failure" => ActivityStatus::Failure,
        "awaiting_approval" => ActivityStatus::AwaitingApproval,
        _ => ActivityStatus::InProgress,
    }
}

/// A row as a record, the write that last changed it and the replica that wrote it. A
/// column another program filled with something else reads as empty.
pub(super) fn record_of(row: &Row) -> (ActivityRecord, u64, String) {
    let text = |i: usize| row.try_get::<_, Option<String>>(i).ok().flatten();
    let input: Value = text(3)
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    let data: Map<String, Value> = text(4)
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let mut record = ActivityRecord::new(
        text(0).unwrap_or_default(),
        text(1).unwrap_or_default(),
        input,
        row.try_get::<_, bool>(9).unwrap_or(true),
    );
    record.status = status_of(&text(2).unwrap_or_default());
    record.data = data;
    record.display_message = text(5);
    record.error = text(6);
    record.status_line = text(7);
    record.preview = text(8);
    let ms = |i: usize| row.try_get::<_, Option<i64>>(i).ok().flatten();
    record.started_at_ms = ms(10).unwrap_or(0).max(0) as u64;
    record.finished_at_ms = ms(11).map(|v| v.max(0) as u64);
    record.conversation = text(12)
        .and_then(|t| serde_json::from_str::<Conversation>(&t).ok())
        .map(Arc::new);
    record.allowed = text(14).and_then(|t| serde_json::from_str(&t).ok());
    let changed = ms(13).unwrap_or(0).max(0) as u64;
    (record, changed, text(15).unwrap_or_default())
}

/// The record `id`, if the database has it.
pub(super) async fn load(
    client: &impl GenericClient,
    id: &str,
) -> Result<Option<ActivityRecord>, PostgresError> {
    let sql = format!("SELECT {COLUMNS} FROM toolsmith_activity WHERE id = $1");
    let row = client
        .query_opt(&sql, &[&id])
        .await
        .map_err(|e| PostgresError::query("reading an activity record", e))?;
    Ok(row.map(|r| record_of(&r).0))
}

/// The statement that writes a record: inserted, or updated in place keeping its `seq`,
/// unless the row has already finished (a record closed stays closed).
pub(super) const SAVE: &str = "INSERT INTO toolsmith_activity (id, name, status, input, data, \
    display_message, error, status_line, preview, user_facing, started_at_ms, finished_at_ms, \
    conversation, conversation_key, principal, changed, process, allowed) \
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18) \
    ON CONFLICT (id) DO UPDATE SET name = excluded.name, status = excluded.status, \
    input = excluded.input, data = excluded.data, display_message = excluded.display_message, \
    error = excluded.error, status_line = excluded.status_line, preview = excluded.preview, \
    user_facing = excluded.user_facing, started_at_ms = excluded.started_at_ms, \
    finished_at_ms = excluded.finished_at_ms, conversation = excluded.conversation, \
    conversation_key = excluded.conversation_key, principal = excluded.principal, \
    changed = excluded.changed, process = excluded.process, allowed = excluded.allowed \
    WHERE toolsmith_activity.status IN ('awaiting_approval', 'in_progress')";

/// A record's columns as [`SAVE`] takes them (all owned, so a batch can be sent at once).
pub(super) struct Params {
    id: String,
    name: String,
    status: &'static str,
    input: String,
    data: String,
    display_message: Option<String>,
    error: Option<String>,
    status_line: Option<String>,
    preview: Option<String>,
    user_facing: bool,
    started_at_ms: i64,
    finished_at_ms: Option<i64>,
    conversation: Option<String>,
    key: Option<String>,
    principal: Option<String>,
    changed: i64,
    allowed: Option<String>,
}

impl Params {
    /// `record`'s columns, with `conversation` its conversation's JSON.
    pub(super) fn of(record: &ActivityRecord, conversation: Option<String>) -> Params {
        Params {
            id: record.id.clone(),
            name: record.name.clone(),
            status: record.status.as_str(),
            input: record.input.to_string(),
            data: serde_json::to_string(&record.data).unwrap_or_else(|_| "{}".to_owned()),
            display_message: record.display_message.clone(),
            error: record.error.clone(),
            status_line: record.status_line.clone(),
            preview: record.preview.clone(),
            user_facing: record.user_facing,
            started_at_ms: record.started_at_ms as i64,
            finished_at_ms: record.finished_at_ms.map(|v| v as i64),
            conversation,
            key: record.conversation.as_ref().map(|c| c.key.clone()),
            principal: record
                .conversation
                .as_ref()
                .and_then(|c| c.principal.clone()),
            changed: 0,
            allowed: record
                .allowed
                .as_ref()
                .and_then(|a| serde_json::to_string(a).ok()),
        }
    }

    /// Executes [`SAVE`] for this record, stamped with the write `changed`, as `replica`'s.
    pub(super) async fn save(
        &mut self,
        client: &impl GenericClient,
        statement: &tokio_postgres::Statement,
        changed: u64,
        replica: &str,
    ) -> Result<u64, tokio_postgres::Error> {
        self.changed = changed as i64;
        client
            .execute(
                statement,
                &[
                    &self.id,
                    &self.name,
                    &self.status,
                    &self.input,
                    &self.data,
                    &self.display_message,
                    &self.error,
                    &self.status_line,
                    &self.preview,
                    &self.user_facing,
                    &self.started_at_ms,
                    &self.finished_at_ms,
                    &self.conversation,
                    &self.key,
                    &self.principal,
                    &self.changed,
                    &replica,
                    &self.allowed,
                ],
            )
            .await
    }
}

/// Takes the next change number, inside the write's transaction: the counter's row stays
/// locked until the transaction ends, so writes commit in the order of their numbers and a
/// reader that has seen number *n* has seen every write before it.
pub(super) async fn next_change(client: &impl GenericClient) -> Result<u64, PostgresError> {
    let row = client
        .query_one(
            "UPDATE toolsmith_activity_counter SET value = value + 1 WHERE id = 1 RETURNING value",
            &[],
        )
        .await
        .map_err(|e| PostgresError::query("numbering a write", e))?;
    Ok(row.get::<_, i64>(0).max(0) as u64)
}

/// Announces the write `change` to the listening replicas (delivered at commit).
pub(super) async fn notify(client: &impl GenericClient, change: u64) -> Result<(), PostgresError> {
    client
        .execute("SELECT pg_notify($1, $2)", &[&CHANNEL, &change.to_string()])
        .await
        .map_err(|e| PostgresError::query("announcing a write", e))?;
    Ok(())
}

/// The number of the last write.
pub(super) async fn counter(client: &impl GenericClient) -> Result<u64, PostgresError> {
    counter_of(client)
        .await
        .map_err(|e| PostgresError::query("reading the change counter", e))
}

/// [`counter`], with the driver's error.
pub(super) async fn counter_of(client: &impl GenericClient) -> Result<u64, tokio_postgres::Error> {
    let row = client
        .query_one(
            "SELECT value FROM toolsmith_activity_counter WHERE id = 1",
            &[],
        )
        .await?;
    Ok(row.get::<_, i64>(0).max(0) as u64)
}
