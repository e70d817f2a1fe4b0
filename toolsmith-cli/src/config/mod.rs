//! `toolsmith.toml`: what the flags hold (roots, stores, agent, selection, bash, web and
//! serve settings), the `code` tool's language servers, plus the permission rules and the
//! principals with their tokens.
//!
//! **Where it is found**: `--config PATH`; else `./toolsmith.toml`; else `toolsmith.toml` in
//! the first root the command line names (`--root`), so that a host starting the server from
//! its own directory with `--root /path/to/project` gets the project's file. Every command says
//! on stderr which file it read (`config: PATH`) or that it read none.
//!
//! A flag given on the command line wins over the file. Unknown keys and bad values are errors
//! naming the file, line and column, the key, what it takes and an example; every mistake of
//! the file is reported at once, and nothing is ignored. [`keys::KEYS`] lists every key.
//!
//! ```toml
//! roots = ["app=.", "docs=../docs"]
//! read_only_roots = ["vendor=../vendor"]
//! agent = "Sage"
//!
//! [bash]
//! timeout = 10
//! sandbox = "on"
//!
//! [web]
//! searxng_url = "http://127.0.0.1:8888"
//!
//! [code.servers]
//! c = ["clangd", "--background-index"]
//!
//! [rules]
//! allow = ["bash(cargo test*)", "create_file(src/**)", "web(fetch:docs.rs)"]
//! ask = ["bash(git push*)"]
//! deny = ["delete_file(**)"]
//! sandboxed_bash = "allow"
//!
//! [[principal]]
//! name = "ci"
//! token_sha256 = "4018f2c453d7f1759976378a3f77e1e166b54b7d108f90288d43b7c9643304f6"
//! agent = "Builder"
//! roots = ["app"]
//! ```
//!
//! Relative paths in the file are relative to the file's directory.

mod check;
mod code;
mod errors;
mod file;
pub(crate) mod keys;
mod message;

use std::ops::Range;
use std::path::{Path, PathBuf};

pub(crate) use file::{AllowAsk, ConfigFile, LogFormatKey, OnOff, RulesSection};
use toml::Spanned;

use crate::args::GlobalOptions;

/// The file read when `--config` is not given, if it exists.
pub(crate) const DEFAULT_CONFIG: &str = "toolsmith.toml";
/// The largest configuration file read.
const MAX_CONFIG_BYTES: u64 = 1024 * 1024;
/// The shortest token accepted in the file (characters).
pub(crate) const MIN_TOKEN_CHARS: usize = 32;
/// The most principals one file names.
const MAX_PRINCIPALS: usize = 256;

/// A configuration file, read and checked.
#[derive(Debug, Default)]
pub(crate) struct Config {
    /// Where it came from (`None`: there is no file).
    pub(crate) path: Option<PathBuf>,
    /// Its text, for the lines of later errors.
    text: String,
    pub(crate) file: ConfigFile,
}

/// Configuration errors, one `file:line:column: message` a line.
#[derive(Debug)]
pub(crate) struct ConfigError(pub(crate) String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl ConfigError {
    /// Several errors as one, a line each, counted when there are more than one.
    pub(crate) fn all(errors: Vec<ConfigError>) -> ConfigError {
        let n = errors.len();
        let mut lines: Vec<String> = errors.into_iter().map(|e| e.0).collect();
        if n > 1 {
            lines.push(format!(
                "{n} problems in the configuration; fix them all and run again"
            ));
        }
        ConfigError(lines.join("\n"))
    }
}

impl Config {
    /// Finds and reads the file: `explicit` (`--config`), else `./toolsmith.toml`, else
    /// `toolsmith.toml` in `first_root` (the first `--root`); no file at all is the defaults.
    pub(crate) fn load(
        explicit: Option<&Path>,
        first_root: Option<&Path>,
    ) -> Result<Config, ConfigError> {
        let Some(path) = Config::find(explicit, first_root) else {
            return Ok(Config::default());
        };
        let text = read(&path)?;
        Config::parse(&path, text)
    }

    /// Where the file is, as [`load`](Self::load) looks for it.
    pub(crate) fn find(explicit: Option<&Path>, first_root: Option<&Path>) -> Option<PathBuf> {
        if let Some(p) = explicit {
            return Some(p.to_path_buf());
        }
        let here = Path::new(DEFAULT_CONFIG);
        if here.is_file() {
            return Some(here.to_path_buf());
        }
        first_root
            .map(|root| root.join(DEFAULT_CONFIG))
            .filter(|p| p.is_file())
    }

    /// The line every command prints about the file: `config: PATH`, or that there is none.
    pub(crate) fn notice(&self) -> String {
        match &self.path {
            Some(p) => format!("config: {}", p.display()),
            None => format!(
                "no {DEFAULT_CONFIG} (looked in the current directory and the first root); \
                 defaults"
            ),
        }
    }

    /// Parses and checks a file's text; the error holds every mistake, a line each.
    pub(crate) fn parse(path: &Path, text: String) -> Result<Config, ConfigError> {
        let (file, mistakes) = errors::shape(&text);
        // The mistakes in order of their place in the file; the checks of what is left after.
        let mut found: Vec<(usize, ConfigError)> = mistakes
            .into_iter()
            .map(|m| {
                let at = m.at.map(|at| position(&text, at));
                (m.at.unwrap_or(0), located(path, at, &m.message))
            })
            .collect();
        let config = Config {
            path: Some(path.to_path_buf()),
            text,
            file: file.unwrap_or_default(),
        };
        let mut checked = Vec::new();
        config.check(&mut checked);
        found.extend(checked);
        if found.is_empty() {
            return Ok(config);
        }
        found.sort_by_key(|(at, _)| *at);
        Err(ConfigError::all(
            found.into_iter().map(|(_, e)| e).collect(),
        ))
    }

    /// An error at `span` of the file.
    pub(crate) fn error_at(&self, span: Range<usize>, message: &str) -> ConfigError {
        let path = self.path.as_deref().unwrap_or(Path::new(DEFAULT_CONFIG));
        located(path, Some(position(&self.text, span.start)), message)
    }

    /// The file's directory, which its relative paths are relative to.
    pub(crate) fn dir(&self) -> PathBuf {
        self.path
            .as_deref()
            .and_then(Path::parent)
            .filter(|d| !d.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
    }

    /// The rule sections a runtime applies: the file's `[rules]`, and for a principal its own
    /// after them.
    pub(crate) fn rule_sections(&self, principal: Option<&str>) -> Vec<&RulesSection> {
        let mut sections: Vec<&RulesSection> = self.file.rules.iter().collect();
        if let Some(name) = principal {
            let own = self
                .file
                .principals
                .iter()
                .find(|p| p.name.get_ref() == name)
                .and_then(|p| p.rules.as_ref());
            sections.extend(own);
        }
        sections
    }

    /// Fills the tool selection the command line left unset from `[select]`.
    pub(crate) fn fill_selection(&self, s: &mut crate::args::SelectionArgs) {
        let Some(file) = &self.file.select else {
            return;
        };
        let fill = |flag: &mut Vec<String>, key: &Option<Vec<String>>| {
            if flag.is_empty() {
                flag.clone_from(key.as_ref().unwrap_or(&Vec::new()));
            }
        };
        fill(&mut s.toolsets, &file.toolsets);
        fill(&mut s.tools, &file.tools);
        fill(&mut s.exclude_tools, &file.exclude_tools);
    }

    /// Fills what the command line left unset from the file.
    pub(crate) fn apply(&self, o: &mut GlobalOptions) {
        let f = &self.file;
        let dir = self.dir();
        let in_dir = |spec: &str| -> String {
            // `NAME=DIR` or `DIR`; a relative DIR is relative to the file.
            let (name, d) = match spec.split_once('=') {
                Some((n, d)) if !n.is_empty() && !n.contains(['/', '\\']) => (Some(n), d),
                _ => (None, spec),
            };
            let d = dir.join(d);
            match name {
                Some(n) => format!("{n}={}", d.display()),
                None => d.display().to_string(),
            }
        };
        if o.roots.is_empty() && o.read_only_roots.is_empty() {
            let list = |v: &Option<Vec<Spanned<String>>>| -> Vec<String> {
                v.iter().flatten().map(|r| in_dir(r.get_ref())).collect()
            };
            o.roots = list(&f.roots);
            o.read_only_roots = list(&f.read_only_roots);
        }
        if o.store.is_none() {
            o.store = match &f.store {
                Some(file::StoreKey::Path(p))
                    if p.to_str().is_some_and(crate::stores::is_postgres_url) =>
                {
                    Some(p.clone())
                }
                Some(file::StoreKey::Path(p)) => Some(dir.join(p)),
                Some(file::StoreKey::Table(t)) => t.url.as_ref().map(PathBuf::from),
                None => None,
            };
        }
        if let Some(file::StoreKey::Table(t)) = &f.store {
            o.store_lease = o.store_lease.or(t.lease);
        }
        if o.activity_store.is_none() {
            o.activity_store = f.activity_store.as_ref().map(|s| {
                if s == "memory" {
                    s.clone()
                } else {
                    dir.join(s).display().to_string()
                }
            });
        }
        o.activity_max_records = o
            .activity_max_records
            .or(f.activity_max_records.as_ref().map(|n| *n.get_ref()));
        o.activity_max_age_days = o
            .activity_max_age_days
            .or(f.activity_max_age_days.as_ref().map(|n| *n.get_ref()));
        o.activity_max_mib = o
            .activity_max_mib
            .or(f.activity_max_mib.as_ref().map(|n| *n.get_ref()));
        if o.mode.is_none() {
            o.mode = f.mode.as_ref().map(|m| m.get_ref().clone());
        }
        if o.agent.is_none() {
            o.agent.clone_from(&f.agent);
        }
        o.approve |= f.approve.unwrap_or(false);
        if let Some(b) = &f.bash {
            o.bash_timeout = o.bash_timeout.or(b.timeout.as_ref().map(|t| *t.get_ref()));
            o.bash_max_timeout = o
                .bash_max_timeout
                .or(b.max_timeout.as_ref().map(|t| *t.get_ref()));
            if o.bash_allow.is_empty() {
                o.bash_allow = b.allow.clone().unwrap_or_default();
            }
            o.no_bash |= b.enabled == Some(false);
            if o.bash_sandbox.is_none() {
                o.bash_sandbox = b.sandbox.map(|m| match m {
                    OnOff::On => tool_std::shell::SandboxMode::On,
                    OnOff::Off => tool_std::shell::SandboxMode::Off,
                });
            }
            o.bash_network |= b.network.unwrap_or(false);
            o.bash_unix_sockets |= b.unix_sockets.unwrap_or(false);
            if o.bash_network_for.is_empty() {
                o.bash_network_for = b.network_for.clone().unwrap_or_default();
            }
            if o.bash_network_hosts.is_empty() {
                o.bash_network_hosts = b
                    .network_hosts
                    .iter()
                    .flatten()
                    .map(|h| h.get_ref().clone())
                    .collect();
            }
        }
        if let Some(s) = &f.search {
            o.search_max_file_bytes = o
                .search_max_file_bytes
                .or(s.max_file_bytes.as_ref().map(|b| *b.get_ref()));
        }
        if let Some(w) = &f.web {
            if o.searxng_url.is_none() {
                o.searxng_url.clone_from(&w.searxng_url);
            }
            if o.allow_hosts.is_empty() {
                o.allow_hosts = w.allow_hosts.clone().unwrap_or_default();
            }
            o.search_limit = o.search_limit.or(w.search_limit);
            o.search_window = o
                .search_window
                .or(w.search_window.as_ref().map(|s| *s.get_ref()));
        }
    }
}

fn read(path: &Path) -> Result<String, ConfigError> {
    use std::io::Read;
    let shown = path.display();
    let file = std::fs::File::open(path)
        .map_err(|e| ConfigError(format!("cannot read the configuration {shown}: {e}")))?;
    let mut text = String::new();
    file.take(MAX_CONFIG_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| ConfigError(format!("cannot read the configuration {shown}: {e}")))?;
    if text.len() as u64 > MAX_CONFIG_BYTES {
        return Err(ConfigError(format!(
            "{shown} is over {MAX_CONFIG_BYTES} bytes; a configuration is smaller"
        )));
    }
    Ok(text)
}

/// 1-based line and column of byte `at`.
fn position(text: &str, at: usize) -> (usize, usize) {
    let at = at.min(text.len());
    let before = &text[..text.floor_char_boundary(at)];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

fn located(path: &Path, at: Option<(usize, usize)>, message: &str) -> ConfigError {
    let message = message.trim_end();
    ConfigError(match at {
        Some((line, column)) => format!("{}:{line}:{column}: {message}", path.display()),
        None => format!("{}: {message}", path.display()),
    })
}

/// The SHA-256 of `text`, in lowercase hex.
pub(crate) fn sha256_hex(text: &str) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_lines_and_columns() {
        assert_eq!(position("a\nbc = 1\n", 3), (2, 2));
        assert_eq!(position("x", 0), (1, 1));
        assert_eq!(position("é = 1", 3), (1, 3));
    }

    #[test]
    fn hashes_are_sha256_in_hex() {
        assert_eq!(
            sha256_hex("test"),
            "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
        );
    }
}
