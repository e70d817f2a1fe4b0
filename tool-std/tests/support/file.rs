//! Shared set-up of the file tool tests: a workspace with a read-write root `main`, a
//! read-only root `ro`, and beside them an `outside` directory holding a secret and a sibling
//! `ws-evil`, both of which no call may read or change.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use serde_json::Value;
use tool_core::{ApproveAll, CallOutcome, Runtime, Session};
use tool_std::file::FileConfig;
use tool_std::workspace::Workspace;

use super::Snapshot;

/// The text of every file outside the roots: it must never appear in any answer.
pub(crate) const SECRET: &str = "outside-secret-7c41";

pub(crate) struct Fixture {
    pub(crate) _tmp: tempfile::TempDir,
    pub(crate) base: PathBuf,
    pub(crate) ws: PathBuf,
    pub(crate) ro: PathBuf,
    pub(crate) outside: PathBuf,
    pub(crate) evil: PathBuf,
    pub(crate) workspace: Workspace,
    pub(crate) runtime: Runtime,
    pub(crate) session: Session,
}

impl Fixture {
    /// The workspace with the default limits.
    pub(crate) fn new() -> Fixture {
        Fixture::with_config(FileConfig::default())
    }

    pub(crate) fn with_config(config: FileConfig) -> Fixture {
        let (tmp, base) = super::temp_dir();
        let ws = base.join("ws");
        let ro = base.join("ro");
        let evil = base.join("ws-evil");
        fs::create_dir_all(&ws).unwrap();
        let outside = super::outside_with(&base, SECRET);
        super::write(&evil.join("file.txt"), SECRET);
        super::write(&ro.join("file.txt"), "read-only content\n");
        let workspace = Workspace::builder()
            .root("main", &ws)
            .read_only_root("ro", &ro)
            .build()
            .unwrap();
        let runtime = runtime_for(&workspace, config);
        let session = runtime.session();
        Fixture {
            _tmp: tmp,
            base,
            ws,
            ro,
            outside,
            evil,
            workspace,
            runtime,
            session,
        }
    }

    /// A new session of the same runtime, as each MCP 2026-07-28 request gets one.
    pub(crate) fn other_session(&self) -> Session {
        self.runtime.session()
    }

    pub(crate) fn write(&self, rel: &str, content: impl AsRef<[u8]>) {
        super::write(&self.ws.join(rel), content);
    }

    pub(crate) fn read(&self, rel: &str) -> Vec<u8> {
        fs::read(self.ws.join(rel)).unwrap()
    }

    pub(crate) fn read_str(&self, rel: &str) -> String {
        String::from_utf8(self.read(rel)).unwrap()
    }

    pub(crate) fn link(&self, target: impl AsRef<Path>, rel: &str) {
        symlink(target, self.ws.join(rel)).unwrap();
    }

    /// Calls a tool and returns the outcome.
    pub(crate) async fn outcome(&self, tool: &str, args: Value) -> CallOutcome {
        super::outcome(&self.session, tool, &args).await
    }

    /// Calls a tool and returns its JSON answer (result or error).
    pub(crate) async fn call(&self, tool: &str, args: Value) -> Value {
        super::call(&self.session, tool, args).await
    }

    /// Calls a tool and returns the JSON answer and the model text.
    pub(crate) async fn call_text(&self, tool: &str, args: Value) -> (Value, String) {
        super::call_text(&self.session, tool, args).await
    }

    /// Everything outside the roots: the outside directory and the sibling.
    pub(crate) fn outside_snapshot(&self) -> Snapshot {
        let mut map = super::snapshot(&self.outside);
        map.extend(super::snapshot(&self.evil));
        map.extend(super::snapshot(&self.ro));
        map
    }
}

/// A runtime over every tool with `ws` and `config` as services, approving every call.
pub(crate) fn runtime_for(ws: &Workspace, config: FileConfig) -> Runtime {
    super::workspace_runtime(ws, config)
        .approver(ApproveAll)
        .build()
}

pub(crate) fn session_for(ws: &Workspace, config: FileConfig) -> Session {
    runtime_for(ws, config).session()
}

pub(crate) fn error_type(v: &Value) -> &str {
    v["error_type"].as_str().unwrap_or("(no error)")
}

/// The error's message without the call signature the runtime puts before it
/// (`replace_in_file(path="a.rs", ...): `).
pub(crate) fn error_text(v: &Value) -> &str {
    let text = v["error"].as_str().unwrap_or("");
    match text.split_once("): ") {
        Some((sig, rest)) if !sig.contains(' ') || sig.contains('(') => rest,
        _ => text,
    }
}
