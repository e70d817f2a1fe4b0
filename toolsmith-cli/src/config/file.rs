//! The file's shape, as serde reads it: every key [`super::keys::KEYS`] documents, and no
//! other.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;
use toml::Spanned;

/// The file, as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ConfigFile {
    pub(crate) roots: Option<Vec<Spanned<String>>>,
    pub(crate) read_only_roots: Option<Vec<Spanned<String>>>,
    pub(crate) store: Option<StoreKey>,
    pub(crate) agent: Option<String>,
    pub(crate) approve: Option<bool>,
    pub(crate) mode: Option<Spanned<String>>,
    pub(crate) log_format: Option<LogFormatKey>,
    pub(crate) activity_store: Option<String>,
    pub(crate) activity_max_records: Option<Spanned<usize>>,
    pub(crate) activity_max_age_days: Option<Spanned<f64>>,
    pub(crate) activity_max_mib: Option<Spanned<u64>>,
    pub(crate) select: Option<SelectSection>,
    pub(crate) bash: Option<BashSection>,
    pub(crate) web: Option<WebSection>,
    pub(crate) search: Option<SearchSection>,
    pub(crate) code: Option<CodeSection>,
    pub(crate) rules: Option<RulesSection>,
    pub(crate) serve: Option<ServeSection>,
    #[serde(default, rename = "principal")]
    pub(crate) principals: Vec<PrincipalSection>,
}

/// `store`: a path or URL, or the table `[store]`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(crate) enum StoreKey {
    /// `store = "PATH"` (or a URL).
    Path(PathBuf),
    /// `[store]`.
    Table(StoreSection),
}

/// `[store]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct StoreSection {
    /// A Postgres URL (`--store`).
    pub(crate) url: Option<String>,
    /// The replica's lease in seconds (`--store-lease`).
    pub(crate) lease: Option<f64>,
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

/// `text` or `json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum LogFormatKey {
    Text,
    Json,
}

/// `[select]`: the tools offered, as `--toolset`, `--tools` and `--exclude-tools`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SelectSection {
    pub(crate) toolsets: Option<Vec<String>>,
    pub(crate) tools: Option<Vec<String>>,
    pub(crate) exclude_tools: Option<Vec<String>>,
}

/// `[search]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SearchSection {
    pub(crate) max_file_bytes: Option<Spanned<u64>>,
}

/// `[code]`: the `code` tool's language servers and limits.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CodeSection {
    pub(crate) enabled: Option<bool>,
    /// `[code.servers]`: a language's server command (program first; `[]` turns it off).
    pub(crate) servers: Option<BTreeMap<String, Spanned<Vec<String>>>>,
    /// `[code.extensions]`: more file extensions, each a language's.
    pub(crate) extensions: Option<BTreeMap<String, Spanned<String>>>,
    pub(crate) max_servers: Option<Spanned<usize>>,
    /// Seconds.
    pub(crate) idle_timeout: Option<Spanned<f64>>,
    /// Seconds.
    pub(crate) start_timeout: Option<Spanned<f64>>,
    /// Seconds.
    pub(crate) edit_wait: Option<Spanned<f64>>,
    /// Host variables servers get beside the defaults.
    pub(crate) env_allow: Option<Vec<String>>,
}

/// `[web]`.
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
    /// On stdio, the activity page's address (`--activity-addr`).
    pub(crate) activity_addr: Option<String>,
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
