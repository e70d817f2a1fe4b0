//! Which process records a call, so that a later process on the same file can tell the calls
//! whose process has died from those another live process still runs.
//!
//! Each row names its process: on Linux the machine (`/etc/machine-id`, else the host
//! name), the boot (`/proc/sys/kernel/random/boot_id`), the pid namespace, the pid and the
//! process's start time (`/proc/PID/stat`), which no later process shares even where the
//! kernel gives the pid out again; elsewhere the pid alone. When a store is opened, the `in_progress` rows of
//! processes known to be dead are closed as `failure` with [`ABANDONED`]. A process is known
//! to be dead only on this machine: after another boot, or in this pid namespace when no
//! process has its pid and start time. A process of another machine or another pid namespace
//! (a container sharing the file), one named by its pid alone, and a row written before the
//! column existed are left alone, as is any case `/proc` cannot answer plainly.

use std::sync::OnceLock;

use rusqlite::{Connection, params};

use crate::activity::ABANDONED;

/// The most rows closed at one opening (each dead process's, in one statement).
const MAX_DEAD_PROCESSES: usize = 1024;

/// Where this process runs: machine, boot and pid namespace (Linux only).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Place {
    machine: String,
    boot: String,
    pid_ns: String,
}

/// This process's place, read once.
fn here() -> Option<&'static Place> {
    static HERE: OnceLock<Option<Place>> = OnceLock::new();
    HERE.get_or_init(|| {
        if !cfg!(target_os = "linux") {
            return None;
        }
        let read = |path: &str| -> Option<String> {
            let text = std::fs::read_to_string(path).ok()?;
            let text = text.trim();
            (!text.is_empty() && !text.contains([':', '/'])).then(|| text.to_owned())
        };
        let pid_ns = std::fs::read_link("/proc/self/ns/pid").ok()?;
        let pid_ns = pid_ns
            .to_str()?
            .trim_start_matches("pid:[")
            .trim_end_matches(']');
        if pid_ns.is_empty() || pid_ns.contains(':') {
            return None;
        }
        Some(Place {
            // Without a machine id (a minimal container), the host name tells machines apart.
            machine: read("/etc/machine-id")
                .or_else(|| read("/var/lib/dbus/machine-id"))
                .or_else(|| read("/proc/sys/kernel/hostname").map(|h| format!("host-{h}")))?,
            boot: read("/proc/sys/kernel/random/boot_id")?,
            pid_ns: pid_ns.to_owned(),
        })
    })
    .as_ref()
}

/// This process, as its rows name it: `MACHINE:BOOT:PIDNS:PID:START`, or `pid:PID`.
pub(super) fn this_process() -> &'static str {
    static THIS: OnceLock<String> = OnceLock::new();
    THIS.get_or_init(|| {
        let pid = std::process::id();
        match (here(), start_time(pid)) {
            (Some(p), Ok(Some(start))) => {
                format!("{}:{}:{}:{pid}:{start}", p.machine, p.boot, p.pid_ns)
            }
            _ => format!("pid:{pid}"),
        }
    })
}

/// When process `pid` started, in clock ticks after boot (field 22 of `/proc/PID/stat`):
/// `Ok(None)` when there is no such process, `Err` when `/proc` did not answer plainly.
fn start_time(pid: u32) -> Result<Option<u64>, ()> {
    let stat = match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(_) => return Err(()),
    };
    // The name (field 2) may hold spaces and parentheses: count from its closing one.
    let after_name = stat.rsplit_once(')').ok_or(())?.1;
    let start = after_name.split_whitespace().nth(19).ok_or(())?;
    start.parse().map(Some).map_err(|_| ())
}

/// Whether the process a row names is known to be dead (see the module documentation).
pub(super) fn is_dead(process: &str) -> bool {
    let parts: Vec<&str> = process.split(':').collect();
    let [machine, boot, pid_ns, pid, start] = parts.as_slice() else {
        return false;
    };
    let (Ok(pid), Ok(start)) = (pid.parse::<u32>(), start.parse::<u64>()) else {
        return false;
    };
    let Some(here) = here() else {
        return false;
    };
    if *machine != here.machine {
        return false;
    }
    if *boot != here.boot {
        return true;
    }
    if *pid_ns != here.pid_ns {
        return false;
    }
    match start_time(pid) {
        Ok(None) => true,
        Ok(Some(now)) => now != start,
        Err(()) => false,
    }
}

/// Closes the open (`in_progress` or `awaiting_approval`) rows of dead processes as `failure` with [`ABANDONED`], in one
/// write; how many. `next_change` stamps the write.
pub(super) fn close_abandoned(
    conn: &Connection,
    next_change: impl Fn(&Connection) -> rusqlite::Result<u64>,
    now_ms: u64,
) -> rusqlite::Result<u64> {
    let processes: Vec<String> = conn
        .prepare(
            "SELECT DISTINCT process FROM activity \
             WHERE status IN ('awaiting_approval', 'in_progress') AND process IS NOT NULL \
             AND process != ?1 LIMIT ?2",
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
                 changed = ?3 WHERE status IN ('awaiting_approval', 'in_progress') \
                 AND process = ?4",
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
        let parts: Vec<&str> = me.split(':').collect();
        if let [machine, boot, ns, pid, start] = parts.as_slice() {
            let later: u64 = start.parse::<u64>().expect("start") + 1;
            let name = |m: &str, b: &str, n: &str, p: &str, s: &str| format!("{m}:{b}:{n}:{p}:{s}");
            // The same pid started at another time, another boot of this machine, a pid no
            // process has: dead.
            assert!(is_dead(&name(machine, boot, ns, pid, &later.to_string())));
            assert!(is_dead(&name(machine, "other-boot", ns, pid, start)));
            assert!(is_dead(&name(
                machine,
                boot,
                ns,
                &(u32::MAX - 1).to_string(),
                "1"
            )));
            // Another machine, another pid namespace (a container on the same file): alive,
            // whatever this machine's /proc says of that pid.
            assert!(!is_dead(&name(
                "other-machine",
                boot,
                ns,
                pid,
                &later.to_string()
            )));
            assert!(!is_dead(&name(machine, boot, "4026531999", "1", "1")));
        }
        // Unreadable names and pid-only names are never judged dead.
        for unknown in ["", "pid:1", "a:b:c", "a:1:2:3", "a:b:c:d:e"] {
            assert!(!is_dead(unknown), "{unknown}");
        }
    }

    /// The table as version 2 made it (version 1 had no `process` column).
    const VERSION_2: &str = "
        CREATE TABLE activity (
            seq             INTEGER PRIMARY KEY AUTOINCREMENT,
            id              TEXT NOT NULL UNIQUE,
            name            TEXT NOT NULL,
            status          TEXT NOT NULL CHECK (status IN ('in_progress', 'success', 'failure')),
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
            process         TEXT
        );
        CREATE INDEX activity_started ON activity (started_at_ms);
        CREATE INDEX activity_open ON activity (status) WHERE status = 'in_progress';
        CREATE INDEX activity_changed ON activity (changed);
        CREATE TABLE counter (id INTEGER PRIMARY KEY CHECK (id = 1), value INTEGER NOT NULL);
        INSERT INTO counter (id, value) VALUES (1, 7);
    ";

    /// A file of `version` (1 or 2) holding an open record of unknown process, `old`.
    fn old_file(path: &std::path::Path, version: i64) {
        let conn = Connection::open(path).expect("open");
        let schema = match version {
            1 => VERSION_2.replace(",\n            process         TEXT", ""),
            _ => VERSION_2.to_owned(),
        };
        assert_eq!(schema.contains("process"), version == 2);
        conn.execute_batch(&schema).expect("schema");
        conn.pragma_update(None, "user_version", version)
            .expect("version");
        conn.execute(
            "INSERT INTO activity (seq, id, name, status, input, data, user_facing, \
             started_at_ms, changed) VALUES (5, 'old', 'bash', 'in_progress', '{}', '{}', 1, 1, 1)",
            [],
        )
        .expect("row");
    }

    #[test]
    fn files_of_versions_1_and_2_are_upgraded_keeping_their_rows() {
        use crate::activity::{SqliteActivityConfig, SqliteActivityStore};
        for version in [1, 2] {
            let dir = tempfile::tempdir().expect("dir");
            let path = dir.path().join("activity.db");
            old_file(&path, version);
            let store =
                SqliteActivityStore::open(&path, SqliteActivityConfig::default()).expect("open");
            drop(store);
            let conn = Connection::open(&path).expect("open");
            let found: i64 = conn
                .pragma_query_value(None, "user_version", |r| r.get(0))
                .expect("version");
            assert_eq!(found, 3, "from {version}");
            let (seq, status): (i64, String) = conn
                .query_row(
                    "SELECT seq, status FROM activity WHERE id = 'old'",
                    [],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .expect("the row is kept");
            assert_eq!((seq, status.as_str()), (5, "in_progress"), "from {version}");
            // The new status and column are taken; the next row comes after the old ones.
            conn.execute(
                "INSERT INTO activity (id, name, status, input, data, user_facing, \
                 started_at_ms, changed, allowed) \
                 VALUES ('new', 'bash', 'awaiting_approval', '{}', '{}', 1, 1, 1, NULL)",
                [],
            )
            .expect("awaiting_approval is a status now");
            let next: i64 = conn
                .query_row("SELECT seq FROM activity WHERE id = 'new'", [], |r| {
                    r.get(0)
                })
                .expect("seq");
            assert!(next > 5, "{next}");
            let counter: i64 = conn
                .query_row("SELECT value FROM counter", [], |r| r.get(0))
                .expect("counter");
            if version == 2 {
                assert!(counter >= 7, "the write counter goes on: {counter}");
            }
            let tables: i64 = conn
                .query_row(
                    "SELECT COUNT(*) FROM sqlite_master WHERE name = 'activity_v2'",
                    [],
                    |r| r.get(0),
                )
                .expect("tables");
            assert_eq!(tables, 0);
        }
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
        old_file(&path, 1);
        // Upgraded; a record of no known process is left as it is.
        let store =
            SqliteActivityStore::open(&path, SqliteActivityConfig::default()).expect("open");
        assert_eq!(store.closed_abandoned(), 0);
        drop(store);
        let conn = Connection::open(&path).expect("open");
        let version: i64 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .expect("version");
        assert_eq!(version, 3);
        assert_eq!(status_of(&path, "old").0, "in_progress");

        // One record of a process that died (this pid with another start time), one of this
        // live process.
        let me = this_process();
        let dead = match me.rsplit_once(':') {
            Some((head, start)) => format!("{head}:{}", start.parse::<u64>().unwrap_or(0) + 1),
            None => return eprintln!("skipped: processes are named by pid alone here ({me})"),
        };
        for (id, status, process) in [
            ("dead", "in_progress", dead.as_str()),
            ("dead_asking", "awaiting_approval", dead.as_str()),
            ("alive", "in_progress", me),
            ("alive_asking", "awaiting_approval", me),
        ] {
            conn.execute(
                "INSERT INTO activity (id, name, status, input, data, user_facing, \
                 started_at_ms, changed, process) \
                 VALUES (?1, 'bash', ?2, '{}', '{}', 1, 1, 1, ?3)",
                params![id, status, process],
            )
            .expect("row");
        }
        drop(conn);
        let store =
            SqliteActivityStore::open(&path, SqliteActivityConfig::default()).expect("open");
        assert_eq!(store.closed_abandoned(), 2);
        drop(store);
        for dead in ["dead", "dead_asking"] {
            assert_eq!(
                status_of(&path, dead),
                ("failure".to_owned(), Some(ABANDONED.to_owned()))
            );
        }
        assert_eq!(status_of(&path, "alive").0, "in_progress");
        assert_eq!(status_of(&path, "alive_asking").0, "awaiting_approval");
        assert_eq!(status_of(&path, "old").0, "in_progress");
    }
}
