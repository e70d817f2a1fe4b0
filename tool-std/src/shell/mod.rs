//! The shell tool: `bash`, a command run in a workspace directory with its output streamed,
//! bounded in time and size, and killable as a whole (seed 004's BashTool).
//!
//! | tool | does | category |
//! |---|---|---|
//! | `bash` | `bash -c COMMAND` in a project directory: exit code, stdout and stderr apart, streamed as it runs | execution |
//! | `process` | the processes `bash` started with `run_in_background`: `list`, `output` since the last read, `write` to stdin, `kill` with the group | execution |
//!
//! `bash` and `process` are in the toolset `shell`. It is `destructive`, needs the permission
//! `execute_commands`, and goes through the approval gate on every call by default.
//!
//! # Design decisions
//!
//! - **A process group, ended as a whole.** The shell is started in a process group of its
//!   own with stdin closed. On the timeout, on a cancellation, or when the shell exits
//!   leaving background children behind, every process of the group gets `SIGTERM`, then
//!   `SIGKILL` after a short grace ([`ShellConfig::kill_grace`]). If the call is dropped
//!   (the runtime's own deadline, a caller that gives up), a guard ends the group the same
//!   way. A process that leaves the group on purpose (`setsid`) escapes this; the OS
//!   sandbox is what holds it.
//! - **Streamed, then bounded.** stdout and stderr are read together as they come; each read's
//!   complete lines are sent as a `TOOL_OUTPUT_CHUNK` event (the two streams interleaved as
//!   they arrived), and kept apart for the result (`output`, `error`). Each stream keeps only
//!   a head and a rolling tail, and each line at most [`ShellConfig::max_line_chars`]: memory
//!   stays bounded whatever the command prints, a 10 MB line without a newline included. The
//!   model reads at most [`ShellConfig::max_output_chars`] (30,000) characters, the middle
//!   replaced by an "omitted N lines" marker.
//! - **A result, not an error.** A non-zero exit, a timeout and a cancellation are answers the
//!   model reads (the exit code or how it ended, the output so far). Errors are for calls that ran
//!   nothing: a refused command (`security_error`, with a `suggestion`), a working directory
//!   outside the roots, a timeout above the limit, a tool the host disabled.
//! - **Text, not structured content.** A command's output is text by nature: `bash` is a
//!   `text_output` tool (no output schema, no MCP `structuredContent`; the fields a
//!   structured form would add cost a host that forwards only structured content more than
//!   the text itself for most commands, see [`bash`](mod@bash)). The text gives the exit
//!   code first, then stdout, then `[stderr]` and stderr; the typed [`CommandResult`] stays
//!   the result in the process.
//! - **The description is the display message.** A call's `description` (5-10 words) is set
//!   as the activity's display message while it runs (seed 002); without one, the start of
//!   the command is shown.
//! - **A clean environment.** The command gets only allow-listed variables of the host's
//!   environment ([`ShellConfig::env_allow`]: `PATH`, `HOME`, `LANG`, `TERM`...); a name
//!   holding `KEY`, `SECRET`, `TOKEN` or `PASSWORD` is withheld unless the host names it in
//!   [`ShellConfig::allowed_secrets`].
//! - **A seat belt, then a sandbox.** A short list of catastrophic commands ([`REFUSED`]:
//!   `rm -rf /` and `~`, fork bombs, `mkfs`, writes onto disk devices, `curl | sh`, `sudo`,
//!   `shutdown`) is refused before anything runs. The list catches mistakes; it cannot stop
//!   a command written to get around it. The boundary is the approval gate and the
//!   operating-system [sandbox](mod@crate::trust::sandbox) every command runs in (Landlock, seccomp, a private mount
//!   namespace): writes only beneath the read-write roots and the call's `TMPDIR`, the
//!   protected paths read-only, secrets such as `~/.ssh` unreadable, no network unless the
//!   host allows it. Where the kernel cannot sandbox, `bash` refuses to run (fail closed)
//!   unless the host turned the sandbox off.
//! - **Host configuration** is a service, [`ShellConfig`]: switch the tool off, allow only
//!   commands starting with given prefixes, change the timeout default and limit, the output
//!   cap, the environment.
//!
//! The refused list is checked when the tool runs, which is after the approval gate: a
//! user asked to approve `rm -rf /` sees the call refused anyway.
//!
//! # Example
//!
//! ```
//! use std::sync::Arc;
//! use tool_core::{ApproveAll, Registry, Runtime, ToolCall};
//! use tool_std::shell::{SandboxMode, ShellConfig};
//! use tool_std::workspace::Workspace;
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::write(dir.path().join("notes.txt"), "one\ntwo\n")?;
//! let ws = Workspace::builder().root("app", dir.path()).build()?;
//! // A doctest cannot serve as the sandbox's helper (its `main` is not ours to start with
//! // `sandbox::dispatch()`), so this example runs its commands unsandboxed.
//! let mut config = ShellConfig::default();
//! config.sandbox.mode = SandboxMode::Off;
//! let registry = Registry::builder().with_inventory().build()?;
//! let session = Runtime::builder(registry)
//!     .service(Arc::new(ws))
//!     .service(Arc::new(config))
//!     .approver(ApproveAll)
//!     .build()
//!     .session();
//!
//! # tokio::runtime::Runtime::new()?.block_on(async {
//! let out = session
//!     .call(ToolCall::new("1", "bash", r#"{"command": "wc -l < notes.txt; ls nope"}"#))
//!     .await
//!     .to_json();
//! assert_eq!(out["status"], "exited");
//! assert_eq!(out["return_code"], 2);
//! assert_eq!(out["output"], "2\n");
//! assert!(out["error"].as_str().unwrap().contains("nope"));
//!
//! let refused = session
//!     .call(ToolCall::new("2", "bash", r#"{"command": "sudo rm -rf ~"}"#))
//!     .await
//!     .to_json();
//! assert_eq!(refused["error_type"], "security_error");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod background;
pub mod bash;
mod capture;
pub mod config;
mod process;
mod result;

pub use crate::trust::command::{REFUSED, Refusal, RefusedPattern};
/// The sandbox `bash` runs its commands in; its home is [`trust::sandbox`](crate::trust::sandbox).
#[doc(no_inline)]
pub use crate::trust::sandbox;
pub use crate::trust::sandbox::{SandboxConfig, SandboxMode, SandboxStatus};
pub use background::tool::{OutputRead, ProcessReport, ProcessState, ProcessTool};
pub use background::{BackgroundLimits, Processes};
pub use bash::{BashRequest, CommandResult};
pub use config::ShellConfig;
pub use result::{FAILURE_STDERR_CHARS, FAILURE_STDERR_LINES};
