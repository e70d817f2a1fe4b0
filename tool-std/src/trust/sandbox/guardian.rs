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

use std::collections::BTreeSet;
use std::io::{BufRead, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Mutex;
use std::sync::mpsc;
use std::time::Duration;

use rustix::process::{Pid, Signal};

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

/// The guardian of this process: started on first use, restarted when it died.
static LINK: Mutex<Option<Link>> = Mutex::new(None);

/// Why the guardian could not be started, the last time it could not.
static FAILED: Mutex<Option<String>> = Mutex::new(None);

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
        if let Some(group) = self.0.take() {
            release(group);
        }
    }
}

/// Lists `group` with the guardian, started with the helper program `helper` finds when
/// there is none. When it cannot be started, the group is not guarded, and
/// [`guardian_error`] says why.
pub(crate) fn guard(group: i32, helper: Option<&Path>) -> Guarded {
    match watch(group, helper) {
        Ok(()) => Guarded(Some(group)),
        Err(why) => {
            *FAILED.lock().unwrap_or_else(|e| e.into_inner()) = Some(why);
            Guarded(None)
        }
    }
}

/// Why the guardian, which ends the programs of a server that dies outright (see
/// [`trust::sandbox`](super)), could not be started, if it could not: the programs
/// started meanwhile would outlive such a server. `None` once it runs.
pub fn guardian_error() -> Option<String> {
    FAILED.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

fn watch(group: i32, helper: Option<&Path>) -> Result<(), String> {
    let mut link = LINK.lock().unwrap_or_else(|e| e.into_inner());
    for _ in 0..2 {
        if link.is_none() {
            let program = super::helper_program_for(helper)?;
            *link = Some(start(&program)?);
            *FAILED.lock().unwrap_or_else(|e| e.into_inner()) = None;
        }
        let Some(l) = link.as_mut() else { break };
        if writeln!(l.stdin, "+{group}").is_ok() {
            return Ok(());
        }
        // The guardian died (someone killed it): reap it and start another.
        let _ = l.child.kill();
        let _ = l.child.wait();
        *link = None;
    }
    Err("the guardian process could not be started".to_owned())
}

/// Takes `group` off the guardian's list: it has ended.
fn release(group: i32) {
    let mut link = LINK.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(l) = link.as_mut() {
        let _ = writeln!(l.stdin, "-{group}");
    }
}

/// The guardian's pid, when one runs (tests look at it).
pub fn guardian_pid() -> Option<u32> {
    let link = LINK.lock().unwrap_or_else(|e| e.into_inner());
    link.as_ref().map(|l| l.child.id())
}

fn start(helper: &Path) -> Result<Link, String> {
    use std::os::unix::process::CommandExt;
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
    let mut groups: BTreeSet<i32> = BTreeSet::new();
    let mut order: std::collections::VecDeque<i32> = std::collections::VecDeque::new();
    loop {
        match read.recv_timeout(PRUNE_EVERY) {
            Ok(line) => apply(&line, &mut groups, &mut order),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                groups.retain(|&g| group_exists(g));
                order.retain(|g| groups.contains(g));
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    for &group in &groups {
        if let Some(pid) = Pid::from_raw(group) {
            let _ = rustix::process::kill_process_group(pid, Signal::KILL);
        }
    }
    std::process::exit(0)
}

/// Applies one line of the server's (`+PGID`, `-PGID`) to the list.
fn apply(line: &str, groups: &mut BTreeSet<i32>, order: &mut std::collections::VecDeque<i32>) {
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
            if groups.insert(group) {
                order.push_back(group);
            }
            while groups.len() > MAX_GROUPS {
                match order.pop_front() {
                    Some(oldest) => {
                        groups.remove(&oldest);
                    }
                    None => break,
                }
            }
        }
        "-" => {
            groups.remove(&group);
        }
        _ => {}
    }
}

fn group_exists(group: i32) -> bool {
    Pid::from_raw(group).is_some_and(|pid| rustix::process::test_kill_process_group(pid).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_takes_starts_and_ends_and_ignores_the_rest() {
        let (mut groups, mut order) = (BTreeSet::new(), std::collections::VecDeque::new());
        for line in [
            "+100", "+200", "+100", "-100", "+1", "+0", "+-5", "x300", "", "+abc",
        ] {
            apply(line, &mut groups, &mut order);
        }
        assert_eq!(groups.into_iter().collect::<Vec<_>>(), [200]);
    }
}
