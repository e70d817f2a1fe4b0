//! `toolsmith activity`: the activity records of the SQLite store (or of the shared Postgres
//! store) in a terminal: a table of the newest, `--json` (one record a line) for scripts,
//! `--follow` to keep printing them as calls begin and finish, from whichever server writes
//! the store.

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use tool_core::{ActivityRecord, ActivityStatus};

use crate::args::GlobalOptions;
use crate::{fail, host};

/// How often `--follow` looks for new records.
const FOLLOW_EVERY: Duration = Duration::from_millis(300);

/// Runs `toolsmith activity`.
pub(crate) async fn show(
    options: &GlobalOptions,
    limit: usize,
    json: bool,
    follow: bool,
) -> ExitCode {
    let roots = match host::roots(options) {
        Ok(r) => r,
        Err(e) => return fail(2, &e),
    };
    match crate::stores::postgres_activity(options).await {
        Ok(Some(store)) => return show_shared(store, limit, json, follow).await,
        Ok(None) => {}
        Err(e) => return fail(1, &e),
    }
    let Some(path) = host::activity_store_path(options, &roots) else {
        return fail(
            2,
            "--activity-store memory keeps records inside the server; give the SQLite file \
             `serve` writes (--activity-store PATH) to read them here",
        );
    };
    if !path.exists() {
        return fail(
            1,
            &format!(
                "no activity store at {} yet: `toolsmith serve` makes it when it starts \
                 (or name another with --activity-store PATH)",
                path.display()
            ),
        );
    }
    let store = match host::open_activity_store(options, &path) {
        Ok(s) => s,
        Err(e) => return fail(1, &e),
    };
    let mut out = Printer::new(json);
    let mut cursor = store.cursor().await;
    let records = store.recent(limit.max(1)).await;
    let empty = format!("no activity recorded yet in {}", path.display());
    let Some(mut shown) = print_newest(&mut out, &records, follow, &empty) else {
        return ExitCode::SUCCESS;
    };
    loop {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => return ExitCode::SUCCESS,
            () = tokio::time::sleep(FOLLOW_EVERY) => {}
        }
        let (changed, next) = store.changed_since(cursor).await;
        cursor = next;
        if !print_changed(&mut out, &mut shown, &changed) {
            return ExitCode::SUCCESS;
        }
    }
}

/// Prints the newest `records` (or, when there are none and nothing follows, says `empty`),
/// and returns what `--follow` goes on from: `None` when not following or stdout is closed.
fn print_newest(
    out: &mut Printer,
    records: &[ActivityRecord],
    follow: bool,
    empty: &str,
) -> Option<Shown> {
    if !out.json && records.is_empty() && !follow {
        crate::notice(empty);
        return None;
    }
    out.header();
    for record in records {
        out.record(record).ok()?;
    }
    if !follow {
        return None;
    }
    // Each record is printed once as it begins and once as it ends, however often it
    // changes in between (progress, data); the ones printed above are known already.
    let mut shown = Shown::default();
    for record in records {
        shown.printed(record);
    }
    Some(shown)
}

/// Prints what `shown` has not printed of `changed` as it stands; `false` when stdout is
/// closed.
fn print_changed(out: &mut Printer, shown: &mut Shown, changed: &[ActivityRecord]) -> bool {
    changed
        .iter()
        .filter(|r| shown.printed(r))
        .all(|record| out.record(record).is_ok())
}

/// `toolsmith activity` on the shared Postgres store: every replica's calls, and with
/// `--follow` each write as the database announces it (`LISTEN`), with no polling.
async fn show_shared(
    store: tool_core::postgres::PostgresActivityStore,
    limit: usize,
    json: bool,
    follow: bool,
) -> ExitCode {
    let server = store.store().server().to_owned();
    let read = |e: tool_core::postgres::PostgresError| fail(1, &e.to_string());
    let mut changes = store.changes();
    let mut cursor = match store.cursor().await {
        Ok(c) => c,
        Err(e) => return read(e),
    };
    let records = match store.recent(limit.max(1)).await {
        Ok(r) => r,
        Err(e) => return read(e),
    };
    let mut out = Printer::new(json);
    let empty = format!("no activity recorded yet in Postgres at {server}");
    let Some(mut shown) = print_newest(&mut out, &records, follow, &empty) else {
        return ExitCode::SUCCESS;
    };
    loop {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => return ExitCode::SUCCESS,
            changed = changes.changed() => if changed.is_err() { return ExitCode::SUCCESS },
        }
        while let Ok((changed, next)) = store.changed_since(cursor).await {
            if next == cursor {
                break;
            }
            cursor = next;
            if !print_changed(&mut out, &mut shown, &changed) {
                return ExitCode::SUCCESS;
            }
        }
    }
}

/// The most records `--follow` remembers as begun (a record it forgot is printed again
/// when it ends, which costs a line, not a miss).
const MAX_REMEMBERED: usize = 10_000;

/// What `--follow` has printed: the records begun and not yet ended (as they stood), and
/// those ended.
#[derive(Default)]
struct Shown {
    running: std::collections::HashMap<String, ActivityStatus>,
    ended: std::collections::VecDeque<String>,
    ended_set: std::collections::HashSet<String>,
}

impl Shown {
    /// Whether `r` is to be printed now (a record not seen, one seen waiting for approval
    /// that now runs, or one seen running that has ended), noting that it was.
    fn printed(&mut self, r: &ActivityRecord) -> bool {
        if self.ended_set.contains(&r.id) {
            return false;
        }
        if !r.status.is_terminal() {
            if self.running.len() >= MAX_REMEMBERED {
                self.running.clear();
            }
            return self.running.insert(r.id.clone(), r.status) != Some(r.status);
        }
        self.running.remove(&r.id);
        self.ended.push_back(r.id.clone());
        self.ended_set.insert(r.id.clone());
        while self.ended.len() > MAX_REMEMBERED {
            if let Some(old) = self.ended.pop_front() {
                self.ended_set.remove(&old);
            }
        }
        true
    }
}

/// Writes records as table rows or JSON lines.
struct Printer {
    json: bool,
}

impl Printer {
    fn new(json: bool) -> Self {
        Printer { json }
    }

    fn header(&mut self) {
        if !self.json {
            let _ = writeln!(
                std::io::stdout().lock(),
                "{:<20} {:<16} {:<17} {:>9}  {:<28} SUMMARY",
                "STARTED (UTC)",
                "TOOL",
                "STATUS",
                "TOOK",
                "CONVERSATION"
            );
        }
    }

    /// One record; an error when stdout is gone (a closed pipe).
    fn record(&mut self, r: &ActivityRecord) -> std::io::Result<()> {
        let mut out = std::io::stdout().lock();
        if self.json {
            let line = serde_json::to_string(r).map_err(std::io::Error::other)?;
            writeln!(out, "{line}")?;
            return out.flush();
        }
        let status = match r.status {
            ActivityStatus::InProgress => "running",
            other => other.as_str(),
        };
        let took = r.duration_ms().map_or_else(String::new, duration);
        let conversation = r
            .conversation
            .as_ref()
            .map_or_else(String::new, |c| c.label());
        let allowed = r.allowed.as_ref().map(|a| a.describe());
        let summary = match r.status {
            ActivityStatus::AwaitingApproval => "waiting for approval".to_owned(),
            ActivityStatus::InProgress => {
                (r.display_message.clone()).or(allowed).unwrap_or_default()
            }
            ActivityStatus::Failure if r.error.is_some() => r.error.clone().unwrap_or_default(),
            _ => {
                let line = (r.status_line.clone())
                    .or_else(|| r.preview.clone())
                    .unwrap_or_default();
                match allowed {
                    Some(allowed) => format!("{line} ({allowed})"),
                    None => line,
                }
            }
        };
        writeln!(
            out,
            "{:<20} {:<16} {:<17} {:>9}  {:<28} {}",
            utc(r.started_at_ms),
            cut(&r.name, 16),
            status,
            took,
            cut(&conversation, 28),
            cut(&one_line(&summary), 100)
        )?;
        out.flush()
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// At most `max` characters, `…` when cut.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max.saturating_sub(1)) {
        Some((at, _)) if text.chars().count() > max => format!("{}…", &text[..at]),
        _ => text.to_owned(),
    }
}

fn duration(ms: u64) -> String {
    match ms {
        0..1000 => format!("{ms} ms"),
        1000..60_000 => format!("{:.1} s", ms as f64 / 1000.0),
        _ => format!("{} min {} s", ms / 60_000, (ms % 60_000) / 1000),
    }
}

/// `YYYY-MM-DD HH:MM:SS` in UTC.
fn utc(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Howard Hinnant's civil-from-days.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}",
        rest / 3600,
        (rest % 3600) / 60,
        rest % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_durations_and_cuts() {
        assert_eq!(utc(0), "1970-01-01 00:00:00");
        assert_eq!(utc(1_795_000_000_000), "2026-11-18 11:06:40");
        assert_eq!(duration(12), "12 ms");
        assert_eq!(duration(1500), "1.5 s");
        assert_eq!(duration(125_000), "2 min 5 s");
        assert_eq!(cut("abcdef", 4), "abc…");
        assert_eq!(cut("abc", 4), "abc");
    }

    #[test]
    fn follow_prints_a_record_once_in_each_state() {
        let mut shown = Shown::default();
        let mut record = ActivityRecord::new("a", "bash", serde_json::json!({}), true);
        let mut printed = Vec::new();
        for status in [
            ActivityStatus::AwaitingApproval,
            ActivityStatus::AwaitingApproval,
            ActivityStatus::InProgress,
            ActivityStatus::InProgress,
            ActivityStatus::Success,
            ActivityStatus::Success,
        ] {
            record.status = status;
            printed.push(shown.printed(&record));
        }
        assert_eq!(printed, [true, false, true, false, true, false]);
        // A call that never waited: begun, then ended.
        let mut other = ActivityRecord::new("b", "bash", serde_json::json!({}), true);
        assert!(shown.printed(&other));
        assert!(!shown.printed(&other));
        other.status = ActivityStatus::Failure;
        assert!(shown.printed(&other));
    }
}
