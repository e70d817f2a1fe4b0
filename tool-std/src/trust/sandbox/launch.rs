//! Starting a program: the command every program gets (a clean environment, its own process
//! group, piped output), started directly or from a thread that confines itself first, and
//! the process group it makes.

use std::io;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;

use tokio::process::{Child, Command};

use super::Plan;

/// The command for `program`: `args`, started in `cwd` with only `env`, in a process group of
/// its own, stdin piped or closed, stdout and stderr piped. Dropping the child does not kill
/// it: its owner ends its whole group.
pub(super) fn command(
    program: &Path,
    arg0: Option<&str>,
    args: &[String],
    cwd: &Path,
    env: &[(String, String)],
    stdin: bool,
) -> Command {
    let mut command = Command::new(program);
    #[cfg(unix)]
    if let Some(arg0) = arg0 {
        command.arg0(arg0);
    }
    #[cfg(not(unix))]
    let _ = arg0;
    command
        .args(args)
        .current_dir(cwd)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(if stdin { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(false);
    #[cfg(unix)]
    command.process_group(0);
    command
}

/// Starts `command`, from a thread confined by `plan` when there is one.
pub(super) async fn spawn(mut command: Command, plan: Option<Arc<Plan>>) -> io::Result<Child> {
    match plan {
        None => command.spawn(),
        #[cfg(target_os = "linux")]
        Some(plan) => spawn_confined(command, plan).await,
        // Only Linux confines a command from a thread; elsewhere no plan is handed here.
        #[cfg(not(target_os = "linux"))]
        Some(_) => Err(io::Error::other(NotConfined(
            "a command can be confined from a thread on Linux only".to_owned(),
        ))),
    }
}

/// The error [`spawn`] answers with (inside an [`io::Error`]) when the sandbox could not be
/// set up on the thread starting the program: the program did not run.
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
#[cfg(target_os = "linux")]
async fn spawn_confined(mut command: Command, plan: Arc<Plan>) -> io::Result<Child> {
    let runtime = tokio::runtime::Handle::current();
    let (started_tx, started_rx) = tokio::sync::oneshot::channel();
    super::spawner::start_confined(plan, move |confined| {
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
#[cfg(target_os = "linux")]
struct Handover(Option<Child>);

#[cfg(target_os = "linux")]
impl Handover {
    fn take(mut self) -> Option<Child> {
        self.0.take()
    }
}

#[cfg(target_os = "linux")]
impl Drop for Handover {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            if let Some(group) = Group::of(&child) {
                group.signal(Stop::Kill);
            }
            let _ = child.start_kill();
        }
    }
}

/// How a group is asked to end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// `SIGTERM`: a request the programs may handle.
    Term,
    /// `SIGKILL`: at once.
    Kill,
}

/// A process group: the shell's pid, which `process_group(0)` made its group id.
///
/// Process groups are Unix's; elsewhere no program is started (the sandbox's entry refuses
/// first), so the type has no value there.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Group(
    #[cfg(unix)] rustix::process::Pid,
    #[cfg(not(unix))] std::convert::Infallible,
);

#[cfg(unix)]
impl Group {
    /// The group a child started by [`command`] leads.
    pub(crate) fn of(child: &Child) -> Option<Group> {
        child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .and_then(Group::new)
    }

    /// The group `id`; `None` for 0 and 1 (`kill(-1)` would signal every process).
    pub(crate) fn new(id: i32) -> Option<Group> {
        (id > 1)
            .then(|| rustix::process::Pid::from_raw(id).map(Group))
            .flatten()
    }

    /// Sends `stop` to every process of the group; `false` when none is left.
    pub(crate) fn signal(self, stop: Stop) -> bool {
        let signal = match stop {
            Stop::Term => rustix::process::Signal::TERM,
            Stop::Kill => rustix::process::Signal::KILL,
        };
        rustix::process::kill_process_group(self.0, signal).is_ok()
    }

    /// Whether a process of the group is left (a zombie counts until it is reaped).
    pub(crate) fn exists(self) -> bool {
        rustix::process::test_kill_process_group(self.0).is_ok()
    }
}

#[cfg(not(unix))]
impl Group {
    /// No group here: programs are not started on this system.
    pub(crate) fn of(_child: &Child) -> Option<Group> {
        None
    }

    /// No group here.
    pub(crate) fn new(_id: i32) -> Option<Group> {
        None
    }

    pub(crate) fn signal(self, _stop: Stop) -> bool {
        match self.0 {}
    }

    pub(crate) fn exists(self) -> bool {
        match self.0 {}
    }
}

/// A program as a path: a name without `/` is looked up on the `PATH` the child gets (as
/// the child's own `execvp` would), falling back to the name itself when nothing is found.
///
/// A path matters for speed: with the environment replaced and a bare name, the standard
/// library must fork the whole process to search that `PATH` in the child, where a path
/// lets it use `posix_spawn` (no copy of the parent's page tables), several times cheaper
/// for a large host.
pub(crate) fn program_path(program: &str, env: &[(String, String)]) -> PathBuf {
    if program.contains(std::path::is_separator) {
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

#[cfg(unix)]
fn is_executable(path: &std::path::Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &std::path::Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use rustix::process::Pid;
    use std::os::unix::fs::PermissionsExt;
    use std::time::{Duration, Instant};
    use tokio::io::AsyncReadExt;

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
