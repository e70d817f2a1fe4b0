//! [`ShellConfig`]: what the host allows the `bash` tool, a host service.
//!
//! The host puts one in the runtime's services to switch the tool off, limit it to commands
//! that start with given prefixes, change its time and output limits, or pass more of its own
//! environment to the commands. Without one the tool uses [`ShellConfig::default`]: seed 004's
//! limits (a 5 s default timeout, at most 60 s) and 30,000 characters of output for the model.

use std::sync::Arc;
use std::time::Duration;

use tool_core::ToolContext;

use super::background::BackgroundLimits;
use crate::trust::sandbox::SandboxConfig;

/// The environment variables passed to a command by default: what tools need to find
/// programs and print text, nothing that carries credentials. `LC_*` matches every locale
/// variable.
pub const DEFAULT_ENV_ALLOW: &[&str] = &[
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "LC_*", "TERM", "TZ", "TMPDIR",
    "COLUMNS", "LINES", "NO_COLOR",
];

/// The words that mark a variable's name as a secret: a name holding one of them
/// (case-insensitively) is withheld from commands unless the host names it in
/// [`ShellConfig::allowed_secrets`].
pub const SECRET_WORDS: &[&str] = &["KEY", "SECRET", "TOKEN", "PASSWORD"];

/// What the host allows the `bash` tool. Put one in the runtime's services to change it.
///
/// ```
/// use std::sync::Arc;
/// use std::time::Duration;
/// use tool_std::shell::ShellConfig;
///
/// let mut config = ShellConfig::default();
/// config.max_timeout = Duration::from_secs(300);
/// config.allowed_prefixes = vec!["cargo test".into(), "git status".into()];
/// let registry = tool_core::Registry::builder().with_inventory().build()?;
/// let _runtime = tool_core::Runtime::builder(registry).service(Arc::new(config)).build();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ShellConfig {
    /// Whether the tool runs commands at all. When `false` every call is refused with a
    /// `permission_error` and nothing runs.
    pub enabled: bool,
    /// The shell run with `-c COMMAND` (default `bash`, found on the `PATH`).
    pub shell: String,
    /// The timeout of a call that gives none (seed 004: 5 s).
    pub default_timeout: Duration,
    /// The largest `timeout` a call may ask for (seed 004: 60 s). The runtime's own deadline
    /// for a call still applies; the tool ends the command a little before it.
    pub max_timeout: Duration,
    /// How long a command has between `SIGTERM` and `SIGKILL` when it is ended.
    pub kill_grace: Duration,
    /// Characters of output the model reads (stdout and stderr together); past it the
    /// middle is left out, keeping the head and the tail, with an "omitted N lines" marker.
    pub max_output_chars: usize,
    /// Characters of one line kept; the rest of a longer line is dropped as it is read.
    pub max_line_chars: usize,
    /// When not empty, only commands whose every simple command (each part of a pipeline or
    /// list, each `$(...)`) starts with one of these prefixes run; a prefix matches whole
    /// words (`git status` allows `git status -s`, not `git statusx`).
    pub allowed_prefixes: Vec<String>,
    /// The names of host environment variables passed to commands; a name ending in `*`
    /// matches every name with that prefix. Default: [`DEFAULT_ENV_ALLOW`].
    pub env_allow: Vec<String>,
    /// Secret-looking variables (see [`SECRET_WORDS`]) passed anyway, by exact name. They are
    /// passed even when `env_allow` does not list them.
    pub allowed_secrets: Vec<String>,
    /// The operating-system sandbox commands run in ([`sandbox`](crate::trust::sandbox)): on by
    /// default, network off.
    pub sandbox: SandboxConfig,
    /// The bounds of the processes `bash` starts with `run_in_background`
    /// ([`background`](super::background)).
    pub background: BackgroundLimits,
}

impl Default for ShellConfig {
    fn default() -> Self {
        ShellConfig {
            enabled: true,
            shell: "bash".to_owned(),
            default_timeout: Duration::from_secs(5),
            max_timeout: Duration::from_secs(60),
            kill_grace: Duration::from_millis(500),
            max_output_chars: 30_000,
            max_line_chars: 4_000,
            allowed_prefixes: Vec::new(),
            env_allow: DEFAULT_ENV_ALLOW.iter().map(|s| (*s).to_owned()).collect(),
            allowed_secrets: Vec::new(),
            sandbox: SandboxConfig::default(),
            background: BackgroundLimits::default(),
        }
    }
}

impl ShellConfig {
    /// The host's configuration, or the defaults.
    pub fn of(ctx: &ToolContext) -> Arc<ShellConfig> {
        ctx.service_or_default()
    }

    /// Whether `bash` calls under this configuration run their commands in the sandbox
    /// ([`SandboxConfig::runs_sandboxed`]): what a host's approval rule can lean on to run
    /// sandboxed commands without asking. A call whose sandbox is on but unavailable is
    /// refused; it never runs unsandboxed.
    pub fn runs_sandboxed(&self) -> bool {
        self.sandbox.runs_sandboxed()
    }

    /// Whether the host variable `name` is passed to commands: allow-listed and not a secret,
    /// or a secret the host allows by name.
    pub fn passes_env(&self, name: &str) -> bool {
        if self.allowed_secrets.iter().any(|s| s == name) {
            return true;
        }
        if is_secret_name(name) {
            return false;
        }
        self.env_allow
            .iter()
            .any(|pattern| match pattern.strip_suffix('*') {
                Some(prefix) => name.starts_with(prefix),
                None => pattern == name,
            })
    }

    /// The host environment a command gets, filtered by [`ShellConfig::passes_env`]. Names
    /// or values that are not UTF-8 are left out.
    pub fn child_env(&self) -> Vec<(String, String)> {
        std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .filter(|(k, _)| self.passes_env(k))
            .collect()
    }
}

/// Whether a variable's name looks like it holds a secret ([`SECRET_WORDS`]).
pub fn is_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_WORDS.iter().any(|w| upper.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_withheld_unless_named() {
        let mut c = ShellConfig::default();
        assert!(c.passes_env("PATH"));
        assert!(c.passes_env("LC_ALL"));
        assert!(!c.passes_env("AWS_SECRET_ACCESS_KEY"));
        assert!(!c.passes_env("OPENAI_API_KEY"));
        assert!(!c.passes_env("RANDOM_OTHER"));
        c.env_allow.push("GITHUB_TOKEN".into());
        assert!(!c.passes_env("GITHUB_TOKEN"), "allow-listed but a secret");
        c.allowed_secrets.push("GITHUB_TOKEN".into());
        assert!(c.passes_env("GITHUB_TOKEN"));
        assert!(is_secret_name("db_password"));
    }
}
