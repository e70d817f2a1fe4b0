//! The "modified since read" guard: the [`Guard`] of a change, and the workspace's record of
//! reads and writes it falls back to (see [`Guard`] for both).

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::SystemTime;

use tool_core::ToolError;

use super::access::EntryInfo;
use super::version::{Stamp, Version};
use super::{Workspace, WsPath};
use crate::numbers::thousands;

/// How many files one workspace's record holds.
pub const MAX_TRACKED_FILES: usize = 10_000;

/// How long a file must have gone unmodified when its content was stamped for the stamp to
/// stand for it as long as its modification time, size and inode stay
/// ([`Workspace::settled_stamp`]): longer than the coarsest modification-time granularity of
/// the filesystems in use (FAT's two seconds), so a write after the stamp always moves the
/// time.
pub const STAMP_SETTLE: std::time::Duration = std::time::Duration::from_secs(2);

/// How a change to an existing file checks that the file is still what the model last saw,
/// so an edit of a file that changed meanwhile is refused instead of overwriting someone
/// else's work (seed 004's file tracking).
///
/// - **The version the model carries** ([`Guard::Version`]). `read_file` gives every file's
///   [`Version`] and every edit answers with the new one; an edit that passes it back as
///   `expected_version` is refused when the file's content no longer has it. Nothing is kept
///   on the server, so this holds across processes, replicas and MCP 2026-07-28's stateless
///   requests alike.
/// - **The workspace's record** ([`Guard::Record`], a call without `expected_version`). Every
///   read and write through the file tools is recorded in the [`Workspace`], which the host
///   shares with every session of the process: a file's modification time, size and inode,
///   and its content [`Stamp`] when the tool had the bytes. An edit of a file in the record
///   passes when the file still has that modification time, size and inode, or, failing
///   that, the same content (a `touch` is not a change); a file the workspace never saw
///   passes, as whether a tool demands a read before an edit is the tool's choice. The record
///   is one per workspace, not per model: it catches changes made outside the tools (an
///   editor, `git`, another program) and by another process, but an edit one session made
///   through the tools counts as seen for every session. Only a version tells two models
///   apart.
///
/// At most [`MAX_TRACKED_FILES`] files are recorded per workspace, the oldest forgotten first
/// (a forgotten file passes, as one never read). Recording a read costs O(1) under a short
/// lock. [`Workspace::check_unchanged`] applies a guard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Guard {
    /// The file's content must have this version (the call's `expected_version`).
    Version(Version),
    /// The workspace's record: a file read or written through the tools before must be
    /// unchanged since.
    Record,
    /// No check (the call's `overwrite: true`).
    Off,
}

impl Guard {
    /// The guard of a call with these arguments: none with `overwrite`, else the version the
    /// call carries, else the record.
    ///
    /// Errors: an `expected_version` that is not a version (a `validation_error`, also with
    /// `overwrite`).
    pub fn for_call(expected_version: Option<&str>, overwrite: bool) -> Result<Guard, ToolError> {
        let version = expected_version.map(parse_expected).transpose()?;
        Ok(match (overwrite, version) {
            (true, _) => Guard::Off,
            (false, Some(v)) => Guard::Version(v),
            (false, None) => Guard::Record,
        })
    }
}

/// Parses a version the model gave.
pub(crate) fn parse_expected(text: &str) -> Result<Version, ToolError> {
    Version::parse(text).ok_or_else(|| {
        ToolError::validation(format!(
            "expected_version `{}` is not a version: a version is the 12 hex digits read_file returned (like `3f2a9c1b7d4e`)",
            super::path::shown(text)
        ))
        .with_suggestion(
            "Pass the `version` of the file from read_file or from your last edit of it, or leave expected_version out.",
        )
    })
}

/// What identifies a file's state without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Mark {
    modified: Option<SystemTime>,
    len: u64,
    ino: u64,
}

impl Mark {
    fn of(info: &EntryInfo) -> Mark {
        Mark {
            modified: info.modified,
            len: info.len,
            ino: info.ino,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Record {
    /// When it was recorded (a counter): tells the live entry of `order` from stale ones.
    tick: u64,
    mark: Mark,
    stamp: Option<Stamp>,
    /// Whether the file had gone unmodified for [`STAMP_SETTLE`] when it was recorded.
    settled: bool,
}

type Key = (usize, PathBuf);

/// The record of reads and writes: a map, and its keys in the order they were recorded.
pub(crate) struct Tracker {
    seen: Mutex<Seen>,
    capacity: usize,
}

#[derive(Debug, Default)]
struct Seen {
    map: HashMap<Key, Record>,
    /// Keys by age, oldest first. A key recorded again, or forgotten, leaves a stale entry
    /// here (its tick differs from the map's); they are skipped when met and swept when they
    /// outnumber the live ones.
    order: VecDeque<(u64, Key)>,
    tick: u64,
}

impl std::fmt::Debug for Tracker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tracker")
            .field("files", &self.len())
            .field("capacity", &self.capacity)
            .finish()
    }
}

impl Default for Tracker {
    fn default() -> Self {
        Tracker::with_capacity(MAX_TRACKED_FILES)
    }
}

impl Tracker {
    pub(crate) fn with_capacity(capacity: usize) -> Tracker {
        Tracker {
            seen: Mutex::new(Seen::default()),
            capacity: capacity.max(1),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Seen> {
        // A panic elsewhere while the lock was held leaves a map that is still whole.
        self.seen.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn record(&self, key: Key, mark: Mark, stamp: Option<Stamp>) {
        let mut seen = self.lock();
        let seen = &mut *seen;
        seen.tick += 1;
        let tick = seen.tick;
        let settled = mark.modified.is_some_and(|m| {
            SystemTime::now()
                .duration_since(m)
                .is_ok_and(|age| age >= STAMP_SETTLE)
        });
        let record = Record {
            tick,
            mark,
            stamp,
            settled,
        };
        seen.map.insert(key.clone(), record);
        seen.order.push_back((tick, key));
        while seen.map.len() > self.capacity {
            let Some((t, k)) = seen.order.pop_front() else {
                break;
            };
            if seen.map.get(&k).is_some_and(|r| r.tick == t) {
                seen.map.remove(&k);
            }
        }
        if seen.order.len() > 2 * self.capacity {
            let map = &seen.map;
            seen.order
                .retain(|(t, k)| map.get(k).is_some_and(|r| r.tick == *t));
        }
    }

    fn get(&self, key: &Key) -> Option<Record> {
        self.lock().map.get(key).copied()
    }

    fn forget(&self, key: &Key) {
        self.lock().map.remove(key);
    }

    fn len(&self) -> usize {
        self.lock().map.len()
    }

    #[cfg(test)]
    fn order_len(&self) -> usize {
        self.lock().order.len()
    }
}

fn key(p: &WsPath) -> Key {
    (p.root(), p.relative().to_path_buf())
}

impl Workspace {
    /// Records that a tool read or wrote the file at `p` (its canonical path, as
    /// [`OpenFile::path`](super::OpenFile::path) or [`WriteOutcome::path`](super::WriteOutcome::path)
    /// give it) as `info` describes it, with the [`Stamp`] of its content when the tool had
    /// the bytes. Later edits without a version are checked against it ([`Guard::Record`]).
    pub fn record_seen(&self, p: &WsPath, info: &EntryInfo, stamp: Option<Stamp>) {
        self.inner.tracker.record(key(p), Mark::of(info), stamp);
    }

    /// The stamp of `p`'s content (canonical; `info` its metadata now) without reading it,
    /// when the record holds one taken while the file had gone unmodified for
    /// [`STAMP_SETTLE`] and the file still has the modification time, size and inode it had
    /// then: a ranged read of a large file hashes the whole file once per change of it, not
    /// on every read. `None`: read and stamp it.
    pub fn settled_stamp(&self, p: &WsPath, info: &EntryInfo) -> Option<Stamp> {
        let record = self.inner.tracker.get(&key(p))?;
        (record.settled && info.modified.is_some() && record.mark == Mark::of(info))
            .then_some(record.stamp)
            .flatten()
    }

    /// Forgets `p` (canonical), after a delete.
    pub fn forget_seen(&self, p: &WsPath) {
        self.inner.tracker.forget(&key(p));
    }

    /// Whether the record holds `p` (canonical).
    pub fn was_seen(&self, p: &WsPath) -> bool {
        self.inner.tracker.get(&key(p)).is_some()
    }

    /// How many files the record holds (at most [`MAX_TRACKED_FILES`]).
    pub fn seen_files(&self) -> usize {
        self.inner.tracker.len()
    }

    /// Checks, before a change to the file at `canonical`, that it is still what the model
    /// saw, as `guard` says (see [`Guard`]). `shown` is the path as the error names it, `now`
    /// the file's metadata (`None`: it is gone), and `current` gives the stamp of its content
    /// when needed (`None` when it cannot be had, as for a file too large to read whole).
    ///
    /// Errors: a `user_error` starting `modified since read` that says what changed (the
    /// current version, lines and bytes; or that the file was deleted), with a
    /// `current_version` field when known; a `user_error` when a version is expected and the
    /// file has none; what `current` returns.
    pub fn check_unchanged(
        &self,
        shown: &str,
        canonical: &WsPath,
        guard: Guard,
        now: Option<&EntryInfo>,
        current: impl FnOnce() -> Result<Option<Stamp>, ToolError>,
    ) -> Result<(), ToolError> {
        let record = || self.inner.tracker.get(&key(canonical));
        match guard {
            Guard::Off => Ok(()),
            Guard::Version(expected) => {
                let Some(info) = now else {
                    return Err(stale(shown, Some(expected), None, None));
                };
                let Some(stamp) = current()? else {
                    return Err(ToolError::user(format!(
                        "`{shown}` ({} bytes) is too large to have a version, so expected_version cannot be checked; nothing was changed",
                        thousands(info.len)
                    ))
                    .with_suggestion("Leave expected_version out for this file."));
                };
                if stamp.version == expected {
                    return Ok(());
                }
                let before = record()
                    .and_then(|r| r.stamp)
                    .filter(|s| s.version == expected)
                    .map(|s| (s.bytes, Some(s.lines)));
                Err(stale(
                    shown,
                    Some(expected),
                    before,
                    Some((info, Some(stamp))),
                ))
            }
            Guard::Record => {
                let Some(seen) = record() else {
                    return Ok(());
                };
                let Some(info) = now else {
                    return Err(stale(shown, None, None, None));
                };
                if Mark::of(info) == seen.mark {
                    return Ok(());
                }
                let stamp = current()?;
                if let (Some(then), Some(now)) = (seen.stamp, stamp)
                    && then.version == now.version
                {
                    return Ok(());
                }
                let before = (seen.mark.len, seen.stamp.map(|s| s.lines));
                Err(stale(shown, None, Some(before), Some((info, stamp))))
            }
        }
    }
}

/// The "modified since read" error. `before` is the size and lines of the content last seen,
/// where known; `now` the file's metadata and content stamp (`None`: deleted).
fn stale(
    shown: &str,
    expected: Option<Version>,
    before: Option<(u64, Option<u64>)>,
    now: Option<(&EntryInfo, Option<Stamp>)>,
) -> ToolError {
    let since = match expected {
        Some(v) => format!("since version {v}"),
        None => "since it was last read".to_owned(),
    };
    let Some((info, stamp)) = now else {
        return with_advice(ToolError::user(format!(
            "modified since read: `{shown}` was deleted {since}; nothing was changed"
        )));
    };
    let mut what = Vec::new();
    if let Some(s) = stamp {
        what.push(format!("now version {}", s.version));
        let lines = match before.and_then(|b| b.1) {
            Some(was) if was != s.lines => {
                format!("{} -> {} lines", thousands(was), thousands(s.lines))
            }
            _ => count(s.lines, "line"),
        };
        what.push(lines);
    }
    let bytes = match before.map(|b| b.0) {
        Some(was) if was != info.len => {
            format!("{} -> {} bytes", thousands(was), thousands(info.len))
        }
        Some(_) if stamp.is_none() => format!(
            "same size ({}), newer modification time",
            count(info.len, "byte")
        ),
        _ => count(info.len, "byte"),
    };
    what.push(bytes);
    let mut err = ToolError::user(format!(
        "modified since read: `{shown}` changed {since}: {}; nothing was changed",
        what.join(", ")
    ));
    if let Some(s) = stamp {
        err = err.with_field("current_version", s.version.to_string());
    }
    with_advice(err)
}

fn with_advice(err: ToolError) -> ToolError {
    err.with_suggestion(
        "Read the file again with read_file and redo the change on its current content, passing \
         its new version as expected_version; or pass overwrite: true to change it anyway.",
    )
}

/// `1 line`, `3,402 lines`.
fn count(n: u64, unit: &str) -> String {
    if n == 1 {
        format!("1 {unit}")
    } else {
        format!("{} {unit}s", thousands(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(len: u64) -> Mark {
        Mark {
            modified: None,
            len,
            ino: 1,
        }
    }

    fn k(name: &str) -> Key {
        (0, PathBuf::from(name))
    }

    #[test]
    fn the_oldest_is_forgotten_first_and_a_new_record_makes_a_file_young() {
        let t = Tracker::with_capacity(3);
        for name in ["a", "b", "c"] {
            t.record(k(name), mark(1), None);
        }
        // `a` again: now the youngest; `b` is the oldest.
        t.record(k("a"), mark(2), None);
        t.record(k("d"), mark(1), None);
        assert!(t.get(&k("b")).is_none());
        assert_eq!(t.get(&k("a")).map(|r| r.mark.len), Some(2));
        assert_eq!(t.len(), 3);
        t.forget(&k("a"));
        assert!(t.get(&k("a")).is_none());
        assert_eq!(t.len(), 2);
    }

    #[test]
    fn records_of_one_file_again_and_again_stay_bounded() {
        let t = Tracker::with_capacity(4);
        for i in 0..1_000u64 {
            t.record(k("same"), mark(i), None);
            assert!(t.order_len() <= 2 * 4 + 1, "{}", t.order_len());
        }
        assert_eq!(t.len(), 1);
        assert_eq!(t.get(&k("same")).map(|r| r.mark.len), Some(999));
    }

    #[test]
    fn counts_are_singular_or_plural() {
        assert_eq!(count(1, "line"), "1 line");
        assert_eq!(count(1_000, "byte"), "1,000 bytes");
    }
}
