//! Shared set-up of the `bash` tool tests: a workspace with a read-write root `main` (holding
//! a directory `sub` and a file `file.txt`) and a second root `other`, an `outside` directory
//! beside them, a session that approves every call and runs commands in the sandbox through
//! this crate's helper program, and helpers to watch a call's events and
//! to look for the processes of a group in `/proc`.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use tool_core::{
    ApproveAll, CallOptions, CallOutcome, EventData, EventKind, RuntimeBuilder, Session, ToolCall,
};
use tool_std::shell::ShellConfig;
use tool_std::workspace::Workspace;

pub(crate) struct Fixture {
    pub(crate) _tmp: tempfile::TempDir,
    pub(crate) ws: PathBuf,
    pub(crate) other: PathBuf,
    pub(crate) outside: PathBuf,
    pub(crate) session: Session,
}

/// One event a call emitted, with when it was seen.
#[derive(Debug, Clone)]
pub(crate) struct Seen {
    pub(crate) at: Instant,
    pub(crate) kind: EventKind,
    pub(crate) text: String,
}

impl Fixture {
    pub(crate) fn new() -> Fixture {
        Fixture::with(ShellConfig::default(), |b| b.approver(ApproveAll))
    }

    pub(crate) fn with_config(config: ShellConfig) -> Fixture {
        Fixture::with(config, |b| b.approver(ApproveAll))
    }

    /// A fixture whose runtime `build` finishes (approver, limits).
    pub(crate) fn with(
        mut config: ShellConfig,
        build: impl FnOnce(RuntimeBuilder) -> RuntimeBuilder,
    ) -> Fixture {
        config.sandbox.helper.get_or_insert_with(helper);
        let (tmp, base) = super::temp_dir();
        let ws = base.join("ws");
        let other = base.join("other");
        let outside = base.join("outside");
        for d in [&ws, &ws.join("sub"), &other, &outside] {
            fs::create_dir_all(d).unwrap();
        }
        fs::write(ws.join("file.txt"), "a file\n").unwrap();
        let workspace = Workspace::builder()
            .root("main", &ws)
            .root("other", &other)
            .build()
            .unwrap();
        let session = build(super::workspace_runtime(&workspace, config))
            .build()
            .session();
        Fixture {
            _tmp: tmp,
            ws,
            other,
            outside,
            session,
        }
    }

    pub(crate) async fn outcome(&self, args: Value) -> CallOutcome {
        super::outcome(&self.session, "bash", &args).await
    }

    /// Calls `bash` and returns its JSON answer (result or error).
    pub(crate) async fn call(&self, args: Value) -> Value {
        self.outcome(args).await.to_json()
    }

    /// Calls `bash` and returns the JSON answer and the model's text.
    pub(crate) async fn call_text(&self, args: Value) -> (Value, String) {
        super::answer_and_text(&self.outcome(args).await)
    }

    /// Calls `bash` with `options`, recording its chunk and progress events as they come.
    pub(crate) async fn call_watched(
        &self,
        args: Value,
        options: CallOptions,
    ) -> (CallOutcome, Vec<Seen>, Instant) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        let options = options.observer(move |e| {
            let text = match &e.data {
                EventData::Chunk { text } => text.clone(),
                EventData::Progress { message } => message.clone(),
                _ => String::new(),
            };
            sink.lock().unwrap().push(Seen {
                at: Instant::now(),
                kind: e.kind,
                text,
            });
        });
        let out = self
            .session
            .call_with(ToolCall::new("w", "bash", args.to_string()), options)
            .await;
        let ended = Instant::now();
        let seen = seen.lock().unwrap().clone();
        (out, seen, ended)
    }

    /// Whether a file exists under the root `main`.
    pub(crate) fn exists(&self, rel: &str) -> bool {
        self.ws.join(rel).exists()
    }
}

/// The sandbox helper the tests run their commands through: this crate's own helper
/// program (a test binary cannot call `dispatch` at the top of its `main`).
pub(crate) fn helper() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_toolsmith-sandbox-helper"))
}

/// The live (not zombie) processes whose process group is `pgid`, from `/proc`.
pub(crate) fn group_members(pgid: i32) -> Vec<i32> {
    let mut out = Vec::new();
    let Ok(dir) = fs::read_dir("/proc") else {
        return out;
    };
    for entry in dir.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<i32>().ok())
        else {
            continue;
        };
        if let Some((state, pgrp)) = stat(pid)
            && pgrp == pgid
            && state != 'Z'
            && state != 'X'
        {
            out.push(pid);
        }
    }
    out
}

/// Whether the group `pgid` has no live process left within `AFTER_KILL`.
///
/// A process killed with `SIGKILL` closes its files (which is what lets the call return)
/// before the kernel turns it into a zombie, so for a moment after the call it can still be
/// listed, mid-exit. A process that was never signalled (a `sleep 30`) stays listed and fails.
pub(crate) fn group_gone(pgid: i32) -> bool {
    eventually(AFTER_KILL, || group_members(pgid).is_empty())
}

/// Whether `pid` is gone (or a zombie) within `AFTER_KILL`; see [`group_gone`].
pub(crate) fn dead(pid: i32) -> bool {
    eventually(AFTER_KILL, || !alive(pid))
}

/// How long a killed process may take to finish exiting on a loaded machine.
pub(crate) const AFTER_KILL: Duration = Duration::from_secs(1);

/// Whether `pid` is running (not gone, not a zombie).
pub(crate) fn alive(pid: i32) -> bool {
    stat(pid).is_some_and(|(state, _)| state != 'Z' && state != 'X')
}

/// A process's state letter and process group, from `/proc/PID/stat`.
fn stat(pid: i32) -> Option<(char, i32)> {
    let text = fs::read_to_string(Path::new("/proc").join(pid.to_string()).join("stat")).ok()?;
    // `pid (comm) state ppid pgrp ...`; comm may hold spaces and parentheses.
    let rest = &text[text.rfind(')')? + 2..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let _ppid = fields.next()?;
    let pgrp = fields.next()?.parse().ok()?;
    Some((state, pgrp))
}

/// Waits up to `within` for `pred`, polling.
pub(crate) fn eventually(within: Duration, mut pred: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + within;
    loop {
        if pred() {
            return true;
        }
        if Instant::now() >= end {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The numbers on the lines of `text` (pids a command printed).
pub(crate) fn numbers(text: &str) -> Vec<i32> {
    text.lines().filter_map(|l| l.trim().parse().ok()).collect()
}
