//! Running one command: `SHELL -c COMMAND` in a process group of its own, stdin closed, its
//! stdout and stderr read together line by line into bounded captures, and the whole group
//! ended (`SIGTERM`, a grace, `SIGKILL`) when the command times out, is cancelled, or exits
//! leaving children behind.

use std::io;
use std::pin::Pin;
use std::process::ExitStatus;
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::{Child, ChildStderr, ChildStdout};
use tokio::time::Sleep;
use tokio_util::sync::CancellationToken;

use super::capture::{Capture, LineSplitter};
use crate::trust::sandbox::{Group, Guarded, Launched, Stop};

/// Bytes read from a pipe at once.
const READ_BUF: usize = 16 * 1024;

/// How often an emptied group is looked for while it is being ended.
const GROUP_POLL: Duration = Duration::from_millis(10);

/// How long the pipes are still read after `SIGKILL` (only a process that left the group
/// can hold them open by then).
const AFTER_KILL: Duration = Duration::from_millis(250);

/// The bounds a started command runs within.
#[derive(Debug, Clone)]
pub(crate) struct Bounds {
    /// When the command is ended as timed out.
    pub(crate) deadline: Instant,
    pub(crate) grace: Duration,
    pub(crate) max_line_chars: usize,
    /// Characters each stream's capture keeps.
    pub(crate) capture_budget: usize,
}

/// How the command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    /// The shell exited by itself.
    Exited,
    /// The deadline passed and the group was ended.
    Timeout,
    /// The cancellation token fired and the group was ended.
    Cancelled,
}

/// Which pipe a chunk came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stream {
    Stdout,
    Stderr,
}

/// A finished command.
#[derive(Debug)]
pub(crate) struct Finished {
    pub(crate) ending: Ending,
    /// The shell's exit status, when it was reaped.
    pub(crate) status: Option<ExitStatus>,
    pub(crate) stdout: Capture,
    pub(crate) stderr: Capture,
    pub(crate) elapsed: Duration,
    /// Whether a pipe was still held open (by a process that left the group) when reading
    /// stopped.
    pub(crate) pipes_abandoned: bool,
    /// Whether the group had to be ended with `SIGKILL`.
    pub(crate) killed: bool,
    /// Whether the shell exited leaving processes of its group running (they were ended).
    pub(crate) leftovers: bool,
}

impl Finished {
    /// How it ended as `bash` reports it: `exited`, `timeout` or `cancelled`; the exit code
    /// (128 + N when a signal N ended the shell); the signal.
    pub(crate) fn status_fields(&self) -> (&'static str, Option<i32>, Option<i32>) {
        match self.ending {
            Ending::Timeout => ("timeout", None, None),
            Ending::Cancelled => ("cancelled", None, None),
            Ending::Exited => {
                let signal = self.status.and_then(exit_signal);
                let code = self
                    .status
                    .and_then(|s| s.code())
                    .or_else(|| signal.map(|s| 128 + s));
                ("exited", code, signal)
            }
        }
    }

    /// What the model is told about the command's process group.
    pub(crate) fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if self.leftovers {
            notes.push(
                "The command left background processes running; they were ended with it."
                    .to_owned(),
            );
        }
        if self.killed {
            notes.push("Processes that did not end on SIGTERM were killed.".to_owned());
        }
        if self.pipes_abandoned {
            notes.push(
                "A process that left the command's process group kept its output open; \
                 reading stopped there."
                    .to_owned(),
            );
        }
        notes
    }
}

/// The signal that ended a process (Unix's; none elsewhere).
fn exit_signal(status: ExitStatus) -> Option<i32> {
    #[cfg(unix)]
    {
        std::os::unix::process::ExitStatusExt::signal(&status)
    }
    #[cfg(not(unix))]
    {
        let _ = status;
        None
    }
}

/// Runs the command; `on_chunk` gets the lines of each read as they arrive.
pub(crate) async fn run(
    launched: Launched,
    spec: &Bounds,
    cancel: &CancellationToken,
    mut on_chunk: impl FnMut(Stream, &str),
) -> io::Result<Finished> {
    let started = Instant::now();
    // Taken at once, before any await: from here on a dropped run ends the group.
    let group = Group::of(&launched.child)
        .ok_or_else(|| io::Error::other("the command started without a process id"))?;
    let Launched { mut child, guarded } = launched;
    let mut guard = GroupGuard {
        group: Some(group),
        grace: spec.grace,
        guarded: Some(guarded),
    };
    let mut io = Pipes {
        stdout: child.stdout.take(),
        stderr: child.stderr.take(),
        out_buf: vec![0; READ_BUF],
        err_buf: vec![0; READ_BUF],
        out_lines: LineSplitter::new(spec.max_line_chars),
        err_lines: LineSplitter::new(spec.max_line_chars),
        stdout_capture: Capture::new(spec.capture_budget),
        stderr_capture: Capture::new(spec.capture_budget),
        status: None,
    };

    let mut timer = Box::pin(tokio::time::sleep_until(spec.deadline.into()));

    // Run until the shell exits, the deadline passes or the call is cancelled.
    let ending = loop {
        if io.status.is_some() {
            break Ending::Exited;
        }
        match io
            .step(
                &mut child,
                &mut timer,
                spec.deadline,
                Some(cancel),
                &mut on_chunk,
            )
            .await?
        {
            Step::Progress => {}
            Step::Deadline => break Ending::Timeout,
            Step::Cancelled => break Ending::Cancelled,
        }
    };

    // Then whatever is left of the group is ended: the command itself on a timeout or a
    // cancellation, the children it left running when it exited. TERM first, KILL after
    // the grace; the pipes are read to their end meanwhile.
    let mut alive = group.signal(Stop::Term);
    let leftovers = alive && ending == Ending::Exited;
    let grace_end = Instant::now() + spec.grace;
    let mut killed = false;
    loop {
        if io.status.is_some() && io.closed() {
            alive = alive && group.exists();
            if !alive {
                break;
            }
        }
        let now = Instant::now();
        if now >= grace_end {
            break;
        }
        let until = if io.status.is_some() && io.closed() {
            (now + GROUP_POLL).min(grace_end)
        } else {
            grace_end
        };
        io.step(&mut child, &mut timer, until, None, &mut on_chunk)
            .await?;
    }
    if alive || io.status.is_none() || !io.closed() {
        killed = group.signal(Stop::Kill);
        let kill_end = Instant::now() + AFTER_KILL;
        while (io.status.is_none() || !io.closed()) && Instant::now() < kill_end {
            io.step(&mut child, &mut timer, kill_end, None, &mut on_chunk)
                .await?;
        }
    }
    guard.disarm();
    let pipes_abandoned = !io.closed();
    io.finish(&mut on_chunk);
    Ok(Finished {
        ending,
        status: io.status,
        stdout: io.stdout_capture,
        stderr: io.stderr_capture,
        elapsed: started.elapsed(),
        pipes_abandoned,
        killed,
        leftovers,
    })
}

struct Pipes {
    stdout: Option<ChildStdout>,
    stderr: Option<ChildStderr>,
    out_buf: Vec<u8>,
    err_buf: Vec<u8>,
    out_lines: LineSplitter,
    err_lines: LineSplitter,
    stdout_capture: Capture,
    stderr_capture: Capture,
    status: Option<ExitStatus>,
}

enum Step {
    Progress,
    Deadline,
    Cancelled,
}

impl Pipes {
    fn closed(&self) -> bool {
        self.stdout.is_none() && self.stderr.is_none()
    }

    /// Waits for one thing: a read on either pipe, the shell's exit, `until`, or `cancel`.
    async fn step(
        &mut self,
        child: &mut Child,
        timer: &mut Pin<Box<Sleep>>,
        until: Instant,
        cancel: Option<&CancellationToken>,
        on_chunk: &mut impl FnMut(Stream, &str),
    ) -> io::Result<Step> {
        let Pipes {
            stdout,
            stderr,
            out_buf,
            err_buf,
            status,
            ..
        } = self;
        let waiting = status.is_none();
        if timer.deadline() != until.into() {
            timer.as_mut().reset(until.into());
        }
        tokio::select! {
            // The deadline and the cancellation first: a command that prints without pause
            // keeps its pipes always ready, and must still be ended on time.
            biased;
            () = cancelled(cancel) => return Ok(Step::Cancelled),
            () = timer.as_mut() => return Ok(Step::Deadline),
            read = read_some(stdout, out_buf) => {
                let n = read.unwrap_or(0);
                self.took(Stream::Stdout, n, on_chunk);
            }
            read = read_some(stderr, err_buf) => {
                let n = read.unwrap_or(0);
                self.took(Stream::Stderr, n, on_chunk);
            }
            exit = child.wait(), if waiting => {
                self.status = Some(exit?);
            }
        }
        Ok(Step::Progress)
    }

    /// Takes `n` bytes read from a pipe (0: its end, or an error, which ends it too).
    fn took(&mut self, stream: Stream, n: usize, on_chunk: &mut impl FnMut(Stream, &str)) {
        let (pipe_done, buf, lines, capture) = match stream {
            Stream::Stdout => {
                if n == 0 {
                    self.stdout = None;
                }
                (
                    n == 0,
                    &self.out_buf,
                    &mut self.out_lines,
                    &mut self.stdout_capture,
                )
            }
            Stream::Stderr => {
                if n == 0 {
                    self.stderr = None;
                }
                (
                    n == 0,
                    &self.err_buf,
                    &mut self.err_lines,
                    &mut self.stderr_capture,
                )
            }
        };
        let mut chunk = String::new();
        let mut keep = |line: String| {
            chunk.push_str(&line);
            capture.push(line);
        };
        if pipe_done {
            if let Some(last) = lines.finish() {
                keep(last);
            }
        } else {
            lines.feed(&buf[..n], &mut keep);
        }
        if !chunk.is_empty() {
            on_chunk(stream, &chunk);
        }
    }

    /// Keeps the partial last lines of pipes that were abandoned.
    fn finish(&mut self, on_chunk: &mut impl FnMut(Stream, &str)) {
        if self.stdout.take().is_some() {
            self.took(Stream::Stdout, 0, on_chunk);
        }
        if self.stderr.take().is_some() {
            self.took(Stream::Stderr, 0, on_chunk);
        }
    }
}

async fn read_some<R: AsyncRead + Unpin>(
    pipe: &mut Option<R>,
    buf: &mut [u8],
) -> io::Result<usize> {
    match pipe {
        Some(p) => p.read(buf).await,
        None => std::future::pending().await,
    }
}

async fn cancelled(token: Option<&CancellationToken>) {
    match token {
        Some(t) => t.cancelled().await,
        None => std::future::pending().await,
    }
}

/// Ends the group if the run is dropped before it finished (the runtime dropped the call
/// at its deadline, or the caller gave up): `SIGTERM` now, `SIGKILL` after the grace from
/// a thread of its own, so it happens whatever becomes of the async runtime.
struct GroupGuard {
    group: Option<Group>,
    grace: Duration,
    /// The group's listing with the guardian, taken off once the group has ended.
    guarded: Option<Guarded>,
}

impl GroupGuard {
    fn disarm(&mut self) {
        self.group = None;
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        let Some(group) = self.group.take() else {
            return;
        };
        if !group.signal(Stop::Term) {
            return;
        }
        let grace = self.grace;
        // The guardian keeps the group listed until it has ended (should this thread not
        // get to kill it, the process exiting meanwhile, the guardian will).
        let guarded = self.guarded.take();
        let _ = std::thread::Builder::new()
            .name("bash-group-kill".into())
            .spawn(move || {
                let _guarded = guarded;
                let end = Instant::now() + grace;
                while Instant::now() < end {
                    if !group.exists() {
                        return;
                    }
                    std::thread::sleep(GROUP_POLL);
                }
                group.signal(Stop::Kill);
            });
    }
}
