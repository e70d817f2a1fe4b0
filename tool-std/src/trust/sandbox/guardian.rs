//! The guardian: a small process that ends the server's programs when the server ends without
//! ending them itself (killed with `SIGKILL`, crashed, stopped by the OOM killer).
//!
//! Every program a tool starts leads a process group of its own, which the tool ends as a whole
//! when the call ends. A server that dies outright ends nothing, and its programs would run on
//! outside any control. So the first program started makes the server start its guardian (the
//! helper program, with `argv[0]` = [`GUARDIAN_ARG0`], in a process group of its own so that a
//! terminal's signals do not reach it), holding the write end of a pipe to the guardian's stdin.
//! The server writes `+PGID` when a program starts and `-PGID` when its group has ended. When the
//! pipe reaches its end, which the kernel makes happen when the server exits however it exits,
//! the guardian kills every group still listed and exits itself.
//!
//! Why a process of its own: the parent-death signal (`PR_SET_PDEATHSIG`) must be set by the
//! child between `fork` and `exec`, which needs unsafe code in the server, and it fires when
//! the *thread* that forked the child ends, and the threads that start programs here (tokio's
//! blocking threads, the sandbox's confining threads) end long before the programs do; a
//! subreaper does not outlive its own death; a cgroup of its own needs a delegation from the
//! system's manager that a server seldom has.
//!
//! Limits: a program that left its process group (`setsid`) is not listed; a server killed in
//! the microseconds between a program's start and the write of its group leaves that one
//! running. The guardian forgets a group once no process of it is left, so a group number the
//! kernel gives out again later is never killed by mistake.

use std::collections::{BTreeSet, VecDeque};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use super::launch::{Group, Stop};

/// The `argv[0]` the guardian is started with; [`dispatch`](super::dispatch) recognises it.
pub const GUARDIAN_ARG0: &str = "toolsmith-guardian";

/// How often the guardian forgets groups that have ended.
const PRUNE_EVERY: Duration = Duration::from_secs(1);

/// The most groups the guardian lists; past it, the oldest listed are forgotten first (each
/// group is one program a call started; a server running this many at once has other
/// problems).
const MAX_GROUPS: usize = 65_536;

/// The server's end of the guardian: its stdin, and the process to reap.
struct Link {
    child: Child,
    stdin: ChildStdin,
}

/// What the server tells the thread that talks to the guardian.
enum Message {
    /// A program's group started.
    Watch(i32),
    /// A program's group has ended.
    Release(i32),
    /// Start the guardian now, and say whether it runs.
    Start(mpsc::Sender<Result<(), String>>),
}

/// The most messages waiting for the guardian's thread; past it a group goes unguarded (and
/// [`guardian_error`] says so) rather than a call waiting.
const MAX_QUEUED: usize = 4096;

/// The channel to the guardian's thread, started on first use with the helper program given
/// then.
static LINK: OnceLock<SyncSender<Message>> = OnceLock::new();

/// Why the guardian could not be started or kept up, the last time it could not.
static FAILED: Mutex<Option<String>> = Mutex::new(None);

/// The guardian's pid, 0 while none runs.
static PID: AtomicU32 = AtomicU32::new(0);

fn fail(why: String) {
    *FAILED.lock().unwrap_or_else(|e| e.into_inner()) = Some(why);
}

/// A program's group, listed with the guardian until this drops (once the group has ended).
#[derive(Debug)]
pub(crate) struct Guarded(Option<i32>);

impl Guarded {
    /// Nothing listed.
    pub(crate) fn none() -> Guarded {
        Guarded(None)
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        if let Some(group) = self.0.take()
            && let Some(link) = LINK.get()
        {
            // A full queue: the guardian forgets the group once it has no process left.
            let _ = link.try_send(Message::Release(group));
        }
    }
}

/// Lists `group` with the guardian (started with the helper program `helper` finds, the first
/// time). Never waits: the guardian's own thread talks to it. When the group cannot be listed,
/// it is not guarded, and [`guardian_error`] says why.
pub(crate) fn guard(group: i32, helper: Option<&Path>) -> Guarded {
    match link(helper).try_send(Message::Watch(group)) {
        Ok(()) => Guarded(Some(group)),
        Err(_) => {
            fail("the guardian's queue is full, so a program went unguarded".to_owned());
            Guarded(None)
        }
    }
}

/// Starts the guardian now (with the helper program `helper` finds) rather than with the first
/// program, so that a host can say at start whether programs will be guarded.
///
/// # Errors
///
/// Why it could not be started (no helper program, a spawn that failed).
pub fn start_guardian(helper: Option<&Path>) -> Result<(), String> {
    let (tx, rx) = mpsc::channel();
    link(helper)
        .send(Message::Start(tx))
        .map_err(|_| "the guardian's thread has stopped".to_owned())?;
    rx.recv()
        .map_err(|_| "the guardian's thread has stopped".to_owned())?
}

/// Why the guardian, which ends the programs of a server that dies outright (see
/// [`trust::sandbox`](super)), could not be started or kept up, if it could not: the programs
/// started meanwhile would outlive such a server. `None` while it runs.
pub fn guardian_error() -> Option<String> {
    FAILED.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// The guardian's pid, when one runs.
pub fn guardian_pid() -> Option<u32> {
    Some(PID.load(Ordering::Relaxed)).filter(|&p| p != 0)
}

/// The channel to the guardian's thread, starting the thread the first time.
fn link(helper: Option<&Path>) -> &'static SyncSender<Message> {
    LINK.get_or_init(|| {
        let (tx, rx) = mpsc::sync_channel(MAX_QUEUED);
        let helper = helper.map(Path::to_path_buf);
        let spawned = std::thread::Builder::new()
            .name("toolsmith-guardian-link".into())
            .spawn(move || Keeper::new(helper).run(&rx));
        if let Err(e) = spawned {
            fail(format!("cannot start the guardian's thread: {e}"));
        }
        tx
    })
}

/// The thread that keeps the guardian: the live groups, and the process with their list.
struct Keeper {
    helper: Option<PathBuf>,
    link: Option<Link>,
    live: BTreeSet<i32>,
    /// When a start last failed: the next try waits a second.
    failed_at: Option<Instant>,
}

impl Keeper {
    fn new(helper: Option<PathBuf>) -> Keeper {
        Keeper {
            helper,
            link: None,
            live: BTreeSet::new(),
            failed_at: None,
        }
    }

    fn run(mut self, rx: &Receiver<Message>) {
        loop {
            match rx.recv_timeout(PRUNE_EVERY) {
                Ok(Message::Watch(group)) => {
                    self.live.insert(group);
                    self.send(&format!("+{group}"));
                }
                Ok(Message::Release(group)) => {
                    self.live.remove(&group);
                    self.send(&format!("-{group}"));
                }
                Ok(Message::Start(reply)) => {
                    let _ = reply.send(self.ensure(true));
                }
                // A guardian someone killed is replaced (with the whole list) within a second.
                Err(RecvTimeoutError::Timeout) => {
                    let gone = self
                        .link
                        .as_mut()
                        .is_some_and(|l| !matches!(l.child.try_wait(), Ok(None)));
                    if gone || (self.link.is_none() && !self.live.is_empty()) {
                        self.restart();
                    }
                }
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
    }

    /// Writes one line to the guardian; on failure starts another with the whole list.
    fn send(&mut self, line: &str) {
        if self.ensure(false).is_err() {
            return;
        }
        if let Some(l) = self.link.as_mut()
            && writeln!(l.stdin, "{line}").is_ok()
        {
            return;
        }
        self.restart();
    }

    /// Ends the guardian there is (if any), starts another and gives it the live groups.
    fn restart(&mut self) {
        if let Some(mut old) = self.link.take() {
            let _ = old.child.kill();
            let _ = old.child.wait();
            PID.store(0, Ordering::Relaxed);
        }
        if self.ensure(true).is_err() {
            return;
        }
        let lines: String = self.live.iter().map(|g| format!("+{g}\n")).collect();
        let written = self
            .link
            .as_mut()
            .is_some_and(|l| l.stdin.write_all(lines.as_bytes()).is_ok());
        if !written {
            self.link = None;
            PID.store(0, Ordering::Relaxed);
            fail("the guardian stopped reading its list".to_owned());
        }
    }

    /// A running guardian: the one there is, or a new one (at most one try a second unless
    /// `now`).
    fn ensure(&mut self, now: bool) -> Result<(), String> {
        if self.link.is_some() {
            return Ok(());
        }
        if !now && self.failed_at.is_some_and(|t| t.elapsed() < PRUNE_EVERY) {
            return Err("the guardian could not be started".to_owned());
        }
        let started = super::helper_program_for(self.helper.as_deref()).and_then(|p| start(&p));
        match started {
            Ok(link) => {
                PID.store(link.child.id(), Ordering::Relaxed);
                self.link = Some(link);
                self.failed_at = None;
                *FAILED.lock().unwrap_or_else(|e| e.into_inner()) = None;
                Ok(())
            }
            Err(why) => {
                self.failed_at = Some(Instant::now());
                fail(why.clone());
                Err(why)
            }
        }
    }
}

#[cfg(not(unix))]
fn start(_helper: &Path) -> Result<Link, String> {
    Err("the guardian runs on Unix only, where the standard tools start programs".to_owned())
}

#[cfg(unix)]
fn start(helper: &Path) -> Result<Link, String> {
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    let mut child = Command::new(helper)
        .arg0(GUARDIAN_ARG0)
        .env_clear()
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot start the guardian {}: {e}", helper.display()))?;
    let stdin = child
        .stdin
        .take()
        .ok_or_else(|| "the guardian started without a pipe".to_owned())?;
    Ok(Link { child, stdin })
}

/// The guardian's whole life: read the list from stdin, then kill what is left on it.
pub(super) fn guardian_main() -> ! {
    let (lines, read) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        for line in stdin.lock().lines() {
            let Ok(line) = line else { break };
            if lines.send(line).is_err() {
                break;
            }
        }
        // Dropping `lines` tells the main thread the server has gone.
    });
    let mut list = List::default();
    let mut pruned = Instant::now();
    loop {
        match read.recv_timeout(PRUNE_EVERY) {
            Ok(line) => list.apply(&line),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
        // On a clock, busy or idle: a group with no process left is forgotten.
        if pruned.elapsed() >= PRUNE_EVERY {
            list.prune(group_exists);
            pruned = Instant::now();
        }
    }
    for group in list.groups.iter().filter_map(|&g| Group::new(g)) {
        group.signal(Stop::Kill);
    }
    std::process::exit(0)
}

/// The guardian's list: the groups, and the order they came in (to forget the oldest first
/// past [`MAX_GROUPS`]).
#[derive(Default)]
struct List {
    groups: BTreeSet<i32>,
    order: VecDeque<i32>,
}

impl List {
    /// Applies one line of the server's (`+PGID`, `-PGID`).
    fn apply(&mut self, line: &str) {
        let (sign, number) = line.split_at(line.len().min(1));
        let Ok(group) = number.trim().parse::<i32>() else {
            return;
        };
        // 0 and 1 are no program's group (`kill(-1)` would signal every process).
        if group <= 1 {
            return;
        }
        match sign {
            "+" => {
                if self.groups.insert(group) {
                    self.order.push_back(group);
                }
                while self.groups.len() > MAX_GROUPS {
                    match self.order.pop_front() {
                        Some(oldest) => {
                            self.groups.remove(&oldest);
                        }
                        None => break,
                    }
                }
            }
            "-" if self.groups.remove(&group) => self.order.retain(|&g| g != group),
            _ => {}
        }
    }

    /// Forgets the groups `exists` says are gone.
    fn prune(&mut self, exists: impl Fn(i32) -> bool) {
        self.groups.retain(|&g| exists(g));
        let groups = &self.groups;
        self.order.retain(|g| groups.contains(g));
    }
}

fn group_exists(group: i32) -> bool {
    Group::new(group).is_some_and(Group::exists)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_takes_starts_and_ends_and_ignores_the_rest() {
        let mut list = List::default();
        for line in [
            "+100", "+200", "+100", "-100", "+1", "+0", "+-5", "x300", "", "+abc",
        ] {
            list.apply(line);
        }
        assert_eq!(list.groups.iter().copied().collect::<Vec<_>>(), [200]);
        assert_eq!(list.order.iter().copied().collect::<Vec<_>>(), [200]);
        list.apply("+300");
        list.prune(|g| g != 200);
        assert_eq!(list.groups.iter().copied().collect::<Vec<_>>(), [300]);
        assert_eq!(list.order.iter().copied().collect::<Vec<_>>(), [300]);
    }
}
