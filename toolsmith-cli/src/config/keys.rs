//! Every key of `toolsmith.toml`, documented once: what it takes, an example, and the flag it
//! stands for. The README's table is checked against this list, and a key's error message is
//! written from it in plain words.

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
        "the agent store's path (relative to the file)",
        r#"".toolsmith/agents.db""#,
        "--store",
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
const SECTIONS: &[&str] = &[
    "select",
    "bash",
    "web",
    "search",
    "rules",
    "serve",
    "principal",
    "principal.rules",
];

/// `path` without `[N]` indices: `principal[2].name` is `principal.name`.
fn generic(path: &str) -> String {
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

/// The key at `path` (indices allowed).
pub(crate) fn find(path: &str) -> Option<&'static Key> {
    let path = generic(path);
    KEYS.iter().find(|k| k.path == path)
}

/// The keys a table at `table` (`""` for the top level) may hold, as the file writes them.
fn keys_of(table: &str) -> Vec<&'static str> {
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

/// The plain-words message for an error serde gave at `path` (the key's path, indices
/// included; `None` when the error is not at a key).
pub(crate) fn message(path: Option<&str>, serde_message: &str) -> String {
    let Some(path) = path else {
        return serde_message.trim().to_owned();
    };
    // An unknown key: its name is the last part of the path.
    if serde_message.starts_with("unknown field") {
        let (table, name) = path.rsplit_once('.').unwrap_or(("", path));
        let within = if table.is_empty() {
            "the file".to_owned()
        } else {
            format!("[{}]", generic(table))
        };
        let known = keys_of(table);
        let near = nearest(name, &known);
        return format!(
            "`{name}` is not a key of {within}{}; its keys: {}",
            near.map(|n| format!(" (did you mean `{n}`?)"))
                .unwrap_or_default(),
            known.join(", ")
        );
    }
    let leaf = path.rsplit('.').next().unwrap_or(path);
    let found = found_of(serde_message);
    if let Some(key) = find(path) {
        let flag = if key.flag.is_empty() {
            String::new()
        } else {
            format!(" (as {})", key.flag)
        };
        return format!(
            "`{}` takes {}{flag}{}; e.g. {leaf} = {}",
            generic(path),
            key.takes,
            found.map(|f| format!(", not {f}")).unwrap_or_default(),
            key.example
        );
    }
    if SECTIONS.contains(&generic(path).as_str()) {
        let article = if generic(path) == "principal" {
            "a list of tables ([[principal]])"
        } else {
            "a table"
        };
        return format!(
            "`{}` is {article}{}",
            generic(path),
            found.map(|f| format!(", not {f}")).unwrap_or_default()
        );
    }
    format!("`{path}`: {}", serde_message.trim())
}

/// What serde says it found, in words: `invalid type: string "5", expected u64` is
/// `a string ("5")`.
fn found_of(serde_message: &str) -> Option<String> {
    if let Some(rest) = serde_message.strip_prefix("unknown variant ") {
        let value = rest.split(',').next().unwrap_or(rest).trim();
        return Some(value.replace('`', "\""));
    }
    let rest = serde_message.strip_prefix("invalid type: ")?;
    let what = rest.split(", expected").next().unwrap_or(rest).trim();
    let (kind, value) = what.split_once(' ').unwrap_or((what, ""));
    let kind = match kind {
        "string" => "a string",
        "integer" => "a whole number",
        "floating" => "a number with a fraction",
        "boolean" => "true or false",
        "sequence" => "a list",
        "map" => "a table",
        other => other,
    };
    let value = value.trim_start_matches("point").trim();
    Some(if value.is_empty() || kind == "true or false" {
        kind.to_owned()
    } else {
        format!("{kind} ({value})")
    })
}

/// The known key closest to `name` (at most two edits away).
fn nearest<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    known
        .iter()
        .map(|k| (edits(name, k), *k))
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Levenshtein distance.
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let here = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            prev = here;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_key_what_it_takes_and_what_was_found() {
        let m = message(
            Some("bash.timeout"),
            "invalid type: string \"5\", expected u64",
        );
        assert_eq!(
            m,
            "`bash.timeout` takes a whole number of seconds, at least 1 (as --bash-timeout), \
             not a string (\"5\"); e.g. timeout = 10"
        );
        let m = message(
            Some("bash.sandbox"),
            "unknown variant `maybe`, expected `on` or `off`",
        );
        assert!(
            m.contains(r#"takes "on" or "off""#) && m.contains(r#"not "maybe""#),
            "{m}"
        );
        let m = message(
            Some("bash.timeot"),
            "unknown field `timeot`, expected one of ...",
        );
        assert!(
            m.starts_with("`timeot` is not a key of [bash] (did you mean `timeout`?)"),
            "{m}"
        );
        let m = message(Some("rootz"), "unknown field `rootz`");
        assert!(
            m.contains("(did you mean `roots`?)") && m.contains("its keys: roots,"),
            "{m}"
        );
        let m = message(Some("principal[1].rules.alow"), "unknown field `alow`");
        assert!(
            m.contains("not a key of [principal.rules] (did you mean `allow`?)"),
            "{m}"
        );
        let m = message(
            Some("roots"),
            "invalid type: string \".\", expected a sequence",
        );
        assert!(
            m.contains("takes a list of directories") && m.contains("not a string"),
            "{m}"
        );
        let m = message(Some("bash"), "invalid type: integer `3`, expected a table");
        assert_eq!(m, "`bash` is a table, not a whole number (`3`)");
    }

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
