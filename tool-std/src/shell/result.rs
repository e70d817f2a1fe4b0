//! What `bash` answers: [`CommandResult`], and the text a model reads of it.

use serde::Serialize;
use tool_core::{Render, ResourcesTracker};

/// What `bash` ran and how it ended. A non-zero exit is a result, not an error: the model
/// reads the exit code, stdout and stderr in the text ([`Render::render`]), where the tool's
/// result goes out as text alone (see [`bash`](mod@super::bash)); a program in the
/// same process reads these fields.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CommandResult {
    /// Always `command_result`.
    pub r#type: &'static str,
    /// Whether the command exited with code 0.
    pub success: bool,
    /// `exited`, `timeout` (ended at its timeout), `cancelled` (ended because the call was
    /// cancelled), or `background` (started with `run_in_background`, still running: see
    /// [`process_id`](Self::process_id)).
    pub status: &'static str,
    /// The id of the background process, which the `process` tool takes (`background`
    /// only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub process_id: Option<String>,
    /// The background process's pid on the server's machine (`background` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
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
            "background" => format!(
                "Started in the background as {}",
                self.process_id.as_deref().unwrap_or("?")
            ),
            _ => match self.return_code {
                Some(code) => format!("Exit code {code} ({})", seconds(self.duration_ms)),
                None => "Exited".to_owned(),
            },
        })
    }

    fn render(&self, _: &mut ResourcesTracker) -> Option<String> {
        let mut out = String::new();
        if self.status == "background" {
            out.push_str(&format!(
                "Started in the background as process {} (pid {}). Read its output with \
                 process(action=\"output\", id=\"{0}\"); write to its stdin with action \
                 write; end it with action kill.\n",
                self.process_id.as_deref().unwrap_or("?"),
                self.pid.unwrap_or(0),
            ));
            if let Some(note) = &self.note {
                out.push_str(note);
                out.push('\n');
            }
            return Some(out);
        }
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
        self.success || self.status == "background"
    }

    /// The record's `error`: how it ended, and the end of stderr (at most
    /// [`FAILURE_STDERR_LINES`] lines of [`FAILURE_STDERR_CHARS`] characters).
    fn failure(&self) -> Option<String> {
        let how = self.status().unwrap_or_else(|| "Failed".to_owned());
        let tail: Vec<&str> = self
            .error
            .lines()
            .rev()
            .filter(|l| !l.trim().is_empty())
            .take(FAILURE_STDERR_LINES)
            .collect();
        if tail.is_empty() {
            return Some(how);
        }
        let mut text: String = tail.into_iter().rev().collect::<Vec<_>>().join("\n");
        if let Some((cut, _)) = text.char_indices().rev().nth(FAILURE_STDERR_CHARS - 1) {
            text = format!("…{}", &text[cut..]);
        }
        Some(format!("{how}; stderr ends:\n{text}"))
    }
}

/// The most lines of stderr a failed command's record `error` keeps.
pub const FAILURE_STDERR_LINES: usize = 5;

/// The most characters of stderr a failed command's record `error` keeps.
pub const FAILURE_STDERR_CHARS: usize = 500;

/// A duration for people: `1.5 s` under ten seconds, `42 s` from there.
pub(crate) fn seconds(ms: u64) -> String {
    if ms < 10_000 {
        format!("{:.1} s", ms as f64 / 1000.0)
    } else {
        format!("{} s", ms / 1000)
    }
}
