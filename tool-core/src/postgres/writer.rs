//! The writer: a task that takes the calls' changes from a bounded queue, applies them to the
//! records they touch and writes what has gathered in one transaction; while the server is
//! unreachable it holds what it has (bounded), and writes it when the server returns.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, oneshot};

use super::activity::PostgresActivityConfig;
use super::{PostgresError, PostgresStore, rows};
use crate::activity::apply::{Drops, begun, change, succeed};
use crate::activity::{ActivityRecord, ActivityStart, ActivityUpdate, Conversation};
use crate::output::ToolOutput;

/// One change on its way to the database, stamped when it happened.
pub(super) enum Op {
    Begin(ActivityStart),
    Resume(ActivityStart),
    Update(Box<str>, ActivityUpdate, u64),
    Succeed(Box<str>, ToolOutput, u64),
    /// Answered once everything queued before it has been written, or found unwritable
    /// for now.
    Flush(oneshot::Sender<()>),
}

/// What the store counts, shared with its handles.
#[derive(Debug, Default)]
pub(super) struct Counters {
    pub(super) written: AtomicU64,
    pub(super) dropped: Drops,
    pub(super) batches: AtomicU64,
    pub(super) evicted: AtomicU64,
    pub(super) held: AtomicU64,
    pub(super) outages: AtomicU64,
}

impl Counters {
    /// Counts `n` changes dropped and logs it (at most once a second).
    pub(super) fn drop_records(&self, n: u64, why: &str) {
        if let Some(total) = self.dropped.count(n) {
            tracing::warn!(
                target: "toolsmith::activity",
                dropped = n,
                dropped_total = total,
                "activity records dropped: {why}; the calls themselves went on"
            );
        }
    }
}

/// How often age and count retention run at most.
const RETENTION_EVERY: Duration = Duration::from_secs(5);
/// The most rows one retention statement deletes, and the most statements a round runs.
const RETENTION_BATCH: i64 = 1000;
const RETENTION_ROUNDS: usize = 10;
/// The longest wait between tries while the server is unreachable.
const MAX_BACKOFF: Duration = Duration::from_secs(2);

pub(super) struct Writer {
    pub(super) store: PostgresStore,
    pub(super) config: PostgresActivityConfig,
    pub(super) counters: Arc<Counters>,
    /// The records this replica holds: those not yet written, and those it began or took
    /// over and has not seen finish (so that their changes need no read).
    records: HashMap<Box<str>, ActivityRecord>,
    /// The records to write, in the order first changed.
    dirty: Vec<Box<str>>,
    dirty_set: HashSet<Box<str>>,
    /// Since when the server has been unreachable.
    down: Option<Instant>,
    backoff: Duration,
    /// No write is tried before this (the server away): changes gather meanwhile.
    retry_at: Option<Instant>,
    last_retention: Option<Instant>,
    /// The last conversation written and its JSON: a session's calls share one.
    conversation: Option<(Arc<Conversation>, String)>,
}

impl Writer {
    pub(super) fn new(
        store: PostgresStore,
        config: PostgresActivityConfig,
        counters: Arc<Counters>,
    ) -> Self {
        Writer {
            store,
            config,
            counters,
            records: HashMap::new(),
            dirty: Vec::new(),
            dirty_set: HashSet::new(),
            down: None,
            backoff: Duration::from_millis(100),
            retry_at: None,
            last_retention: None,
            conversation: None,
        }
    }

    /// Takes changes until every handle is gone, then writes what it holds once more.
    pub(super) async fn run(mut self, mut rx: mpsc::Receiver<Op>) {
        let mut batch = Vec::with_capacity(self.config.batch);
        loop {
            let first = if self.dirty.is_empty() {
                rx.recv().await
            } else {
                // Holding unwritten records (the server is away): try again after a wait,
                // or sooner with more changes.
                let wait = self.retry_at.map_or(Duration::ZERO, |t| {
                    t.saturating_duration_since(Instant::now())
                });
                tokio::select! {
                    op = rx.recv() => op,
                    () = tokio::time::sleep(wait) => None,
                }
            };
            let closed = first.is_none() && rx.is_closed() && rx.is_empty();
            if let Some(op) = first {
                if !self.config.gather.is_zero() {
                    tokio::time::sleep(self.config.gather).await;
                }
                batch.push(op);
                while batch.len() < self.config.batch {
                    match rx.try_recv() {
                        Ok(op) => batch.push(op),
                        Err(_) => break,
                    }
                }
            }
            let mut flushes = Vec::new();
            for op in batch.drain(..) {
                match op {
                    Op::Flush(done) => flushes.push(done),
                    op => self.apply(op).await,
                }
            }
            let due = self.retry_at.is_none_or(|t| Instant::now() >= t);
            if !self.dirty.is_empty() && (due || closed) {
                self.write_held().await;
            }
            for done in flushes {
                let _ = done.send(());
            }
            if self.down.is_none() {
                self.retain().await;
            }
            if closed {
                return;
            }
        }
    }

    /// Applies one change to the record it touches.
    async fn apply(&mut self, op: Op) {
        match op {
            Op::Begin(start) => {
                let id: Box<str> = Box::from(&*start.id);
                self.hold(id, begun(start));
            }
            Op::Resume(start) => {
                let id: Box<str> = Box::from(&*start.id);
                if self.records.contains_key(&id) {
                    self.mark(id);
                    return;
                }
                let record = match self.read(&id).await {
                    Ok(Some(record)) if !record.status.is_terminal() => record,
                    Ok(Some(_)) => return,
                    // Not kept, or not readable now: the start says what the record holds.
                    Ok(None) | Err(_) => begun(start),
                };
                self.hold(id, record);
            }
            Op::Update(id, update, at) => {
                if let Some(record) = self.touch(&id).await {
                    change(record, update, at);
                    self.mark(id);
                }
            }
            Op::Succeed(id, output, at) => {
                if let Some(record) = self.touch(&id).await {
                    succeed(record, &output, at);
                    self.mark(id);
                }
            }
            Op::Flush(_) => {}
        }
    }

    /// Keeps `record` to be written, unless the writer already holds as many as its queue.
    fn hold(&mut self, id: Box<str>, record: ActivityRecord) {
        if !self.records.contains_key(&id) && self.records.len() >= self.config.queue {
            self.counters.drop_records(
                1,
                "the writer holds as many records as its queue (the database has been away)",
            );
            return;
        }
        self.records.insert(id.clone(), record);
        self.mark(id);
    }

    fn mark(&mut self, id: Box<str>) {
        if self.dirty_set.insert(id.clone()) {
            self.dirty.push(id);
        }
    }

    /// The open record `id`: held, else read from the database (`None`: not kept, finished,
    /// or not readable now, which is counted as a drop).
    async fn touch(&mut self, id: &str) -> Option<&mut ActivityRecord> {
        if !self.records.contains_key(id) {
            match self.read(id).await {
                Ok(Some(record)) if !record.status.is_terminal() => {
                    if self.records.len() >= self.config.queue {
                        self.counters
                            .drop_records(1, "the writer's holding is full");
                        return None;
                    }
                    self.records.insert(Box::from(id), record);
                }
                Ok(_) => return None,
                Err(_) => {
                    self.counters
                        .drop_records(1, "a record to change could not be read");
                    return None;
                }
            }
        }
        self.records.get_mut(id).filter(|r| !r.status.is_terminal())
    }

    async fn read(&self, id: &str) -> Result<Option<ActivityRecord>, PostgresError> {
        if self.down.is_some() {
            return Err(PostgresError::query(
                "reading a record",
                "the server is away",
            ));
        }
        let client = self.store.client().await?;
        rows::load(&**client, id).await
    }

    /// Writes the held records, in transactions of at most `batch`; on failure keeps them
    /// and waits longer before the next try.
    async fn write_held(&mut self) {
        let limit = self.store.config().connect_timeout * 4;
        while !self.dirty.is_empty() {
            let n = self.dirty.len().min(self.config.batch);
            let mut params = Vec::with_capacity(n);
            for id in &self.dirty[..n] {
                if let Some(r) = self.records.get(id) {
                    let json = r
                        .conversation
                        .as_ref()
                        .map(|c| conversation_json(&mut self.conversation, c));
                    params.push(rows::Params::of(r, json));
                }
            }
            let wrote = tokio::time::timeout(limit, write(&self.store, params)).await;
            match wrote {
                Ok(Ok(written)) => {
                    self.counters.written.fetch_add(written, Ordering::Relaxed);
                    self.counters.batches.fetch_add(1, Ordering::Relaxed);
                    for id in self.dirty.drain(..n) {
                        self.dirty_set.remove(&id);
                        if self.records.get(&id).is_none_or(|r| r.status.is_terminal()) {
                            self.records.remove(&id);
                        }
                    }
                    if let Some(since) = self.down.take() {
                        tracing::warn!(
                            target: "toolsmith::activity",
                            server = %self.store.server(),
                            after_ms = since.elapsed().as_millis() as u64,
                            dropped_total = self.counters.dropped.total(),
                            "the Postgres store is back; the activity records held meanwhile \
                             are being written"
                        );
                    }
                    self.backoff = Duration::from_millis(100);
                    self.retry_at = None;
                }
                failed => {
                    let why = match failed {
                        Ok(Err(e)) => e.to_string(),
                        _ => format!("no answer within {} ms", limit.as_millis()),
                    };
                    if self.down.is_none() {
                        self.down = Some(Instant::now());
                        self.counters.outages.fetch_add(1, Ordering::Relaxed);
                        tracing::warn!(
                            target: "toolsmith::activity",
                            server = %self.store.server(),
                            "the Postgres store cannot be written ({why}); calls go on, and up \
                             to {} activity records are held and written when it returns",
                            self.config.queue
                        );
                    }
                    self.retry_at = Some(Instant::now() + self.backoff);
                    self.backoff = (self.backoff * 2).min(MAX_BACKOFF);
                    break;
                }
            }
        }
        self.counters
            .held
            .store(self.dirty.len() as u64, Ordering::Relaxed);
    }

    /// Deletes records past the age and count limits, in bounded batches, at most every
    /// [`RETENTION_EVERY`].
    async fn retain(&mut self) {
        if self
            .last_retention
            .is_some_and(|t| t.elapsed() < RETENTION_EVERY)
        {
            return;
        }
        self.last_retention = Some(Instant::now());
        let Ok(client) = self.store.client().await else {
            return;
        };
        let cutoff = crate::events::now_ms()
            .saturating_sub(u64::try_from(self.config.max_age.as_millis()).unwrap_or(u64::MAX))
            as i64;
        let keep = i64::try_from(self.config.max_records).unwrap_or(i64::MAX);
        for _ in 0..RETENTION_ROUNDS {
            let gone = client
                .execute(
                    "DELETE FROM toolsmith_activity WHERE seq IN (
                         SELECT seq FROM toolsmith_activity
                         WHERE started_at_ms < $1
                            OR seq <= (SELECT seq FROM toolsmith_activity
                                       ORDER BY seq DESC OFFSET $2 LIMIT 1)
                         ORDER BY seq LIMIT $3)",
                    &[&cutoff, &keep, &RETENTION_BATCH],
                )
                .await
                .unwrap_or(0);
            self.counters.evicted.fetch_add(gone, Ordering::Relaxed);
            if gone < RETENTION_BATCH as u64 {
                break;
            }
        }
    }
}

/// The JSON of `conversation`, made once for the calls of one conversation in a row.
fn conversation_json(
    cache: &mut Option<(Arc<Conversation>, String)>,
    conversation: &Arc<Conversation>,
) -> String {
    match cache {
        Some((c, json)) if Arc::ptr_eq(c, conversation) => json.clone(),
        _ => {
            let json = serde_json::to_string(&**conversation).unwrap_or_default();
            *cache = Some((conversation.clone(), json.clone()));
            json
        }
    }
}

/// Writes `params` in one transaction stamped with one change number, announced at commit;
/// how many rows changed.
async fn write(store: &PostgresStore, mut params: Vec<rows::Params>) -> Result<u64, PostgresError> {
    let q = |e| PostgresError::query("writing activity records", e);
    let mut client = store.client().await?;
    let statement = client.prepare_cached(rows::SAVE).await.map_err(q)?;
    let tx = client.transaction().await.map_err(q)?;
    let change = rows::next_change(&*tx).await?;
    let replica = store.replica();
    // Sent together: the driver pipelines them on the connection.
    let saved = futures_util::future::try_join_all(
        params
            .iter_mut()
            .map(|p| p.save(&*tx, &statement, change, replica)),
    )
    .await
    .map_err(q)?;
    rows::notify(&*tx, change).await?;
    tx.commit().await.map_err(q)?;
    Ok(saved.iter().sum())
}
