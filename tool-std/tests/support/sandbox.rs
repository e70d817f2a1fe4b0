//! Shared set-up of the sandbox tests: real directories an attacker would go for, a session
//! running `bash` in the sandbox through this crate's helper, and checks that a call changed
//! and read nothing outside.
//!
//! Layout under a temporary `base`:
//!
//! - `ws/`: the read-write root `main`, a git repository with one commit, `.git/hooks/`,
//!   a `.env` and `sub/.env`;
//! - `docs/`: a read-only root `docs` holding `readme.txt`;
//! - `outside/`: `secret.txt` and `dir/secret.txt`, holding [`Escape::secret`].

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use tool_core::{ApproveAll, Session};
use tool_std::shell::ShellConfig;
use tool_std::workspace::Workspace;

use super::{Snapshot, snapshot, temp_dir, write};

pub(crate) struct Escape {
    pub(crate) _tmp: tempfile::TempDir,
    pub(crate) ws: PathBuf,
    pub(crate) docs: PathBuf,
    pub(crate) outside: PathBuf,
    /// What no command may read or print.
    pub(crate) secret: String,
    /// Confines commands from a thread of this process where it can (the default).
    pub(crate) session: Session,
    /// Confines every command through the helper program.
    pub(crate) helper_session: Session,
}

/// Runs `git` in `dir` with a fixed identity; whether it succeeded.
pub(crate) fn git(dir: &Path, args: &[&str]) -> bool {
    Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Whether a program is on the `PATH`; prints why the caller skips when not.
pub(crate) fn have(program: &str) -> bool {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("skipped: `{program}` is not installed (.ci/run installs it)");
    }
    found
}

/// The two sessions of [`session`]: `config` as given, and with every command confined by
/// the helper.
fn sessions(ws: &Path, docs: &Path, config: ShellConfig) -> (Session, Session) {
    let mut through_helper = config.clone();
    through_helper.sandbox.confine_in_process = false;
    (session(ws, docs, config), session(ws, docs, through_helper))
}

/// A session over the roots `main` (`ws`, read-write) and `docs` (read-only) running `bash`
/// with `config`, through this crate's helper unless `config` names another.
fn session(ws: &Path, docs: &Path, mut config: ShellConfig) -> Session {
    config
        .sandbox
        .helper
        .get_or_insert_with(super::shell::helper);
    let workspace = Workspace::builder()
        .root("main", ws)
        .read_only_root("docs", docs)
        .build()
        .unwrap();
    super::workspace_runtime(&workspace, config)
        .approver(ApproveAll)
        .build()
        .session()
}

impl Escape {
    pub(crate) fn new() -> Escape {
        Escape::with(ShellConfig::default())
    }

    pub(crate) fn with(config: ShellConfig) -> Escape {
        let (tmp, base) = temp_dir();
        let ws = base.join("ws");
        let docs = base.join("docs");
        let outside = base.join("outside");
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let secret = format!("SECRET-{}-{nanos}", std::process::id());
        write(&ws.join("file.txt"), "a file\n");
        write(&ws.join(".env"), "TOKEN=original\n");
        write(&ws.join("sub/.env"), "SUB=original\n");
        write(&docs.join("readme.txt"), "docs\n");
        write(&outside.join("secret.txt"), &secret);
        write(&outside.join("dir/secret.txt"), &secret);
        assert!(git(&ws, &["init", "-q"]), "git init");
        fs::create_dir_all(ws.join(".git/hooks")).unwrap();
        write(&ws.join(".gitignore"), ".env\nsub/.env\n");
        assert!(git(&ws, &["add", "-A"]) && git(&ws, &["commit", "-qm", "first"]));
        let (session, helper_session) = sessions(&ws, &docs, config);
        Escape {
            _tmp: tmp,
            ws,
            docs,
            outside,
            secret,
            session,
            helper_session,
        }
    }

    /// Runs the next calls with `config`.
    pub(crate) fn configure(&mut self, config: ShellConfig) {
        (self.session, self.helper_session) = sessions(&self.ws, &self.docs, config);
    }

    /// Runs `command` in the root and returns the answer.
    pub(crate) async fn run(&self, command: &str) -> Value {
        self.run_in(command, "").await
    }

    pub(crate) async fn run_in(&self, command: &str, dir: &str) -> Value {
        self.run_with(&self.session, command, dir).await
    }

    async fn run_with(&self, session: &Session, command: &str, dir: &str) -> Value {
        let mut args = json!({"command": command, "timeout": 20});
        if !dir.is_empty() {
            args["working_dir"] = json!(dir);
        }
        super::call(session, "bash", args).await
    }

    /// Everything outside the read-write root that a command could touch: `outside/` and the
    /// read-only root.
    pub(crate) fn outside_state(&self) -> (Snapshot, Snapshot) {
        (snapshot(&self.outside), snapshot(&self.docs))
    }

    /// Runs one escape attempt, twice: confined from a thread of this process, then by the
    /// helper. Each must run (the sandbox is not an error), must leave `outside/` and the
    /// read-only root exactly as they were, and must not print the secret. Returns the
    /// first answer for further checks.
    pub(crate) async fn attempt(&self, name: &str, command: &str) -> Value {
        let out = self.attempt_with(&self.session, name, command).await;
        let helper_name = format!("{name} (through the helper)");
        self.attempt_with(&self.helper_session, &helper_name, command)
            .await;
        out
    }

    async fn attempt_with(&self, session: &Session, name: &str, command: &str) -> Value {
        let before = self.outside_state();
        let out = self.run_with(session, command, "").await;
        assert_eq!(out["type"], "command_result", "{name}: {out}");
        assert_eq!(
            self.outside_state(),
            before,
            "{name} changed something: {out}"
        );
        let printed = format!("{}{}", out["output"], out["error"]);
        assert!(
            !printed.contains(&self.secret),
            "{name} read the secret: {out}"
        );
        out
    }
}
