//! The names of the temporary files writes leave beside their targets, and the removal of
//! those whose writer is gone.
//!
//! Every write ([`Workspace::write_file`](super::Workspace::write_file), `apply_patch`'s
//! staged files and backups) names its temporary file with [`temp_name`], and only a name
//! [`parse`] accepts is ever removed:
//!
//! ```text
//! .{stem}.{tag}.{pid}.{start}.{n}.{kind}
//! .main.rs.5f3a09c2.48211.1735523.7.tmp
//! ```
//!
//! - `stem`: the target's name, cut to at most [`MAX_STEM_BYTES`] bytes (at a character
//!   boundary), never empty;
//! - `tag`: eight lower-case hex digits naming the machine's boot and the writer's PID
//!   namespace (a hash of `/proc/sys/kernel/random/boot_id` and `/proc/self/ns/pid`): a pid
//!   means something only where it was taken;
//! - `pid` and `start`: the writer's process id and its start time (clock ticks after boot,
//!   field 22 of `/proc/PID/stat`), so a pid taken again by a later process does not keep a
//!   dead writer's file alive, and a restarted server that got the same pid (pid 1 in a
//!   container) does not take its predecessor's files for its own;
//! - `n`: a counter, unique per process;
//! - `kind`: `tmp` (a write's new content), `patch-tmp` (a patch's new content) or
//!   `patch-orig` (a patch's backup of a file it replaces or deletes).
//!
//! Numbers are plain decimal without leading zeros; any other spelling is not a match.
//!
//! A temporary file is *stale* when its tag is this process's and no process with its pid and
//! start time runs: `/proc/PID` is absent, or holds a process started at another time. It is
//! removed only if it is a regular file (never a link, never a directory), through the
//! directory's handle. Whatever cannot be judged is kept: a tag from another boot, another
//! PID namespace (a container sharing the directory) or another machine (a network file
//! system), a `/proc` that cannot be read. A writer that is a zombie still counts as alive
//! until it is reaped. Removing a stale `patch-orig` loses nothing the patch meant to keep:
//! the killed patch had already put the new content (or, for a deletion, nothing) in place.

use std::ffi::{OsStr, OsString};
use std::io;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use cap_std::fs::Dir;

/// The most bytes of the target's name a temporary name repeats.
pub(crate) const MAX_STEM_BYTES: usize = 64;

/// The most entries of one directory a write looks at for stale temporary files, so a
/// directory of millions of files does not make every write in it slow.
pub(crate) const MAX_ENTRIES_PER_DIR: usize = 10_000;

/// What a temporary file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TempKind {
    /// The new content of a [`super::Workspace::write_file`].
    Write,
    /// The new content of a file `apply_patch` creates or replaces.
    PatchNew,
    /// `apply_patch`'s backup of a file it replaces or deletes.
    PatchBackup,
}

impl TempKind {
    const ALL: [TempKind; 3] = [TempKind::Write, TempKind::PatchNew, TempKind::PatchBackup];

    fn suffix(self) -> &'static str {
        match self {
            TempKind::Write => "tmp",
            TempKind::PatchNew => "patch-tmp",
            TempKind::PatchBackup => "patch-orig",
        }
    }
}

/// Who wrote a temporary file: where its pid means something, the pid, the process's start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Writer {
    pub(crate) tag: u32,
    pub(crate) pid: u32,
    pub(crate) start: u64,
}

/// A name [`parse`] accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TempName {
    pub(crate) stem: String,
    pub(crate) writer: Writer,
    pub(crate) n: u64,
    pub(crate) kind: TempKind,
}

/// Names are unique per process and call.
static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A new temporary name for a file beside `target`.
pub(crate) fn temp_name(target: &OsStr, kind: TempKind) -> OsString {
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let writer = this_process().unwrap_or(Writer {
        tag: 0,
        pid: std::process::id(),
        start: 0,
    });
    format_name(&stem_of(target), writer, n, kind).into()
}

/// The target's name as a temporary name repeats it: lossy UTF-8, cut at a character
/// boundary to at most [`MAX_STEM_BYTES`] bytes.
fn stem_of(target: &OsStr) -> String {
    let full = target.to_string_lossy();
    let mut end = full.len().min(MAX_STEM_BYTES);
    while !full.is_char_boundary(end) {
        end -= 1;
    }
    full[..end].to_owned()
}

fn format_name(stem: &str, w: Writer, n: u64, kind: TempKind) -> String {
    format!(
        ".{stem}.{:08x}.{}.{}.{n}.{}",
        w.tag,
        w.pid,
        w.start,
        kind.suffix()
    )
}

/// The parts of a name [`temp_name`] made; `None` for every other name.
pub(crate) fn parse(name: &OsStr) -> Option<TempName> {
    let name = name.to_str()?;
    let rest = name.strip_prefix('.')?;
    let mut parts = rest.rsplitn(6, '.');
    let suffix = parts.next()?;
    let kind = TempKind::ALL.into_iter().find(|k| k.suffix() == suffix)?;
    let n = decimal(parts.next()?)?;
    let start = decimal(parts.next()?)?;
    let pid = u32::try_from(decimal(parts.next()?)?).ok()?;
    let tag_text = parts.next()?;
    let stem = parts.next()?;
    if tag_text.len() != 8
        || !tag_text
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    {
        return None;
    }
    let tag = u32::from_str_radix(tag_text, 16).ok()?;
    if stem.is_empty() || stem.len() > MAX_STEM_BYTES {
        return None;
    }
    let writer = Writer { tag, pid, start };
    // Exact: the parts written again give the same name.
    (format_name(stem, writer, n, kind) == name).then(|| TempName {
        stem: stem.to_owned(),
        writer,
        n,
        kind,
    })
}

/// A decimal number as `format!` writes it: digits only, no leading zero.
fn decimal(text: &str) -> Option<u64> {
    let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    if !digits || (text.len() > 1 && text.starts_with('0')) {
        return None;
    }
    text.parse().ok()
}

/// This process as temporary names record it; `None` where `/proc` cannot tell (then
/// nothing is ever judged stale).
pub(crate) fn this_process() -> Option<Writer> {
    static CACHED: OnceLock<Option<Writer>> = OnceLock::new();
    let pid = std::process::id();
    let cached = *CACHED.get_or_init(|| identify(pid));
    match cached {
        Some(w) if w.pid == pid => Some(w),
        // A forked child: not the process cached.
        Some(_) => identify(pid),
        None => None,
    }
}

fn identify(pid: u32) -> Option<Writer> {
    let start = start_time(pid).ok()??;
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    let ns = std::fs::read_link("/proc/self/ns/pid").ok()?;
    let mut tag = Fnv::new();
    tag.write(boot.trim().as_bytes());
    tag.write(b"\n");
    tag.write(ns.as_os_str().as_encoded_bytes());
    Some(Writer {
        tag: tag.0,
        pid,
        start,
    })
}

/// The start time of process `pid` (field 22 of `/proc/PID/stat`); `Ok(None)` when no such
/// process exists.
fn start_time(pid: u32) -> io::Result<Option<u64>> {
    let stat = match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(s) => s,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    // `pid (comm) state ...`: comm may hold spaces and parentheses; the fields after the
    // last `)` start with the third.
    let after = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest)
        .ok_or_else(|| io::Error::other("unexpected /proc/PID/stat"))?;
    after
        .split_whitespace()
        .nth(22 - 3)
        .and_then(|s| s.parse().ok())
        .map(Some)
        .ok_or_else(|| io::Error::other("unexpected /proc/PID/stat"))
}

/// Whether the writer of `t` is gone, judged by `me` (this process).
pub(crate) fn writer_gone(t: &TempName, me: Writer) -> bool {
    if t.writer.tag != me.tag {
        return false;
    }
    if t.writer.pid == me.pid && t.writer.start == me.start {
        return false;
    }
    match start_time(t.writer.pid) {
        Ok(None) => true,
        Ok(Some(start)) => start != t.writer.start,
        Err(_) => false,
    }
}

/// What a look for stale temporary files did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Swept {
    /// Entries looked at.
    pub(crate) examined: usize,
    /// Stale temporary files removed.
    pub(crate) removed: usize,
    /// Whether the directory had more entries than were looked at.
    pub(crate) truncated: bool,
}

/// Removes the stale temporary files among the first `max_entries` entries of `dir`.
/// Best effort: an entry that cannot be read or removed is skipped.
pub(crate) fn remove_stale(dir: &Dir, max_entries: usize) -> Swept {
    let mut swept = Swept::default();
    let Some(me) = this_process() else {
        return swept;
    };
    let Ok(entries) = dir.entries() else {
        return swept;
    };
    for entry in entries {
        if swept.examined == max_entries {
            swept.truncated = true;
            break;
        }
        swept.examined += 1;
        let Ok(entry) = entry else { continue };
        let name = entry.file_name();
        let Some(t) = parse(&name) else { continue };
        if !writer_gone(&t, me) {
            continue;
        }
        // Regular files only, as the entry is now (no link followed).
        let is_file = dir.symlink_metadata(&name).is_ok_and(|m| m.is_file());
        if is_file && dir.remove_file(&name).is_ok() {
            swept.removed += 1;
        }
    }
    swept
}

/// FNV-1a, 32 bits: a stable hash (the standard library's may change between releases).
struct Fnv(u32);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0x811c_9dc5)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u32::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0193);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn me() -> Writer {
        this_process().expect("Linux with /proc")
    }

    /// A pid no process can have (above the largest `pid_max`, 2^22).
    const NO_SUCH_PID: u32 = 99_999_999;

    fn open(dir: &std::path::Path) -> Dir {
        Dir::open_ambient_dir(dir, cap_std::ambient_authority()).unwrap()
    }

    #[cfg(unix)]
    fn names(dir: &std::path::Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn names_made_parse_back() {
        for kind in TempKind::ALL {
            let name = temp_name(OsStr::new("main.rs"), kind);
            let t = parse(&name).unwrap_or_else(|| panic!("{name:?}"));
            assert_eq!(t.stem, "main.rs");
            assert_eq!(t.kind, kind);
            assert_eq!(t.writer, me());
        }
        let a = parse(&temp_name(OsStr::new("x"), TempKind::Write)).unwrap();
        let b = parse(&temp_name(OsStr::new("x"), TempKind::Write)).unwrap();
        assert_ne!(a.n, b.n);
    }

    #[test]
    fn a_long_name_is_cut_at_a_character_boundary() {
        let long = "é".repeat(100); // 200 bytes
        let name = temp_name(OsStr::new(&long), TempKind::Write);
        let t = parse(&name).unwrap();
        assert_eq!(t.stem, "é".repeat(32));
        assert!(name.len() < 255, "{}", name.len());
    }

    #[test]
    fn near_misses_are_not_temporary_names() {
        // Any tag parses; whose it is matters only when judging the writer.
        let tag = "5f3a09c2";
        let good = format!(".a.{tag}.123.456.7.tmp");
        assert!(parse(OsStr::new(&good)).is_some(), "{good}");
        for bad in [
            ".a.tmp".to_owned(),
            ".a.123.tmp.bak".to_owned(),
            ".a.123.7.tmp".to_owned(),
            format!("{good}.bak"),
            format!("a.{tag}.123.456.7.tmp"),
            format!("..{tag}.123.456.7.tmp"),
            format!(".a.{tag}.0123.456.7.tmp"),
            format!(".a.{tag}.123.456.07.tmp"),
            format!(".a.{tag}.123.+456.7.tmp"),
            format!(".a.{tag}.99999999999.456.7.tmp"),
            ".a.5F3A09C2.123.456.7.tmp".to_owned(),
            format!(".a.{}.123.456.7.tmp", &tag[..7]),
            format!(".a.{tag}.123.456.7.TMP"),
            format!(".a.{tag}.123.456.7.patch-tmp2"),
            format!(".a.{tag}.123.456.7.orig"),
            format!(".{}.{tag}.123.456.7.tmp", "x".repeat(MAX_STEM_BYTES + 1)),
        ] {
            assert!(parse(OsStr::new(&bad)).is_none(), "{bad} parsed");
        }
    }

    #[test]
    fn a_writer_is_gone_when_its_pid_is_free_or_taken_by_a_later_process() {
        let w = me();
        let t = |writer| TempName {
            stem: "a".into(),
            writer,
            n: 0,
            kind: TempKind::Write,
        };
        assert!(!writer_gone(&t(w), w), "this process is alive");
        let free = Writer {
            pid: NO_SUCH_PID,
            ..w
        };
        assert!(writer_gone(&t(free), w));
        // This pid, another start: the pid was taken again.
        let reused = Writer {
            start: w.start + 1,
            ..w
        };
        assert!(writer_gone(&t(reused), w));
        // Another boot or namespace: not ours to judge.
        let elsewhere = Writer {
            tag: w.tag ^ 1,
            pid: NO_SUCH_PID,
            ..w
        };
        assert!(!writer_gone(&t(elsewhere), w));
    }

    #[cfg(unix)]
    #[test]
    fn only_stale_regular_files_matching_the_pattern_are_removed() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path();
        let w = me();
        let dead = Writer {
            pid: NO_SUCH_PID,
            ..w
        };
        let stale = |stem: &str, kind| format_name(stem, dead, 1, kind);
        let live = format_name("live", w, 1, TempKind::Write);
        let foreign = format_name(
            "foreign",
            Writer {
                tag: w.tag ^ 1,
                ..dead
            },
            1,
            TempKind::Write,
        );
        for name in [
            stale("a", TempKind::Write),
            stale("b", TempKind::PatchNew),
            stale("c", TempKind::PatchBackup),
            live.clone(),
            foreign.clone(),
            ".a.tmp".into(),
            ".a.123.tmp.bak".into(),
            format!("{}.bak", stale("d", TempKind::Write)),
            "target.txt".into(),
        ] {
            std::fs::write(p.join(&name), "x").unwrap();
        }
        std::fs::create_dir(p.join(stale("dir", TempKind::Write))).unwrap();
        std::os::unix::fs::symlink("target.txt", p.join(stale("link", TempKind::Write))).unwrap();
        let before = names(p);

        let swept = remove_stale(&open(p), MAX_ENTRIES_PER_DIR);

        assert_eq!(swept.removed, 3, "{:?}", names(p));
        assert!(!swept.truncated);
        let mut expected: Vec<String> = before
            .into_iter()
            .filter(|n| {
                ![
                    stale("a", TempKind::Write),
                    stale("b", TempKind::PatchNew),
                    stale("c", TempKind::PatchBackup),
                ]
                .contains(n)
            })
            .collect();
        expected.sort();
        assert_eq!(names(p), expected);
        assert!(p.join(&live).exists() && p.join(&foreign).exists());
        assert!(p.join("target.txt").exists(), "the link's target stays");
    }

    #[test]
    fn a_sweep_looks_at_no_more_entries_than_allowed() {
        let tmp = tempfile::tempdir().unwrap();
        for i in 0..20 {
            std::fs::write(tmp.path().join(format!("f{i}")), "x").unwrap();
        }
        let swept = remove_stale(&open(tmp.path()), 5);
        assert_eq!(swept.examined, 5);
        assert!(swept.truncated);
    }
}
