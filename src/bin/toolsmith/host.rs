//! What the command line's options set up: the workspace and its roots, and the agent store's
//! path.

use std::path::{Path, PathBuf};

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
    workspace_of(roots(options)?)
}

/// The workspace of `roots`.
pub(crate) fn workspace_of(roots: Vec<Root>) -> Result<tool_std::workspace::Workspace, String> {
    let mut builder = tool_std::workspace::Workspace::builder();
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
    config.sandbox.network_for = options.bash_network_for.clone();
    // The server's own stores are not for commands to read: the agent store (with its
    // SQLite side files), or the whole `.toolsmith` directory where it is the default.
    match &options.store {
        Some(store) => {
            for suffix in ["", "-wal", "-shm", "-journal"] {
                let mut path = store.clone().into_os_string();
                path.push(suffix);
                config.sandbox.deny_read.push(PathBuf::from(path));
            }
        }
        None => {
            if let Some(first) = roots(options)?.first() {
                config.sandbox.deny_read.push(first.dir.join(".toolsmith"));
            }
        }
    }
    Ok(config)
}

/// The line `list` and `serve` print about the bash sandbox when they start.
pub(crate) fn sandbox_notice(config: &tool_std::shell::ShellConfig) -> String {
    if !config.enabled {
        return "bash: off (--no-bash)".to_owned();
    }
    format!("bash sandbox: {}", config.sandbox.status())
}

/// The agent store's path: `--store`, else `.toolsmith/agents.db` under the first root.
pub(crate) fn store_path(options: &GlobalOptions, roots: &[Root]) -> PathBuf {
    match &options.store {
        Some(p) => p.clone(),
        None => roots
            .first()
            .map_or_else(|| Path::new(".").to_path_buf(), |r| r.dir.clone())
            .join(".toolsmith")
            .join("agents.db"),
    }
}

/// The web tool's configuration: `--searxng-url`, `--allow-host`, and the server-wide search
/// window of `--search-limit` per `--search-window`.
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
    Ok(web.with_search_window(limit, window))
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
