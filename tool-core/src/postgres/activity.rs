//! [`PostgresActivityStore`]: the replicas' activity records in one table.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use async_trait::async_trait;
use tokio::sync::{mpsc, watch};

use super::writer::{Counters, Op, Writer};
use super::{PostgresError, PostgresStore, rows};
use crate::activity::{ActivityPage, ActivityRecord, ActivityStart, ActivityStore, ActivityUpdate};
use crate::output::ToolOutput;

/// The default most records [`PostgresActivityStore`] keeps.
pub const DEFAULT_POSTGRES_MAX_RECORDS: usize = 100_000;
/// The default oldest record [`PostgresActivityStore`] keeps: 30 days.
pub const DEFAULT_POSTGRES_MAX_AGE: Duration = Duration::from_secs(30 * 24 * 3600);

/// How a [`PostgresActivityStore`] keeps its records.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PostgresActivityConfig {
    /// The most records the table keeps, all replicas together; past it the oldest go
    /// (default [`DEFAULT_POSTGRES_MAX_RECORDS`]; at least 1).
    pub max_records: usize,
    /// The oldest a record may be (default [`DEFAULT_POSTGRES_MAX_AGE`]).
    pub max_age: Duration,
    /// The most changes waiting for the writer, and the most records it holds while the
    /// server is away; past either, changes are dropped and counted (default 65,536; 16 to
    /// 1,048,576).
    pub queue: usize,
    /// The most records written in one transaction (default 1024; 1 to 65,536).
    pub batch: usize,
    /// How long the writer lets changes gather once one has come (default 10 ms; at most one
    /// second): a call's start and end then usually share one transaction.
    pub gather: Duration,
}

impl Default for PostgresActivityConfig {
    fn default() -> Self {
        PostgresActivityConfig {
            max_records: DEFAULT_POSTGRES_MAX_RECORDS,
            max_age: DEFAULT_POSTGRES_MAX_AGE,
            queue: 65_536,
            batch: 1024,
            gather: Duration::from_millis(10),
        }
    }
}

impl PostgresActivityConfig {
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

/// What a [`PostgresActivityStore`] has done since it was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct PostgresStats {
    /// Record writes committed (a record written twice counts twice).
    pub written: u64,
    /// Changes dropped: the queue was full, or the writer already held as many records as
    /// its queue while the server was away. Each drop is also logged (at most once a second).
    pub dropped: u64,
    /// Transactions written.
    pub batches: u64,
    /// Records removed by retention (age, count), by this replica.
    pub evicted: u64,
    /// Records held now, not yet written (while the server is away).
    pub held: u64,
    /// How many times the server became unreachable for writes.
    pub outages: u64,
}

/// An [`ActivityStore`] in Postgres, shared by every replica on the database. Cheap to
/// clone; clones share the writer.
///
/// - **A call never waits on the database.** [`begin`](ActivityStore::begin),
///   [`update`](ActivityStore::update) and [`succeed`](ActivityStore::succeed) put the change
///   on a bounded queue and return. A writer task applies what has gathered to the records
///   and writes them in one transaction (a batch sent pipelined), stamped with one change
///   number and announced with `NOTIFY`. A full queue drops the change, counted
///   ([`PostgresStats::dropped`]) and logged.
/// - **The server away.** A write that fails (refused, reset, no answer within four connect
///   timeouts) keeps its records: the writer says so once, keeps taking changes into what it
///   holds (at most [`PostgresActivityConfig::queue`] records; past that new records are
///   dropped and counted), tries again after 100 ms, doubling to 2 s, and writes everything
///   held when the server answers. A call's start and end meanwhile are one record, written
///   once; nothing reaches the calls.
/// - **Bounded.** Every record is bounded as the in-memory store bounds it; records past
///   [`PostgresActivityConfig::max_age`] or [`PostgresActivityConfig::max_records`] are
///   deleted by each replica's writer at most every 5 seconds, in statements of at most
///   1,000 rows and 10 statements a round, so the table cannot grow without limit and a
///   deletion never holds the table long.
/// - **Reads see this replica's writes** ([`get`](ActivityStore::get) and
///   [`list`](ActivityStore::list) wait until what was queued before them is written) and
///   every replica's: [`changes`](Self::changes) wakes on each write anywhere.
#[derive(Clone)]
pub struct PostgresActivityStore {
    shared: Arc<Shared>,
}

struct Shared {
    store: PostgresStore,
    tx: mpsc::Sender<Op>,
    counters: Arc<Counters>,
}

impl std::fmt::Debug for PostgresActivityStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresActivityStore")
            .field("server", &self.shared.store.server())
            .field("stats", &self.stats())
            .finish()
    }
}

impl PostgresStore {
    /// This replica's activity store on the database; its writer runs on the current Tokio
    /// runtime until the last clone is dropped.
    ///
    /// # Panics
    ///
    /// Outside a Tokio runtime.
    pub fn activity(&self, config: PostgresActivityConfig) -> PostgresActivityStore {
        let config = config.normalized();
        let counters = Arc::new(Counters::default());
        let (tx, rx) = mpsc::channel(config.queue);
        let writer = Writer::new(self.clone(), config, counters.clone());
        tokio::spawn(writer.run(rx));
        PostgresActivityStore {
            shared: Arc::new(Shared {
                store: self.clone(),
                tx,
                counters,
            }),
        }
    }
}

impl PostgresActivityStore {
    /// The database this store writes.
    pub fn store(&self) -> &PostgresStore {
        &self.shared.store
    }

    /// What the store has written, dropped, evicted and holds.
    pub fn stats(&self) -> PostgresStats {
        let c = &self.shared.counters;
        PostgresStats {
            written: c.written.load(Ordering::Relaxed),
            dropped: c.dropped.total(),
            batches: c.batches.load(Ordering::Relaxed),
            evicted: c.evicted.load(Ordering::Relaxed),
            held: c.held.load(Ordering::Relaxed),
            outages: c.outages.load(Ordering::Relaxed),
        }
    }

    /// Waits until every change queued before this call has been written, or found
    /// unwritable for now (the server away: then it is held, see the type's documentation).
    pub async fn flush(&self) {
        let (done, wait) = tokio::sync::oneshot::channel();
        if self.shared.tx.send(Op::Flush(done)).await.is_ok() {
            let _ = wait.await;
        }
    }

    /// The newest change number any replica has announced: wakes on every write to the
    /// table, whichever replica made it (and after the listening connection comes back,
    /// so that a reader catches up). Read on with [`changed_since`](Self::changed_since).
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.shared.store.inner.changes.subscribe()
    }

    /// The number of the last write, whichever replica made it: the cursor for
    /// [`changed_since`](Self::changed_since) to read only what comes after now.
    pub async fn cursor(&self) -> Result<u64, PostgresError> {
        self.flush().await;
        let client = self.shared.store.client().await?;
        rows::counter(&**client).await
    }

    /// The newest `limit` records, oldest first.
    pub async fn recent(&self, limit: usize) -> Result<Vec<ActivityRecord>, PostgresError> {
        self.flush().await;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let sql = format!(
            "SELECT * FROM (SELECT {}, seq FROM toolsmith_activity ORDER BY seq DESC LIMIT $1) \
             newest ORDER BY seq",
            rows::COLUMNS
        );
        let client = self.shared.store.client().await?;
        let rows = client
            .query(&sql, &[&limit])
            .await
            .map_err(|e| PostgresError::query("reading activity records", e))?;
        Ok(rows.iter().map(|r| rows::record_of(r).0).collect())
    }

    /// The records written since the write `cursor` (0: all kept), in the order of their
    /// writes, and the cursor to ask with next time; at most 10,000 at once (ask again with
    /// the cursor returned for the rest).
    pub async fn changed_since(
        &self,
        cursor: u64,
    ) -> Result<(Vec<ActivityRecord>, u64), PostgresError> {
        self.changes_after(cursor, None).await
    }

    /// As [`changed_since`](Self::changed_since), but only the records other replicas
    /// wrote last: what a page fed by this replica's own events lacks.
    pub async fn changed_elsewhere_since(
        &self,
        cursor: u64,
    ) -> Result<(Vec<ActivityRecord>, u64), PostgresError> {
        self.changes_after(cursor, Some(self.shared.store.replica()))
            .await
    }

    async fn changes_after(
        &self,
        cursor: u64,
        skip: Option<&str>,
    ) -> Result<(Vec<ActivityRecord>, u64), PostgresError> {
        let sql = format!(
            "SELECT {} FROM toolsmith_activity WHERE changed > $1 ORDER BY changed, seq \
             LIMIT 10000",
            rows::COLUMNS
        );
        let client = self.shared.store.client().await?;
        let after = i64::try_from(cursor).unwrap_or(i64::MAX);
        let rows = client
            .query(&sql, &[&after])
            .await
            .map_err(|e| PostgresError::query("reading changed activity records", e))?;
        let mut next = cursor;
        let mut out = Vec::with_capacity(rows.len());
        for row in &rows {
            let (record, changed, replica) = rows::record_of(row);
            next = next.max(changed);
            if skip != Some(replica.as_str()) {
                out.push(record);
            }
        }
        Ok((out, next))
    }

    /// Queues `op`; a full queue drops it, counted and logged.
    fn send(&self, op: Op) {
        match self.shared.tx.try_send(op) {
            Ok(()) => {}
            Err(mpsc::error::TrySendError::Full(_)) => self.shared.counters.drop_records(
                1,
                "the writer's queue is full (the database is slower than the calls)",
            ),
            Err(mpsc::error::TrySendError::Closed(_)) => self
                .shared
                .counters
                .drop_records(1, "the writer has stopped"),
        }
    }
}

fn logged<T: Default>(result: Result<T, PostgresError>) -> T {
    result.unwrap_or_else(|e| {
        tracing::warn!(target: "toolsmith::activity", "{e}");
        T::default()
    })
}

#[async_trait]
impl ActivityStore for PostgresActivityStore {
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
        let read = async {
            let client = self.shared.store.client().await?;
            rows::load(&**client, id).await
        };
        logged(read.await)
    }

    async fn list(&self) -> Vec<ActivityRecord> {
        logged(self.recent(usize::MAX).await)
    }

    async fn newest(
        &self,
        after: Option<&str>,
        offset: usize,
        limit: usize,
    ) -> Option<ActivityPage> {
        self.flush().await;
        match self.page(after, offset, limit).await {
            Ok(page) => page,
            Err(e) => {
                tracing::warn!(target: "toolsmith::activity", "{e}");
                Some(ActivityPage::new(Vec::new(), 0, 0))
            }
        }
    }
}

impl PostgresActivityStore {
    /// [`ActivityStore::newest`], reading only the page (by `seq`, the primary key).
    async fn page(
        &self,
        after: Option<&str>,
        offset: usize,
        limit: usize,
    ) -> Result<Option<ActivityPage>, PostgresError> {
        let q = |e| PostgresError::query("reading a page of activity records", e);
        let client = self.shared.store.client().await?;
        let total: i64 = client
            .query_one("SELECT count(*) FROM toolsmith_activity", &[])
            .await
            .map_err(q)?
            .get(0);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let (rows, start) = match after {
            Some(id) => {
                let Some(at) = client
                    .query_opt(
                        "SELECT seq, (SELECT count(*) FROM toolsmith_activity n \
                         WHERE n.seq >= a.seq) FROM toolsmith_activity a WHERE id = $1",
                        &[&id],
                    )
                    .await
                    .map_err(q)?
                else {
                    return Ok(None);
                };
                let (seq, newer): (i64, i64) = (at.get(0), at.get(1));
                let sql = format!(
                    "SELECT {} FROM toolsmith_activity WHERE seq < $1 ORDER BY seq DESC LIMIT $2",
                    rows::COLUMNS
                );
                (client.query(&sql, &[&seq, &limit]).await.map_err(q)?, newer)
            }
            None => {
                let offset = i64::try_from(offset).unwrap_or(i64::MAX).min(total);
                let sql = format!(
                    "SELECT {} FROM toolsmith_activity ORDER BY seq DESC OFFSET $1 LIMIT $2",
                    rows::COLUMNS
                );
                (
                    client.query(&sql, &[&offset, &limit]).await.map_err(q)?,
                    offset,
                )
            }
        };
        let records = rows.iter().map(|r| rows::record_of(r).0).collect();
        Ok(Some(ActivityPage::new(
            records,
            start.max(0) as usize,
            total.max(0) as usize,
        )))
    }
}
