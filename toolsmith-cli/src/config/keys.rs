//! Every key of `toolsmith.toml`, documented once: what it takes, an example, and the flag it
//! stands for. The README's table is checked against this list, and a key's error message is
//! written from it in plain words (`message.rs`).

/// One key of the file.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Key {
    /// `bash.timeout`, `principal.name` (a `[[principal]]`'s key).
    pub(crate) path: &'static str,
    /// What it takes, in words: "a whole number of seconds, at least 1".
    pub(crate) takes: &'static str,
    /// A value as the file writes it.
    pub(crate) example: &'static str,
    /// The flag it stands for, if any.
    pub(crate) flag: &'static str,
}

const fn key(
    path: &'static str,
    takes: &'static str,
    example: &'static str,
    flag: &'static str,
) -> Key {
    Key {
        path,
        takes,
        example,
        flag,
    }
}

const LIST_OF_ROOTS: &str =
    "a list of directories, each `DIR` or `NAME=DIR` (relative to the file)";

/// The keys, in the order the README lists them.
pub(crate) const KEYS: &[Key] = &[
    key(
        "roots",
        LIST_OF_ROOTS,
        r#"["app=.", "docs=../docs"]"#,
        "--root",
    ),
    key(
        "read_only_roots",
        LIST_OF_ROOTS,
        r#"["vendor=../vendor"]"#,
        "--read-only-root",
    ),
    key(
        "store",
        "the agent store's path (relative to the file), or a Postgres URL",
        r#"".toolsmith/agents.db""#,
        "--store",
    ),
    key(
        "store.url",
        "a Postgres URL: the agents, activity records, used approvals and search window of \
         every replica in one database",
        r#""postgres://toolsmith@db.internal/toolsmith""#,
        "--store",
    ),
    key(
        "store.lease",
        "a number of seconds, 1 to 3600: how long a stopped replica's calls stay open",
        "15",
        "--store-lease",
    ),
    key("agent", "an agent's name", r#""Sage""#, "--agent"),
    key("approve", "true or false", "true", "--approve"),
    key("mode", r#""agent", "mcp" or "cli""#, r#""mcp""#, "--mode"),
    key(
        "log_format",
        r#""text" or "json""#,
        r#""json""#,
        "--log-format",
    ),
    key(
        "activity_store",
        r#""memory" or the activity store's path (relative to the file)"#,
        r#"".toolsmith/activity.db""#,
        "--activity-store",
    ),
    key(
        "activity_max_records",
        "a whole number of records, at least 1",
        "10000",
        "--activity-max-records",
    ),
    key(
        "activity_max_age_days",
        "a positive number of days",
        "30",
        "--activity-max-age-days",
    ),
    key(
        "activity_max_mib",
        "a whole number of mebibytes, at least 1",
        "256",
        "--activity-max-mib",
    ),
    key(
        "select.toolsets",
        "a list of toolset names",
        r#"["file", "search"]"#,
        "--toolset",
    ),
    key(
        "select.tools",
        "a list of tool names or aliases",
        r#"["bash"]"#,
        "--tools",
    ),
    key(
        "select.exclude_tools",
        "a list of tool names or aliases",
        r#"["web"]"#,
        "--exclude-tools",
    ),
    key(
        "bash.enabled",
        "true or false (false switches bash off)",
        "false",
        "--no-bash",
    ),
    key(
        "bash.timeout",
        "a whole number of seconds, at least 1",
        "10",
        "--bash-timeout",
    ),
    key(
        "bash.max_timeout",
        "a whole number of seconds, at least 1",
        "60",
        "--bash-max-timeout",
    ),
    key(
        "bash.allow",
        "a list of command prefixes",
        r#"["cargo ", "git "]"#,
        "--bash-allow",
    ),
    key(
        "bash.sandbox",
        r#""on" or "off""#,
        r#""on""#,
        "--bash-sandbox",
    ),
    key("bash.network", "true or false", "false", "--bash-network"),
    key(
        "bash.unix_sockets",
        "true or false",
        "false",
        "--bash-unix-sockets",
    ),
    key(
        "bash.network_for",
        "a list of command patterns",
        r#"["cargo fetch*"]"#,
        "--bash-network-for",
    ),
    key(
        "bash.network_hosts",
        "a list of hosts (`name`, `*.domain`, an address, each with an optional `:port`)",
        r#"["crates.io", "*.github.com"]"#,
        "--bash-network-host",
    ),
    key(
        "web.searxng_url",
        "a URL",
        r#""http://127.0.0.1:8888""#,
        "--searxng-url",
    ),
    key(
        "web.allow_hosts",
        "a list of host names",
        r#"["localhost"]"#,
        "--allow-host",
    ),
    key(
        "web.search_limit",
        "a whole number of searches",
        "10",
        "--search-limit",
    ),
    key(
        "web.search_window",
        "a positive number of seconds",
        "60",
        "--search-window",
    ),
    key(
        "search.max_file_bytes",
        "a whole number of bytes, at least 1",
        "4194304",
        "--search-max-file-bytes",
    ),
    key(
        "code.enabled",
        "true or false (false switches the code tool off)",
        "true",
        "",
    ),
    key(
        "code.servers.*",
        "a language's server command: a list, the program first (`[]` turns the language \
         off; a relative program path is relative to the file)",
        r#"["clangd", "--background-index"]"#,
        "",
    ),
    key(
        "code.extensions.*",
        "a file extension's language (a language of `code.servers` or a known one)",
        r#""python""#,
        "",
    ),
    key(
        "code.max_servers",
        "a whole number of servers running at once, at least 1",
        "6",
        "",
    ),
    key(
        "code.idle_timeout",
        "a positive number of seconds (at most a week) a server may go unused",
        "600",
        "",
    ),
    key(
        "code.start_timeout",
        "a positive number of seconds (at most a week) a server has to start",
        "60",
        "",
    ),
    key(
        "code.edit_wait",
        "a number of seconds from 0 to 60 an edit's answer waits for the file's new errors",
        "3",
        "",
    ),
    key(
        "code.env_allow",
        "a list of host variables servers get beside the defaults (`NAME` or `PREFIX*`)",
        r#"["CC", "CONDA_*"]"#,
        "",
    ),
    key(
        "rules.allow",
        "a list of rules, each `tool` or `tool(specifier)`",
        r#"["bash(cargo test *)", "create_file(src/**)"]"#,
        "",
    ),
    key(
        "rules.ask",
        "a list of rules, each `tool` or `tool(specifier)`",
        r#"["bash(git push *)"]"#,
        "",
    ),
    key(
        "rules.deny",
        "a list of rules, each `tool` or `tool(specifier)`",
        r#"["read_file(secrets/**)"]"#,
        "",
    ),
    key(
        "rules.sandboxed_bash",
        r#""allow" or "ask""#,
        r#""allow""#,
        "",
    ),
    key(
        "serve.http",
        "an address, `IP:PORT` or a port on 127.0.0.1",
        r#""127.0.0.1:8080""#,
        "--http",
    ),
    key(
        "serve.token",
        "a token of at least 32 characters without spaces",
        r#""<openssl rand -hex 32>""#,
        "--token, TOOLSMITH_TOKEN",
    ),
    key(
        "serve.activity",
        "true or false (false: no activity page on HTTP)",
        "true",
        "--no-activity",
    ),
    key(
        "serve.activity_addr",
        "an address, `IP:PORT` or a port on 127.0.0.1",
        r#""127.0.0.1:8090""#,
        "--activity-addr",
    ),
    key(
        "serve.approval_key",
        "a secret of at least 32 characters without spaces",
        r#""<openssl rand -hex 32>""#,
        "",
    ),
    key(
        "serve.used_approvals",
        "a directory (relative to the file)",
        r#"".toolsmith/approvals""#,
        "",
    ),
    key("principal.name", "the principal's name", r#""ci""#, ""),
    key(
        "principal.token",
        "a token of at least 32 characters without spaces",
        r#""<openssl rand -hex 32>""#,
        "",
    ),
    key(
        "principal.token_sha256",
        "the SHA-256 of the token, 64 hexadecimal digits",
        r#""4018f2c4…""#,
        "",
    ),
    key("principal.agent", "an agent's name", r#""Builder""#, ""),
    key(
        "principal.roots",
        "a list of the server's root names",
        r#"["app"]"#,
        "",
    ),
    key(
        "principal.toolsets",
        "a list of toolset names",
        r#"["file"]"#,
        "",
    ),
    key(
        "principal.rules.allow",
        "a list of rules, each `tool` or `tool(specifier)`",
        r#"["bash(cargo test *)"]"#,
        "",
    ),
    key(
        "principal.rules.ask",
        "a list of rules, each `tool` or `tool(specifier)`",
        r#"["bash(git push *)"]"#,
        "",
    ),
    key(
        "principal.rules.deny",
        "a list of rules, each `tool` or `tool(specifier)`",
        r#"["delete_file"]"#,
        "",
    ),
    key(
        "principal.rules.sandboxed_bash",
        r#""allow" or "ask""#,
        r#""allow""#,
        "",
    ),
];

/// The sections (tables) of the file.
pub(super) const SECTIONS: &[&str] = &[
    "select",
    "bash",
    "web",
    "search",
    "code",
    "code.servers",
    "code.extensions",
    "rules",
    "serve",
    "principal",
    "principal.rules",
];

/// `path` without `[N]` indices: `principal[2].name` is `principal.name`.
pub(super) fn generic(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut skipping = false;
    for c in path.chars() {
        match c {
            '[' => skipping = true,
            ']' => skipping = false,
            _ if !skipping => out.push(c),
            _ => {}
        }
    }
    out
}

/// The key at `path` (indices allowed; a table of free names, such as `code.servers.c`, is
/// `code.servers.*`).
pub(crate) fn find(path: &str) -> Option<&'static Key> {
    let path = generic(path);
    KEYS.iter().find(|k| k.path == path).or_else(|| {
        let (table, _) = path.rsplit_once('.')?;
        KEYS.iter()
            .find(|k| k.path.strip_suffix(".*") == Some(table))
    })
}

/// The keys a table at `table` (`""` for the top level) may hold, as the file writes them.
pub(super) fn keys_of(table: &str) -> Vec<&'static str> {
    let table = generic(table);
    let prefix = if table.is_empty() {
        String::new()
    } else {
        format!("{table}.")
    };
    let mut out: Vec<&'static str> = Vec::new();
    for k in KEYS {
        if let Some(rest) = k.path.strip_prefix(prefix.as_str()) {
            let first = rest.split('.').next().unwrap_or(rest);
            if !out.contains(&first) {
                out.push(first);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The README's table of keys, as [`KEYS`] has them.
    fn table() -> String {
        let mut out = String::from("| key | takes | e.g. | flag |\n|---|---|---|---|\n");
        for k in KEYS {
            let flag = if k.flag.is_empty() {
                String::new()
            } else {
                format!("`{}`", k.flag)
            };
            out.push_str(&format!(
                "| `{}` | {} | `{}` | {flag} |\n",
                k.path,
                k.takes.replace('|', "\\|"),
                k.example
            ));
        }
        out
    }

    /// The README documents every key, as this list does (`UPDATE_README=1` prints the table).
    #[test]
    fn the_readme_documents_every_key() {
        let readme = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"));
        if std::env::var_os("UPDATE_README").is_some() {
            println!("{}", table());
        }
        assert!(
            readme.contains(&table()),
            "the README's table of keys differs from config::keys::KEYS; run \
             `UPDATE_README=1 cargo test -p toolsmith-cli --bin toolsmith readme -- --nocapture` \
             and paste it"
        );
    }

    #[test]
    fn every_section_and_key_is_known() {
        assert!(keys_of("").contains(&"bash") && keys_of("").contains(&"principal"));
        assert_eq!(
            keys_of("principal[0].rules"),
            ["allow", "ask", "deny", "sandboxed_bash"]
        );
        for s in SECTIONS {
            assert!(!keys_of(s).is_empty(), "{s}");
        }
    }
}
