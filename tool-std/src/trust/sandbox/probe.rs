//! Whether the sandbox works on this machine. On Linux the helper is run once in its `probe`
//! role, which applies Landlock and the seccomp filter to itself and reports what it found;
//! on macOS `sandbox-exec` runs a program once under a profile; elsewhere there is no sandbox.

use std::path::PathBuf;
use std::sync::Mutex;

use super::{FORCE_UNAVAILABLE_ENV, SandboxConfig, SandboxMode};

/// What confines a sandboxed command on this system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Confinement {
    /// Linux: Landlock, a seccomp filter and a private mount namespace.
    Landlock,
    /// macOS: Seatbelt, through `/usr/bin/sandbox-exec` and a profile made per call from the
    /// same plan Linux applies.
    Seatbelt,
}

impl Confinement {
    /// The confinement this system offers, if any: Landlock on Linux, Seatbelt on macOS,
    /// none elsewhere (Windows: `bash` is refused unless the sandbox is turned off).
    pub const fn of_this_system() -> Option<Confinement> {
        if cfg!(target_os = "linux") {
            Some(Confinement::Landlock)
        } else if cfg!(target_os = "macos") {
            Some(Confinement::Seatbelt)
        } else {
            None
        }
    }
}

/// What [`SandboxConfig::status`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SandboxStatus {
    /// The configured mode.
    pub mode: SandboxMode,
    /// Whether sandboxed commands can run: Landlock (ABI 3 or later) and seccomp both work
    /// (Linux), `sandbox-exec` works (macOS). `false` with the mode [`SandboxMode::Off`] too.
    pub available: bool,
    /// What confines commands when the sandbox is available.
    pub confinement: Option<Confinement>,
    /// The Landlock ABI in force, when Landlock works.
    pub landlock_abi: Option<i32>,
    /// Whether a private mount namespace could be made (needed to protect paths inside
    /// read-write roots).
    pub mount_namespace: bool,
    /// Whether commands may use the network.
    pub network: bool,
    /// The hosts commands reach through the proxy while the network is off
    /// ([`SandboxConfig::network_hosts`]).
    pub network_hosts: Vec<String>,
    /// Whether commands may make UNIX sockets ([`SandboxConfig::unix_sockets`]).
    pub unix_sockets: bool,
    /// Why the sandbox is unavailable.
    pub reason: Option<String>,
}

impl SandboxStatus {
    /// Whether a command's signals reach only processes inside the sandbox, and abstract
    /// UNIX sockets outside it are out of reach: Landlock ABI 6 (Linux 6.12) or later.
    pub fn signals_scoped(&self) -> bool {
        self.landlock_abi.is_some_and(|abi| abi >= 6)
    }

    /// Whether `bash` calls run (sandboxed, or with the sandbox off); never on a system where
    /// no command runs ([`COMMANDS_RUN_HERE`](super::COMMANDS_RUN_HERE)).
    pub fn runs_commands(&self) -> bool {
        super::COMMANDS_RUN_HERE && (self.available || self.mode == SandboxMode::Off)
    }
}

impl std::fmt::Display for SandboxStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !super::COMMANDS_RUN_HERE {
            return write!(
                f,
                "none on {}: bash calls are refused, sandbox on or off (run the server on Linux, \
                 macOS or in WSL)",
                std::env::consts::OS
            );
        }
        if self.mode == SandboxMode::Off {
            return write!(
                f,
                "off (--bash-sandbox off): commands run with the server's own rights"
            );
        }
        if !self.available {
            return write!(
                f,
                "unavailable: {}; bash calls are refused (--bash-sandbox off runs them \
                 unsandboxed)",
                self.reason.as_deref().unwrap_or("unknown reason")
            );
        }
        let network = match (self.network, self.network_hosts.as_slice()) {
            (true, _) => "on".to_owned(),
            (false, []) => "off".to_owned(),
            (false, hosts) => format!("off but for {} through a proxy", hosts.join(", ")),
        };
        if self.confinement == Some(Confinement::Seatbelt) {
            return write!(
                f,
                "on (Seatbelt: sandbox-exec with a profile per call; network {network}; unix \
                 sockets {})",
                if self.unix_sockets { "on" } else { "off" },
            );
        }
        let abi = self.landlock_abi.unwrap_or(0);
        write!(
            f,
            "on (Landlock ABI {abi}, seccomp, {}; network {network}; unix sockets {})",
            if self.mount_namespace {
                "mount namespaces"
            } else {
                "no mount namespaces: calls with protected paths in a read-write root are refused"
            },
            if self.unix_sockets { "on" } else { "off" },
        )?;
        if !self.signals_scoped() {
            write!(
                f,
                "; signals and abstract sockets are not scoped before Landlock ABI 6 (Linux \
                 6.12): a command can signal the user's other processes, the server included"
            )?;
        }
        #[cfg(unix)]
        if rustix::process::geteuid().is_root() {
            write!(
                f,
                "; the server runs as root: commands have no capabilities but can still change \
                 the modes of root-owned files outside the roots (run it as another user)"
            )?;
        }
        Ok(())
    }
}

pub(super) fn status(config: &SandboxConfig) -> SandboxStatus {
    let mut status = SandboxStatus {
        mode: config.mode,
        available: false,
        confinement: None,
        landlock_abi: None,
        mount_namespace: false,
        network: config.network,
        network_hosts: config.network_hosts.clone(),
        unix_sockets: config.unix_sockets,
        reason: None,
    };
    if config.mode == SandboxMode::Off {
        return status;
    }
    if let Some(reason) = std::env::var_os(FORCE_UNAVAILABLE_ENV).filter(|v| !v.is_empty()) {
        status.reason = Some(format!(
            "{} (forced by {FORCE_UNAVAILABLE_ENV})",
            reason.to_string_lossy()
        ));
        return status;
    }
    // On Linux the helper program is what is probed; elsewhere the system's own sandbox.
    #[cfg(target_os = "linux")]
    let probed_program = config.helper_program();
    #[cfg(not(target_os = "linux"))]
    let probed_program: Result<PathBuf, String> = Ok(PathBuf::new());
    let found = probed_program.and_then(|helper| {
        let mut probed = PROBED.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, found)) = probed.iter().find(|(p, _)| *p == helper) {
            return found.clone();
        }
        let found = run_probe(&helper);
        probed.push((helper, found.clone()));
        found
    });
    match found {
        Ok((abi, mount_namespace)) => {
            status.available = true;
            status.confinement = Confinement::of_this_system();
            status.landlock_abi = abi;
            status.mount_namespace = mount_namespace;
        }
        Err(reason) => status.reason = Some(reason),
    }
    status
}

/// Probe results per helper program, kept for the life of the process: the Landlock ABI and
/// whether mount namespaces work (Linux), or why the sandbox does not work.
type Probe = Result<(Option<i32>, bool), String>;

static PROBED: Mutex<Vec<(PathBuf, Probe)>> = Mutex::new(Vec::new());

/// macOS: `sandbox-exec` runs `/usr/bin/true` under a profile that allows everything.
#[cfg(target_os = "macos")]
fn run_probe(_helper: &std::path::Path) -> Probe {
    super::seatbelt::probe().map(|()| (None, false))
}

/// No sandbox for commands exists on this system.
#[cfg(not(any(target_os = "linux", target_os = "macos")))]
fn run_probe(_helper: &std::path::Path) -> Probe {
    Err(format!(
        "no sandbox confines commands on {} in this release (Landlock on Linux and Seatbelt on \
         macOS do)",
        std::env::consts::OS
    ))
}

#[cfg(target_os = "linux")]
fn run_probe(helper: &std::path::Path) -> Probe {
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    let out = Command::new(helper)
        .arg0(super::HELPER_ARG0)
        .arg("probe")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot start the sandbox helper {}: {e}", helper.display()))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        let why = stderr
            .trim()
            .strip_prefix(super::HELPER_FAILED_PREFIX)
            .map_or_else(
                || {
                    format!(
                        "the sandbox helper {} failed ({}){}",
                        helper.display(),
                        out.status,
                        if stderr.trim().is_empty() {
                            String::new()
                        } else {
                            format!(": {}", stderr.trim())
                        }
                    )
                },
                str::to_owned,
            );
        return Err(why);
    }
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|_| {
        format!(
            "{} did not answer as the sandbox helper; does its main call \
             tool_std::trust::sandbox::dispatch() first?",
            helper.display()
        )
    })?;
    let abi = report["landlock_abi"]
        .as_i64()
        .and_then(|a| i32::try_from(a).ok())
        .ok_or("the sandbox helper's report has no Landlock ABI")?;
    Ok((Some(abi), report["mount_namespace"] == true))
}
