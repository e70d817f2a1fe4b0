//! A sandboxed `bash` call's set-up and its end: the sandbox's state checked, the call's
//! private directory and plan made, how the command is confined chosen (a thread of this
//! process or the helper program), and after the command the protected paths it created.

use tool_core::ToolError;

use super::config::ShellConfig;
use super::sandbox;
use crate::workspace::Workspace;

/// The environment variables that point a command's clients at the network proxy.
pub(super) const PROXY_VARIABLES: &[&str] = &[
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
];

/// What the model is told when the sandbox stops a call.
pub(super) const UNSANDBOXED_HINT: &str = "This is a problem of the host's set-up, not of the \
     command: tell the user what the error says is missing; they can fix it, or start the \
     server with `--bash-sandbox off` (ShellConfig.sandbox.mode = SandboxMode::Off) to run \
     commands without the sandbox.";

/// A sandboxed call's set-up: how the command is confined, the call's private directory
/// (removed when this drops) and what to check after the command.
pub(super) struct Sandboxed {
    pub(super) way: Way,
    /// The port of the network proxy the command reaches its allowed hosts through.
    pub(super) proxy_port: Option<u16>,
    pub(super) dir: sandbox::CallDir,
    writable: Vec<std::path::PathBuf>,
    protected: Vec<String>,
    protected_before: std::collections::BTreeSet<std::path::PathBuf>,
    notes: Vec<String>,
}

/// How a sandboxed command is confined.
pub(super) enum Way {
    /// From a thread of this process made for it.
    Thread(std::sync::Arc<sandbox::Plan>),
    /// By the helper program, which applies the plan (JSON) to itself and `exec`s the shell.
    Helper {
        program: std::path::PathBuf,
        plan: String,
    },
}

impl Sandboxed {
    /// Checks the sandbox is available and makes the call's plan (on a blocking thread: it
    /// starts the helper once per process, and lists directories).
    pub(super) async fn prepare(
        config: &ShellConfig,
        ws: &Workspace,
        cwd: &std::path::Path,
        command: &str,
    ) -> Result<Sandboxed, ToolError> {
        let sandbox_config = config.sandbox.clone();
        let network = sandbox_config.network_for_command(command);
        let proxied = !network && !sandbox_config.network_hosts.is_empty();
        let writable: Vec<std::path::PathBuf> = ws
            .roots()
            .iter()
            .filter(|r| r.is_writable())
            .map(|r| r.path().to_path_buf())
            .collect();
        let cwd = cwd.to_path_buf();
        let prepared = tokio::task::spawn_blocking(move || {
            let status = sandbox_config.status();
            if !status.available {
                return Err(ToolError::security(format!(
                    "the bash sandbox is unavailable here, so no command was run: {}",
                    status.reason.as_deref().unwrap_or("unknown reason")
                ))
                .with_field("sandbox", "unavailable")
                .with_suggestion(UNSANDBOXED_HINT));
            }
            let fail = |e: String| {
                ToolError::system(format!("the bash sandbox could not be prepared: {e}"))
                    .with_suggestion(UNSANDBOXED_HINT)
            };
            let dir = sandbox::CallDir::new()
                .map_err(|e| fail(format!("cannot make the call's temporary directory: {e}")))?;
            let proxy_port = if proxied {
                Some(sandbox::proxy_port_for(&sandbox_config.network_hosts).map_err(fail)?)
            } else {
                None
            };
            let denied = sandbox_config.denied_paths();
            let made = sandbox::build_plan(
                &sandbox::PlanOptions {
                    cwd: &cwd,
                    writable: &writable,
                    denied: &denied,
                    protected: &sandbox_config.protected,
                    network,
                    proxy_port,
                    unix_sockets: sandbox_config.unix_sockets,
                },
                &dir,
            )
            .map_err(fail)?;
            let way = if sandbox_config.confine_in_process && sandbox::fits_a_thread(&made.plan) {
                Way::Thread(std::sync::Arc::new(made.plan))
            } else {
                Way::Helper {
                    program: sandbox_config.helper_program().map_err(fail)?,
                    plan: serde_json::to_string(&made.plan).map_err(|e| fail(e.to_string()))?,
                }
            };
            Ok(Sandboxed {
                way,
                proxy_port,
                dir,
                writable,
                protected: sandbox_config.protected,
                protected_before: made.protected_before,
                notes: made.notes,
            })
        })
        .await;
        prepared.map_err(|e| ToolError::system(format!("the bash sandbox's set-up failed: {e}")))?
    }

    /// The notes of a finished call: the plan's, and the protected paths the command
    /// created (where nothing could be mounted before it ran). Removes the call's directory.
    pub(super) async fn finish(self) -> Vec<String> {
        let Sandboxed {
            writable,
            protected,
            protected_before,
            mut notes,
            dir,
            ..
        } = self;
        let created = tokio::task::spawn_blocking(move || {
            let created = sandbox::created_protected(&writable, &protected, &protected_before);
            drop(dir);
            created
        })
        .await
        .unwrap_or_default();
        if !created.is_empty() {
            let names: Vec<String> = created.iter().map(|p| p.display().to_string()).collect();
            notes.push(format!(
                "The command created protected paths, which the sandbox can only make read-only \
                 once they exist: {}. Tell the user, who should check them.",
                names.join(", ")
            ));
        }
        notes
    }
}
