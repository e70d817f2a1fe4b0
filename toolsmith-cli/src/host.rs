//! What the command line's options set up: the workspace and its roots, and the agent store's
//! path.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::args::GlobalOptions;

/// A workspace root from `--root` or `--read-only-root`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Root {
    /// The project name (the directory's name unless given as `NAME=DIR`).
    pub(crate) name: String,
    /// The directory.
    pub(crate) dir: PathBuf,
    /// Whether tools may write under it.
    pub(crate) writable: bool,
}

/// Parses `DIR` or `NAME=DIR`.
pub(crate) fn parse_root(spec: &str, writable: bool) -> Result<Root, String> {
    let (name, dir) = match spec.split_once('=') {
        Some((name, dir)) if !name.is_empty() && !name.contains(['/', '\\']) => {
            (Some(name.to_owned()), PathBuf::from(dir))
        }
        _ => (None, PathBuf::from(spec)),
    };
    if dir.as_os_str().is_empty() {
        return Err(format!(
            "root `{spec}` names no directory; use DIR or NAME=DIR"
        ));
    }
    let name = match name {
        Some(n) => n,
        None => dir
            .canonicalize()
            .ok()
            .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "root".to_owned()),
    };
    Ok(Root {
        name,
        dir,
        writable,
    })
}

/// The roots the options name; the current directory, read-write, when none is given.
pub(crate) fn roots(options: &GlobalOptions) -> Result<Vec<Root>, String> {
    let mut roots = Vec::new();
    for r in &options.roots {
        roots.push(parse_root(r, true)?);
    }
    for r in &options.read_only_roots {
        roots.push(parse_root(r, false)?);
    }
    if roots.is_empty() {
        roots.push(parse_root(".", true)?);
    }
    Ok(roots)
}

/// The workspace the file, search and shell tools work in: the roots the options name.
pub(crate) fn workspace(options: &GlobalOptions) -> Result<tool_std::workspace::Workspace, String> {
    workspace_of(options, roots(options)?)
}

/// The workspace of `roots`, the server's own files hidden in it.
pub(crate) fn workspace_of(
    options: &GlobalOptions,
    roots: Vec<Root>,
) -> Result<tool_std::workspace::Workspace, String> {
    let hidden = own_files(options, &roots);
    let mut builder = tool_std::workspace::Workspace::builder().hidden(hidden);
    for root in roots {
        builder = if root.writable {
            builder.root(root.name, &root.dir)
        } else {
            builder.read_only_root(root.name, &root.dir)
        };
    }
    builder.build().map_err(|e| match e {
        tool_std::workspace::WorkspaceError::DuplicateName(name) => {
            format!("two roots are named `{name}`; name them apart with --root NAME=DIR")
        }
        e => e.to_string(),
    })
}

/// The server's own files inside the roots, as `root:glob` specifiers hiding them from every
/// tool: the `.toolsmith` directory (or the stores given elsewhere, with their SQLite side
/// files and the record of used approvals) and the configuration file. A tool could otherwise
/// read the tokens' hashes, empty the activity record, or rewrite its own rules.
pub(crate) fn own_files(options: &GlobalOptions, roots: &[Root]) -> Vec<String> {
    let mut files: Vec<PathBuf> = Vec::new();
    let store = store_path(options, roots);
    match store.parent() {
        Some(dir) if dir.file_name() == Some(std::ffi::OsStr::new(".toolsmith")) => {
            files.push(dir.to_path_buf());
        }
        _ => {
            files.extend(with_side_files(&store));
            files.push(store.with_file_name("approvals"));
        }
    }
    if let Some(activity) = activity_store_path(options, roots) {
        files.extend(with_side_files(&activity));
    }
    files.extend(options.config_found.clone());
    let mut out = Vec::new();
    for file in files {
        // Resolved through its directory: the file itself may not exist yet.
        let (Some(dir), Some(name)) = (file.parent(), file.file_name()) else {
            continue;
        };
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        let Ok(dir) = dir.canonicalize() else {
            continue;
        };
        let full = dir.join(name);
        for root in roots {
            let Ok(base) = root.dir.canonicalize() else {
                continue;
            };
            if let Ok(rel) = full.strip_prefix(&base)
                && let Some(rel) = rel.to_str()
                && !rel.is_empty()
            {
                let glob = tool_std::workspace::escape_glob(rel);
                out.push(format!("{}:{glob}", root.name));
                out.push(format!("{}:{glob}/**", root.name));
            }
        }
    }
    out
}

/// An SQLite file and its side files.
fn with_side_files(file: &Path) -> Vec<PathBuf> {
    ["", "-wal", "-shm", "-journal"]
        .iter()
        .map(|suffix| {
            let mut path = file.to_path_buf().into_os_string();
            path.push(suffix);
            PathBuf::from(path)
        })
        .collect()
}

/// The bash tool's configuration: `--bash-timeout`, `--bash-max-timeout`, `--bash-allow`,
/// `--no-bash`, `--bash-sandbox`, `--bash-network` over the defaults; the agent store is on
/// the sandbox's deny list.
pub(crate) fn shell_config(
    options: &GlobalOptions,
) -> Result<tool_std::shell::ShellConfig, String> {
    use std::time::Duration;
    let mut config = tool_std::shell::ShellConfig::default();
    if let Some(max) = options.bash_max_timeout {
        config.max_timeout = Duration::from_secs(max);
    }
    match options.bash_timeout {
        Some(default) => config.default_timeout = Duration::from_secs(default),
        // A limit below the default lowers the default with it.
        None => config.default_timeout = config.default_timeout.min(config.max_timeout),
    }
    if config.default_timeout.is_zero() || config.max_timeout.is_zero() {
        return Err("--bash-timeout and --bash-max-timeout must be at least 1 second".to_owned());
    }
    if config.default_timeout > config.max_timeout {
        return Err(format!(
            "--bash-timeout ({} s) is more than --bash-max-timeout ({} s)",
            config.default_timeout.as_secs(),
            config.max_timeout.as_secs()
        ));
    }
    config.allowed_prefixes = options.bash_allow.clone();
    config.enabled = !options.no_bash;
    config.sandbox.mode = options.bash_sandbox.unwrap_or_default();
    config.sandbox.network = options.bash_network;
    config.sandbox.unix_sockets = options.bash_unix_sockets;
    config.sandbox.network_for = options.bash_network_for.clone();
    config.sandbox.network_hosts = options.bash_network_hosts.clone();
    config
        .sandbox
        .check_network_hosts()
        .map_err(|e| format!("--bash-network-host: {e}"))?;
    // The server's own stores are not for commands to read: the agent store and the
    // activity store (with their SQLite side files), or the whole `.toolsmith` directory
    // where they are by default.
    let roots = roots(options)?;
    let mut hidden_dir = None;
    match sqlite_store(options) {
        Some(store) => {
            deny_database(&mut config, store);
            // The record of used approvals beside it (see `serve`), which a command must not
            // be able to empty.
            config
                .sandbox
                .deny_read
                .push(store.with_file_name("approvals"));
        }
        None => {
            if let Some(first) = roots.first() {
                let dir = first.dir.join(".toolsmith");
                config.sandbox.deny_read.push(dir.clone());
                hidden_dir = Some(dir);
            }
        }
    }
    if let Some(activity) = activity_store_path(options, &roots) {
        // A file inside the hidden directory is hidden with it (and cannot be mounted over
        // once the directory is).
        let inside = hidden_dir.as_ref().is_some_and(|dir| {
            activity.starts_with(dir)
                || matches!(
                    (dir.canonicalize(), activity.parent().map(Path::canonicalize)),
                    (Ok(d), Some(Ok(p))) if p.starts_with(&d)
                )
        });
        if !inside {
            deny_database(&mut config, &activity);
        }
    }
    Ok(config)
}

/// Puts an SQLite file and its side files on the sandbox's deny list.
fn deny_database(config: &mut tool_std::shell::ShellConfig, file: &Path) {
    config.sandbox.deny_read.extend(with_side_files(file));
}

/// The line `list` and `serve` print about the bash sandbox when they start.
pub(crate) fn sandbox_notice(config: &tool_std::shell::ShellConfig) -> String {
    if !config.enabled {
        return "bash: off (--no-bash)".to_owned();
    }
    format!("bash sandbox: {}", config.sandbox.status())
}

/// The SQLite agent store's path: `--store`, else (and when `--store` names Postgres)
/// `.toolsmith/agents.db` under the first root.
pub(crate) fn store_path(options: &GlobalOptions, roots: &[Root]) -> PathBuf {
    match sqlite_store(options) {
        Some(p) => p.clone(),
        None => roots
            .first()
            .map_or_else(|| Path::new(".").to_path_buf(), |r| r.dir.clone())
            .join(".toolsmith")
            .join("agents.db"),
    }
}

/// `--store` when it names a file (not a Postgres URL).
fn sqlite_store(options: &GlobalOptions) -> Option<&PathBuf> {
    options
        .store
        .as_ref()
        .filter(|_| crate::stores::postgres_url(options).is_none())
}

/// Where the activity records are kept in an SQLite file: `None` for `--activity-store
/// memory` and for the Postgres store (`--store postgres://...` without `--activity-store`),
/// else `--activity-store PATH`, or `activity.db` beside the agent store.
pub(crate) fn activity_store_path(options: &GlobalOptions, roots: &[Root]) -> Option<PathBuf> {
    match options.activity_store.as_deref() {
        Some("memory") => None,
        Some(path) => Some(PathBuf::from(path)),
        None if crate::stores::postgres_url(options).is_some() => None,
        None => Some(
            store_path(options, roots)
                .parent()
                .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
                .join("activity.db"),
        ),
    }
}

/// The SQLite activity store's limits from `--activity-max-records`,
/// `--activity-max-age-days` and `--activity-max-mib`.
pub(crate) fn activity_config(options: &GlobalOptions) -> tool_core::SqliteActivityConfig {
    let mut config = tool_core::SqliteActivityConfig::default();
    if let Some(n) = options.activity_max_records {
        config = config.max_records(n);
    }
    if let Some(days) = options.activity_max_age_days {
        config = config.max_age(std::time::Duration::from_secs_f64(days * 86_400.0));
    }
    if let Some(mib) = options.activity_max_mib {
        config = config.max_bytes(mib.max(1).saturating_mul(1 << 20));
    }
    config
}

/// Gives the directory of `store` a `.gitignore` that ignores everything in it, when the
/// directory is the server's own (`.toolsmith/`) and has none: its stores and their write-ahead
/// logs never show up in `git status` of the project they sit in. Best-effort.
pub(crate) fn ignore_own_dir(store: &Path) {
    let Some(dir) = store.parent() else { return };
    if dir.file_name() != Some(std::ffi::OsStr::new(".toolsmith")) {
        return;
    }
    let ignore = dir.join(".gitignore");
    if !ignore.exists() {
        let _ = std::fs::write(&ignore, "# toolsmith's own stores\n*\n");
    }
}

/// Opens the SQLite activity store at `path`, with the options' limits.
pub(crate) fn open_activity_store(
    options: &GlobalOptions,
    path: &Path,
) -> Result<tool_core::SqliteActivityStore, String> {
    let store = tool_core::SqliteActivityStore::open(path, activity_config(options))
        .map_err(|e| format!("{e} (--activity-store PATH or --activity-store memory)"))?;
    ignore_own_dir(path);
    Ok(store)
}

/// The web tool's configuration: `--searxng-url`, `--allow-host`, and the server-wide search
/// window of `--search-limit` per `--search-window`, counted in the shared Postgres store when
/// this process has opened one (`--store postgres://...`).
pub(crate) fn web_config(options: &GlobalOptions) -> Result<tool_std::web::WebConfig, String> {
    let web = tool_std::web::WebConfig::from_options(
        options.searxng_url.as_deref(),
        &options.allow_hosts,
    )
    .map_err(|e| e.to_string())?;
    let limit = options
        .search_limit
        .unwrap_or(tool_std::web::MAX_SEARCHES_PER_TURN);
    let window = options.search_window.map_or(
        tool_std::web::DEFAULT_SEARCH_WINDOW,
        std::time::Duration::from_secs_f64,
    );
    let web = web.with_search_window(limit, window);
    Ok(match crate::stores::opened_postgres() {
        Some(shared) => web.with_shared_search_window(Arc::new(shared)),
        None => web,
    })
}

/// The search tools' configuration: `--search-max-file-bytes` (`[search] max_file_bytes`).
pub(crate) fn search_config(options: &GlobalOptions) -> tool_std::search::SearchConfig {
    let mut config = tool_std::search::SearchConfig::default();
    if let Some(bytes) = options.search_max_file_bytes {
        config.max_file_bytes = bytes;
    }
    config
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_and_plain_roots() {
        let r = parse_root("docs=/tmp/docs", false).expect("root");
        assert_eq!(r.name, "docs");
        assert_eq!(r.dir, PathBuf::from("/tmp/docs"));
        assert!(!r.writable);
        let r = parse_root("/tmp", true).expect("root");
        assert_eq!(r.name, "tmp");
        assert!(parse_root("x=", true).is_err());
        assert!(parse_root("", true).is_err());
    }
}
