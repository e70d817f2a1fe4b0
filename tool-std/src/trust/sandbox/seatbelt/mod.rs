//! macOS: the Seatbelt profile a sandboxed command runs under, made from the same [`Plan`] the
//! Linux sandbox applies, and the `sandbox-exec` command line that applies it.
//!
//! Every rule of the profile is preceded by a comment naming the Linux rule it mirrors (or
//! saying that it is a grant macOS needs and Linux does not). Paths never appear in the
//! profile's text: each is a parameter (`(param "WRITE_0")`), given to `sandbox-exec` as
//! `-DWRITE_0=/path`, so no path needs quoting and the text is the same for every call with
//! the same shape (as Codex passes its roots).
//!
//! Seatbelt, unlike Landlock, can refuse beneath a grant: a later matching rule wins over an
//! earlier one, so the profile grants first (read everything, write the roots) and refuses
//! after (the deny list, the protected paths), where Linux leaves denied paths out of its read
//! grants and mounts over the protected ones. Paths are resolved first (`/var` is
//! `/private/var` on macOS, and Seatbelt matches resolved paths).

#![cfg_attr(not(target_os = "macos"), allow(dead_code))]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::plan::{BindKind, Plan};

/// The program that applies a profile and `exec`s the command.
pub(crate) const SANDBOX_EXEC: &str = "/usr/bin/sandbox-exec";

/// A profile and the values of its parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Profile {
    /// The profile's text (SBPL).
    pub(crate) text: String,
    /// `(name, path)` for each `(param "name")` of the text, in order.
    pub(crate) params: Vec<(String, String)>,
}

/// The base of every profile: refuse by default, let the shell and its children run and
/// signal each other, and the few services of the system every program needs.
const BASE: &str = r#"(version 1)

; mirrors: Landlock handles every file right and grants none but those below; seccomp's filter
; refuses the rest.
(deny default)

; mirrors: the shell is exec'd after the confinement is applied, and its children inherit it
; (the Landlock domain and the seccomp filter pass to every child).
(allow process-exec)
(allow process-fork)

; mirrors: Landlock ABI 6's signal scope: signals reach only processes inside the sandbox.
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))

; macOS only (Linux needs no grant for these): what a shell and common programs read of the
; system: kernel settings, user and group names, preferences, semaphores, terminals.
(allow sysctl-read)
(allow mach-lookup (global-name "com.apple.system.opendirectoryd.libinfo"))
(allow user-preference-read)
(allow ipc-posix-sem)
(allow pseudo-tty)
(allow file-read* file-write* file-ioctl (literal "/dev/ptmx"))
"#;

/// What a command with the network needs beyond the sockets: name resolution and the system's
/// certificate trust, as Codex's network policy grants.
const NETWORK_SERVICES: &str = r#"; macOS only: name resolution and certificate checks go through system services.
(allow system-socket)
(allow mach-lookup
  (global-name "com.apple.SystemConfiguration.DNSConfiguration")
  (global-name "com.apple.SystemConfiguration.configd")
  (global-name "com.apple.networkd")
  (global-name "com.apple.trustd.agent")
  (global-name "com.apple.SecurityServer")
  (global-name "com.apple.ocspd"))
"#;

impl Profile {
    /// The profile for `plan`, its paths resolved as this machine has them.
    pub(crate) fn of(plan: &Plan) -> Profile {
        Profile::with_paths(plan, resolved)
    }

    /// The profile for `plan`, each path taken through `path` (resolution, or none in tests).
    pub(crate) fn with_paths(plan: &Plan, path: impl Fn(&Path) -> PathBuf) -> Profile {
        let mut out = Builder {
            text: String::from(BASE),
            params: Vec::new(),
            path,
        };

        out.section(
            "Reads: everything, but the deny list.",
            "mirrors: Landlock's read grant on / (the plan's read grants).",
        );
        out.text.push_str("(allow file-read*)\n");
        out.rule(
            "mirrors: the Landlock read grants leave each denied path out (the plan's \
             deny_read).",
            "deny file-read*",
            "subpath",
            "DENY_READ",
            &plan.deny_read,
        );

        out.section(
            "Writes: the read-write roots, the call's TMPDIR and the harmless devices.",
            "mirrors: Landlock's write grants (the plan's write list).",
        );
        out.rule_always("allow file-write*", "subpath", "WRITE", &plan.write);

        let of_kind = |want: fn(&BindKind) -> bool| -> Vec<PathBuf> {
            plan.binds
                .iter()
                .filter(|b| want(&b.kind))
                .map(|b| b.path.clone())
                .collect()
        };
        let protected = of_kind(|k| matches!(k, BindKind::ReadOnly));
        let masked = of_kind(|k| matches!(k, BindKind::Mask { .. }));
        // A mount moves with its directory; a path rule does not. So the directories between
        // a root and a masked path are pinned too, or renaming one would carry the path out
        // from under its rule.
        let mut pinned = of_kind(|k| matches!(k, BindKind::Pin));
        for path in &masked {
            let Some(root) = plan.write.iter().find(|r| path.starts_with(r)) else {
                continue;
            };
            let between = path
                .ancestors()
                .skip(1)
                .take_while(|a| *a != root.as_path() && a.starts_with(root));
            pinned.extend(between.map(Path::to_path_buf));
        }
        pinned.sort();
        pinned.dedup();
        out.rule(
            "mirrors: each protected path inside a read-write root is bind-mounted read-only \
             over itself.",
            "deny file-write*",
            "subpath",
            "PROTECTED",
            &protected,
        );
        out.rule(
            "mirrors: each directory between a root and a protected path is bind-mounted onto \
             itself (a mount point cannot be renamed or removed), and a mount over a denied \
             path moves with its directory.",
            "deny file-write-unlink",
            "literal",
            "PINNED",
            &pinned,
        );
        out.rule(
            "mirrors: an empty read-only file or directory is mounted over each denied path \
             inside a read-write root.",
            "deny file-read* file-write*",
            "subpath",
            "MASKED",
            &masked,
        );

        out.section(
            "Network.",
            match (plan.network, plan.proxy_port) {
                (true, _) => "mirrors: seccomp lets AF_INET and AF_INET6 sockets be made.",
                (false, Some(_)) => {
                    "mirrors: Landlock ABI 4 lets TCP connect to the proxy's port only; seccomp \
                     refuses UDP, raw and packet sockets."
                }
                (false, None) => {
                    "mirrors: seccomp answers EPERM to AF_INET and AF_INET6 sockets (nothing is \
                     granted)."
                }
            },
        );
        match (plan.network, plan.proxy_port) {
            (true, _) => {
                out.text.push_str("(allow network*)\n");
                out.text.push_str(NETWORK_SERVICES);
            }
            (false, Some(port)) => {
                let _ = writeln!(
                    out.text,
                    "(allow network-outbound (remote ip \"localhost:{port}\"))"
                );
            }
            (false, None) => {}
        }
        if plan.unix_sockets {
            out.text.push_str(
                "; mirrors: seccomp lets socket(AF_UNIX) be made (--bash-unix-sockets).\n\
                 (allow system-socket (socket-domain AF_UNIX))\n\
                 (allow network-bind (local unix-socket))\n\
                 (allow network-outbound (remote unix-socket))\n",
            );
        } else {
            out.text.push_str(
                "; mirrors: seccomp answers EPERM to socket(AF_UNIX) (nothing is granted).\n",
            );
        }
        Profile {
            text: out.text,
            params: out.params,
        }
    }

    /// The arguments of `sandbox-exec` that run `program` with `args` under this profile.
    pub(crate) fn sandbox_exec_args(&self, program: &Path, args: &[String]) -> Vec<String> {
        let mut out = Vec::with_capacity(self.params.len() + args.len() + 4);
        out.push("-p".to_owned());
        out.push(self.text.clone());
        out.extend(self.params.iter().map(|(k, v)| format!("-D{k}={v}")));
        out.push("--".to_owned());
        out.push(program.display().to_string());
        out.extend(args.iter().cloned());
        out
    }
}

/// The profile being written.
struct Builder<F> {
    text: String,
    params: Vec<(String, String)>,
    path: F,
}

impl<F: Fn(&Path) -> PathBuf> Builder<F> {
    fn section(&mut self, title: &str, mirrors: &str) {
        let _ = writeln!(self.text, "\n; {title}");
        self.comment(mirrors);
    }

    /// `text` as comment lines of at most 96 characters.
    fn comment(&mut self, text: &str) {
        let mut line = String::from(";");
        for word in text.split_whitespace() {
            if line.len() > 1 && line.len() + 1 + word.len() > 96 {
                let _ = writeln!(self.text, "{line}");
                line = String::from(";");
            }
            line.push(' ');
            line.push_str(word);
        }
        let _ = writeln!(self.text, "{line}");
    }

    /// `(ACTION (FILTER (param "PREFIX_i")) ...)` over `paths`, after its `mirrors` comment;
    /// nothing when there are no paths.
    fn rule(&mut self, mirrors: &str, action: &str, filter: &str, prefix: &str, paths: &[PathBuf]) {
        if paths.is_empty() {
            return;
        }
        self.comment(mirrors);
        self.rule_always(action, filter, prefix, paths);
    }

    fn rule_always(&mut self, action: &str, filter: &str, prefix: &str, paths: &[PathBuf]) {
        if paths.is_empty() {
            return;
        }
        let _ = write!(self.text, "({action}");
        for (i, path) in paths.iter().enumerate() {
            let name = format!("{prefix}_{i}");
            let _ = write!(self.text, "\n  ({filter} (param \"{name}\"))");
            self.params
                .push((name, (self.path)(path).display().to_string()));
        }
        self.text.push_str(")\n");
    }
}

/// `path` resolved (links followed), as Seatbelt matches it; as given when it cannot be.
fn resolved(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Whether `sandbox-exec` works here: it runs `/usr/bin/true` under a profile allowing
/// everything.
#[cfg(target_os = "macos")]
pub(crate) fn probe() -> Result<(), String> {
    let out = std::process::Command::new(SANDBOX_EXEC)
        .args(["-p", "(version 1)(allow default)", "--", "/usr/bin/true"])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot start {SANDBOX_EXEC}: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    Err(format!(
        "{SANDBOX_EXEC} failed ({}): {} (inside another sandbox a profile cannot be applied)",
        out.status,
        String::from_utf8_lossy(&out.stderr).trim()
    ))
}

#[cfg(test)]
mod tests;
