//! The `process` tool: list, read, write to and kill the background processes `bash` started
//! (`run_in_background: true`), one polymorphic tool (seed 000's pattern).
//!
//! ```text
//! process(action, id?, input?, offset?)
//!   action: list | output | write | kill
//!   id:     the process, as bash's answer gave it (output, write, kill)
//!   input:  the text written to its stdin (write; end a line with \n)
//!   offset: the byte to read from (output; default: where the last read ended)
//! ```
//!
//! `output` returns what arrived since the last read (at most
//! [`BackgroundLimits::read_bytes`](super::BackgroundLimits::read_bytes), the rest by the next
//! read), and the process's state: running, or how it ended. `write` writes the input, waits
//! a moment for the answer and returns the output that came. `kill` ends the process's whole
//! group and says how it ended. A process is seen only by the principal that started it.

use std::time::Duration;

use serde::Serialize;
use tool_core::{Render, ResourcesTracker, ToolContext, ToolResult};
use tool_macros::tool;

use super::{Exit, Job, Processes, Read};
use crate::shell::ShellConfig;
use crate::shell::result::seconds;

/// How long `write` waits for the process's answer before it returns.
pub const WRITE_WAIT: Duration = Duration::from_millis(500);

/// What the `process` tool answers.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct ProcessReport {
    /// Always `process_report`.
    pub r#type: &'static str,
    /// The action that was done.
    pub action: &'static str,
    /// The processes reported on (one, or all of the caller's for `list`).
    pub processes: Vec<ProcessState>,
    /// The output read (`output`, `write`, `kill`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<OutputRead>,
}

/// One process's state.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct ProcessState {
    /// The process's id, as the tool takes it.
    pub id: String,
    /// Its process id on the server's machine (its group's id too).
    pub pid: u32,
    /// The command line.
    pub command: String,
    /// The directory it runs in.
    pub working_dir: String,
    /// `running`, `exited`, `killed`, or `lifetime` (ended at its maximum lifetime).
    pub status: &'static str,
    /// The exit code once it has ended by itself (128 + N for a signal N).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The signal that ended it, if one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// How long it has run, in milliseconds.
    pub ran_ms: u64,
    /// What else happened (its sandbox's notes, processes of its group ended with it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Output read from a process.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct OutputRead {
    /// The text (stdout and stderr as they arrived, whole lines).
    pub text: String,
    /// The byte offset `text` starts at.
    pub from: u64,
    /// The offset after it: where the next read starts.
    pub next_offset: u64,
    /// Bytes that were no longer kept (the ring keeps the last ones).
    #[serde(skip_serializing_if = "is_zero")]
    pub dropped: u64,
    /// Whether more output is waiting than this read returned.
    pub more: bool,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl ProcessState {
    fn of(job: &Job, exit: Option<&Exit>, ran: Duration) -> ProcessState {
        let note = exit
            .filter(|e| !e.notes.is_empty())
            .map(|e| e.notes.join(" "));
        ProcessState {
            id: job.id.clone(),
            pid: job.pid,
            command: job.command.clone(),
            working_dir: job.working_dir.clone(),
            status: exit.map_or("running", |e| e.status),
            exit_code: exit.and_then(|e| e.code),
            signal: exit.and_then(|e| e.signal),
            ran_ms: u64::try_from(ran.as_millis()).unwrap_or(u64::MAX),
            note,
        }
    }

    /// `running (pid 4120, 12 s)` or `exited with code 0 after 3 s`.
    fn line(&self) -> String {
        let ran = seconds(self.ran_ms);
        match (self.status, self.exit_code) {
            ("running", _) => format!("running (pid {}, {ran})", self.pid),
            ("exited", Some(code)) => match self.signal {
                Some(sig) => format!("ended by signal {sig} (code {code}) after {ran}"),
                None => format!("exited with code {code} after {ran}"),
            },
            ("killed", _) => format!("killed after {ran}; its process group has ended"),
            ("lifetime", _) => format!("ended at the server's maximum lifetime, after {ran}"),
            (status, _) => format!("{status} after {ran}"),
        }
    }
}

impl Render for ProcessReport {
    fn status(&self) -> Option<String> {
        Some(match (self.action, self.processes.first()) {
            ("list", _) => format!("{} background process(es)", self.processes.len()),
            (action, Some(p)) => format!("{action} {}: {}", p.id, p.line()),
            (action, None) => action.to_owned(),
        })
    }

    fn render(&self, _: &mut ResourcesTracker) -> Option<String> {
        let mut out = String::new();
        if self.action == "list" {
            if self.processes.is_empty() {
                out.push_str("No background processes.\n");
            }
            for p in &self.processes {
                out.push_str(&format!("{}  {}  `{}`\n", p.id, p.line(), p.command));
            }
            return Some(out);
        }
        for p in &self.processes {
            out.push_str(&format!(
                "Process {} (`{}`): {}\n",
                p.id,
                p.command,
                p.line()
            ));
            if let Some(note) = &p.note {
                out.push_str(note);
                out.push('\n');
            }
        }
        if let Some(o) = &self.output {
            if o.dropped > 0 {
                out.push_str(&format!(
                    "[{} bytes were no longer kept; the output below starts at byte {}]\n",
                    o.dropped, o.from
                ));
            }
            if o.text.is_empty() {
                out.push_str(&format!("No new output (offset {}).\n", o.next_offset));
            } else {
                out.push_str(&format!("Output (bytes {}-{}):\n", o.from, o.next_offset));
                out.push_str(&o.text);
                if !o.text.ends_with('\n') {
                    out.push('\n');
                }
            }
            if o.more {
                out.push_str(&format!(
                    "More output is waiting: read again (offset {}).\n",
                    o.next_offset
                ));
            }
        }
        Some(out)
    }
}

fn report(job: &Job, action: &'static str, read: Option<Read>) -> ProcessReport {
    let (state, output) = match read {
        Some(r) => (
            ProcessState::of(job, r.exit.as_ref(), r.ran),
            Some(OutputRead {
                text: r.slice.text,
                from: r.slice.from,
                next_offset: r.slice.to,
                dropped: r.slice.dropped,
                more: r.slice.more,
            }),
        ),
        None => (ProcessState::of(job, job.exit().as_ref(), job.ran()), None),
    };
    ProcessReport {
        r#type: "process_report",
        action,
        processes: vec![state],
        output,
    }
}

/// The `process` tool. It keeps no state of its own: the processes are the server's
/// ([`Processes`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct ProcessTool;

#[tool(
    name = "process",
    description = "Processes bash started with run_in_background.",
    category = "execution",
    toolsets(shell),
    permissions(execute_commands),
    destructive,
    text_output
)]
impl ProcessTool {
    /// Your processes.
    #[action(read_only)]
    async fn list(&self, ctx: &ToolContext) -> ToolResult<ProcessReport> {
        let owner = ctx.conversation().principal.clone();
        let processes = Processes::of(ctx)
            .list(&owner)
            .iter()
            .map(|j| ProcessState::of(j, j.exit().as_ref(), j.ran()))
            .collect();
        Ok(ProcessReport {
            r#type: "process_report",
            action: "list",
            processes,
            output: None,
        })
    }

    /// New output since the last read.
    #[action(read_only)]
    async fn output(
        &self,
        ctx: &ToolContext,
        /// From bash.
        id: String,
        /// Byte to read from.
        offset: Option<u64>,
    ) -> ToolResult<ProcessReport> {
        let owner = ctx.conversation().principal.clone();
        let job = Processes::of(ctx).get(&id, &owner)?;
        let limit = ShellConfig::of(ctx).background.read_bytes;
        Ok(report(&job, "output", Some(job.read(offset, limit))))
    }

    /// Write input to stdin (end lines with \n).
    #[action]
    async fn write(
        &self,
        ctx: &ToolContext,
        /// From bash.
        id: String,
        input: String,
    ) -> ToolResult<ProcessReport> {
        let owner = ctx.conversation().principal.clone();
        let job = Processes::of(ctx).get(&id, &owner)?;
        let before = job.end();
        job.write(&input).await?;
        job.output_after(before, WRITE_WAIT).await;
        let limit = ShellConfig::of(ctx).background.read_bytes;
        Ok(report(&job, "write", Some(job.read(None, limit))))
    }

    /// Kill it and its children.
    #[action]
    async fn kill(
        &self,
        ctx: &ToolContext,
        /// From bash.
        id: String,
    ) -> ToolResult<ProcessReport> {
        let owner = ctx.conversation().principal.clone();
        let job = Processes::of(ctx).get(&id, &owner)?;
        job.kill().await;
        let limit = ShellConfig::of(ctx).background.read_bytes;
        Ok(report(&job, "kill", Some(job.read(None, limit))))
    }
}
