//! [`SqliteActivityStore`]: activity records in an SQLite file (feature `sqlite`).

mod error;
mod owner;
mod rows;
mod writer;

pub use error::ActivityStoreError;

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use rusqlite::{Connection, ErrorCode, OpenFlags, OptionalExtension};

use super::{ActivityPage, ActivityRecord, ActivityStart, ActivityStore, ActivityUpdate};
use crate::output::ToolOutput;
use writer::{Counters, Op, Writer};

/// The default most records [`SqliteActivityStore`] keeps.
pub const DEFAULT_SQLITE_MAX_RECORDS: usize = 10_000;
/// The default oldest record [`SqliteActivityStore`] keeps: 30 days.
pub const DEFAULT_SQLITE_MAX_AGE: Duration = Duration::from_secs(30 * 24 * 3600);
/// The default most bytes the store's file may take: 256 MiB.
pub const DEFAULT_SQLITE_MAX_BYTES: u64 = 256 << 20;
/// The least size limit accepted: the tables alone take several pages.
pub(super) const MIN_MAX_BYTES: u64 = 64 << 10;
/// How long a writer waits for another process's write lock.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// How a [`SqliteActivityStore`] keeps its records.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SqliteActivityConfig {
    /// The most records kept; past it the oldest go (default [`DEFAULT_SQLITE_MAX_RECORDS`];
    /// at least 1).
    pub max_records: usize,
    /// The oldest a record may be; older ones go (default [`DEFAULT_SQLITE_MAX_AGE`]).
    pub max_age: Duration,
    /// The most bytes the file may take (default [`DEFAULT_SQLITE_MAX_BYTES`]; at least
    /// 64 KiB). The WAL file beside it is kept small by checkpoints, apart from this.
    pub max_bytes: u64,
    /// The most changes waiting for the writer; past it changes are dropped and counted
    /// (default 65,536; 16 to 1,048,576).
    pub queue: usize,
    /// The most changes written in one transaction (default 1024; 1 to 65,536).
    pub batch: usize,
    /// How long the writer lets changes gather once one has come, before it writes them in
    /// one transaction (default
    /// [`DEFAULT_SQLITE_GATHER`](crate::activity::DEFAULT_SQLITE_GATHER); at most one second;
    /// zero writes as soon as anything comes). A call's start and end then usually share one
    /// transaction, and the calls' threads never wake the writer for each change: a record
    /// reaches the file this much later, and [`SqliteActivityStore::flush`] waits for it at
    /// most this much longer.
    pub gather: Duration,
}

/// How long the SQLite writer lets changes gather by default: 10 ms.
pub const DEFAULT_SQLITE_GATHER: Duration = Duration::from_millis(10);

impl Default for SqliteActivityConfig {
    fn default() -> Self {
        SqliteActivityConfig {
            max_records: DEFAULT_SQLITE_MAX_RECORDS,
            max_age: DEFAULT_SQLITE_MAX_AGE,
            max_bytes: DEFAULT_SQLITE_MAX_BYTES,
            queue: 65_536,
            batch: 1024,
            gather: DEFAULT_SQLITE_GATHER,
        }
    }
}

impl SqliteActivityConfig {
    /// Sets [`max_records`](field@Self::max_records).
    pub fn max_records(mut self, n: usize) -> Self {
        self.max_records = n;
        self
    }
    /// Sets [`max_age`](field@Self::max_age).
    pub fn max_age(mut self, age: Duration) -> Self {
        self.max_age = age;
        self
    }
    /// Sets [`max_bytes`](field@Self::max_bytes).
    pub fn max_bytes(mut self, bytes: u64) -> Self {
        self.max_bytes = bytes;
        self
    }
    /// Sets [`queue`](field@Self::queue).
    pub fn queue(mut self, n: usize) -> Self {
        self.queue = n;
        self
    }
    /// Sets [`batch`](field@Self::batch).
    pub fn batch(mut self, n: usize) -> Self {
        self.batch = n;
        self
    }
    /// Sets [`gather`](field@Self::gather).
    pub fn gather(mut self, wait: Duration) -> Self {
        self.gather = wait;
        self
    }

    fn normalized(mut self) -> Self {
        self.max_records = self.max_records.max(1);
        self.queue = self.queue.clamp(16, 1 << 20);
        self.batch = self.batch.clamp(1, 65_536);
        self.gather = self.gather.min(Duration::from_secs(1));
        self
    }
}

/// What a [`SqliteActivityStore`] has done since it was opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct SqliteStats {
    /// Record writes committed (a record written twice counts twice).
    pub written: u64,
    /// Changes dropped: the queue was full, or the file could not take them (full, or a
    /// failed write). Each drop is also logged (at most once a second).
    pub dropped: u64,
    /// Transactions written.
    pub batches: u64,
    /// Records removed by retention (age, count, size).
    pub evicted: u64,
}

/// An [`ActivityStore`] in an SQLite file. Cheap to clone; clones share the writer; the last
/// handle dropped waits for the writer to write what was queued.
///
/// # Design
///
/// - **A call never waits on the disk.** The write side ([`ActivityStore::begin`],
///   [`update`](ActivityStore::update), [`succeed`](ActivityStore::succeed)) puts the change
///   on a bounded queue and returns. A writer thread of its own takes what has gathered (up to
///   [`SqliteActivityConfig::batch`] changes) and writes it in one transaction, turning
///   arguments and outputs into JSON there, off the call's path. When the queue is full the
///   change is dropped, counted ([`SqliteStats::dropped`]) and logged; the call goes on.
/// - **One history for several processes.** The file runs in WAL mode with a busy timeout, and
///   every write is one `BEGIN IMMEDIATE` transaction, so several servers (replicas, a stdio
///   server per client) may share one file; activity ids carry their process's tag, so they
///   never collide.
/// - **Bounded.** Records older than [`SqliteActivityConfig::max_age`] and past
///   [`SqliteActivityConfig::max_records`] go, oldest first; the file may not grow past
///   [`SqliteActivityConfig::max_bytes`] (SQLite's `max_page_count`), and when its pages near
///   that, the oldest tenth of the records goes. A write that still does not fit (a disk that
///   is full, a limit too small for one record) drops the records it could not write, counted
///   and logged. Each record is bounded as the in-memory store bounds it.
/// - **Clear at start.** [`open`](SqliteActivityStore::open) creates the file (and its
///   directory) and writes to it once, so a path that is not a database, a corrupt file, a
///   directory that cannot be written or a size limit too small for the tables is an
///   [`ActivityStoreError`] that says what to do, before any call is served.
/// - **Reads see this process's writes.** [`get`](ActivityStore::get) and
///   [`list`](ActivityStore::list) wait until what was queued before them is written, then
///   read on a connection of their own (on tokio's blocking pool).
///
/// ```
/// use std::sync::Arc;
/// use tool_core::{SqliteActivityConfig, SqliteActivityStore};
/// use tool_core::{Registry, Runtime};
///
/// # tokio::runtime::Runtime::new()?.block_on(async {
/// let dir = tempfile::tempdir()?;
/// let store = SqliteActivityStore::open(dir.path().join("activity.db"), SqliteActivityConfig::default())?;
/// let runtime = Runtime::builder(Registry::builder().build()?)
///     .activity_store(Arc::new(store.clone()))
///     .build();
/// # let _ = runtime;
/// store.flush().await;
/// assert_eq!(store.stats().dropped, 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct SqliteActivityStore {
    shared: Arc<Shared>,
}

struct Shared {
    path: PathBuf,
    /// `None` only while dropping, so the writer sees the queue close.
    tx: Option<SyncSender<Op>>,
    reader: Arc<Mutex<Connection>>,
    counters: Arc<Counters>,
    writer: Option<std::thread::JoinHandle<()>>,
    /// Records of dead processes closed when the store was opened.
    abandoned: u64,
}

impl Drop for Shared {
    /// Closes the queue and waits for the writer to write what was queued.
    fn drop(&mut self) {
        self.tx = None;
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
    }
}

impl std::fmt::Debug for SqliteActivityStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteActivityStore")
            .field("path", &self.shared.path)
            .field("stats", &self.stats())
            .finish()
    }
}

/// Opens (creating it if missing) the database at `path` for reading and writing, and sets
/// the connection up: WAL, busy timeout.
fn connect(path: &Path) -> Result<Connection, ActivityStoreError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_URI;
    let conn =
        Connection::open_with_flags(path, flags).map_err(|e| ActivityStoreError::of(path, &e))?;
    let setup = || -> rusqlite::Result<()> {
        conn.busy_timeout(BUSY_TIMEOUT)?;
        // Reading the journal mode reads the header: a file that is not a database fails here.
        let mode: String =
            conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_READONLY),
                Some(format!("WAL mode could not be set (journal mode `{mode}`)")),
            ));
        }
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        Ok(())
    };
    setup().map_err(|e| ActivityStoreError::of(path, &e))?;
    Ok(conn)
}

impl SqliteActivityStore {
    /// Opens the store at `path`, creating the file and its directory when missing, and
    /// starts its writer thread. Fails with an [`ActivityStoreError`] that says what to do
    /// when the file is not a database, is damaged or newer, cannot be written, or `config`'s
    /// size limit cannot hold the tables.
    pub fn open(
        path: impl AsRef<Path>,
        config: SqliteActivityConfig,
    ) -> Result<Self, ActivityStoreError> {
        let path = path.as_ref().to_path_buf();
        let config = config.normalized();
        if config.max_bytes < MIN_MAX_BYTES {
            return Err(ActivityStoreError::TooSmall {
                max_bytes: config.max_bytes,
            });
        }
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| ActivityStoreError::Unwritable {
                path: path.clone(),
                message: format!("cannot create the directory {}: {e}", dir.display()),
            })?;
        }
        let conn = connect(&path)?;
        let err = |e: rusqlite::Error| ActivityStoreError::of(&path, &e);
        let found: i64 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(err)?;
        if found > rows::SCHEMA_VERSION {
            return Err(ActivityStoreError::NewerSchema { path, found });
        }
        let page_size: i64 = conn
            .pragma_query_value(None, "page_size", |r| r.get(0))
            .map_err(err)?;
        let max_pages = config.max_bytes / page_size.max(512) as u64;
        conn.pragma_update(None, "max_page_count", max_pages as i64)
            .map_err(err)?;
        conn.pragma_update(
            None,
            "journal_size_limit",
            (config.max_bytes / 4).max(1 << 20) as i64,
        )
        .map_err(err)?;
        // The tables, in a write: an unwritable file or a limit too small fails here.
        let create = || -> rusqlite::Result<()> {
            let tx = rusqlite::Transaction::new_unchecked(
                &conn,
                rusqlite::TransactionBehavior::Immediate,
            )?;
            tx.execute_batch(rows::SCHEMA)?;
            rows::upgrade(&tx)?;
            tx.execute_batch(rows::OPEN_INDEX)?;
            tx.pragma_update(None, "user_version", rows::SCHEMA_VERSION)?;
            rows::next_change(&tx)?;
            tx.commit()
        };
        match create() {
            Ok(()) => {}
            Err(e) if e.sqlite_error_code() == Some(ErrorCode::DiskFull) => {
                return Err(ActivityStoreError::TooSmall {
                    max_bytes: config.max_bytes,
                });
            }
            Err(e) => return Err(err(e)),
        }
        // The calls a process that died left open are closed now: nobody else will. A
        // failure here (a full or busy file) costs only that clean-up, not the store.
        let abandoned = owner::close_abandoned(&conn, rows::next_change, crate::events::now_ms())
            .unwrap_or_else(|e| {
                tracing::warn!(
                    target: "toolsmith::activity",
                    path = %path.display(),
                    error = %e,
                    "the calls of stopped servers could not be closed"
                );
                0
            });
        let reader = connect(&path)?;
        let counters = Arc::new(Counters::default());
        let (tx, rx) = std::sync::mpsc::sync_channel(config.queue);
        let writer = Writer::new(conn, config, counters.clone(), path.clone(), max_pages);
        let handle = std::thread::Builder::new()
            .name("activity-writer".into())
            .spawn(move || writer.run(rx))
            .map_err(|e| ActivityStoreError::Sqlite {
                path: path.clone(),
                message: format!("cannot start the writer thread: {e}"),
            })?;
        Ok(SqliteActivityStore {
            shared: Arc::new(Shared {
                path,
                tx: Some(tx),
                reader: Arc::new(Mutex::new(reader)),
                counters,
                writer: Some(handle),
                abandoned,
            }),
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.shared.path
    }

    /// How many records left `in_progress` by processes that have died (killed outright,
    /// crashed) were closed as `failure` with [`ABANDONED`](crate::ABANDONED) when the store was opened. A
    /// record of a process that still runs is left to it.
    pub fn closed_abandoned(&self) -> u64 {
        self.shared.abandoned
    }

    /// What the store has written, dropped and evicted.
    pub fn stats(&self) -> SqliteStats {
        let c = &self.shared.counters;
        SqliteStats {
            written: c.written.load(Ordering::Relaxed),
            dropped: c.dropped.total(),
            batches: c.batches.load(Ordering::Relaxed),
            evicted: c.evicted.load(Ordering::Relaxed),
        }
    }

    /// Waits until every change queued before this call is written (or dropped).
    pub async fn flush(&self) {
        let Some(tx) = self.shared.tx.clone() else {
            return;
        };
        let (done, wait) = tokio::sync::oneshot::channel();
        match tx.try_send(Op::Flush(done)) {
            Ok(()) => {}
            // A full queue: wait for room off the executor.
            Err(TrySendError::Full(op)) => {
                let sent = tokio::task::spawn_blocking(move || tx.send(op).is_ok()).await;
                if !matches!(sent, Ok(true)) {
                    return;
                }
            }
            Err(TrySendError::Disconnected(_)) => return,
        }
        let _ = wait.await;
    }

    /// The newest `limit` records, oldest first.
    pub async fn recent(&self, limit: usize) -> Vec<ActivityRecord> {
        self.flush().await;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let sql = format!(
            "SELECT * FROM (SELECT {}, seq FROM activity ORDER BY seq DESC LIMIT ?1) ORDER BY seq",
            rows::COLUMNS
        );
        self.read(move |conn| {
            let mut stmt = conn.prepare_cached(&sql)?;
            let rows = stmt.query_map([limit], rows::record_of)?;
            rows.map(|r| r.map(|(record, _)| record)).collect()
        })
        .await
        .unwrap_or_default()
    }

    /// The number of the last write, whichever process made it: the cursor to give
    /// [`changed_since`](Self::changed_since) to read only what comes after now.
    pub async fn cursor(&self) -> u64 {
        self.flush().await;
        self.read(|conn| {
            conn.query_row("SELECT value FROM counter WHERE id = 1", [], |r| {
                r.get::<_, i64>(0)
            })
        })
        .await
        .map_or(0, |v| v.max(0) as u64)
    }

    /// The records written since the write `cursor` (0: all kept), in the order they began,
    /// and the cursor to ask with next time: what `toolsmith activity --follow` reads,
    /// whichever process wrote them.
    pub async fn changed_since(&self, cursor: u64) -> (Vec<ActivityRecord>, u64) {
        self.flush().await;
        let sql = format!(
            "SELECT {} FROM activity WHERE changed > ?1 ORDER BY seq LIMIT 10000",
            rows::COLUMNS
        );
        self.read(move |conn| {
            let mut stmt = conn.prepare_cached(&sql)?;
            let after = i64::try_from(cursor).unwrap_or(i64::MAX);
            let rows = stmt.query_map([after], rows::record_of)?;
            let mut next = cursor;
            let mut out = Vec::new();
            for row in rows {
                let (record, changed) = row?;
                next = next.max(changed);
                out.push(record);
            }
            Ok((out, next))
        })
        .await
        .unwrap_or((Vec::new(), cursor))
    }

    /// Runs `f` on the reading connection, on tokio's blocking pool when there is one.
    async fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Option<T> {
        let reader = self.shared.reader.clone();
        let path = self.shared.path.clone();
        let run = move || {
            let conn = reader.lock().unwrap_or_else(|e| e.into_inner());
            f(&conn)
                .map_err(|e| {
                    tracing::warn!(
                        target: "toolsmith::activity",
                        path = %path.display(),
                        "reading the activity store failed: {e}"
                    );
                })
                .ok()
        };
        match tokio::runtime::Handle::try_current() {
            Ok(handle) => handle.spawn_blocking(run).await.ok().flatten(),
            Err(_) => run(),
        }
    }

    /// Queues `op`; a full queue drops it, counted and logged.
    fn send(&self, op: Op) {
        let Some(tx) = &self.shared.tx else {
            return;
        };
        match tx.try_send(op) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => self.shared.counters.drop_records(
                1,
                &self.shared.path,
                "the writer's queue is full (the disk is slower than the calls)",
            ),
            Err(TrySendError::Disconnected(_)) => {
                self.shared
                    .counters
                    .drop_records(1, &self.shared.path, "the writer has stopped")
            }
        }
    }
}

#[async_trait]
impl ActivityStore for SqliteActivityStore {
    fn begin(&self, start: ActivityStart) {
        self.send(Op::Begin(start));
    }

    fn resume(&self, start: ActivityStart) {
        self.send(Op::Resume(start));
    }

    fn update(&self, id: &str, update: ActivityUpdate) {
        self.send(Op::Update(Box::from(id), update, crate::events::now_ms()));
    }

    fn succeed(&self, id: &str, output: &ToolOutput) {
        self.send(Op::Succeed(
            Box::from(id),
            output.clone(),
            crate::events::now_ms(),
        ));
    }

    async fn get(&self, id: &str) -> Option<ActivityRecord> {
        self.flush().await;
        let id = id.to_owned();
        self.read(move |conn| rows::load(conn, &id)).await.flatten()
    }

    async fn list(&self) -> Vec<ActivityRecord> {
        self.recent(usize::MAX).await
    }

    async fn newest(
        &self,
        after: Option<&str>,
        offset: usize,
        limit: usize,
    ) -> Option<ActivityPage> {
        self.flush().await;
        let after = after.map(str::to_owned);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let offset = i64::try_from(offset).unwrap_or(i64::MAX);
        let page = self
            .read(move |conn| {
                let total: i64 = conn.query_row("SELECT count(*) FROM activity", [], |r| r.get(0))?;
                let (before, start) = match &after {
                    Some(id) => {
                        let at = conn
                            .query_row(
                                "SELECT seq, (SELECT count(*) FROM activity n WHERE n.seq >= a.seq) \
                                 FROM activity a WHERE id = ?1",
                                [id],
                                |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)),
                            )
                            .optional()?;
                        match at {
                            Some((seq, newer)) => (seq, newer),
                            None => return Ok(None),
                        }
                    }
                    None => (i64::MAX, offset.min(total)),
                };
                let skip = if after.is_some() { 0 } else { start };
                let sql = format!(
                    "SELECT {} FROM activity WHERE seq < ?1 ORDER BY seq DESC LIMIT ?2 OFFSET ?3",
                    rows::COLUMNS
                );
                let mut stmt = conn.prepare_cached(&sql)?;
                let records = stmt
                    .query_map(rusqlite::params![before, limit, skip], rows::record_of)?
                    .map(|r| r.map(|(record, _)| record))
                    .collect::<rusqlite::Result<Vec<_>>>()?;
                Ok(Some(ActivityPage::new(
                    records,
                    start.max(0) as usize,
                    total.max(0) as usize,
                )))
            })
            .await;
        // A read that failed (logged) shows an empty page rather than a missing cursor.
        page.unwrap_or_else(|| Some(ActivityPage::new(Vec::new(), 0, 0)))
    }
}
