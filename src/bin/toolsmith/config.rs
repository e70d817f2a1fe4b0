//! `toolsmith.toml`: what the flags hold (roots, stores, agent, bash and web settings), plus
//! the permission rules and the principals with their tokens. The path is `--config`, else
//! `./toolsmith.toml` where there is one; a flag given on the command line wins over the
//! file. Unknown keys and bad values are errors naming the file, line and column, and what to
//! write instead; nothing is ignored.
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

use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Deserialize;
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

/// The file, as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ConfigFile {
    pub(crate) roots: Option<Vec<Spanned<String>>>,
    pub(crate) read_only_roots: Option<Vec<Spanned<String>>>,
    pub(crate) store: Option<PathBuf>,
    pub(crate) agent: Option<String>,
    pub(crate) approve: Option<bool>,
    pub(crate) bash: Option<BashSection>,
    pub(crate) web: Option<WebSection>,
    pub(crate) search: Option<SearchSection>,
    pub(crate) rules: Option<RulesSection>,
    pub(crate) serve: Option<ServeSection>,
    #[serde(default, rename = "principal")]
    pub(crate) principals: Vec<PrincipalSection>,
}

/// `[bash]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct BashSection {
    pub(crate) enabled: Option<bool>,
    pub(crate) timeout: Option<Spanned<u64>>,
    pub(crate) max_timeout: Option<Spanned<u64>>,
    pub(crate) allow: Option<Vec<String>>,
    pub(crate) sandbox: Option<OnOff>,
    pub(crate) network: Option<bool>,
    /// Whether commands may make UNIX sockets (`--bash-unix-sockets`).
    pub(crate) unix_sockets: Option<bool>,
    /// Command patterns that get the network (`--bash-network-for`).
    pub(crate) network_for: Option<Vec<String>>,
    /// Hosts commands reach through the proxy (`--bash-network-host`).
    pub(crate) network_hosts: Option<Vec<Spanned<String>>>,
}

/// `on` or `off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum OnOff {
    On,
    Off,
}

/// `[web]`.
/// `[search]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SearchSection {
    pub(crate) max_file_bytes: Option<Spanned<u64>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct WebSection {
    pub(crate) searxng_url: Option<String>,
    pub(crate) allow_hosts: Option<Vec<String>>,
    pub(crate) search_limit: Option<usize>,
    pub(crate) search_window: Option<Spanned<f64>>,
}

/// `[rules]`, and a principal's own.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RulesSection {
    #[serde(default)]
    pub(crate) allow: Vec<Spanned<String>>,
    #[serde(default)]
    pub(crate) ask: Vec<Spanned<String>>,
    #[serde(default)]
    pub(crate) deny: Vec<Spanned<String>>,
    /// `allow`: sandboxed `bash` calls no rule matches run without asking.
    pub(crate) sandboxed_bash: Option<AllowAsk>,
}

/// `allow` or `ask`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum AllowAsk {
    Allow,
    Ask,
}

/// `[serve]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ServeSection {
    pub(crate) http: Option<String>,
    pub(crate) token: Option<Spanned<String>>,
    pub(crate) activity: Option<bool>,
    /// The secret 2026-07-28 approval states are sealed with (the same on every replica).
    pub(crate) approval_key: Option<Spanned<String>>,
    /// Where used approval states are recorded (default `.toolsmith/approvals` beside the
    /// agent store; replicas share it).
    pub(crate) used_approvals: Option<PathBuf>,
}

/// One `[[principal]]`: who a token means.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PrincipalSection {
    pub(crate) name: Spanned<String>,
    pub(crate) token: Option<Spanned<String>>,
    pub(crate) token_sha256: Option<Spanned<String>>,
    pub(crate) agent: Option<String>,
    /// Names of the server's roots this principal may use (default: all).
    pub(crate) roots: Option<Vec<Spanned<String>>>,
    pub(crate) toolsets: Option<Vec<String>>,
    pub(crate) rules: Option<RulesSection>,
}

/// A configuration file, read and checked.
#[derive(Debug, Default)]
pub(crate) struct Config {
    /// Where it came from (`None`: there is no file).
    pub(crate) path: Option<PathBuf>,
    /// Its text, for the lines of later errors.
    text: String,
    pub(crate) file: ConfigFile,
}

/// A configuration error: `file:line:column: message`.
#[derive(Debug)]
pub(crate) struct ConfigError(pub(crate) String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Config {
    /// Reads `--config`, else `./toolsmith.toml` if present, else nothing.
    pub(crate) fn load(explicit: Option<&Path>) -> Result<Config, ConfigError> {
        let path = match explicit {
            Some(p) => p.to_path_buf(),
            None if Path::new(DEFAULT_CONFIG).is_file() => PathBuf::from(DEFAULT_CONFIG),
            None => return Ok(Config::default()),
        };
        let text = read(&path)?;
        Config::parse(&path, text)
    }

    /// Parses and checks a file's text.
    pub(crate) fn parse(path: &Path, text: String) -> Result<Config, ConfigError> {
        let file: ConfigFile = match toml::from_str(&text) {
            Ok(f) => f,
            Err(e) => {
                let at = e.span().map(|s| position(&text, s.start));
                return Err(located(path, at, e.message()));
            }
        };
        let config = Config {
            path: Some(path.to_path_buf()),
            text,
            file,
        };
        config.check()?;
        Ok(config)
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

    /// The checks serde cannot make: values in range, tokens long enough, principals
    /// distinct.
    fn check(&self) -> Result<(), ConfigError> {
        let f = &self.file;
        if let Some(bash) = &f.bash {
            for t in [&bash.timeout, &bash.max_timeout].into_iter().flatten() {
                if *t.get_ref() == 0 {
                    return Err(self.error_at(t.span(), "a timeout is at least 1 (seconds)"));
                }
            }
            for host in bash.network_hosts.iter().flatten() {
                tool_std::trust::sandbox::check_network_host(host.get_ref())
                    .map_err(|why| self.error_at(host.span(), &why))?;
            }
        }
        if let Some(b) = f.search.as_ref().and_then(|s| s.max_file_bytes.as_ref())
            && *b.get_ref() == 0
        {
            return Err(self.error_at(
                b.span(),
                "max_file_bytes is at least 1 (bytes), e.g. 4194304 for 4 MiB",
            ));
        }
        if let Some(w) = f.web.as_ref().and_then(|w| w.search_window.as_ref())
            && !(w.get_ref().is_finite() && *w.get_ref() > 0.0)
        {
            return Err(self.error_at(
                w.span(),
                "search_window is a positive number of seconds, e.g. 60 or 0.5",
            ));
        }
        if let Some(t) = f.serve.as_ref().and_then(|s| s.token.as_ref()) {
            self.check_token(t)?;
        }
        if let Some(k) = f.serve.as_ref().and_then(|s| s.approval_key.as_ref()) {
            self.check_token(k)?;
        }
        if f.principals.len() > MAX_PRINCIPALS {
            return Err(self.error_at(
                f.principals[MAX_PRINCIPALS].name.span(),
                &format!("at most {MAX_PRINCIPALS} principals are allowed"),
            ));
        }
        let mut seen: Vec<&str> = Vec::new();
        let mut hashes: Vec<(String, &str)> = Vec::new();
        for p in &f.principals {
            let name = p.name.get_ref();
            if name.trim().is_empty() {
                return Err(self.error_at(p.name.span(), "a principal's name is not empty"));
            }
            if seen.contains(&name.as_str()) {
                return Err(self.error_at(
                    p.name.span(),
                    &format!("a second principal is named `{name}`; give each its own name"),
                ));
            }
            seen.push(name);
            let hash = match (&p.token, &p.token_sha256) {
                (Some(_), Some(h)) => {
                    return Err(self.error_at(
                        h.span(),
                        "give a principal `token` or `token_sha256`, not both (prefer \
                         token_sha256: the file then holds no secret)",
                    ));
                }
                (None, None) => {
                    return Err(self.error_at(
                        p.name.span(),
                        &format!(
                            "principal `{name}` has no token; add token_sha256 = \"<the SHA-256 \
                             of its token, in hex>\" (`printf %s TOKEN | sha256sum`)"
                        ),
                    ));
                }
                (Some(t), None) => {
                    self.check_token(t)?;
                    sha256_hex(t.get_ref())
                }
                (None, Some(h)) => {
                    let hex = h.get_ref().to_ascii_lowercase();
                    if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                        return Err(self.error_at(
                            h.span(),
                            "token_sha256 is 64 hexadecimal digits, the SHA-256 of the token \
                             (`printf %s TOKEN | sha256sum`)",
                        ));
                    }
                    hex
                }
            };
            if let Some((_, other)) = hashes.iter().find(|(h, _)| *h == hash) {
                return Err(self.error_at(
                    p.name.span(),
                    &format!("principal `{name}` has the same token as `{other}`; tokens tell principals apart, so give each its own"),
                ));
            }
            hashes.push((hash, name));
        }
        Ok(())
    }

    fn check_token(&self, token: &Spanned<String>) -> Result<(), ConfigError> {
        let t = token.get_ref();
        if t.chars().count() < MIN_TOKEN_CHARS || t.chars().any(char::is_whitespace) {
            return Err(self.error_at(
                token.span(),
                &format!(
                    "a token is at least {MIN_TOKEN_CHARS} characters without spaces; make one \
                     with `openssl rand -hex 32`"
                ),
            ));
        }
        Ok(())
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
            o.store = f.store.as_ref().map(|s| dir.join(s));
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
