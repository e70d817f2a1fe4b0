//! Versioned migrations: each component's tables carry a version in `toolsmith_schema`; a
//! start applies the steps the database lacks, under an advisory lock so that replicas
//! starting together apply each step once, and refuses a database newer than the build.

use deadpool_postgres::Object;

use super::PostgresError;

/// The advisory lock migrations hold (any fixed number; "toolsmth" in ASCII).
const MIGRATION_LOCK: i64 = 0x746f_6f6c_736d_7468;

/// `tool-core`'s tables: the activity records and their change counter, the replicas'
/// leases, the used approvals and the rate windows' events. Step *n* takes the schema from
/// version *n* to *n + 1*; steps are only ever added.
pub(super) const CORE: &[&str] = &["
CREATE TABLE toolsmith_activity (
    seq              BIGSERIAL PRIMARY KEY,
    id               TEXT NOT NULL UNIQUE,
    name             TEXT NOT NULL,
    status           TEXT NOT NULL
                     CHECK (status IN ('awaiting_approval', 'in_progress', 'success', 'failure')),
    input            TEXT NOT NULL,
    data             TEXT NOT NULL,
    display_message  TEXT,
    error            TEXT,
    status_line      TEXT,
    preview          TEXT,
    user_facing      BOOLEAN NOT NULL,
    started_at_ms    BIGINT NOT NULL,
    finished_at_ms   BIGINT,
    conversation     TEXT,
    conversation_key TEXT,
    principal        TEXT,
    changed          BIGINT NOT NULL,
    process          TEXT NOT NULL,
    allowed          TEXT
);
CREATE INDEX toolsmith_activity_started ON toolsmith_activity (started_at_ms);
CREATE INDEX toolsmith_activity_changed ON toolsmith_activity (changed);
CREATE INDEX toolsmith_activity_open ON toolsmith_activity (process)
    WHERE status IN ('awaiting_approval', 'in_progress');
CREATE TABLE toolsmith_activity_counter (
    id    INTEGER PRIMARY KEY CHECK (id = 1),
    value BIGINT NOT NULL
);
INSERT INTO toolsmith_activity_counter (id, value) VALUES (1, 0);
CREATE TABLE toolsmith_replicas (
    replica      TEXT PRIMARY KEY,
    host         TEXT NOT NULL,
    pid          BIGINT NOT NULL,
    started_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    heartbeat_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    lease_ms     BIGINT NOT NULL CHECK (lease_ms > 0)
);
CREATE TABLE toolsmith_used_approvals (
    nonce      TEXT PRIMARY KEY,
    expires_at BIGINT NOT NULL
);
CREATE INDEX toolsmith_used_approvals_expiry ON toolsmith_used_approvals (expires_at);
CREATE TABLE toolsmith_rate_events (
    key   TEXT NOT NULL,
    at_ms BIGINT NOT NULL
);
CREATE INDEX toolsmith_rate_events_key ON toolsmith_rate_events (key, at_ms);
"];

/// Brings `component`'s tables to `steps.len()`, applying the steps the database lacks in
/// one transaction; a database at a newer version is refused.
pub(super) async fn migrate(
    client: &mut Object,
    component: &str,
    steps: &[&str],
) -> Result<i64, PostgresError> {
    let known = steps.len() as i64;
    let tx = client
        .transaction()
        .await
        .map_err(|e| PostgresError::query("starting a migration", e))?;
    let q = |e| PostgresError::query("migrating the schema", e);
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await
        .map_err(q)?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS toolsmith_schema (
             component TEXT PRIMARY KEY,
             version   BIGINT NOT NULL
         )",
    )
    .await
    .map_err(q)?;
    let found: i64 = tx
        .query_opt(
            "SELECT version FROM toolsmith_schema WHERE component = $1",
            &[&component],
        )
        .await
        .map_err(q)?
        .map_or(0, |row| row.get(0));
    if found > known {
        return Err(PostgresError::NewerSchema {
            component: component.to_owned(),
            found,
            known,
        });
    }
    for step in &steps[found as usize..] {
        tx.batch_execute(step).await.map_err(q)?;
    }
    if found < known {
        tx.execute(
            "INSERT INTO toolsmith_schema (component, version) VALUES ($1, $2)
             ON CONFLICT (component) DO UPDATE SET version = excluded.version",
            &[&component, &known],
        )
        .await
        .map_err(q)?;
    }
    tx.commit().await.map_err(q)?;
    Ok(known)
}
