//! Whether the sandbox works on this machine: the helper is run once in its `probe` role,
//! which applies Landlock and the seccomp filter to itself and reports what it found.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Mutex;

use super::{FORCE_UNAVAILABLE_ENV, HELPER_ARG0, SandboxConfig, SandboxMode};

/// What [`SandboxConfig::status`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SandboxStatus {
    /// The configured mode.
    pub mode: SandboxMode,
    /// Whether sandboxed commands can run: Landlock (ABI 3 or later) and seccomp both work.
    /// `false` with the mode [`SandboxMode::Off`] too.
    pub available: bool,
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

    /// Whether `bash` calls run (sandboxed, or with the sandbox off).
    pub fn runs_commands(&self) -> bool {
        self.available || self.mode == SandboxMode::Off
    }
}

impl std::fmt::Display for SandboxStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
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

/// Probe results per helper program, kept for the life of the process.
/// What a probe found: the Landlock ABI and whether mount namespaces work, or why not.
type Probe = Result<(i32, bool), String>;

static PROBED: Mutex<Vec<(PathBuf, Probe)>> = Mutex::new(Vec::new());

pub(super) fn status(config: &SandboxConfig) -> SandboxStatus {
    let mut status = SandboxStatus {
        mode: config.mode,
        available: false,
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
    let found = config.helper_program().and_then(|helper| {
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
            status.landlock_abi = Some(abi);
            status.mount_namespace = mount_namespace;
        }
        Err(reason) => status.reason = Some(reason),
    }
    status
}

fn run_probe(helper: &std::path::Path) -> Probe {
    use std::os::unix::process::CommandExt;
    let out = Command::new(helper)
        .arg0(HELPER_ARG0)
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
    Ok((abi, report["mount_namespace"] == true))
}
