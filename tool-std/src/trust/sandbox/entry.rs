//! The one way a tool starts a program: [`Sandbox::prepare`] before, [`Sandbox::launch`] to
//! start it, [`Sandbox::finish`] after. With the sandbox on, the program is confined (a
//! thread of this process or the helper program, as the call's plan allows); with it off, it
//! is started as it is. Either way it gets a clean environment, its own process group and
//! piped output, so that a tool starting a program never wires the sandbox by hand.

use std::path::{Path, PathBuf};
#[cfg(target_os = "linux")]
use std::sync::Arc;

use tokio::process::Child;
use tool_core::ToolError;

use super::guardian::{self, Guarded};
use super::launch::{self, NotConfined};
use super::{CallDir, SandboxConfig};
#[cfg(target_os = "linux")]
use super::{HELPER_ARG0, HELPER_FAILED, HELPER_FAILED_PREFIX, Plan};
use crate::trust::command::CommandLine;
use crate::workspace::Workspace;

/// The environment variables that point a command's clients at the network proxy.
const PROXY_VARIABLES: &[&str] = &[
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
];

/// What the model is told when the sandbox stops a call.
pub(crate) const UNSANDBOXED_HINT: &str = "This is a problem of the host's set-up, not of the \
     command: tell the user what the error says is missing; they can fix it, or start the \
     server with `--bash-sandbox off` (ShellConfig.sandbox.mode = SandboxMode::Off) to run \
     commands without the sandbox.";

/// A program to start.
#[derive(Debug, Clone)]
pub(crate) struct Program {
    /// Its path (see [`launch::program_path`]).
    pub(crate) path: PathBuf,
    pub(crate) args: Vec<String>,
    /// The directory it starts in, inside a root.
    pub(crate) cwd: PathBuf,
    /// Its whole environment; the sandbox sets `TMPDIR` and, with an allow-list of hosts,
    /// the proxy variables.
    pub(crate) env: Vec<(String, String)>,
    /// Whether its stdin is a pipe (else it is closed).
    pub(crate) stdin: bool,
}

/// One call's sandbox, from its set-up to its end.
pub(crate) struct Sandbox {
    /// `None` when the sandbox is off.
    confined: Option<Confined>,
    /// [`SandboxConfig::helper`], which also serves as the guardian.
    helper: Option<PathBuf>,
}

/// A started program: the child, and its group listed with the guardian until the group has
/// ended (drop [`Launched::guarded`] then, not before).
pub(crate) struct Launched {
    pub(crate) child: Child,
    pub(crate) guarded: Guarded,
}

/// A sandboxed call's set-up: how the program is confined, the call's private directory
/// (removed when this drops) and what to check after it.
struct Confined {
    way: Way,
    /// The port of the network proxy the program reaches its allowed hosts through.
    proxy_port: Option<u16>,
    dir: CallDir,
    writable: Vec<PathBuf>,
    protected: Vec<String>,
    protected_before: std::collections::BTreeSet<PathBuf>,
    notes: Vec<String>,
}

/// How a sandboxed program is confined (no way exists on a system without a sandbox, where
/// [`Confined::new`] refuses).
enum Way {
    /// From a thread of this process made for it.
    #[cfg(target_os = "linux")]
    Thread(Arc<Plan>),
    /// By the helper program, which applies the plan (JSON) to itself and `exec`s the
    /// program.
    #[cfg(target_os = "linux")]
    Helper { program: PathBuf, plan: String },
    /// By `sandbox-exec`, with the profile made from the plan.
    #[cfg(target_os = "macos")]
    Seatbelt(super::seatbelt::Profile),
}

impl Sandbox {
    /// Sets up a call that starts a program in `cwd`: checks the sandbox works here and
    /// makes the call's plan (on a blocking thread: it may start the helper once per
    /// process, and lists directories). `line` is the command line a shell will run, which
    /// decides whether it gets the network ([`SandboxConfig::network_for`]); a program that
    /// is no command line gets it only when [`SandboxConfig::network`] is set.
    ///
    /// # Errors
    ///
    /// A `security_error` when the sandbox is on but cannot work here, a `system_error`
    /// when the plan cannot be made; the program must not run.
    pub(crate) async fn prepare(
        config: &SandboxConfig,
        ws: &Workspace,
        cwd: &Path,
        line: Option<&CommandLine>,
    ) -> Result<Sandbox, ToolError> {
        let helper = config.helper.clone();
        if !super::COMMANDS_RUN_HERE {
            return Err(no_commands_here());
        }
        if !config.runs_sandboxed() {
            return Ok(Sandbox {
                confined: None,
                helper,
            });
        }
        let config = config.clone();
        let network = match line {
            Some(line) => config.network_for_command(line),
            None => config.network,
        };
        let writable: Vec<PathBuf> = ws
            .roots()
            .iter()
            .filter(|r| r.is_writable())
            .map(|r| r.path().to_path_buf())
            .collect();
        let cwd = cwd.to_path_buf();
        // What the host's rules hide from the tools is denied to the command too.
        let hidden = ws.hidden_on_disk();
        let prepared = tokio::task::spawn_blocking(move || {
            Confined::new(config, writable, &hidden, &cwd, network)
        })
        .await;
        let confined = prepared
            .map_err(|e| ToolError::system(format!("the sandbox's set-up failed: {e}")))??;
        Ok(Sandbox {
            confined: Some(confined),
            helper,
        })
    }

    /// The call's private temporary directory (the program's `TMPDIR`), when it runs
    /// sandboxed; it is removed when the call's sandbox is finished or dropped.
    pub(crate) fn temp_dir(&self) -> Option<PathBuf> {
        self.confined.as_ref().map(|c| c.dir.tmp())
    }

    /// Starts `program`, confined as prepared, in a process group of its own (its pid is the
    /// group's id), with stdout and stderr piped and nothing else of this process's
    /// environment; its group is listed with the guardian (see [`Launched`]).
    ///
    /// # Errors
    ///
    /// A `security_error` when the confinement could not be applied (the program did not
    /// run), a `system_error` when it could not be started.
    pub(crate) async fn launch(&self, program: Program) -> Result<Launched, ToolError> {
        let Program {
            path,
            args,
            cwd,
            mut env,
            stdin,
        } = program;
        let shown = path.display().to_string();
        let (command, confine) = match &self.confined {
            None => (launch::command(&path, None, &args, &cwd, &env, stdin), None),
            Some(c) => {
                env.retain(|(k, _)| k != "TMPDIR");
                env.push(("TMPDIR".to_owned(), c.dir.tmp().display().to_string()));
                if let Some(port) = c.proxy_port {
                    let url = format!("http://127.0.0.1:{port}");
                    env.retain(|(k, _)| {
                        !PROXY_VARIABLES.contains(&k.as_str())
                            && !k.eq_ignore_ascii_case("no_proxy")
                    });
                    env.extend(
                        PROXY_VARIABLES
                            .iter()
                            .map(|n| ((*n).to_owned(), url.clone())),
                    );
                }
                match &c.way {
                    #[cfg(target_os = "linux")]
                    Way::Thread(plan) => (
                        launch::command(&path, None, &args, &cwd, &env, stdin),
                        Some(plan.clone()),
                    ),
                    #[cfg(target_os = "linux")]
                    Way::Helper { program, plan } => {
                        let mut helper_args = vec![plan.clone(), path.display().to_string()];
                        helper_args.extend(args);
                        let command = launch::command(
                            program,
                            Some(HELPER_ARG0),
                            &helper_args,
                            &cwd,
                            &env,
                            stdin,
                        );
                        (command, None)
                    }
                    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
                    _ => unreachable_way(),
                    #[cfg(target_os = "macos")]
                    Way::Seatbelt(profile) => {
                        let exec_args = profile.sandbox_exec_args(&path, &args);
                        let command = launch::command(
                            Path::new(super::seatbelt::SANDBOX_EXEC),
                            None,
                            &exec_args,
                            &cwd,
                            &env,
                            stdin,
                        );
                        (command, None)
                    }
                }
            }
        };
        let child = launch::spawn(command, confine).await.map_err(|e| {
            if let Some(NotConfined(why)) = e.get_ref().and_then(|e| e.downcast_ref()) {
                return not_confined(why);
            }
            ToolError::system(format!("could not start `{shown}`: {e}")).with_suggestion(
                "The host could not start the program; this is not a problem of the call.",
            )
        })?;
        let group = child.id().and_then(|id| i32::try_from(id).ok());
        let guarded = match group {
            Some(group) => guardian::guard(group, self.helper.as_deref()),
            None => Guarded::none(),
        };
        Ok(Launched { child, guarded })
    }

    /// Ends the call's sandbox once the program has ended, given its exit code and what it
    /// printed on stderr: the notes for the answer (the plan's, and the protected paths the
    /// program created where nothing could be mounted before it ran). Removes the call's
    /// private directory.
    ///
    /// # Errors
    ///
    /// A `security_error` when the helper could not confine the program, which then never
    /// ran (only the helper's own exit says so: a program confined from a thread that prints
    /// the same words and exits with the same code did run).
    pub(crate) async fn finish(
        self,
        exit_code: Option<i32>,
        stderr: &str,
    ) -> Result<Vec<String>, ToolError> {
        let Some(confined) = self.confined else {
            return Ok(Vec::new());
        };
        #[cfg(target_os = "linux")]
        if matches!(confined.way, Way::Helper { .. })
            && exit_code == Some(HELPER_FAILED)
            && let Some(why) = stderr.strip_prefix(HELPER_FAILED_PREFIX)
        {
            return Err(not_confined(why.trim_end()));
        }
        #[cfg(not(target_os = "linux"))]
        let _ = (exit_code, stderr);
        Ok(confined.finish().await)
    }
}

/// No [`Way`] exists on this system: [`Confined::new`] refuses before one is needed.
#[cfg(not(any(target_os = "linux", target_os = "macos")))]
fn unreachable_way() -> ! {
    unreachable!("no way of confining a command exists on this system")
}

/// The refusal of every program on a system where the standard tools start none.
fn no_commands_here() -> ToolError {
    ToolError::security(format!(
        "commands do not run on {} in this release: no sandbox confines them and no process \
         group ends them with their children, so the command was not run",
        std::env::consts::OS
    ))
    .with_field("sandbox", "unavailable")
    .with_suggestion(
        "This is the host's platform, not the command: tell the user that bash needs Linux or \
         macOS (on Windows, run the server inside WSL).",
    )
}

fn not_confined(why: &str) -> ToolError {
    ToolError::security(format!(
        "the sandbox could not be set up, so the command was not run: {why}"
    ))
    .with_suggestion(UNSANDBOXED_HINT)
}

impl Confined {
    #[cfg_attr(
        not(any(target_os = "linux", target_os = "macos")),
        allow(unreachable_code)
    )]
    fn new(
        config: SandboxConfig,
        writable: Vec<PathBuf>,
        hidden: &[crate::workspace::HiddenInRoot],
        cwd: &Path,
        network: bool,
    ) -> Result<Confined, ToolError> {
        let status = config.status();
        if !status.available {
            return Err(ToolError::security(format!(
                "the sandbox is unavailable here, so no command was run: {}",
                status.reason.as_deref().unwrap_or("unknown reason")
            ))
            .with_field("sandbox", "unavailable")
            .with_suggestion(UNSANDBOXED_HINT));
        }
        let fail = |e: String| {
            ToolError::system(format!("the sandbox could not be prepared: {e}"))
                .with_suggestion(UNSANDBOXED_HINT)
        };
        let dir = CallDir::new()
            .map_err(|e| fail(format!("cannot make the call's temporary directory: {e}")))?;
        let proxied = !network && !config.network_hosts.is_empty();
        let proxy_port = if proxied {
            Some(super::proxy_port_for(&config.network_hosts).map_err(fail)?)
        } else {
            None
        };
        let mut denied = config.denied_paths();
        for here in hidden {
            denied.extend(here.paths.iter().cloned());
            let Some(globs) = &here.globs else { continue };
            let found = super::plan::find_protected(&here.root, globs);
            if found.truncated {
                return Err(fail(format!(
                    "the paths the host's rules hide with wildcards were looked for in the \
                     first {} entries of {} only, so the command cannot be kept from all of \
                     them; write those rules without wildcards (`secrets/**`)",
                    super::MAX_PROTECTED_WALK,
                    here.root.display()
                )));
            }
            denied.extend(found.found);
        }
        let made = super::build_plan(
            &super::PlanOptions {
                cwd,
                writable: &writable,
                denied: &denied,
                protected: &config.protected,
                network,
                proxy_port,
                unix_sockets: config.unix_sockets,
            },
            &dir,
        )
        .map_err(fail)?;
        #[cfg(target_os = "linux")]
        let way = if config.confine_in_process && super::fits_a_thread(&made.plan) {
            Way::Thread(Arc::new(made.plan))
        } else {
            Way::Helper {
                program: config.helper_program().map_err(fail)?,
                plan: serde_json::to_string(&made.plan).map_err(|e| fail(e.to_string()))?,
            }
        };
        #[cfg(target_os = "macos")]
        let way = Way::Seatbelt(super::seatbelt::Profile::of(&made.plan));
        #[cfg(not(any(target_os = "linux", target_os = "macos")))]
        let way: Way = {
            let _ = made;
            return Err(fail(format!(
                "no sandbox confines commands on {}",
                std::env::consts::OS
            )));
        };
        Ok(Confined {
            way,
            proxy_port,
            dir,
            writable,
            protected: config.protected,
            protected_before: made.protected_before,
            notes: made.notes,
        })
    }

    /// The notes of a finished call; removes the call's directory.
    async fn finish(self) -> Vec<String> {
        let Confined {
            writable,
            protected,
            protected_before,
            mut notes,
            dir,
            ..
        } = self;
        let created = tokio::task::spawn_blocking(move || {
            let created = super::created_protected(&writable, &protected, &protected_before);
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
