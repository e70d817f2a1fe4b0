//! Shared set-up of the file tool tests: a workspace with a read-write root `main`, a
//! read-only root `ro`, and beside them an `outside` directory holding a secret and a sibling
//! `ws-evil`, both of which no call may read or change.

#![allow(dead_code, unreachable_pub)]

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::{MetadataExt, symlink};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tool_core::{ApproveAll, CallOutcome, Registry, ResourcesTracker, Runtime, Session, ToolCall};
use tool_std::file::FileConfig;
use tool_std::workspace::Workspace;

/// The text of every file outside the roots: it must never appear in any answer.
pub const SECRET: &str = "outside-secret-7c41";

pub struct Fixture {
    pub _tmp: tempfile::TempDir,
    pub base: PathBuf,
    pub ws: PathBuf,
    pub ro: PathBuf,
    pub outside: PathBuf,
    pub evil: PathBuf,
    pub workspace: Workspace,
    pub session: Session,
}

impl Fixture {
    /// The workspace with the default limits.
    pub fn new() -> Fixture {
        Fixture::with_config(FileConfig::default())
    }

    pub fn with_config(config: FileConfig) -> Fixture {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().canonicalize().unwrap();
        let ws = base.join("ws");
        let ro = base.join("ro");
        let outside = base.join("outside");
        let evil = base.join("ws-evil");
        for d in [&ws, &ro, &outside, &evil] {
            fs::create_dir_all(d).unwrap();
        }
        fs::write(outside.join("secret.txt"), SECRET).unwrap();
        fs::create_dir_all(outside.join("sub")).unwrap();
        fs::write(outside.join("sub/deep.txt"), SECRET).unwrap();
        fs::write(evil.join("file.txt"), SECRET).unwrap();
        fs::write(ro.join("file.txt"), "read-only content\n").unwrap();
        let workspace = Workspace::builder()
            .root("main", &ws)
            .read_only_root("ro", &ro)
            .build()
            .unwrap();
        let session = session_for(&workspace, config);
        Fixture {
            _tmp: tmp,
            base,
            ws,
            ro,
            outside,
            evil,
            workspace,
            session,
        }
    }

    /// A new session on the same workspace (its own staleness records).
    pub fn other_session(&self) -> Session {
        session_for(&self.workspace, FileConfig::default())
    }

    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) {
        let p = self.ws.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, content).unwrap();
    }

    pub fn read(&self, rel: &str) -> Vec<u8> {
        fs::read(self.ws.join(rel)).unwrap()
    }

    pub fn read_str(&self, rel: &str) -> String {
        String::from_utf8(self.read(rel)).unwrap()
    }

    pub fn link(&self, target: impl AsRef<Path>, rel: &str) {
        symlink(target, self.ws.join(rel)).unwrap();
    }

    /// Calls a tool and returns the outcome.
    pub async fn outcome(&self, tool: &str, args: Value) -> CallOutcome {
        self.session
            .call(ToolCall::new("t", tool, args.to_string()))
            .await
    }

    /// Calls a tool and returns its JSON answer (result or error).
    pub async fn call(&self, tool: &str, args: Value) -> Value {
        self.session.clear_current_turn();
        self.outcome(tool, args).await.to_json()
    }

    /// Calls a tool and returns the JSON answer and the model text.
    pub async fn call_text(&self, tool: &str, args: Value) -> (Value, String) {
        self.session.clear_current_turn();
        let out = self.outcome(tool, args).await;
        let text = out.model_text(&mut ResourcesTracker::new());
        (out.to_json(), text)
    }

    /// Everything outside the roots: the outside directory and the sibling.
    pub fn outside_snapshot(&self) -> BTreeMap<PathBuf, Entry> {
        let mut map = snapshot(&self.outside);
        map.extend(snapshot(&self.evil));
        map.extend(snapshot(&self.ro));
        map
    }
}

pub fn session_for(ws: &Workspace, config: FileConfig) -> Session {
    let registry = Registry::builder().with_inventory().build().unwrap();
    Runtime::builder(registry)
        .service(Arc::new(ws.clone()))
        .service(Arc::new(config))
        .approver(ApproveAll)
        .dedupe(false)
        .build()
        .session()
}

/// What a snapshot records of one entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub kind: &'static str,
    pub content: Vec<u8>,
    pub mtime_ns: i128,
    pub ino: u64,
    pub mode: u32,
}

/// Every entry under `dir` (links not followed), with content and modification time.
pub fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Entry> {
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

/// Runs `f` on a thread; fails the test if it does not answer in 20 s (a call blocked on a FIFO
/// would otherwise hang the suite).
pub fn within<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(20))
        .expect("the call blocked instead of answering at once")
}

pub fn error_type(v: &Value) -> &str {
    v["error_type"].as_str().unwrap_or("(no error)")
}

/// The error's message without the call signature the runtime puts before it
/// (`replace_in_file(path="a.rs", ...): `).
pub fn error_text(v: &Value) -> &str {
    let text = v["error"].as_str().unwrap_or("");
    match text.split_once("): ") {
        Some((sig, rest)) if !sig.contains(' ') || sig.contains('(') => rest,
        _ => text,
    }
}

pub fn run(cmd: &str, args: &[&str]) -> bool {
    std::process::Command::new(cmd)
        .args(args)
        .status()
        .is_ok_and(|s| s.success())
}
