//! Which process records a call, so that a later process on the same file can tell the calls
//! whose process has died from those another live process still runs.
//!
//! Each row names its process: on Linux the boot's id, the pid and the process's start time
//! (`/proc/PID/stat`), which no later process shares even where the kernel gives the pid out
//! again; elsewhere the pid alone, which is never judged dead. When a store is opened, the
//! `in_progress` rows of dead processes are closed as `failure` with [`ABANDONED`]. A row
//! written before the column existed names no process and is left alone.

use std::sync::OnceLock;

use rusqlite::{Connection, params};

/// The error a call left open by a process that died is closed with.
pub const ABANDONED: &str = "the server running this call stopped before it finished";

/// The most rows closed at one opening (each dead process's, in one statement).
const MAX_DEAD_PROCESSES: usize = 1024;

/// This process, as its rows name it.
pub(super) fn this_process() -> &'static str {
    static THIS: OnceLock<String> = OnceLock::new();
    THIS.get_or_init(|| {
        let pid = std::process::id();
        match (boot_id(), start_time(pid)) {
            (Some(boot), Some(start)) => format!("{boot}:{pid}:{start}"),
            _ => format!("pid:{pid}"),
        }
    })
}

/// The boot's id: another after every restart of the machine.
fn boot_id() -> Option<String> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let id = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    let id = id.trim();
    (!id.is_empty() && !id.contains(':')).then(|| id.to_owned())
}

/// When process `pid` started, in clock ticks after boot (field 22 of `/proc/PID/stat`).
fn start_time(pid: u32) -> Option<u64> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The name (field 2) may hold spaces and parentheses: count from its closing one.
    let after_name = stat.rsplit_once(')')?.1;
    after_name.split_whitespace().nth(19)?.parse().ok()
}

/// Whether the process a row names has died: another boot, or no process with that pid and
/// start time. A process named by its pid alone is never judged dead.
pub(super) fn is_dead(process: &str) -> bool {
    let mut parts = process.split(':');
    let (Some(boot), Some(pid), Some(start), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    let (Ok(pid), Ok(start)) = (pid.parse::<u32>(), start.parse::<u64>()) else {
        return false;
    };
    match boot_id() {
        Some(ours) if ours != boot => true,
        Some(_) => start_time(pid) != Some(start),
        None => false,
    }
}

/// Closes the `in_progress` rows of dead processes as `failure` with [`ABANDONED`], in one
/// write; how many. `next_change` stamps the write.
pub(super) fn close_abandoned(
    conn: &Connection,
    next_change: impl Fn(&Connection) -> rusqlite::Result<u64>,
    now_ms: u64,
) -> rusqlite::Result<u64> {
    let processes: Vec<String> = conn
        .prepare(
            "SELECT DISTINCT process FROM activity \
             WHERE status = 'in_progress' AND process IS NOT NULL AND process != ?1 LIMIT ?2",
        )?
        .query_map(params![this_process(), MAX_DEAD_PROCESSES as i64], |r| {
            r.get(0)
        })?
        .collect::<rusqlite::Result<_>>()?;
    let dead: Vec<&String> = processes.iter().filter(|p| is_dead(p)).collect();
    if dead.is_empty() {
        return Ok(0);
    }
    let tx = rusqlite::Transaction::new_unchecked(conn, rusqlite::TransactionBehavior::Immediate)?;
    let changed = next_change(&tx)?;
    let mut closed = 0;
    for process in dead {
        closed += tx
            .prepare_cached(
                "UPDATE activity SET status = 'failure', error = ?1, finished_at_ms = ?2, \
                 changed = ?3 WHERE status = 'in_progress' AND process = ?4",
            )?
            .execute(params![ABANDONED, now_ms as i64, changed as i64, process])?;
    }
    tx.commit()?;
    Ok(closed as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_lives_and_made_up_ones_do_not() {
        let me = this_process();
        assert!(!is_dead(me), "{me}");
        if let Some((boot, rest)) = me.split_once(':') {
            let (pid, start) = rest.split_once(':').expect("pid:start");
            // The same pid started at another time, another boot: dead.
            let later: u64 = start.parse::<u64>().expect("start") + 1;
            assert!(is_dead(&format!("{boot}:{pid}:{later}")));
            assert!(is_dead(&format!("other-boot:{pid}:{start}")));
            // A pid no process has.
            assert!(is_dead(&format!("{boot}:{}:1", u32::MAX - 1)));
        }
        // Unreadable names and pid-only names are never judged dead.
        for unknown in ["", "pid:1", "a:b:c", "a:1:2:3"] {
            assert!(!is_dead(unknown), "{unknown}");
        }
    }

    /// A version 1 file (no `process` column) holding an open record of unknown process.
    fn version_1_file(path: &std::path::Path) {
        let conn = Connection::open(path).expect("open");
        let v1 = super::super::rows::SCHEMA
            .replace(",\n    process         TEXT", "")
            .replace(
                "CREATE INDEX IF NOT EXISTS activity_open ON activity (status) WHERE status = 'in_progress';",
                "",
            );
        assert!(!v1.contains("process"), "{v1}");
        conn.execute_batch(&v1).expect("schema");
        conn.pragma_update(None, "user_version", 1)
            .expect("version");
        conn.execute(
            "INSERT INTO activity (id, name, status, input, data, user_facing, started_at_ms, \
             changed) VALUES ('old', 'bash', 'in_progress', '{}', '{}', 1, 1, 1)",
            [],
        )
        .expect("row");
    }

    fn status_of(path: &std::path::Path, id: &str) -> (String, Option<String>) {
        let conn = Connection::open(path).expect("open");
        conn.query_row(
            "SELECT status, error FROM activity WHERE id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .expect("row")
    }

    #[test]
    fn opening_a_store_closes_the_open_records_of_dead_processes_only() {
        use crate::activity::{SqliteActivityConfig, SqliteActivityStore};
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("activity.db");
        version_1_file(&path);
        // Upgraded; a record of no known process is left as it is.
        let store =
            SqliteActivityStore::open(&path, SqliteActivityConfig::default()).expect("open");
        assert_eq!(store.closed_abandoned(), 0);
        drop(store);
        let conn = Connection::open(&path).expect("open");
        let version: i64 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .expect("version");
        assert_eq!(version, 2);
        assert_eq!(status_of(&path, "old").0, "in_progress");

        // One record of a process that died (this pid with another start time), one of this
        // live process.
        let me = this_process();
        let dead = match me.rsplit_once(':') {
            Some((head, start)) => format!("{head}:{}", start.parse::<u64>().unwrap_or(0) + 1),
            None => return eprintln!("skipped: processes are named by pid alone here ({me})"),
        };
        for (id, process) in [("dead", dead.as_str()), ("alive", me)] {
            conn.execute(
                "INSERT INTO activity (id, name, status, input, data, user_facing, \
                 started_at_ms, changed, process) \
                 VALUES (?1, 'bash', 'in_progress', '{}', '{}', 1, 1, 1, ?2)",
                params![id, process],
            )
            .expect("row");
        }
        drop(conn);
        let store =
            SqliteActivityStore::open(&path, SqliteActivityConfig::default()).expect("open");
        assert_eq!(store.closed_abandoned(), 1);
        drop(store);
        assert_eq!(
            status_of(&path, "dead"),
            ("failure".to_owned(), Some(ABANDONED.to_owned()))
        );
        assert_eq!(status_of(&path, "alive").0, "in_progress");
        assert_eq!(status_of(&path, "old").0, "in_progress");
    }
}
