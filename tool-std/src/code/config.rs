//! [`CodeConfig`]: which language server serves which language, and the limits of the `code`
//! tool, a host service.
//!
//! `toolsmith.toml` sets the servers per language (`[code.servers] c = ["clangd"]`); without
//! a setting, the first of [`DEFAULT_SERVERS`]' commands for the language that is found on the
//! `PATH` is used.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use tool_core::ToolContext;

use crate::trust::sandbox::{SandboxConfig, program_path};

/// The languages the tool knows by file name: the LSP language id, and the file extensions
/// that are of it.
pub const LANGUAGES: &[(&str, &[&str])] = &[
    ("c", &["c", "h"]),
    (
        "cpp",
        &["cc", "cpp", "cxx", "c++", "hh", "hpp", "hxx", "h++", "ipp"],
    ),
    ("python", &["py", "pyi"]),
    ("rust", &["rs"]),
    ("go", &["go"]),
    ("typescript", &["ts", "tsx", "mts", "cts"]),
    ("javascript", &["js", "jsx", "mjs", "cjs"]),
];

/// The commands tried per language when the host configures none, in order: the first whose
/// program is on the `PATH` serves it.
pub const DEFAULT_SERVERS: &[(&str, &[&[&str]])] = &[
    ("c", &[&["clangd"]]),
    ("cpp", &[&["clangd"]]),
    (
        "python",
        &[
            &["pylsp"],
            &["pyright-langserver", "--stdio"],
            &["basedpyright-langserver", "--stdio"],
        ],
    ),
    ("rust", &[&["rust-analyzer"]]),
    ("go", &[&["gopls"]]),
    ("typescript", &[&["typescript-language-server", "--stdio"]]),
    ("javascript", &[&["typescript-language-server", "--stdio"]]),
];

/// The host variables a language server gets by default: what it needs to find programs,
/// toolchains and the user's locale, nothing that carries credentials. `LC_*` matches every
/// locale variable.
pub const DEFAULT_SERVER_ENV: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LANGUAGE",
    "LC_*",
    "TZ",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN",
    "VIRTUAL_ENV",
    "PYTHONPATH",
    "GOPATH",
    "GOROOT",
    "GOFLAGS",
];

/// How long an edit's answer waits for the language server's new diagnostics of the edited
/// file (see [`CodeConfig::edit_wait`]).
pub const DEFAULT_EDIT_WAIT: Duration = Duration::from_secs(3);

/// What the host allows the `code` tool. Put one in the runtime's services (before the first
/// call: the servers are kept in a [`LanguageServers`](super::LanguageServers) table made
/// with it) to change it.
///
/// ```
/// use tool_std::code::CodeConfig;
///
/// let mut config = CodeConfig::default();
/// config.servers.insert("python".into(), vec!["pyright-langserver".into(), "--stdio".into()]);
/// assert_eq!(config.server_for("python").unwrap()[0], "pyright-langserver");
/// assert_eq!(CodeConfig::language_of("src/main.c"), Some("c"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CodeConfig {
    /// Whether the tool answers at all; when `false` every call is refused and no server
    /// starts.
    pub enabled: bool,
    /// The server command per language id (`c`, `cpp`, `python`, `rust`, ...): the program
    /// and its arguments. A language missing here gets the first of [`DEFAULT_SERVERS`] found
    /// on the `PATH` (one of them already running for the root is kept while it runs); an
    /// empty command turns the language off.
    pub servers: BTreeMap<String, Vec<String>>,
    /// More file extensions per language id (`"pyw" = "python"`), beside [`LANGUAGES`].
    pub extensions: BTreeMap<String, String>,
    /// The sandbox the servers run in: the same entry and rules as `bash`'s commands (a host
    /// gives it the shell's sandbox settings). Servers get no network unless it allows it.
    pub sandbox: SandboxConfig,
    /// The host variables a server gets (`*` at the end matches a prefix); default
    /// [`DEFAULT_SERVER_ENV`].
    pub env_allow: Vec<String>,
    /// The most servers running at once in one table; starting one more ends the one used
    /// least recently. Default 6.
    pub max_servers: usize,
    /// How long a server may go unused before it is shut down. Default 10 minutes.
    pub idle_timeout: Duration,
    /// How long a server has to start and answer `initialize`. Default 60 s (within the
    /// call's deadline).
    pub start_timeout: Duration,
    /// How long an edit's answer waits for the new diagnostics of the file it changed, when
    /// a server of its language runs: [`DEFAULT_EDIT_WAIT`]. Past it the edit answers
    /// without them.
    pub edit_wait: Duration,
    /// The most error diagnostics an edit's answer carries per file. Default 10.
    pub max_edit_diagnostics: usize,
    /// Lines a call answers when it gives no `max_results`. Default 50.
    pub default_results: usize,
    /// The largest `max_results` a call may ask for. Default 500.
    pub max_results: usize,
    /// Characters of one answer line kept (the rest is cut with `…`). Default 300.
    pub max_line_chars: usize,
    /// Characters of a hover's text kept. Default 4,000.
    pub max_hover_chars: usize,
    /// The largest message a server may send (bytes of one LSP frame's content); a larger
    /// one ends the server with an error. Default 64 MiB.
    pub max_message_bytes: usize,
    /// The largest file sent to a server (bytes). Default 4 MiB.
    pub max_file_bytes: u64,
    /// Documents kept open per server; past it the least recently used is closed. Default 200.
    pub max_open_documents: usize,
}

impl Default for CodeConfig {
    fn default() -> Self {
        CodeConfig {
            enabled: true,
            servers: BTreeMap::new(),
            extensions: BTreeMap::new(),
            sandbox: SandboxConfig::default(),
            env_allow: DEFAULT_SERVER_ENV.iter().map(|s| (*s).to_owned()).collect(),
            max_servers: 6,
            idle_timeout: Duration::from_secs(600),
            start_timeout: Duration::from_secs(60),
            edit_wait: DEFAULT_EDIT_WAIT,
            max_edit_diagnostics: 10,
            default_results: 50,
            max_results: 500,
            max_line_chars: 300,
            max_hover_chars: 4_000,
            max_message_bytes: 64 << 20,
            max_file_bytes: 4 << 20,
            max_open_documents: 200,
        }
    }
}

impl CodeConfig {
    /// The host's configuration, or the defaults.
    pub fn of(ctx: &ToolContext) -> Arc<CodeConfig> {
        ctx.service_or_default()
    }

    /// The language id of a file by its extension ([`LANGUAGES`] only; see
    /// [`language_for`](Self::language_for) for the host's extensions too).
    pub fn language_of(path: &str) -> Option<&'static str> {
        let ext = extension(path)?;
        LANGUAGES
            .iter()
            .find(|(_, exts)| exts.iter().any(|e| e.eq_ignore_ascii_case(&ext)))
            .map(|(lang, _)| *lang)
    }

    /// The language id of a file: the host's [`extensions`](Self::extensions) first, then
    /// [`LANGUAGES`].
    pub fn language_for(&self, path: &str) -> Option<String> {
        let ext = extension(path)?;
        if let Some(lang) = self
            .extensions
            .iter()
            .find(|(e, _)| e.eq_ignore_ascii_case(&ext))
            .map(|(_, lang)| lang.clone())
        {
            return Some(lang);
        }
        Self::language_of(path).map(str::to_owned)
    }

    /// The command serving `language`: the configured one, else the first default found on
    /// the `PATH` the servers get; `None` when there is none (or it is configured empty).
    pub fn server_for(&self, language: &str) -> Option<Vec<String>> {
        if let Some(command) = self.servers.get(language) {
            return (!command.is_empty()).then(|| command.clone());
        }
        let env = self.server_env();
        let (_, candidates) = DEFAULT_SERVERS.iter().find(|(l, _)| *l == language)?;
        candidates
            .iter()
            .find(|c| program_path(c[0], &env).is_absolute())
            .map(|c| c.iter().map(|s| (*s).to_owned()).collect())
    }

    /// The languages with a configured server or a default command, sorted.
    pub fn known_languages(&self) -> Vec<String> {
        let mut out: Vec<String> = DEFAULT_SERVERS
            .iter()
            .map(|(l, _)| (*l).to_owned())
            .chain(self.servers.keys().cloned())
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// The host environment a server gets, filtered by [`env_allow`](Self::env_allow).
    pub fn server_env(&self) -> Vec<(String, String)> {
        std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .filter(|(k, _)| {
                self.env_allow
                    .iter()
                    .any(|pattern| match pattern.strip_suffix('*') {
                        Some(prefix) => k.starts_with(prefix),
                        None => pattern == k,
                    })
            })
            .collect()
    }
}

/// The extension of the last component of `path`, without the dot.
fn extension(path: &str) -> Option<String> {
    let name = path.rsplit(['/', '\\', ':']).next()?;
    let (_, ext) = name.rsplit_once('.')?;
    (!ext.is_empty()).then(|| ext.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_come_from_extensions() {
        assert_eq!(CodeConfig::language_of("a/b/main.c"), Some("c"));
        assert_eq!(CodeConfig::language_of("lib:x/y.PY"), Some("python"));
        assert_eq!(CodeConfig::language_of("README"), None);
        assert_eq!(CodeConfig::language_of("dir.c/file"), None);
        let mut c = CodeConfig::default();
        c.extensions.insert("pyw".into(), "python".into());
        assert_eq!(c.language_for("x.pyw").as_deref(), Some("python"));
        assert_eq!(c.language_for("x.rs").as_deref(), Some("rust"));
    }

    #[test]
    fn an_empty_command_turns_a_language_off() {
        let mut c = CodeConfig::default();
        c.servers.insert("c".into(), Vec::new());
        assert_eq!(c.server_for("c"), None);
        c.servers.insert("c".into(), vec!["my-clangd".into()]);
        assert_eq!(c.server_for("c"), Some(vec!["my-clangd".to_owned()]));
        assert_eq!(c.server_for("cobol"), None);
    }
}
