//! [`SqliteAgentStore`]: agents in an embedded SQLite file, the CLI's default store.
//!
//! # Design
//!
//! - **One file, created on first open.** The parent directory is created if missing; the schema
//!   is created with `CREATE TABLE IF NOT EXISTS` and stamped with `PRAGMA user_version`
//!   ([`SCHEMA_VERSION`]). A file stamped with a newer version is refused rather than guessed at.
//! - **Safe with concurrent writers, in one process or several.** The file runs in WAL mode
//!   (readers never block the writer), with foreign keys on and a busy timeout of
//!   [`BUSY_TIMEOUT`]. Every write is one `BEGIN IMMEDIATE` transaction, which takes the write
//!   lock up front, so two writers queue behind each other instead of failing half way with
//!   "database is locked"; a writer that waits longer than the timeout gets
//!   [`StoreError::Busy`].
//! - **Blocking calls off the async executor.** Each handle owns one connection behind a mutex;
//!   every operation runs on tokio's blocking pool (`spawn_blocking`), or inline when no tokio
//!   runtime is running. A dropped future does not cancel a started write: it still commits or
//!   rolls back as a whole.
//! - **The database enforces what it can too.** `UNIQUE(account, name)` backs the name rule (its
//!   violation is reported as [`StoreError::NameTaken`]), and `CHECK` constraints repeat the
//!   length limits and require `enabled_tools` to be a JSON array, so rows written by other
//!   programs obey the same rules.
//! - **Renames are remembered.** A rename records the old name in `former_names` (the last
//!   [`MAX_FORMER_NAMES`] per agent), so [`AgentStore::get_or_create`] under the old name finds
//!   the renamed agent instead of creating an empty one. Version 1 files gain the table on open.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use rusqlite::{
    Connection, ErrorCode, OptionalExtension, Transaction, TransactionBehavior, params,
};

use super::store::{
    Agent, AgentStore, MAX_FORMER_NAMES, NewAgent, PromptField, StoreError, SwapOutcome,
};

/// The schema version this build writes and understands (`PRAGMA user_version`).
///
/// Version 2 added the `former_names` table; a version 1 file is upgraded when opened.
pub const SCHEMA_VERSION: i64 = 2;

/// How long a writer waits for another writer's lock before giving up with [`StoreError::Busy`].
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS agents (
    id                       INTEGER PRIMARY KEY AUTOINCREMENT,
    account                  TEXT NOT NULL,
    name                     TEXT NOT NULL CHECK (name <> '' AND length(name) <= 10000),
    system_prompt            TEXT CHECK (length(system_prompt) <= 50000),
    reflection_prompt        TEXT CHECK (length(reflection_prompt) <= 10000),
    memory_reflection_prompt TEXT CHECK (length(memory_reflection_prompt) <= 10000),
    enabled_tools            TEXT NOT NULL DEFAULT '[]'
                             CHECK (json_valid(enabled_tools) AND json_type(enabled_tools) = 'array'),
    UNIQUE (account, name)
);
CREATE TABLE IF NOT EXISTS former_names (
    account  TEXT NOT NULL,
    name     TEXT NOT NULL,
    agent_id INTEGER NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    seq      INTEGER NOT NULL,
    PRIMARY KEY (account, name)
);
";

const COLUMNS: &str =
    "id, account, name, system_prompt, reflection_prompt, memory_reflection_prompt, enabled_tools";

/// An [`AgentStore`] in an SQLite file.
///
/// Clones share one connection; open the same path twice for two independent connections (as
/// two processes would have). See the [module documentation](self) for the concurrency design.
///
/// ```
/// use tool_std::prompt::{AgentStore, SqliteAgentStore};
///
/// # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
/// let dir = tempfile::tempdir()?;
/// let store = SqliteAgentStore::open(dir.path().join("agents/agents.db")).await?;
/// let sage = store.get_or_create("default", "Sage").await?;
/// drop(store);
///
/// let store = SqliteAgentStore::open(dir.path().join("agents/agents.db")).await?;
/// assert_eq!(store.get_by_id(sage.id).await?, Some(sage));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct SqliteAgentStore {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    path: PathBuf,
    conn: Mutex<Connection>,
}

impl SqliteAgentStore {
    /// Opens (creating if needed) the database at `path` and its parent directory.
    ///
    /// Errors: [`StoreError::Io`] when the directory cannot be created,
    /// [`StoreError::SchemaTooNew`] for a file from a newer version, [`StoreError::Busy`] when
    /// another process holds the write lock past [`BUSY_TIMEOUT`], [`StoreError::Backend`] when
    /// the file is not a usable SQLite database.
    pub async fn open(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        let path = path.as_ref().to_path_buf();
        let inner = blocking("opening the database", move || {
            let conn = open_connection(&path)?;
            Ok(Inner {
                path,
                conn: Mutex::new(conn),
            })
        })
        .await?;
        Ok(SqliteAgentStore {
            inner: Arc::new(inner),
        })
    }

    /// The path of the database file.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// Runs `f` with this handle's connection, off the async executor.
    async fn with_conn<T, F>(&self, operation: &'static str, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let inner = Arc::clone(&self.inner);
        blocking(operation, move || {
            // A panic cannot leave a transaction open: `Transaction` rolls back when dropped
            // during unwinding, so the connection behind a poisoned lock is still sound.
            let mut conn = inner.conn.lock().unwrap_or_else(PoisonError::into_inner);
            f(&mut conn)
        })
        .await
    }
}

/// Runs blocking `f` on tokio's blocking pool, or inline when there is no tokio runtime.
async fn blocking<T, F>(operation: &'static str, f: F) -> Result<T, StoreError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, StoreError> + Send + 'static,
{
    match tokio::runtime::Handle::try_current() {
        Ok(handle) => handle
            .spawn_blocking(f)
            .await
            .map_err(|err| StoreError::backend(operation, err))?,
        Err(_) => f(),
    }
}

fn open_connection(path: &Path) -> Result<Connection, StoreError> {
    const OPENING: &str = "opening the database";
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|source| StoreError::Io {
            path: parent.to_path_buf(),
            source,
        })?;
    }
    let mut conn = Connection::open(path).map_err(sql(OPENING))?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(sql(OPENING))?;
    conn.pragma_update(None, "foreign_keys", true)
        .map_err(sql(OPENING))?;
    // Returns the mode now in force: "wal", or "memory" for an in-memory database.
    let _mode: String = conn
        .pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))
        .map_err(sql(OPENING))?;
    conn.pragma_update(None, "synchronous", "NORMAL")
        .map_err(sql(OPENING))?;

    const CREATING: &str = "creating the schema";
    let tx = immediate(&mut conn, CREATING)?;
    let found: i64 = tx
        .pragma_query_value(None, "user_version", |row| row.get(0))
        .map_err(sql(CREATING))?;
    if found > SCHEMA_VERSION {
        return Err(StoreError::SchemaTooNew {
            path: path.to_path_buf(),
            found,
            supported: SCHEMA_VERSION,
        });
    }
    tx.execute_batch(SCHEMA).map_err(sql(CREATING))?;
    if found < SCHEMA_VERSION {
        tx.pragma_update(None, "user_version", SCHEMA_VERSION)
            .map_err(sql(CREATING))?;
    }
    tx.commit().map_err(sql(CREATING))?;
    Ok(conn)
}

/// Maps a rusqlite error to a [`StoreError`], recognising lock timeouts.
fn sql(operation: &'static str) -> impl Fn(rusqlite::Error) -> StoreError {
    move |err| match err.sqlite_error_code() {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => StoreError::Busy,
        _ => StoreError::backend(operation, err),
    }
}

fn is_unique_violation(err: &rusqlite::Error) -> bool {
    matches!(err, rusqlite::Error::SqliteFailure(e, _)
        if e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE)
}

/// Starts a write transaction that holds the write lock from its first statement.
fn immediate<'c>(
    conn: &'c mut Connection,
    operation: &'static str,
) -> Result<Transaction<'c>, StoreError> {
    conn.transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(sql(operation))
}

/// A row as stored, before `enabled_tools` is decoded.
struct RawAgent {
    id: i64,
    account: String,
    name: String,
    system_prompt: Option<String>,
    reflection_prompt: Option<String>,
    memory_reflection_prompt: Option<String>,
    enabled_tools: String,
}

impl RawAgent {
    fn from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Self> {
        Ok(RawAgent {
            id: row.get(0)?,
            account: row.get(1)?,
            name: row.get(2)?,
            system_prompt: row.get(3)?,
            reflection_prompt: row.get(4)?,
            memory_reflection_prompt: row.get(5)?,
            enabled_tools: row.get(6)?,
        })
    }

    fn decode(self) -> Result<Agent, StoreError> {
        let enabled_tools =
            serde_json::from_str(&self.enabled_tools).map_err(|err| StoreError::Corrupt {
                id: self.id,
                detail: format!("enabled_tools is not a JSON list of tool names ({err})"),
            })?;
        Ok(Agent {
            id: self.id,
            account: self.account,
            name: self.name,
            system_prompt: self.system_prompt,
            reflection_prompt: self.reflection_prompt,
            memory_reflection_prompt: self.memory_reflection_prompt,
            enabled_tools,
        })
    }
}

fn select_one(
    conn: &Connection,
    operation: &'static str,
    filter: &str,
    params: impl rusqlite::Params,
) -> Result<Option<Agent>, StoreError> {
    conn.query_row(
        &format!("SELECT {COLUMNS} FROM agents WHERE {filter}"),
        params,
        RawAgent::from_row,
    )
    .optional()
    .map_err(sql(operation))?
    .map(RawAgent::decode)
    .transpose()
}

fn select_by_id(
    conn: &Connection,
    operation: &'static str,
    id: i64,
) -> Result<Option<Agent>, StoreError> {
    select_one(conn, operation, "id = ?1", params![id])
}

fn select_by_name(
    conn: &Connection,
    operation: &'static str,
    account: &str,
    name: &str,
) -> Result<Option<Agent>, StoreError> {
    select_one(
        conn,
        operation,
        "account = ?1 AND name = ?2",
        params![account, name],
    )
}

/// The agent whose former name in `account` is `name` (see [`record_rename`]).
fn select_by_former_name(
    conn: &Connection,
    operation: &'static str,
    account: &str,
    name: &str,
) -> Result<Option<Agent>, StoreError> {
    select_one(
        conn,
        operation,
        "id = (SELECT agent_id FROM former_names WHERE account = ?1 AND name = ?2)",
        params![account, name],
    )
}

/// `name` is now a current name in `account`, so no agent keeps it as a former one.
fn forget_former_name(
    tx: &Transaction<'_>,
    operation: &'static str,
    account: &str,
    name: &str,
) -> Result<(), StoreError> {
    tx.execute(
        "DELETE FROM former_names WHERE account = ?1 AND name = ?2",
        params![account, name],
    )
    .map_err(sql(operation))?;
    Ok(())
}

/// Records that agent `id` of `account` was called `old` before being renamed to `new`, keeping
/// the agent's last [`MAX_FORMER_NAMES`] former names.
fn record_rename(
    tx: &Transaction<'_>,
    operation: &'static str,
    id: i64,
    account: &str,
    old: &str,
    new: &str,
) -> Result<(), StoreError> {
    forget_former_name(tx, operation, account, new)?;
    tx.execute(
        "INSERT INTO former_names (account, name, agent_id, seq) \
         VALUES (?1, ?2, ?3, (SELECT COALESCE(MAX(seq), 0) + 1 FROM former_names)) \
         ON CONFLICT (account, name) DO UPDATE SET agent_id = excluded.agent_id, seq = excluded.seq",
        params![account, old, id],
    )
    .map_err(sql(operation))?;
    tx.execute(
        "DELETE FROM former_names WHERE agent_id = ?1 AND seq NOT IN \
         (SELECT seq FROM former_names WHERE agent_id = ?1 ORDER BY seq DESC LIMIT ?2)",
        params![id, MAX_FORMER_NAMES as i64],
    )
    .map_err(sql(operation))?;
    Ok(())
}

fn select_many(
    conn: &Connection,
    operation: &'static str,
    account: Option<&str>,
) -> Result<Vec<Agent>, StoreError> {
    let mut stmt = conn
        .prepare(&format!(
            "SELECT {COLUMNS} FROM agents WHERE ?1 IS NULL OR account = ?1 ORDER BY id"
        ))
        .map_err(sql(operation))?;
    let rows = stmt
        .query_map(params![account], RawAgent::from_row)
        .map_err(sql(operation))?;
    rows.map(|row| row.map_err(sql(operation)).and_then(RawAgent::decode))
        .collect()
}

fn insert(tx: &Transaction<'_>, agent: NewAgent) -> Result<Agent, StoreError> {
    const OPERATION: &str = "creating an agent";
    let tools = encode_tools(&agent.enabled_tools)?;
    let inserted = tx.execute(
        "INSERT INTO agents (account, name, system_prompt, reflection_prompt, \
         memory_reflection_prompt, enabled_tools) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            agent.account,
            agent.name,
            agent.system_prompt,
            agent.reflection_prompt,
            agent.memory_reflection_prompt,
            tools
        ],
    );
    match inserted {
        Ok(_) => {
            let id = tx.last_insert_rowid();
            forget_former_name(tx, OPERATION, &agent.account, &agent.name)?;
            Ok(agent.into_agent(id))
        }
        Err(err) if is_unique_violation(&err) => Err(StoreError::NameTaken {
            account: agent.account,
            name: agent.name,
        }),
        Err(err) => Err(sql(OPERATION)(err)),
    }
}

fn encode_tools(tools: &[String]) -> Result<String, StoreError> {
    serde_json::to_string(tools).map_err(|err| StoreError::backend("encoding enabled_tools", err))
}

/// Writes `tools` into agent `id` inside `tx` and returns the agent as stored.
fn write_tools(
    tx: &Transaction<'_>,
    operation: &'static str,
    id: i64,
    tools: &[String],
) -> Result<Agent, StoreError> {
    tx.execute(
        "UPDATE agents SET enabled_tools = ?1 WHERE id = ?2",
        params![encode_tools(tools)?, id],
    )
    .map_err(sql(operation))?;
    select_by_id(tx, operation, id)?.ok_or(StoreError::NotFound { id })
}

#[async_trait]
impl AgentStore for SqliteAgentStore {
    async fn get_by_id(&self, id: i64) -> Result<Option<Agent>, StoreError> {
        const OPERATION: &str = "reading an agent";
        self.with_conn(OPERATION, move |conn| select_by_id(conn, OPERATION, id))
            .await
    }

    async fn get_by_name(&self, account: &str, name: &str) -> Result<Option<Agent>, StoreError> {
        const OPERATION: &str = "reading an agent";
        let (account, name) = (account.to_owned(), name.to_owned());
        self.with_conn(OPERATION, move |conn| {
            select_by_name(conn, OPERATION, &account, &name)
        })
        .await
    }

    async fn get_by_former_name(
        &self,
        account: &str,
        name: &str,
    ) -> Result<Option<Agent>, StoreError> {
        const OPERATION: &str = "reading an agent";
        let (account, name) = (account.to_owned(), name.to_owned());
        self.with_conn(OPERATION, move |conn| {
            select_by_former_name(conn, OPERATION, &account, &name)
        })
        .await
    }

    async fn create(&self, agent: NewAgent) -> Result<Agent, StoreError> {
        const OPERATION: &str = "creating an agent";
        agent.validate()?;
        self.with_conn(OPERATION, move |conn| {
            let tx = immediate(conn, OPERATION)?;
            let agent = insert(&tx, agent)?;
            tx.commit().map_err(sql(OPERATION))?;
            Ok(agent)
        })
        .await
    }

    async fn get_or_create(&self, account: &str, name: &str) -> Result<Agent, StoreError> {
        const OPERATION: &str = "creating an agent";
        let new = NewAgent::new(account, name);
        self.with_conn(OPERATION, move |conn| {
            let existing =
                |conn: &Connection| match select_by_name(conn, OPERATION, &new.account, &new.name)?
                {
                    Some(agent) => Ok(Some(agent)),
                    None => select_by_former_name(conn, OPERATION, &new.account, &new.name),
                };
            // The common case, an existing agent, needs no write lock.
            if let Some(agent) = existing(conn)? {
                return Ok(agent);
            }
            // Look again under the write lock: another writer may have created it meanwhile.
            let tx = immediate(conn, OPERATION)?;
            if let Some(agent) = existing(&tx)? {
                return Ok(agent);
            }
            new.validate()?;
            let agent = insert(&tx, new)?;
            tx.commit().map_err(sql(OPERATION))?;
            Ok(agent)
        })
        .await
    }

    async fn list(&self) -> Result<Vec<Agent>, StoreError> {
        const OPERATION: &str = "listing agents";
        self.with_conn(OPERATION, |conn| select_many(conn, OPERATION, None))
            .await
    }

    async fn list_account(&self, account: &str) -> Result<Vec<Agent>, StoreError> {
        const OPERATION: &str = "listing agents";
        let account = account.to_owned();
        self.with_conn(OPERATION, move |conn| {
            select_many(conn, OPERATION, Some(&account))
        })
        .await
    }

    async fn update_field(
        &self,
        id: i64,
        field: PromptField,
        value: &str,
    ) -> Result<Agent, StoreError> {
        const OPERATION: &str = "updating an agent";
        field.validate(value)?;
        let value = value.to_owned();
        self.with_conn(OPERATION, move |conn| {
            let tx = immediate(conn, OPERATION)?;
            let current = select_by_id(&tx, OPERATION, id)?.ok_or(StoreError::NotFound { id })?;
            // The column name comes from a closed enum, never from the caller's text.
            let update = format!("UPDATE agents SET {} = ?1 WHERE id = ?2", field.column());
            match tx.execute(&update, params![value, id]) {
                Ok(_) => {}
                Err(err) if is_unique_violation(&err) => {
                    return Err(StoreError::NameTaken {
                        account: current.account,
                        name: value,
                    });
                }
                Err(err) => return Err(sql(OPERATION)(err)),
            }
            if field == PromptField::Name && current.name != value {
                record_rename(&tx, OPERATION, id, &current.account, &current.name, &value)?;
            }
            let agent = select_by_id(&tx, OPERATION, id)?.ok_or(StoreError::NotFound { id })?;
            tx.commit().map_err(sql(OPERATION))?;
            Ok(agent)
        })
        .await
    }

    async fn set_enabled_tools(&self, id: i64, tools: &[String]) -> Result<Agent, StoreError> {
        const OPERATION: &str = "updating enabled tools";
        let tools = tools.to_vec();
        self.with_conn(OPERATION, move |conn| {
            let tx = immediate(conn, OPERATION)?;
            let agent = write_tools(&tx, OPERATION, id, &tools)?;
            tx.commit().map_err(sql(OPERATION))?;
            Ok(agent)
        })
        .await
    }

    async fn compare_and_set_enabled_tools(
        &self,
        id: i64,
        expected: &[String],
        new: &[String],
    ) -> Result<SwapOutcome, StoreError> {
        const OPERATION: &str = "updating enabled tools";
        let (expected, new) = (expected.to_vec(), new.to_vec());
        self.with_conn(OPERATION, move |conn| {
            let tx = immediate(conn, OPERATION)?;
            let current = select_by_id(&tx, OPERATION, id)?.ok_or(StoreError::NotFound { id })?;
            if current.enabled_tools != expected {
                return Ok(SwapOutcome::Stale(current));
            }
            let agent = write_tools(&tx, OPERATION, id, &new)?;
            tx.commit().map_err(sql(OPERATION))?;
            Ok(SwapOutcome::Swapped(agent))
        })
        .await
    }
}

#[cfg(test)]
mod tests;
