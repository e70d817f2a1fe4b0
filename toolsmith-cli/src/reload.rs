//! Rereading the rules of a running server: on `SIGHUP` `serve` reads `toolsmith.toml` again
//! (found as at start), checks every rule, and swaps the rules of the server and of each
//! principal at once; a file whose rules cannot be used changes nothing, and says why. Only the
//! rules are reread: roots, tokens, stores and the other settings need a restart.
//!
//! Systems without `SIGHUP` (Windows) reread the rules on a restart only.
#![cfg_attr(not(unix), allow(dead_code, unused_imports))]

use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use tool_core::Registry;
use tool_core::{CallPolicy, PolicyCall, PolicyDecision};
use tool_std::shell::ShellConfig;
use tool_std::trust::rules::StandardPolicy;
use tool_std::workspace::Workspace;

use crate::approval;
use crate::config::Config;
use crate::notice;

/// A policy whose rules can be replaced while calls are decided (each call meets one whole
/// set of rules, the old or the new).
#[derive(Debug)]
pub(crate) struct Swappable(RwLock<Arc<StandardPolicy>>);

impl Swappable {
    fn current(&self) -> Arc<StandardPolicy> {
        self.0.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn replace(&self, policy: Arc<StandardPolicy>) {
        *self.0.write().unwrap_or_else(|e| e.into_inner()) = policy;
    }
}

impl CallPolicy for Swappable {
    fn decide(&self, call: &PolicyCall<'_>) -> PolicyDecision {
        self.current().decide(call)
    }

    fn preview(&self, call: &PolicyCall<'_>) -> Option<String> {
        self.current().preview(call)
    }

    fn scope(&self, call: &PolicyCall<'_>) -> Vec<String> {
        self.current().scope(call)
    }
}

/// One runtime's rules: whose they are, and what they are built over.
struct Target {
    policy: Arc<Swappable>,
    /// `None`: the server's own (the file's `[rules]`); else a principal's (the file's and its
    /// own).
    principal: Option<String>,
    workspace: Arc<Workspace>,
    shell: Arc<ShellConfig>,
}

/// The server's runtimes' rules, and where the file is looked for.
struct Reloader {
    registry: Arc<Registry>,
    explicit: Option<PathBuf>,
    first_root: Option<PathBuf>,
    targets: Mutex<Vec<Target>>,
}

static RELOADER: OnceLock<Reloader> = OnceLock::new();

/// Makes the rules of the runtimes built from here on rereadable, the file found as
/// `Config::load` finds it, and rereads them on every `SIGHUP`.
pub(crate) fn watch(
    registry: Arc<Registry>,
    explicit: Option<PathBuf>,
    first_root: Option<PathBuf>,
) {
    let first = RELOADER
        .set(Reloader {
            registry,
            explicit,
            first_root,
            targets: Mutex::new(Vec::new()),
        })
        .is_ok();
    if first {
        on_sighup();
    }
}

/// `policy` as a swappable one, listed for rereading when [`watch`] was called.
pub(crate) fn register(
    policy: Arc<StandardPolicy>,
    principal: Option<&str>,
    workspace: Arc<Workspace>,
    shell: Arc<ShellConfig>,
) -> Arc<Swappable> {
    let swappable = Arc::new(Swappable(RwLock::new(policy)));
    if let Some(reloader) = RELOADER.get() {
        reloader
            .targets
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Target {
                policy: swappable.clone(),
                principal: principal.map(str::to_owned),
                workspace,
                shell,
            });
    }
    swappable
}

/// Rereads the rules now: the number of rule sets replaced, or why none was.
pub(crate) fn reload() -> Result<(PathBuf, usize), String> {
    let reloader = RELOADER.get().ok_or("the rules are not watched")?;
    let config = Config::load(reloader.explicit.as_deref(), reloader.first_root.as_deref())
        .map_err(|e| e.0)?;
    let Some(path) = config.path.clone() else {
        return Err("there is no toolsmith.toml any more".to_owned());
    };
    let targets = reloader.targets.lock().unwrap_or_else(|e| e.into_inner());
    // Every set is built before any is swapped: all change, or none.
    let mut built = Vec::with_capacity(targets.len());
    for target in targets.iter() {
        let sections = config.rule_sections(target.principal.as_deref());
        let policy = approval::policy(
            &config,
            &sections,
            &reloader.registry,
            target.workspace.clone(),
            target.shell.clone(),
        )
        .map_err(|e| e.0)?;
        built.push(policy);
    }
    for (target, policy) in targets.iter().zip(built) {
        approval::hide_denied(&policy, &target.workspace);
        target.policy.replace(policy);
    }
    Ok((path, targets.len()))
}

/// Rereads the rules on every `SIGHUP` (Unix; elsewhere there is no such signal).
fn on_sighup() {
    #[cfg(not(unix))]
    notice("the rules are reread on a restart (this system has no SIGHUP)");
    #[cfg(unix)]
    tokio::spawn(async {
        use tokio::signal::unix::{SignalKind, signal};
        let Ok(mut hangup) = signal(SignalKind::hangup()) else {
            notice("warning: SIGHUP cannot be listened to; restart the server to reread its rules");
            return;
        };
        while hangup.recv().await.is_some() {
            match reload() {
                Ok((path, n)) => notice(&format!(
                    "rules reread from {} ({n} rule set(s) replaced)",
                    path.display()
                )),
                Err(why) => notice(&format!(
                    "the rules were not reread, the previous ones stay: {why}"
                )),
            }
        }
    });
}
