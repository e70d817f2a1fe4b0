//! The writer: a thread of its own that takes the calls' changes from a bounded queue and
//! writes what has gathered in one transaction, then keeps the file within its retention.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use rusqlite::{Connection, ErrorCode, TransactionBehavior};

use super::SqliteActivityConfig;
use super::rows;
use crate::activity::apply::{Drops, begun, change, succeed};
use crate::activity::{ActivityRecord, ActivityStart, ActivityUpdate, Conversation};
use crate::output::ToolOutput;

/// One change on its way to the file, stamped when it happened.
pub(super) enum Op {
    /// A call began.
    Begin(ActivityStart),
    /// A call continues a record awaiting approval (perhaps another process's): the record
    /// becomes this process's, or is begun when the file does not have it.
    Resume(ActivityStart),
    /// A record changed; the time it did.
    Update(Box<str>, ActivityUpdate, u64),
    /// A call succeeded with this output; the time it did.
    Succeed(Box<str>, ToolOutput, u64),
    /// Answered once everything queued before it is written (or dropped).
    Flush(tokio::sync::oneshot::Sender<()>),
}

/// What the store counts, shared with its handle.
#[derive(Debug, Default)]
pub(super) struct Counters {
    pub(super) written: AtomicU64,
    pub(super) dropped: Drops,
    pub(super) batches: AtomicU64,
    pub(super) evicted: AtomicU64,
}

impl Counters {
    /// Counts `n` records dropped and logs it (at most once a second).
    pub(super) fn drop_records(&self, n: u64, path: &std::path::Path, why: &str) {
        if let Some(total) = self.dropped.count(n) {
            tracing::warn!(
                target: "toolsmith::activity",
                path = %path.display(),
                dropped = n,
                dropped_total = total,
                "activity records dropped: {why}; the calls themselves went on"
            );
        }
    }
}

/// The writer's state.
pub(super) struct Writer {
    pub(super) conn: Connection,
    pub(super) config: SqliteActivityConfig,
    pub(super) counters: Arc<Counters>,
    pub(super) path: std::path::PathBuf,
    /// The most pages the file may have (`max_bytes` / page size).
    pub(super) max_pages: u64,
    last_retention: Option<Instant>,
    /// The last conversation written and its JSON: a session's calls share one.
    conversation: Option<(Arc<Conversation>, String)>,
}

/// How often age and count retention run at most (size retention runs after every write).
const RETENTION_EVERY: Duration = Duration::from_secs(1);

impl Writer {
    pub(super) fn new(
        conn: Connection,
        config: SqliteActivityConfig,
        counters: Arc<Counters>,
        path: std::path::PathBuf,
        max_pages: u64,
    ) -> Writer {
        Writer {
            conn,
            config,
            counters,
            path,
            max_pages,
            last_retention: None,
            conversation: None,
        }
    }

    /// Takes changes until every handle to the queue is gone: each time one comes, the
    /// writer sleeps for the gathering time (the senders do not wake a sleeping thread, as
    /// they would one waiting on the queue), then writes what has gathered (up to the batch
    /// size) in one transaction.
    pub(super) fn run(mut self, rx: Receiver<Op>) {
        let mut batch = Vec::with_capacity(self.config.batch);
        while let Ok(first) = rx.recv() {
            if !self.config.gather.is_zero() {
                std::thread::sleep(self.config.gather);
            }
            batch.push(first);
            while batch.len() < self.config.batch {
                match rx.try_recv() {
                    Ok(op) => batch.push(op),
                    Err(_) => break,
                }
            }
            let flushes = self.write(&mut batch);
            for done in flushes {
                let _ = done.send(());
            }
        }
        // The last writes are in; leave the WAL folded into the file for the next reader.
        let _ = self.conn.pragma_update(None, "wal_checkpoint", "PASSIVE");
    }

    /// Applies `batch` to the records it touches and writes them; returns the flushes to
    /// answer.
    fn write(&mut self, batch: &mut Vec<Op>) -> Vec<tokio::sync::oneshot::Sender<()>> {
        let mut flushes = Vec::new();
        // The records this batch touches, in the order first touched.
        let mut touched: Vec<ActivityRecord> = Vec::new();
        let mut index: HashMap<Box<str>, usize> = HashMap::new();
        for op in batch.drain(..) {
            match op {
                Op::Flush(done) => flushes.push(done),
                Op::Begin(start) => {
                    let id: Box<str> = Box::from(&*start.id);
                    let record = begun(start);
                    match index.get(&id) {
                        Some(&i) => touched[i] = record,
                        None => {
                            index.insert(id, touched.len());
                            touched.push(record);
                        }
                    }
                }
                Op::Resume(start) => {
                    let id: Box<str> = Box::from(&*start.id);
                    let kept = index.contains_key(&id)
                        || rows::load(&self.conn, &id).ok().flatten().is_some();
                    if kept {
                        // Touched, it is written again as this process's (`process`).
                        let _ = self.touch(&mut touched, &mut index, id);
                    } else {
                        index.insert(id, touched.len());
                        touched.push(begun(start));
                    }
                }
                Op::Update(id, update, at) => {
                    if let Some(record) = self.touch(&mut touched, &mut index, id) {
                        change(record, update, at);
                    }
                }
                Op::Succeed(id, output, at) => {
                    if let Some(record) = self.touch(&mut touched, &mut index, id) {
                        succeed(record, &output, at);
                    }
                }
            }
        }
        if touched.is_empty() {
            return flushes;
        }
        match self.save(&touched) {
            Ok(()) => {}
            Err(e) if e.sqlite_error_code() == Some(ErrorCode::DiskFull) => {
                // Make room from the oldest records, then once more; what still does not fit
                // goes record by record, and what fits in no way is dropped.
                let _ = self.evict_fraction(4);
                if self.save(&touched).is_err() {
                    self.save_each(&touched);
                }
            }
            Err(e) => self.counters.drop_records(
                touched.len() as u64,
                &self.path,
                &format!("the write failed: {e}"),
            ),
        }
        self.counters.batches.fetch_add(1, Ordering::Relaxed);
        self.retain();
        flushes
    }

    /// The record `id` among those touched, else read from the file (`None`: not kept, or
    /// already finished).
    fn touch<'t>(
        &self,
        touched: &'t mut Vec<ActivityRecord>,
        index: &mut HashMap<Box<str>, usize>,
        id: Box<str>,
    ) -> Option<&'t mut ActivityRecord> {
        let i = match index.get(&id) {
            Some(&i) => i,
            None => {
                let record = rows::load(&self.conn, &id).ok().flatten()?;
                index.insert(id, touched.len());
                touched.push(record);
                touched.len() - 1
            }
        };
        let record = &mut touched[i];
        (!record.status.is_terminal()).then_some(record)
    }

    /// The JSON of `conversation`, made once for the calls of one conversation in a row.
    fn conversation_json(&mut self, conversation: &Arc<Conversation>) -> String {
        match &self.conversation {
            Some((c, json)) if Arc::ptr_eq(c, conversation) => json.clone(),
            _ => {
                let json = serde_json::to_string(&**conversation).unwrap_or_default();
                self.conversation = Some((conversation.clone(), json.clone()));
                json
            }
        }
    }

    /// Writes `records` in one transaction.
    fn save(&mut self, records: &[ActivityRecord]) -> rusqlite::Result<()> {
        let conversations: Vec<Option<String>> = records
            .iter()
            .map(|r| r.conversation.as_ref().map(|c| self.conversation_json(c)))
            .collect();
        let tx = rusqlite::Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)?;
        let changed = rows::next_change(&tx)?;
        for (record, conversation) in records.iter().zip(&conversations) {
            rows::save(&tx, record, conversation.as_deref(), changed)?;
        }
        tx.commit()?;
        self.counters
            .written
            .fetch_add(records.len() as u64, Ordering::Relaxed);
        Ok(())
    }

    /// Writes each record in a transaction of its own; counts and logs those that fail.
    fn save_each(&mut self, records: &[ActivityRecord]) {
        let mut dropped = 0;
        let mut last = None;
        for record in records {
            if let Err(e) = self.save(std::slice::from_ref(record)) {
                dropped += 1;
                last = Some(e);
            }
        }
        if let Some(e) = last {
            let why = match e.sqlite_error_code() {
                Some(ErrorCode::DiskFull) => format!(
                    "the store is full (its size limit is {} bytes, or the disk is full)",
                    self.config.max_bytes
                ),
                _ => format!("the write failed: {e}"),
            };
            self.counters.drop_records(dropped, &self.path, &why);
        }
    }

    /// Keeps the file within its retention: records older than `max_age` and past
    /// `max_records` go, oldest first (at most once a second); when the file's pages near
    /// its size limit, the oldest tenth goes.
    fn retain(&mut self) {
        let due = self
            .last_retention
            .is_none_or(|t| t.elapsed() >= RETENTION_EVERY);
        if due {
            self.last_retention = Some(Instant::now());
            let _ = self.evict_by_age_and_count();
        }
        if self
            .used_pages()
            .is_some_and(|used| used * 10 > self.max_pages * 9)
        {
            let _ = self.evict_fraction(10);
        }
    }

    fn evict_by_age_and_count(&self) -> rusqlite::Result<()> {
        let cutoff = crate::events::now_ms()
            .saturating_sub(u64::try_from(self.config.max_age.as_millis()).unwrap_or(u64::MAX));
        let mut gone = self.conn.execute(
            "DELETE FROM activity WHERE started_at_ms < ?1",
            [cutoff as i64],
        )?;
        gone += self.conn.execute(
            "DELETE FROM activity WHERE seq <= (SELECT seq FROM activity ORDER BY seq DESC \
             LIMIT 1 OFFSET ?1)",
            [self.config.max_records as i64],
        )?;
        self.counters
            .evicted
            .fetch_add(gone as u64, Ordering::Relaxed);
        Ok(())
    }

    /// Removes the oldest `1/denominator` of the records (at least one).
    fn evict_fraction(&self, denominator: i64) -> rusqlite::Result<()> {
        let gone = self.conn.execute(
            "DELETE FROM activity WHERE seq IN (SELECT seq FROM activity ORDER BY seq \
             LIMIT max(1, (SELECT count(*) FROM activity) / ?1))",
            [denominator],
        )?;
        self.counters
            .evicted
            .fetch_add(gone as u64, Ordering::Relaxed);
        Ok(())
    }

    /// The pages in use (the file's pages less its free list).
    fn used_pages(&self) -> Option<u64> {
        let count = |pragma: &str| {
            self.conn
                .pragma_query_value(None, pragma, |r| r.get::<_, i64>(0))
                .ok()
                .map(|v| v.max(0) as u64)
        };
        Some(count("page_count")?.saturating_sub(count("freelist_count")?))
    }
}
