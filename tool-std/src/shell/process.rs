//! Running one command: `SHELL -c COMMAND` in a process group of its own, stdin closed, its
//! stdout and stderr read together line by line into bounded captures, and the whole group
//! ended (`SIGTERM`, a grace, `SIGKILL`) when the command times out, is cancelled, or exits
//! leaving children behind.

use std::io;
use std::path::PathBuf;
use std::pin::Pin;
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::{Child, ChildStderr, ChildStdout, Command};
use tokio::time::Sleep;
use tokio_util::sync::CancellationToken;

use super::capture::{Capture, LineSplitter};
use super::sandbox;

/// Bytes read from a pipe at once.
const READ_BUF: usize = 16 * 1024;

/// How often an emptied group is looked for while it is being ended.
const GROUP_POLL: Duration = Duration::from_millis(10);

/// How long the pipes are still read after `SIGKILL` (only a process that left the group
/// can hold them open by then).
const AFTER_KILL: Duration = Duration::from_millis(250);

/// What to run and within which bounds.
#[derive(Debug, Clone)]
pub(crate) struct RunSpec {
    /// The program started: the shell, or the sandbox helper that execs it.
    pub(crate) program: PathBuf,
    /// The `argv[0]` it is started with, when not its path.
    pub(crate) arg0: Option<String>,
    pub(crate) args: Vec<String>,
    pub(crate) cwd: PathBuf,
    pub(crate) env: Vec<(String, String)>,
    /// When the command is ended as timed out.
    pub(crate) deadline: Instant,
    pub(crate) grace: Duration,
    pub(crate) max_line_chars: usize,
    /// Characters each stream's capture keeps.
    pub(crate) capture_budget: usize,
    /// The sandbox plan to confine the command with from a thread of this process (see
    /// `sandbox::start_confined`); `None` when the program starts unconfined (the sandbox
    /// is off, or the program is the helper, which confines itself).
    pub(crate) confine: Option<Arc<sandbox::Plan>>,
}

/// The error [`run`] answers with (inside an [`io::Error`]) when the sandbox could not be
/// set up on the thread starting the command: the command did not run.
#[derive(Debug)]
pub(crate) struct NotConfined(pub(crate) String);

impl std::fmt::Display for NotConfined {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotConfined {}

/// Starts `command` from a new thread that confines itself with `plan` first, so that the
/// command inherits the restrictions and no other thread of this process gets them. The
/// thread ends once the command is started; should the call go away before it takes the
/// command, the command's group is ended (see [`Handover`]).
async fn spawn_confined(mut command: Command, plan: Arc<sandbox::Plan>) -> io::Result<Child> {
    let runtime = tokio::runtime::Handle::current();
    let (started_tx, started_rx) = tokio::sync::oneshot::channel();
    sandbox::start_confined(plan, move |confined| {
        // The runtime registers the child's pipes and exit with its reactor.
        let _runtime = runtime.enter();
        let started = confined
            .map_err(|why| io::Error::other(NotConfined(why)))
            .and_then(|()| command.spawn())
            .map(|child| Handover(Some(child)));
        // When the call has gone, the handover comes back here and is dropped.
        let _ = started_tx.send(started);
    })
    .map_err(|why| io::Error::other(NotConfined(why)))?;
    started_rx
        .await
        .map_err(|_| io::Error::other("the sandbox's thread ended without starting the command"))??
        .take()
        .ok_or_else(|| io::Error::other("the command was handed over twice"))
}

/// A command started on the sandbox's thread, on its way to the call: if it is dropped
/// before the call takes it (the call was cancelled meanwhile, anywhere between the send and
/// the receipt), the command's group is killed, so no command runs on that nobody waits for.
struct Handover(Option<Child>);

impl Handover {
    fn take(mut self) -> Option<Child> {
        self.0.take()
    }
}

impl Drop for Handover {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            if let Some(group) = child
                .id()
                .and_then(|id| i32::try_from(id).ok())
                .and_then(Group::new)
            {
                group.signal(Signal::KILL);
            }
            let _ = child.start_kill();
        }
    }
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

/// Runs the command; `on_chunk` gets the lines of each read as they arrive.
pub(crate) async fn run(
    spec: &RunSpec,
    cancel: &CancellationToken,
    mut on_chunk: impl FnMut(Stream, &str),
) -> io::Result<Finished> {
    let started = Instant::now();
    let mut command = Command::new(&spec.program);
    if let Some(arg0) = &spec.arg0 {
        command.arg0(arg0);
    }
    command
        .args(&spec.args)
        .current_dir(&spec.cwd)
        .env_clear()
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        // The group guard ends the whole group; a drop of the child alone leaves tokio to
        // reap the shell.
        .kill_on_drop(false);
    let mut child = match &spec.confine {
        None => command.spawn()?,
        Some(plan) => spawn_confined(command, plan.clone()).await?,
    };
    let group = child
        .id()
        .and_then(|id| i32::try_from(id).ok())
        .and_then(Group::new)
        .ok_or_else(|| io::Error::other("the shell started without a process id"))?;
    let mut guard = GroupGuard {
        group: Some(group),
        grace: spec.grace,
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
    let mut alive = group.signal(Signal::TERM);
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
        killed = group.signal(Signal::KILL);
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

/// The shell as a path: a name without `/` is looked up on the `PATH` the child gets (as
/// the child's own `execvp` would), falling back to the name itself when nothing is found.
///
/// A path matters for speed: with the environment replaced and a bare name, the standard
/// library must fork the whole process to search that `PATH` in the child, where a path
/// lets it use `posix_spawn` (no copy of the parent's page tables), several times cheaper
/// for a large host.
pub(crate) fn program_path(program: &str, env: &[(String, String)]) -> PathBuf {
    if program.contains('/') {
        return PathBuf::from(program);
    }
    // glibc's search path when `PATH` is unset (`confstr(_CS_PATH)`).
    let path = env
        .iter()
        .find(|(k, _)| k == "PATH")
        .map_or("/bin:/usr/bin", |(_, v)| v.as_str());
    std::env::split_paths(path)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
        .unwrap_or_else(|| PathBuf::from(program))
}

fn is_executable(path: &std::path::Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The reading side of a running command.
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

/// A process group: the shell's pid, which `process_group(0)` made its group id.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Group(Pid);

impl Group {
    /// The group `id`; `None` for 0 and 1 (`kill(-1)` would signal every process).
    pub(crate) fn new(id: i32) -> Option<Group> {
        (id > 1).then(|| Pid::from_raw(id).map(Group)).flatten()
    }

    /// Sends `signal` to every process of the group; `false` when none is left.
    pub(crate) fn signal(self, signal: Signal) -> bool {
        rustix::process::kill_process_group(self.0, signal).is_ok()
    }

    /// Whether a process of the group is left (a zombie counts until it is reaped).
    pub(crate) fn exists(self) -> bool {
        rustix::process::test_kill_process_group(self.0).is_ok()
    }
}

/// Ends the group if the run is dropped before it finished (the runtime dropped the call
/// at its deadline, or the caller gave up): `SIGTERM` now, `SIGKILL` after the grace from
/// a thread of its own, so it happens whatever becomes of the async runtime.
struct GroupGuard {
    group: Option<Group>,
    grace: Duration,
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
        if !group.signal(Signal::TERM) {
            return;
        }
        let grace = self.grace;
        let _ = std::thread::Builder::new()
            .name("bash-group-kill".into())
            .spawn(move || {
                let end = Instant::now() + grace;
                while Instant::now() < end {
                    if !group.exists() {
                        return;
                    }
                    std::thread::sleep(GROUP_POLL);
                }
                group.signal(Signal::KILL);
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn env(path: &str) -> Vec<(String, String)> {
        vec![("PATH".to_owned(), path.to_owned())]
    }

    /// A handover dropped before the call took it kills the command's whole group: the
    /// shell and the child it started, each checked by its pid.
    #[tokio::test]
    async fn a_command_nobody_took_is_ended_with_its_group() {
        let mut child = Command::new("sh")
            .args(["-c", "sleep 30 & echo $!; wait"])
            .stdout(Stdio::piped())
            .process_group(0)
            .spawn()
            .expect("sh");
        let shell = Pid::from_raw(i32::try_from(child.id().unwrap()).unwrap()).unwrap();
        let mut line = String::new();
        let mut out = child.stdout.take().unwrap();
        let mut buf = [0u8; 64];
        while !line.ends_with('\n') {
            let n = out.read(&mut buf).await.expect("read");
            assert!(n > 0, "the shell printed no pid");
            line.push_str(std::str::from_utf8(&buf[..n]).unwrap());
        }
        let sleeper = Pid::from_raw(line.trim().parse().unwrap()).unwrap();
        let group = Group::new(shell.as_raw_nonzero().get()).unwrap();
        assert!(group.exists());
        drop(Handover(Some(child)));
        let gone = |pid: Pid| {
            // Gone, or a zombie waiting to be reaped.
            std::fs::read_to_string(format!("/proc/{}/stat", pid.as_raw_nonzero())).map_or(
                true,
                |stat| {
                    stat.rsplit(')')
                        .next()
                        .is_some_and(|s| s.trim_start().starts_with('Z'))
                },
            )
        };
        let end = Instant::now() + Duration::from_secs(5);
        while !(gone(shell) && gone(sleeper)) && Instant::now() < end {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(gone(shell), "the shell still runs");
        assert!(gone(sleeper), "the shell's child still runs");
    }

    #[test]
    fn the_shell_is_found_on_the_childs_path() {
        let dir = tempfile::tempdir().expect("dir");
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir(&a).expect("a");
        std::fs::create_dir(&b).expect("b");
        // Not executable in `a`, executable in `b`: `b`'s is the one.
        std::fs::write(a.join("mysh"), "").expect("write");
        std::fs::write(b.join("mysh"), "").expect("write");
        std::fs::set_permissions(b.join("mysh"), std::fs::Permissions::from_mode(0o755))
            .expect("chmod");
        // A directory of that name is not a program either.
        std::fs::create_dir(a.join("dirsh")).expect("dir");
        let path = format!("relative:/nonexistent:{}:{}", a.display(), b.display());
        assert_eq!(program_path("mysh", &env(&path)), b.join("mysh"));
        assert_eq!(program_path("dirsh", &env(&path)), PathBuf::from("dirsh"));
        assert_eq!(program_path("nosuch", &env(&path)), PathBuf::from("nosuch"));
        // A path is taken as given.
        assert_eq!(program_path("./mysh", &env(&path)), PathBuf::from("./mysh"));
        // Without PATH, the C library's default.
        let sh = program_path("sh", &[]);
        assert!(
            sh == std::path::Path::new("/bin/sh") || sh == std::path::Path::new("/usr/bin/sh"),
            "{sh:?}"
        );
    }
}
