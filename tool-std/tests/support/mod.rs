//! What the tests share, each helper once: temporary directories and snapshots of what is in
//! them, the registries and sessions the tools run in, the calls a model makes, and running a
//! test alone in a process of its own; and per family (submodules), the fixtures of the
//! `apply_patch`, file, prompt, sandbox, search, shell and web tests.

#[cfg(target_os = "linux")]
pub(crate) mod code;
pub(crate) mod file;
pub(crate) mod patch;
pub(crate) mod prompt;
#[cfg(target_os = "linux")]
pub(crate) mod sandbox;
pub(crate) mod search;
pub(crate) mod shell;
pub(crate) mod web;

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tool_core::{
    CallOutcome, DynTool, Registry, ResourcesTracker, Runtime, RuntimeBuilder, Session, ToolCall,
};
use tool_std::workspace::Workspace;

// Temporary directories.

/// A new temporary directory (removed when the guard drops) and its canonical path: the
/// tools answer with real paths.
pub(crate) fn temp_dir() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let base = tmp.path().canonicalize().expect("canonical");
    (tmp, base)
}

/// Writes `content` to `path`, creating its parent directories.
pub(crate) fn write(path: &Path, content: impl AsRef<[u8]>) {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).unwrap();
    }
    fs::write(path, content).unwrap();
}

/// `base/outside`, holding `secret` in `secret.txt` and `sub/deep.txt`: what no call may read,
/// show or change.
pub(crate) fn outside_with(base: &Path, secret: &str) -> PathBuf {
    let outside = base.join("outside");
    write(&outside.join("secret.txt"), secret);
    write(&outside.join("sub/deep.txt"), secret);
    outside
}

/// The directories of the escape tests under `base`: the root `ws` (with the protected
/// `.git/config` and `.env`), a sibling `ws-evil` sharing its prefix and an `outside`
/// directory, both holding `secret` (`ws-evil/x.txt`, `outside/secret.txt`,
/// `outside/dir/secret.txt`). Returns the root, `base/ws`.
pub(crate) fn escape_layout(base: &Path, secret: &str) -> PathBuf {
    let root = base.join("ws");
    write(&root.join(".git/config"), "[core]\n");
    write(&root.join(".env"), "TOKEN=1\n");
    write(&base.join("ws-evil/x.txt"), secret);
    write(&base.join("outside/secret.txt"), secret);
    write(&base.join("outside/dir/secret.txt"), secret);
    root
}

/// Runs a command, waiting for it; whether it ran and succeeded.
pub(crate) fn run(cmd: &str, args: &[&str]) -> bool {
    Command::new(cmd)
        .args(args)
        .status()
        .is_ok_and(|s| s.success())
}

/// Runs `f` on a thread; fails the test if it does not answer within `limit` (a call blocked
/// on a FIFO would otherwise hang the suite instead of failing it).
pub(crate) fn within<T: Send + 'static>(
    limit: Duration,
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(limit)
        .expect("the call blocked instead of answering at once")
}

// Snapshots, to prove that a refused or failed call changed nothing.

/// Every entry under a directory, the directory included, by path.
pub(crate) type Snapshot = BTreeMap<PathBuf, Entry>;

/// What a snapshot records of one entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) kind: &'static str,
    /// A file's content, a link's target.
    pub(crate) content: Vec<u8>,
    pub(crate) mtime_ns: i128,
    pub(crate) ino: u64,
    pub(crate) mode: u32,
}

/// Every entry under `dir` (links not followed): kind, content or link target, modification
/// time, inode and mode.
pub(crate) fn snapshot(dir: &Path) -> Snapshot {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    if let Ok(m) = fs::symlink_metadata(dir) {
        out.insert(dir.to_path_buf(), entry_of(dir, &m));
    }
    while let Some(d) = todo.pop() {
        let Ok(read) = fs::read_dir(&d) else { continue };
        for e in read.flatten() {
            let p = e.path();
            let m = fs::symlink_metadata(&p).unwrap();
            if m.is_dir() {
                todo.push(p.clone());
            }
            out.insert(p.clone(), entry_of(&p, &m));
        }
    }
    out
}

/// Like [`snapshot`], without directories' times (a restored patch leaves the entries as they
/// were, but the directories it wrote in were touched).
pub(crate) fn snapshot_without_dir_times(dir: &Path) -> Snapshot {
    let mut out = snapshot(dir);
    for entry in out.values_mut() {
        if entry.kind == "dir" {
            entry.mtime_ns = 0;
        }
    }
    out
}

fn entry_of(p: &Path, m: &fs::Metadata) -> Entry {
    let (kind, content) = if m.file_type().is_symlink() {
        (
            "link",
            fs::read_link(p)
                .unwrap()
                .into_os_string()
                .into_encoded_bytes(),
        )
    } else if m.is_dir() {
        ("dir", Vec::new())
    } else if m.is_file() {
        ("file", fs::read(p).unwrap())
    } else {
        ("other", Vec::new())
    };
    Entry {
        kind,
        content,
        mtime_ns: i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
        ino: m.ino(),
        mode: m.mode(),
    }
}

// Registries, sessions and calls.

/// Every tool this crate registers through `inventory`, as the command line builds it.
pub(crate) fn inventory_registry() -> Registry {
    Registry::from_inventory().expect("registry")
}

/// A registry with one tool.
pub(crate) fn registry_of(tool: impl DynTool) -> Registry {
    Registry::builder()
        .register(tool)
        .build()
        .expect("registry")
}

/// A runtime over every tool with `workspace` and the tools' `config` as services, answering
/// repeated calls again instead of de-duplicating them; the caller finishes it (approver,
/// limits).
pub(crate) fn workspace_runtime<C: Send + Sync + 'static>(
    workspace: &Workspace,
    config: C,
) -> RuntimeBuilder {
    Runtime::builder(inventory_registry())
        .service(Arc::new(workspace.clone()))
        .service(Arc::new(config))
        .dedupe(false)
}

/// Calls `tool` with `args` and returns the outcome.
pub(crate) async fn outcome(session: &Session, tool: &str, args: &Value) -> CallOutcome {
    session
        .call(ToolCall::new("t", tool, args.to_string()))
        .await
}

/// Calls `tool` in a new turn (so no check answers from an earlier call) and returns its JSON
/// answer (result or error).
pub(crate) async fn call(session: &Session, tool: &str, args: Value) -> Value {
    session.clear_current_turn();
    outcome(session, tool, &args).await.to_json()
}

/// Calls `tool` in a new turn and returns the JSON answer and the model's text.
pub(crate) async fn call_text(session: &Session, tool: &str, args: Value) -> (Value, String) {
    session.clear_current_turn();
    answer_and_text(&outcome(session, tool, &args).await)
}

/// An outcome's JSON answer and the text the model reads.
pub(crate) fn answer_and_text(out: &CallOutcome) -> (Value, String) {
    let text = out.model_text(&mut ResourcesTracker::new());
    (out.to_json(), text)
}

/// An error answer's message, as the runtime gives it (empty for a result).
pub(crate) fn error_message(answer: &Value) -> &str {
    answer["error"].as_str().unwrap_or_default()
}

// Tests that need a process of their own.

/// The environment variable naming the test a process was started to run alone.
const ALONE: &str = "TOOL_STD_TEST_ALONE";

/// The harness's name of the test `name` of `module` (`module_path!()`, which starts with the
/// crate's name, unlike the harness's names).
fn test_path(module: &str, name: &str) -> String {
    match module.split_once("::") {
        Some((_, path)) => format!("{path}::{name}"),
        None => name.to_owned(),
    }
}

/// A new process of this test binary that runs only the test `name` of `module`
/// (`module_path!()`).
pub(crate) fn this_test(module: &str, name: &str) -> Command {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", &test_path(module, name)]);
    cmd
}

/// For a test that needs a process to itself: one that measures the whole process (its peak
/// memory, its CPU time), which the other tests of this binary, running beside it as threads,
/// would move, or that needs variables in its environment.
///
/// In the process of the whole suite, runs the test `name` of `module` (`module_path!()`)
/// again, alone in a new process of this binary with `env` added to its environment, fails if
/// it fails, and returns `false`: the caller returns. In that new process it returns `true`:
/// the caller runs the test's body.
pub(crate) fn alone(module: &str, name: &str, env: &[(&str, &str)]) -> bool {
    let path = test_path(module, name);
    if std::env::var_os(ALONE).is_some_and(|v| v == *path) {
        return true;
    }
    let out = this_test(module, name)
        .arg("--nocapture")
        .env(ALONE, &path)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    false
}
