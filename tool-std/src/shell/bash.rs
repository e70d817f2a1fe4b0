//! `bash`: run a shell command in a workspace directory, its output streamed while it runs.
//!
//! A call is checked before anything runs: the host's [`ShellConfig`] (enabled, allowed
//! prefixes, the timeout limit), the [refused list](super::security), and `working_dir`,
//! which the [`Workspace`] resolves to a directory inside a root. The command then runs as
//! `bash -c COMMAND`: its own process group, stdin closed, an allow-listed environment, and
//! (unless the host turned it off) inside the [sandbox](mod@super::sandbox): the shell is
//! started from a thread of the server that confined itself for the call (or through the
//! sandbox's helper, which confines itself and then execs it); `TMPDIR` is the call's own
//! directory, removed after. Its lines are streamed as `TOOL_OUTPUT_CHUNK` events and kept
//! in bounded captures; on its timeout, or when the call is cancelled, the whole group is
//! ended and the answer says so, with what was printed until then.
//!
//! # Text, not structured content
//!
//! A command's output is text by nature, so `bash` is a `text_output` tool: it declares no
//! output schema, and its results reach a provider as text alone (no MCP
//! `structuredContent`). The text says everything a reader needs, in a fixed layout: the
//! first line `Exit code N` (`(ended by signal S)` after it, or `Timed out ...` /
//! `Cancelled ...` instead), then stdout, then `[stderr]` and stderr, then the note; MCP's
//! `isError` is set unless the command exited with code 0. In the same process the typed
//! [`CommandResult`] is still the call's result (`CallOutcome::result`, the activity record,
//! `toolsmith call`'s JSON).
//!
//! Measured in `o200k_base` tokens (`cargo bench -p tool-std --bench tokens`), the fields a
//! structured form adds cost a fixed amount that the text does not carry, which a host that
//! forwards only structured content would send instead of the text:
//!
//! | result | text | every field | `type`, `return_code`, `output` only |
//! |---|---:|---:|---:|
//! | `wc -l src/provider/*.rs` (13 lines) | 114 | 147 (1.29x) | 123 (1.08x) |
//! | `echo hi` | 7 | 40 (5.7x) | 16 (2.3x) |
//!
//! Most commands print a few lines, where even the smallest structured form costs twice the
//! text; so the text alone it is.

use std::time::{Duration, Instant};

use serde::Serialize;
use tool_core::{ErrorKind, Render, ResourcesTracker, ToolContext, ToolError, ToolResult};
use tool_macros::tool;

use super::capture::split_budget;
use super::config::ShellConfig;
use super::process::{self, Ending, NotConfined, RunSpec};
use super::sandbox;
use super::sandboxed::{PROXY_VARIABLES, Sandboxed, UNSANDBOXED_HINT, Way};
use super::security;
use crate::workspace::{EntryKind, Workspace};

/// Time kept between the tool's own deadline and the runtime's, to end the group and answer.
const DEADLINE_MARGIN: Duration = Duration::from_millis(200);

/// Characters of the command shown as the display message when the call gives no
/// description.
const SHOWN_COMMAND_CHARS: usize = 80;

/// What `bash` ran and how it ended. A non-zero exit is a result, not an error: the model
/// reads the exit code, stdout and stderr in the text ([`Render::render`]), where the tool's
/// result goes out as text alone (see the [module documentation](self)); a program in the
/// same process reads these fields.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CommandResult {
    /// Always `command_result`.
    pub r#type: &'static str,
    /// Whether the command exited with code 0.
    pub success: bool,
    /// `exited`, `timeout` (ended at its timeout) or `cancelled` (ended because the call was
    /// cancelled).
    pub status: &'static str,
    /// The exit code (128 + N when a signal N ended the shell); `None` on a timeout or a
    /// cancellation.
    pub return_code: Option<i32>,
    /// The signal that ended the shell, if one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// What the command printed on stdout (the middle left out past the cap).
    pub output: String,
    /// What it printed on stderr (the middle left out past the cap; absent when nothing).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub error: String,
    /// Lines printed on stdout in all.
    pub output_lines: usize,
    /// Lines printed on stderr in all (absent for 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub error_lines: usize,
    /// Lines left out of `output` and `error` to keep within the cap (absent for 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub omitted_lines: usize,
    /// How long it ran, in milliseconds.
    pub duration_ms: u64,
    /// The directory it ran in, as the workspace names it.
    pub working_dir: String,
    /// What else happened: output cut, background processes ended, the timeout.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Render for CommandResult {
    fn status(&self) -> Option<String> {
        Some(match self.status {
            "timeout" => format!("Timed out after {}", seconds(self.duration_ms)),
            "cancelled" => "Cancelled".to_owned(),
            _ => match self.return_code {
                Some(code) => format!("Exit code {code} ({})", seconds(self.duration_ms)),
                None => "Exited".to_owned(),
            },
        })
    }

    fn render(&self, _: &mut ResourcesTracker) -> Option<String> {
        let mut out = String::new();
        match self.status {
            "timeout" => out.push_str(&format!(
                "Timed out after {}; the command and its processes were ended. Output so far:\n",
                seconds(self.duration_ms)
            )),
            "cancelled" => out
                .push_str("Cancelled; the command and its processes were ended. Output so far:\n"),
            _ => match (self.return_code, self.signal) {
                (Some(code), Some(sig)) => {
                    out.push_str(&format!("Exit code {code} (ended by signal {sig})\n"));
                }
                (Some(code), None) => out.push_str(&format!("Exit code {code}\n")),
                (None, _) => out.push_str("Exited\n"),
            },
        }
        if !self.output.is_empty() {
            out.push_str(&self.output);
            if !self.output.ends_with('\n') {
                out.push('\n');
            }
        }
        if !self.error.is_empty() {
            out.push_str("[stderr]\n");
            out.push_str(&self.error);
            if !self.error.ends_with('\n') {
                out.push('\n');
            }
        }
        if self.output.is_empty() && self.error.is_empty() {
            out.push_str("(no output)\n");
        }
        if let Some(note) = &self.note {
            out.push_str(note);
            out.push('\n');
        }
        Some(out)
    }

    fn is_success(&self) -> bool {
        self.success
    }
}

fn seconds(ms: u64) -> String {
    if ms < 10_000 {
        format!("{:.1} s", ms as f64 / 1000.0)
    } else {
        format!("{} s", ms / 1000)
    }
}

/// One `bash` call's arguments, for hosts that run the tool's body directly
/// ([`run`]); the tool builds one from the call.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct BashRequest {
    /// The command line.
    pub command: String,
    /// The display message.
    pub description: Option<String>,
    /// The timeout in seconds.
    pub timeout: Option<u64>,
    /// The directory, as a workspace path.
    pub working_dir: Option<String>,
}

impl BashRequest {
    /// A request to run `command` with the defaults.
    pub fn new(command: impl Into<String>) -> Self {
        BashRequest {
            command: command.into(),
            ..BashRequest::default()
        }
    }

    /// Sets the timeout in seconds.
    #[must_use]
    pub fn timeout(mut self, seconds: u64) -> Self {
        self.timeout = Some(seconds);
        self
    }

    /// Sets the working directory.
    #[must_use]
    pub fn working_dir(mut self, dir: impl Into<String>) -> Self {
        self.working_dir = Some(dir.into());
        self
    }
}

/// The checks made on a command before it runs, and before anyone is asked to approve it:
/// the refused commands ([`security::check`]) and the host's allow-list of prefixes.
pub(crate) fn refused(command: &str, config: &ShellConfig) -> Result<(), ToolError> {
    if let Err(refusal) = security::check(command) {
        return Err(ToolError::security(format!(
            "the command was refused before running: {}",
            refusal.reason
        ))
        .with_suggestion(refusal.suggestion)
        .with_field("rule", refusal.rule));
    }
    if let Err(part) = security::check_allowed(command, &config.allowed_prefixes) {
        return Err(ToolError::permission(format!(
            "`{part}` is not among the commands this host allows; no command was run"
        ))
        .with_field("allowed_prefixes", config.allowed_prefixes.clone())
        .with_suggestion("Run only commands that start with one of allowed_prefixes."));
    }
    Ok(())
}

/// Checks and runs one command; the body of the `bash` tool. Called directly (outside the
/// runtime, say with [`ToolContext::detached`]), a cancellation of the context's token ends
/// the command and answers `status: "cancelled"` with the output so far.
pub async fn run(ctx: &ToolContext, request: BashRequest) -> ToolResult<CommandResult> {
    let config = ShellConfig::of(ctx);
    if !config.enabled {
        return Err(ToolError::permission(
            "the host has disabled the bash tool; no command was run",
        )
        .with_suggestion("Use the file and search tools instead, or ask the user to run it."));
    }
    let command = request.command.as_str();
    if command.trim().is_empty() {
        return Err(ToolError::validation(
            "command is empty; give a command to run",
        ));
    }
    refused(command, &config)?;
    let timeout = match request.timeout {
        None => config.default_timeout,
        Some(0) => {
            return Err(ToolError::validation(
                "timeout is 0; give the seconds the command may run (at least 1)",
            ));
        }
        Some(s) if Duration::from_secs(s) > config.max_timeout => {
            return Err(ToolError::validation(format!(
                "timeout is {s} s; this host allows at most {} s",
                config.max_timeout.as_secs()
            ))
            .with_field("max_timeout", config.max_timeout.as_secs())
            .with_suggestion("Give a shorter timeout, or split the work into shorter commands."));
        }
        Some(s) => Duration::from_secs(s),
    };
    let ws = ctx.require_service::<Workspace>()?;
    let (shown_dir, cwd) = working_dir(&ws, request.working_dir.as_deref().unwrap_or(""))?;

    let message = match request.description.as_deref().map(str::trim) {
        Some(d) if !d.is_empty() => d.to_owned(),
        _ => format!("Running `{}`", shorten(command, SHOWN_COMMAND_CHARS)),
    };
    ctx.progress(message);

    let now = Instant::now();
    let mut deadline = now + timeout;
    if let Some(outer) = ctx.deadline() {
        let reserve = config.kill_grace + DEADLINE_MARGIN;
        deadline = deadline.min(outer.checked_sub(reserve).unwrap_or(now).max(now));
    }
    let mut env = config.child_env();
    let shell = process::program_path(&config.shell, &env);
    let sandbox = if config.runs_sandboxed() {
        Some(Sandboxed::prepare(&config, &ws, &cwd, command).await?)
    } else {
        None
    };
    let shell_args = vec!["-c".to_owned(), command.to_owned()];
    let (program, arg0, args, confine) = match &sandbox {
        Some(s) => {
            env.retain(|(k, _)| k != "TMPDIR");
            env.push(("TMPDIR".to_owned(), s.dir.tmp().display().to_string()));
            if let Some(port) = s.proxy_port {
                let url = format!("http://127.0.0.1:{port}");
                for name in PROXY_VARIABLES {
                    env.retain(|(k, _)| k != name);
                    env.push(((*name).to_owned(), url.clone()));
                }
                env.retain(|(k, _)| !k.eq_ignore_ascii_case("no_proxy"));
            }
            match &s.way {
                Way::Thread(plan) => (shell, None, shell_args, Some(plan.clone())),
                Way::Helper { program, plan } => {
                    let mut args = vec![plan.clone(), shell.display().to_string()];
                    args.extend(shell_args);
                    let arg0 = Some(sandbox::HELPER_ARG0.to_owned());
                    (program.clone(), arg0, args, None)
                }
            }
        }
        None => (shell, None, shell_args, None),
    };
    let spec = RunSpec {
        program,
        arg0,
        args,
        cwd,
        env,
        deadline,
        grace: config.kill_grace,
        max_line_chars: config.max_line_chars,
        capture_budget: config.max_output_chars,
        confine,
    };
    let finished = process::run(&spec, ctx.cancellation(), |_, text| ctx.emit_chunk(text))
        .await
        .map_err(|e| {
            if let Some(NotConfined(why)) = e.get_ref().and_then(|e| e.downcast_ref()) {
                return ToolError::security(format!(
                    "the bash sandbox could not be set up, so the command was not run: {why}"
                ))
                .with_suggestion(UNSANDBOXED_HINT);
            }
            ToolError::system(format!("could not run `{}`: {e}", config.shell)).with_suggestion(
                "The host's shell could not be started; this is not a problem of the command.",
            )
        })?;

    let (out_budget, err_budget) =
        split_budget(&finished.stdout, &finished.stderr, config.max_output_chars);
    let output = finished.stdout.render(out_budget);
    let error = finished.stderr.render(err_budget);
    let omitted = output.omitted_lines + error.omitted_lines;
    let (status, return_code, signal) = match finished.ending {
        Ending::Timeout => ("timeout", None, None),
        Ending::Cancelled => ("cancelled", None, None),
        Ending::Exited => {
            use std::os::unix::process::ExitStatusExt;
            let status = finished.status;
            let signal = status.and_then(|s| s.signal());
            let code = status
                .and_then(|s| s.code())
                .or_else(|| signal.map(|s| 128 + s));
            ("exited", code, signal)
        }
    };
    let mut notes = Vec::new();
    if let Some(sandbox) = sandbox {
        // Only the helper speaks this way; a command confined from a thread that prints the
        // same words and exits with the same code did run, and is answered as it is.
        if matches!(sandbox.way, Way::Helper { .. })
            && return_code == Some(sandbox::HELPER_FAILED)
            && let Some(why) = error.text.strip_prefix(sandbox::HELPER_FAILED_PREFIX)
        {
            return Err(ToolError::security(format!(
                "the bash sandbox could not be set up, so the command was not run: {}",
                why.trim_end()
            ))
            .with_suggestion(UNSANDBOXED_HINT));
        }
        notes.extend(sandbox.finish().await);
    }
    if finished.ending == Ending::Timeout {
        notes.push(format!(
            "The command did not finish within its timeout of {} s and was ended; give a \
             longer timeout (at most {} s) or run less at once.",
            timeout.as_secs(),
            config.max_timeout.as_secs()
        ));
    }
    if omitted > 0 {
        notes.push(format!(
            "{omitted} lines were left out of the middle to keep within {} characters; \
             redirect the output to a file and read parts of it, or filter it (grep, head, tail).",
            config.max_output_chars
        ));
    }
    if finished.leftovers {
        notes.push(
            "The command left background processes running; they were ended with it.".to_owned(),
        );
    }
    if finished.killed {
        notes.push("Processes that did not end on SIGTERM were killed.".to_owned());
    }
    if finished.pipes_abandoned {
        notes.push(
            "A process that left the command's process group kept its output open; reading \
             stopped there."
                .to_owned(),
        );
    }
    Ok(CommandResult {
        r#type: "command_result",
        success: return_code == Some(0),
        status,
        return_code,
        signal,
        output: output.text,
        error: error.text,
        output_lines: finished.stdout.lines(),
        error_lines: finished.stderr.lines(),
        omitted_lines: omitted,
        duration_ms: u64::try_from(finished.elapsed.as_millis()).unwrap_or(u64::MAX),
        working_dir: shown_dir,
        note: (!notes.is_empty()).then(|| notes.join(" ")),
    })
}

/// Resolves `working_dir` to an existing directory inside a root: its name as the
/// workspace shows it and its host path.
fn working_dir(ws: &Workspace, given: &str) -> Result<(String, std::path::PathBuf), ToolError> {
    let p = ws.resolve(given)?;
    ws.check_readable(&p)?;
    let canonical = ws.canonical(&p)?;
    ws.check_readable(&canonical)?;
    let info = ws.metadata(&canonical)?;
    if info.map(|i| i.kind) != Some(EntryKind::Dir) {
        return Err(
            ToolError::user(format!("working_dir `{p}` is not a directory")).with_suggestion(
                "Give a directory inside a project; list them with list_directory.",
            ),
        );
    }
    Ok((canonical.to_string(), ws.host_path(&canonical)))
}

fn shorten(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or("");
    match line.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None if line.len() < text.trim_end().len() => format!("{line}…"),
        None => line.to_owned(),
    }
}

/// Run a shell command.
#[tool(
    name = "bash",
    description = "Run a command with `bash -c` in a project directory; returns the exit code, \
                   stdout and stderr. Timeout default 5 s, at most 60 s. Long output keeps \
                   head and tail: filter it (grep, head, tail). Catastrophic commands (rm -rf /, \
                   sudo, mkfs, curl|sh) are refused. Prefer the file and search tools for files.",
    category = "execution",
    toolsets(shell),
    permissions(execute_commands),
    requires_approval,
    destructive,
    open_world,
    timeout = "10m",
    text_output
)]
pub async fn bash(
    ctx: &ToolContext,
    /// The command line, run with `bash -c`. Chain commands with `&&`; stdin is closed.
    command: String,
    /// What the command does, in 5-10 words (shown to the user while it runs).
    description: Option<String>,
    /// Seconds the command may run (default 5; at most 60 unless the host allows more).
    timeout: Option<u64>,
    /// The directory to run in: a project directory (`project:dir` or a path relative to the
    /// first project); default the first project's root.
    working_dir: Option<String>,
) -> ToolResult<CommandResult> {
    let request = BashRequest {
        command,
        description,
        timeout,
        working_dir,
    };
    run(ctx, request).await.map_err(|e| {
        if e.kind() == ErrorKind::SecurityError && e.suggestion().is_none() {
            e.with_suggestion("Give a working_dir inside a project; call list_projects.")
        } else {
            e
        }
    })
}
