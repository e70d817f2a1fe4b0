//! The operating-system sandbox `bash` runs its commands in (Linux: Landlock, seccomp and a
//! private mount namespace; macOS: Seatbelt), so the workspace policy holds for commands as it
//! does for the file tools.
//!
//! What follows describes Linux. **On macOS** the same plan (read grants and the deny list,
//! write grants, protected paths and the directories above them, masked paths, network, UNIX
//! sockets) becomes a Seatbelt profile, each rule commented with the Linux rule it mirrors,
//! and the shell is started by `/usr/bin/sandbox-exec` under it; [`SandboxStatus`] says
//! `Seatbelt`. Seatbelt refuses beneath a grant by path, so nothing is mounted; system calls are
//! not filtered one by one (Seatbelt's own default refusals cover most of the list below).
//! **On Windows** no command runs, sandbox on or off ([`COMMANDS_RUN_HERE`]): no sandbox
//! exists there yet, and a command's children are ended with it through its process group,
//! which Windows does not have.
//!
//! # What a sandboxed command may do
//!
//! - **Write** only beneath the read-write roots of the [`Workspace`](crate::workspace::Workspace),
//!   a private temporary directory made for the call (`TMPDIR` points there; it is removed
//!   after the call), and `/dev/null`, `/dev/zero`, `/dev/full`.
//! - **Read** the rest of the file system, except the deny list: [`DEFAULT_DENY_READ`] (`~/.ssh`,
//!   `~/.aws`, `~/.config/gh`, `~/.netrc`...) and what the host adds
//!   ([`SandboxConfig::deny_read`]: the server's own configuration and stores, other principals'
//!   roots).
//! - **Not change the protected paths** ([`DEFAULT_PROTECTED`]: `.git/hooks`, `.git/config`,
//!   `.env`, `.env.*`) inside a read-write root: they are read-only for commands, as the file
//!   tools refuse to write them.
//! - **Not use** `ptrace`, `process_vm_readv`/`writev`, io_uring, `AF_VSOCK`, raw and packet
//!   sockets, `mount`/`umount2`/`pivot_root` (and the new mount API), new namespaces through
//!   `unshare`/`clone`/`setns` (user namespaces included), `bpf`, `kexec_load`,
//!   `kexec_file_load`, `keyctl`/`add_key`/`request_key`, `perf_event_open`, personality
//!   changes, kernel modules, `reboot`, extended attributes, and set-user-ID or set-group-ID
//!   modes: each answers `EPERM` (the command's tools fail with "Operation not permitted", they
//!   are not killed).
//! - **No network** unless the host allows it ([`SandboxConfig::network`], `--bash-network`,
//!   or per command line with [`SandboxConfig::network_for`]): `AF_INET` and `AF_INET6`
//!   sockets answer `EPERM`.
//! - **No UNIX sockets** but connected pairs (`socketpair`), unless the host allows them
//!   ([`SandboxConfig::unix_sockets`], `--bash-unix-sockets`): Landlock does not govern
//!   connecting to a socket by its path, and the sockets of the user's systemd manager,
//!   D-Bus, Docker or an ssh agent lead to services that act outside the sandbox (as
//!   Claude Code's sandbox, this one refuses `socket(AF_UNIX)` rather than leave that road
//!   open).
//! - **Or only listed hosts** ([`SandboxConfig::network_hosts`], `--bash-network-host`):
//!   commands reach them through a proxy of the server on `127.0.0.1` (`http_proxy`,
//!   `https_proxy`, `all_proxy`), which takes `CONNECT` and plain HTTP requests and connects
//!   to listed hosts only (`403` with the list otherwise). A command may then make TCP
//!   sockets (protocol 0 or `IPPROTO_TCP`: MPTCP and SCTP would pass Landlock's TCP rule),
//!   but connect them only to the proxy's port (Landlock ABI 4), and no UDP, raw or packet
//!   socket.
//! - **No new privileges**: `no_new_privs` is set, so set-user-ID programs run with the
//!   command's own rights; a command started by root has an empty capability bounding set,
//!   so it runs with no capability at all; nobody's command keeps ambient capabilities.
//!   With Landlock ABI 6 (Linux 6.12), signals reach only processes inside the sandbox and
//!   abstract UNIX sockets outside it cannot be connected to; on older kernels
//!   [`SandboxStatus`] says that signals are not scoped (a command can signal the user's
//!   other processes, the server included).
//!
//! # How it is applied without unsafe code
//!
//! The workspace forbids `unsafe`, so nothing runs between `fork` and `exec` in the server.
//! The restrictions are applied with safe APIs (`rustix`, the `landlock` crate, `seccompiler`)
//! to a thread or a process that then starts the shell, which inherits every restriction, as
//! do all its children. There are two ways:
//!
//! - **A thread of the server** (the default, [`SandboxConfig::confine_in_process`]): Landlock
//!   domains, seccomp filters, `no_new_privs`, the capability bounding set and the mount
//!   namespace are all kept per thread, so a thread made for the call confines itself and
//!   starts the shell, and the server's other threads keep their rights. The seccomp filters,
//!   the same for every call, are installed once on a long-lived thread that starts the
//!   calls' threads, which inherit them (a call that mounts adds the filter on mounts
//!   and namespaces after its mounts). This costs no program start. It is taken whenever the call
//!   mounts nothing, and always in a server running as root, which can make a mount
//!   namespace from a thread.
//! - **The helper**: a call that must mount over protected paths in a server *not* running as
//!   root needs a user namespace, which the kernel makes only for a single-threaded process.
//!   `bash` then starts a *helper*: a program (by default the server's own executable)
//!   started with `argv[0]` = [`HELPER_ARG0`], which [`dispatch`] recognises at the top of
//!   `main`. The helper reads the call's plan from its arguments, restricts itself (a user
//!   and mount namespace, Landlock, the seccomp filter) and then `exec`s the shell. If any
//!   step fails it prints why and exits with a code of its own.
//!
//! Either way, when a step fails `bash` answers with an error and the command never runs (fail
//! closed). Landlock keeps a command out of the `/proc/<pid>` entries of processes outside its
//! sandbox (`environ`, `maps`, `mem`, the `fd`, `cwd` and `root` links), the server's
//! included; a command started by root would still read `environ` and `maps` with
//! `CAP_SYS_PTRACE`, `CAP_SYS_ADMIN` or `CAP_PERFMON`, so it keeps no capability at all (an
//! empty bounding set).
//!
//! A host binary makes itself the helper by calling [`dispatch`] first thing in `main`, before
//! any thread or async runtime starts; a host that cannot (a test harness, a doctest) points
//! [`SandboxConfig::helper`] at a program that does, such as this crate's
//! `toolsmith-sandbox-helper` binary.
//!
//! ```no_run
//! // First thing in the host's `main`, before any thread or async runtime starts. It returns
//! // at once unless this process was started as the helper, which it then becomes.
//! tool_std::trust::sandbox::dispatch();
//! // ... build the runtime and serve as usual.
//! ```
//!
//! # No program outlives the server
//!
//! Every program a standard tool starts (sandboxed or not, through the sandbox's one entry)
//! leads a process group that its tool ends with the call. A server that dies outright (`SIGKILL`, a crash, the OOM
//! killer) cannot; for that case the first program started makes the server start a
//! *guardian*, the helper program in another role ([`GUARDIAN_ARG0`]), which holds the list of
//! live groups and kills them when the server is gone (see the guardian's module for why a
//! process and not the parent-death signal). [`guardian_error`] says when it could not be
//! started.
//!
//! # Fail closed
//!
//! Where the kernel lacks Landlock (ABI 3 or later: before it, truncation was not governed) or
//! seccomp, [`SandboxConfig::status`] says so and every `bash` call is refused with an error that
//! says why and names the explicit opt-out, `--bash-sandbox off`
//! ([`SandboxMode::Off`]). The command line prints the state when `list` and `serve` start.
//! Whether a call runs sandboxed is on the public API ([`SandboxConfig::runs_sandboxed`],
//! [`ShellConfig::runs_sandboxed`](crate::shell::ShellConfig::runs_sandboxed)), so a host's approval
//! rule can run sandboxed commands without asking and ask for the others.
//!
//! # What the kernel cannot cover, and what is done instead
//!
//! - **Landlock only grants; it cannot take away beneath a grant.** Read access is granted on
//!   `/` as a whole when no denied path exists; a denied path's ancestors are instead granted
//!   child by child, leaving the denied entry out (symbolic links among the children are never
//!   granted: what they point at is judged on its own path). The children are those present
//!   when the call starts: an entry made later in such a directory by someone else is not
//!   readable to the command. At most [`MAX_READ_RULES`] rules are made; past that the call is
//!   refused.
//! - **Protected and denied paths inside a read-write root** cannot be carved out with Landlock
//!   (the root's grant covers them, and `git commit` needs to create files directly in `.git`).
//!   The helper makes a private mount namespace (a user namespace too when not run as root) and
//!   bind-mounts each protected path read-only over itself, each directory between the root and
//!   it onto itself (a mount point cannot be renamed or removed, so the protected file cannot
//!   be moved aside and replaced), and an empty read-only file or directory over each denied
//!   path. The paths are looked for breadth-first, at most [`MAX_PROTECTED_WALK`] entries and
//!   [`MAX_PROTECTED_DEPTH`] levels per root, not inside a `.git` beyond its own entries; the
//!   answer's `note` says when the walk stopped early. Where the namespace cannot be made,
//!   calls that need it are refused.
//! - **A protected path that does not exist yet** (a new `.env`, `.git/hooks` missing in an
//!   existing `.git`) has nothing to mount over; a command can create it. The answer's `note`
//!   names every protected path the command created, so the host or the user can look at it.
//!   New files inside an existing `.git/hooks` are refused (the directory is read-only).
//! - **A hard link made before the call** inside a root to a file outside is written through
//!   (Landlock judges the path, not the inode). A command cannot make such a link itself: a
//!   link from outside the roots needs the `REFER` right there.
//! - **Metadata**: Landlock does not govern `chmod`, `chown`, `utime` on files it lets a
//!   command read. The filter refuses set-user-ID and set-group-ID modes and extended
//!   attributes (file capabilities), and a command has no capability, so it cannot change
//!   an owner; but the owner of a file may change its mode and times, and those changes
//!   outside the roots are not refused. For a server running as **root** that means every
//!   root-owned file of the system: a command could `chmod o+w /etc/passwd` for another
//!   local user to abuse later. Run the server as an unprivileged user; its commands can
//!   then only touch that user's own files' modes. (Refusing it would need every mount
//!   outside the roots made read-only in a namespace of each call.)
//! - **Device files** cannot be made anywhere (the make-block and make-char rights are
//!   never granted), so a command of a root server cannot reach a disk through a node it
//!   made.
//! - **Other processes' `/proc` entries**: their `environ`, memory and links are unreadable
//!   (see above), but their `cmdline`, `status` and the like are world-readable by design:
//!   keep secrets out of command lines. A PID namespace with its own `/proc` would hide the
//!   other processes altogether; it is not built.
//! - **The confining thread**, confined from a thread of the server, shares the command's
//!   Landlock domain until it ends, which it does as soon as the command is started: for
//!   that instant (tens of microseconds, against the millisecond a shell takes to start) a
//!   command that already knew the thread's id could signal it, and so the server. The
//!   helper path has no such instant.
//! - **A process that leaves the command's process group** (`setsid`, `setpgid`) is not
//!   ended with the call: it keeps running under the same sandbox (it can write where the
//!   call could, and nowhere else). Refusing those calls would refuse the spawn of the
//!   command itself, which makes its group the same way.
//! - **Descriptors the server inherited** without close-on-exec from whatever started it
//!   reach the command (Landlock does not govern descriptors already open); the server's
//!   own are all close-on-exec.
//! - **Hosts**: Landlock's network rights govern ports, not addresses: with an allow-list,
//!   a command can connect to the proxy's port number on any address (the kernel picks the
//!   port at random when the proxy starts; nothing else of the host is reachable). Clients
//!   that ignore the proxy variables reach nothing. The proxy resolves names itself and
//!   connects a listed name to its public addresses only, as the web tool judges them: a
//!   name that resolves to a loopback, private, link-local or metadata address is refused
//!   (list the address itself to reach it). Any local process can use the proxy, to the
//!   same listed hosts.

// Where no sandbox exists (Windows), `bash` is refused before a plan is applied, so the
// machinery that makes and applies plans is built (and type-checked) but not used.
#![cfg_attr(
    not(any(target_os = "linux", target_os = "macos")),
    allow(dead_code, unused_variables)
)]

#[cfg(target_os = "linux")]
mod apply;
mod entry;
mod guardian;
mod launch;
mod plan;
mod probe;
mod proxy;
mod seatbelt;
#[cfg(target_os = "linux")]
mod seccomp;
#[cfg(target_os = "linux")]
mod spawner;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

#[cfg(target_os = "linux")]
use apply::fits_a_thread;
pub(crate) use entry::{Launched, Program, Sandbox};
pub(crate) use guardian::Guarded;
pub use guardian::{GUARDIAN_ARG0, guardian_error, guardian_pid, start_guardian};
pub(crate) use launch::{Group, Stop, program_path};
use plan::{CallDir, Plan, PlanOptions, build as build_plan, created_protected};
pub use probe::{Confinement, SandboxStatus};
use proxy::port_for as proxy_port_for;
pub use proxy::{MAX_PROXIES, MAX_PROXY_CONNECTIONS, MAX_PROXY_HEAD};

use crate::trust::command::{CommandLine, CommandPattern};
use crate::trust::net::HostPattern;

/// Whether the standard tools start programs on this system: on Unix (Linux, macOS). On
/// Windows `bash` (and every tool that starts a program) is refused, sandbox on or off: no
/// sandbox confines a command there yet, and a command's children are ended with it through
/// its process group, which Windows does not have.
pub const COMMANDS_RUN_HERE: bool = cfg!(unix);

/// The `argv[0]` the helper is started with; [`dispatch`] recognises it.
pub const HELPER_ARG0: &str = "toolsmith-bash-sandbox";

/// The name of this crate's helper program, looked for beside the executable when
/// [`SandboxConfig::helper`] is `None` and [`dispatch`] was not called.
pub const HELPER_PROGRAM: &str = "toolsmith-sandbox-helper";

/// The exit code of a helper that could not set the sandbox up (the command did not run);
/// its stderr then starts with [`HELPER_FAILED_PREFIX`].
pub const HELPER_FAILED: i32 = 125;

/// How a helper's stderr starts when it could not set the sandbox up.
pub const HELPER_FAILED_PREFIX: &str = "toolsmith sandbox: ";

/// The environment variable that makes [`SandboxConfig::status`] answer "unavailable" with its
/// value as the reason: a test switch for the fail-closed path.
pub const FORCE_UNAVAILABLE_ENV: &str = "TOOLSMITH_SANDBOX_FORCE_UNAVAILABLE";

/// Paths a command may not read, relative to the home directory (`$HOME`) of the server.
pub const DEFAULT_DENY_READ: &[&str] = &[
    ".ssh",
    ".aws",
    ".config/gh",
    ".netrc",
    ".gnupg",
    ".git-credentials",
    ".kube",
    ".azure",
    ".config/gcloud",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".pypirc",
];

/// The paths inside read-write roots that commands may read but not change, as globs over
/// the path relative to the root, matched at any depth (as the workspace's protected
/// patterns are).
pub const DEFAULT_PROTECTED: &[&str] = &[".git/hooks", ".git/config", ".env", ".env.*"];

/// The most Landlock rules the read grants of one call may need (see the module
/// documentation); a deny list needing more is refused.
pub const MAX_READ_RULES: usize = 8_192;

/// The most entries looked at per read-write root when looking for protected paths.
pub const MAX_PROTECTED_WALK: usize = 20_000;

/// The deepest level looked at per read-write root when looking for protected paths.
pub const MAX_PROTECTED_DEPTH: usize = 12;

/// The most bind mounts one call makes (protected paths, their directories, masks).
pub const MAX_BINDS: usize = 1_024;

/// Whether `bash` runs its commands in the sandbox.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum SandboxMode {
    /// Every command runs in the sandbox; where it is unavailable, `bash` refuses to run.
    #[default]
    On,
    /// Commands run with the server's own rights (`--bash-sandbox off`).
    Off,
}

impl std::str::FromStr for SandboxMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "on" => Ok(SandboxMode::On),
            "off" => Ok(SandboxMode::Off),
            other => Err(format!(
                "`{other}` is not a sandbox mode; use `on` or `off`"
            )),
        }
    }
}

/// The sandbox's configuration, a part of [`ShellConfig`](crate::shell::ShellConfig).
///
/// ```
/// use tool_std::shell::ShellConfig;
/// use tool_std::trust::sandbox::SandboxMode;
///
/// let mut config = ShellConfig::default();
/// assert!(config.runs_sandboxed());
/// config.sandbox.network = true;
/// config.sandbox.deny_read.push("/srv/other-tenant".into());
/// config.sandbox.mode = SandboxMode::Off;
/// assert!(!config.runs_sandboxed());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SandboxConfig {
    /// On (the default) or off.
    pub mode: SandboxMode,
    /// Whether commands may open `AF_INET`/`AF_INET6` sockets (default `false`).
    pub network: bool,
    /// Command patterns that get the network when [`network`](Self::network) is off
    /// (`cargo fetch*`, `npm install*`): a command line gets it when every simple command in
    /// it matches one, word by word as an `allow` rule of `tool_std::trust::rules` matches
    /// (`cargo fetch && curl x` does not).
    pub network_for: Vec<String>,
    /// Hosts commands may reach while the network is off for them (`crates.io`,
    /// `*.github.com` for any name beneath it, an address, each optionally with `:port`):
    /// they go through a proxy of this process on `127.0.0.1` (`http_proxy`, `https_proxy`
    /// and `all_proxy` point there), which connects to listed hosts only; the command's own
    /// TCP connections may go to the proxy's port only, and it has no UDP (so no DNS of its
    /// own). Clients that ignore the proxy variables reach nothing. See
    /// [`check_network_hosts`](Self::check_network_hosts).
    pub network_hosts: Vec<String>,
    /// Whether commands may make `AF_UNIX` sockets with `socket` (default `false`;
    /// `socketpair`, which reaches nothing outside, always works). A named or abstract socket
    /// reaches the services of the host listening on it: the user's systemd manager
    /// (`systemd-run --user` starts a process outside the sandbox), the D-Bus session bus
    /// (the keyring), Docker's socket (root on the host), ssh and gpg agents. Landlock does
    /// not govern connecting to a socket by its path, so only allow them for commands you
    /// would trust with those services (`--bash-unix-sockets`).
    pub unix_sockets: bool,
    /// Paths commands may not read, beyond [`DEFAULT_DENY_READ`]; a path starting with `~/`
    /// is taken beneath the server's home directory. Paths that do not exist are skipped.
    pub deny_read: Vec<PathBuf>,
    /// The protected patterns (default [`DEFAULT_PROTECTED`]).
    pub protected: Vec<String>,
    /// The helper program; `None`: this process's own executable, which must call
    /// [`dispatch`] at the top of `main`.
    pub helper: Option<PathBuf>,
    /// Whether a command is confined from a thread of this process made for it, when the
    /// kernel allows that (default `true`): always when the call mounts nothing, and in a
    /// process running as root. Otherwise, and with `false`, the helper program confines
    /// itself and `exec`s the shell, which costs a program start per call.
    pub confine_in_process: bool,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        SandboxConfig {
            mode: SandboxMode::On,
            network: false,
            network_for: Vec::new(),
            network_hosts: Vec::new(),
            unix_sockets: false,
            deny_read: Vec::new(),
            protected: DEFAULT_PROTECTED.iter().map(|s| (*s).to_owned()).collect(),
            helper: None,
            confine_in_process: true,
        }
    }
}

impl SandboxConfig {
    /// Whether the commands of `bash` calls run in the sandbox: `true` unless the mode is
    /// [`SandboxMode::Off`]. When the sandbox is on but unavailable, calls are refused; they
    /// never run unsandboxed.
    pub fn runs_sandboxed(&self) -> bool {
        self.mode == SandboxMode::On
    }

    /// Whether `line` may use the network: [`network`](Self::network), or every part of it
    /// matches a pattern of [`network_for`](Self::network_for).
    pub fn network_for_command(&self, line: &CommandLine) -> bool {
        if self.network {
            return true;
        }
        let patterns: Vec<CommandPattern> = self
            .network_for
            .iter()
            .map(|p| CommandPattern::new(p))
            .collect();
        line.every_part_matches(&patterns)
    }

    /// Checks every entry of [`network_hosts`](Self::network_hosts); the error names the
    /// first bad one and says what to write.
    pub fn check_network_hosts(&self) -> Result<(), String> {
        self.network_hosts
            .iter()
            .try_for_each(|h| check_network_host(h))
    }

    /// The helper program: [`SandboxConfig::helper`]; else this executable when its `main`
    /// called [`dispatch`]; else a program named [`HELPER_PROGRAM`] beside this executable or
    /// in the directory above it (where cargo puts a package's programs beside its test
    /// binaries in `deps/`).
    pub fn helper_program(&self) -> Result<PathBuf, String> {
        helper_program_for(self.helper.as_deref())
    }

    /// Whether the sandbox works here, found by running the helper once (the answer is kept
    /// for the rest of the process) and by [`FORCE_UNAVAILABLE_ENV`]. With the mode
    /// [`SandboxMode::Off`] the status says so without running anything.
    pub fn status(&self) -> SandboxStatus {
        probe::status(self)
    }

    /// The paths a command may not read: the defaults beneath `$HOME`, then
    /// [`SandboxConfig::deny_read`] (`~/` expanded).
    pub fn denied_paths(&self) -> Vec<PathBuf> {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let mut out: Vec<PathBuf> = match &home {
            Some(h) if h.is_absolute() => DEFAULT_DENY_READ.iter().map(|p| h.join(p)).collect(),
            _ => Vec::new(),
        };
        for p in &self.deny_read {
            match (p.strip_prefix("~"), &home) {
                (Ok(rest), Some(h)) => out.push(h.join(rest)),
                (Ok(_), None) => {}
                (Err(_), _) => out.push(p.clone()),
            }
        }
        out
    }
}

/// The helper program: `helper` when given, else as [`SandboxConfig::helper_program`] finds it.
fn helper_program_for(helper: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(helper) = helper {
        return Ok(helper.to_path_buf());
    }
    let exe =
        std::env::current_exe().map_err(|e| format!("cannot find this program's path: {e}"))?;
    if DISPATCHED.load(Ordering::Relaxed) {
        return Ok(exe);
    }
    let beside = exe.parent().map(|d| d.join(HELPER_PROGRAM));
    let above = exe
        .parent()
        .and_then(Path::parent)
        .map(|d| d.join(HELPER_PROGRAM));
    [beside, above]
        .into_iter()
        .flatten()
        .find(|p| p.is_file())
        .ok_or_else(|| {
            "this program never called tool_std::trust::sandbox::dispatch(), so it cannot \
             serve as the sandbox's helper, and no toolsmith-sandbox-helper program is \
             beside it; call dispatch() at the top of main, or set \
             ShellConfig.sandbox.helper to a program that does"
                .to_owned()
        })
}

/// Checks one entry of [`SandboxConfig::network_hosts`]: a name (`crates.io`), `*.` and a
/// domain (`*.github.com`), an address (`127.0.0.1`, `[::1]`), each optionally with
/// `:port`. The error says what is wrong and what to write.
pub fn check_network_host(host: &str) -> Result<(), String> {
    HostPattern::parse(host).map(drop)
}

static DISPATCHED: AtomicBool = AtomicBool::new(false);

/// The sandbox helper's entry point: call it first thing in `main`, before any thread or async
/// runtime starts.
///
/// In a process started as the helper (`argv[0]` is [`HELPER_ARG0`]) it restricts the process
/// as its arguments say and `exec`s the shell; started as the guardian ([`GUARDIAN_ARG0`]) it
/// watches the server's programs until the server ends; either way it never returns. In any
/// other process it returns at once, and records that this executable can serve as the
/// helper and the guardian, so that [`SandboxConfig::helper`] may stay `None`.
pub fn dispatch() {
    let arg0 = std::env::args_os().next();
    #[cfg(target_os = "linux")]
    if arg0.as_deref().is_some_and(|a| a == HELPER_ARG0) {
        apply::helper_main();
    }
    if arg0.as_deref().is_some_and(|a| a == GUARDIAN_ARG0) {
        guardian::guardian_main();
    }
    DISPATCHED.store(true, Ordering::Relaxed);
}
