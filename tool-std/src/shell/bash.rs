//! `bash`: run a shell command in a workspace directory, its output streamed while it runs.
//!
//! A call is checked before anything runs: the host's [`ShellConfig`] (enabled, allowed
//! prefixes, the timeout limit), the [refused list](crate::trust::command::REFUSED), and `working_dir`,
//! which the [`Workspace`] resolves to a directory inside a root. The command then runs as
//! `bash -c COMMAND`: its own process group, stdin closed, an allow-listed environment, and
//! (unless the host turned it off) inside the [sandbox](crate::trust::sandbox): the shell is
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

use tool_core::{ErrorKind, ToolContext, ToolError, ToolResult};
use tool_macros::tool;

use super::background::{self, Processes};
use super::capture::split_budget;
use super::config::ShellConfig;
use super::process::{self, Bounds, Ending};
pub use super::result::CommandResult;
use crate::trust::command::CommandLine;
use crate::trust::sandbox::{Launched, Program, Sandbox, program_path};
use crate::workspace::{EntryKind, Workspace};

/// Time kept between the tool's own deadline and the runtime's, to end the group and answer.
const DEADLINE_MARGIN: Duration = Duration::from_millis(200);

/// Characters of the command shown as the display message when the call gives no
/// description.
const SHOWN_COMMAND_CHARS: usize = 80;

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
    /// Whether the command runs in the background: the call answers at once with the
    /// process's id, which the `process` tool takes ([`background`](mod@super::background)).
    pub run_in_background: bool,
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
    let line = CommandLine::of_call(ctx, &request.command);
    if line.is_blank() {
        return Err(ToolError::validation(
            "command is empty; give a command to run",
        ));
    }
    line.screen(&config.allowed_prefixes)?;
    let timeout = timeout(&config, request.timeout)?;
    let ws = ctx.require_service::<Workspace>()?;
    let (shown_dir, cwd) = working_dir(&ws, request.working_dir.as_deref().unwrap_or(""))?;
    ctx.progress(match request.description.as_deref().map(str::trim) {
        Some(d) if !d.is_empty() => d.to_owned(),
        _ => format!("Running `{}`", shorten(line.text(), SHOWN_COMMAND_CHARS)),
    });

    let now = Instant::now();
    let mut deadline = now + timeout;
    if let Some(outer) = ctx.deadline() {
        let reserve = config.kill_grace + DEADLINE_MARGIN;
        deadline = deadline.min(outer.checked_sub(reserve).unwrap_or(now).max(now));
    }
    let env = config.child_env();
    // A background process takes its place within the limits before anything is set up.
    let reservation = if request.run_in_background {
        let owner = ctx.conversation().principal.clone();
        Some(Processes::of(ctx).reserve(owner, &config.background)?)
    } else {
        None
    };
    let sandbox = Sandbox::prepare(&config.sandbox, &ws, &cwd, Some(&line)).await?;
    let launched = sandbox
        .launch(Program {
            path: program_path(&config.shell, &env),
            args: vec!["-c".to_owned(), request.command.clone()],
            cwd,
            env,
            stdin: request.run_in_background,
        })
        .await?;
    if let Some(reservation) = reservation {
        return in_background(
            ctx,
            &config,
            request,
            shown_dir,
            reservation,
            launched,
            sandbox,
        );
    }
    let bounds = Bounds {
        deadline,
        grace: config.kill_grace,
        max_line_chars: config.max_line_chars,
        capture_budget: config.max_output_chars,
    };
    let finished = process::run(launched, &bounds, ctx.cancellation(), |_, text| {
        ctx.emit_chunk(text);
    })
    .await
    .map_err(|e| {
        ToolError::system(format!("the command's output could not be read: {e}"))
            .with_suggestion("This is a problem of the host, not of the command; call again.")
    })?;

    let (out_budget, err_budget) =
        split_budget(&finished.stdout, &finished.stderr, config.max_output_chars);
    let output = finished.stdout.render(out_budget);
    let error = finished.stderr.render(err_budget);
    let omitted = output.omitted_lines + error.omitted_lines;
    let (status, return_code, signal) = finished.status_fields();
    let mut notes = sandbox.finish(return_code, &error.text).await?;
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
    notes.extend(finished.notes());
    Ok(CommandResult {
        r#type: "command_result",
        success: return_code == Some(0),
        status,
        process_id: None,
        pid: None,
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

/// Lists the launched command as a background process in the server's [`Processes`] (its
/// place reserved before it was started) and answers with its id.
fn in_background(
    ctx: &ToolContext,
    config: &ShellConfig,
    request: BashRequest,
    shown_dir: String,
    reservation: background::Reservation,
    launched: Launched,
    sandbox: Sandbox,
) -> ToolResult<CommandResult> {
    let table = Processes::of(ctx);
    let start = background::Start {
        command: request.command,
        working_dir: shown_dir.clone(),
        max_line_chars: config.max_line_chars,
        grace: config.kill_grace,
    };
    let job = background::start(
        &table,
        reservation,
        launched,
        sandbox,
        start,
        &config.background,
    )?;
    let note = request.timeout.map(|_| {
        format!(
            "timeout does not apply to a background process: it runs until it exits, is \
             killed, or reaches this server's limit of {} s.",
            config.background.max_lifetime.as_secs()
        )
    });
    Ok(CommandResult {
        r#type: "command_result",
        success: true,
        status: "background",
        process_id: Some(job.id.clone()),
        pid: Some(job.pid),
        return_code: None,
        signal: None,
        output: String::new(),
        error: String::new(),
        output_lines: 0,
        error_lines: 0,
        omitted_lines: 0,
        duration_ms: 0,
        working_dir: shown_dir,
        note,
    })
}

/// The call's timeout: the host's default, or the one given within the host's limit.
fn timeout(config: &ShellConfig, given: Option<u64>) -> Result<Duration, ToolError> {
    match given {
        None => Ok(config.default_timeout),
        Some(0) => Err(ToolError::validation(
            "timeout is 0; give the seconds the command may run (at least 1)",
        )),
        Some(s) if Duration::from_secs(s) > config.max_timeout => {
            Err(ToolError::validation(format!(
                "timeout is {s} s; this host allows at most {} s",
                config.max_timeout.as_secs()
            ))
            .with_field("max_timeout", config.max_timeout.as_secs())
            .with_suggestion("Give a shorter timeout, or split the work into shorter commands."))
        }
        Some(s) => Ok(Duration::from_secs(s)),
    }
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
                   stdout and stderr. Long output keeps head and tail: filter it (grep, head, tail). Catastrophic commands (rm -rf /, \
                   sudo) are refused. Prefer the file and search tools for files.",
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
    /// Directory (`project:dir`, or relative to the first project); default its root.
    #[param(alias = "workdir", alias = "directory")]
    working_dir: Option<String>,
    /// Answer at once with an id for the process tool.
    #[param(default)]
    run_in_background: bool,
) -> ToolResult<CommandResult> {
    let request = BashRequest {
        command,
        description,
        timeout,
        working_dir,
        run_in_background,
    };
    run(ctx, request).await.map_err(|e| {
        if e.kind() == ErrorKind::SecurityError && e.suggestion().is_none() {
            e.with_suggestion("Give a working_dir inside a project; call list_projects.")
        } else {
            e
        }
    })
}
