//! What a rule's argument specifier means for each kind of tool, compiled once when the
//! rules are built.

use globset::{GlobBuilder, GlobMatcher};

use crate::trust::command::wildcard;
use crate::trust::net::HostPattern;

/// A path pattern for the file and search tools: a glob over the path relative to its root
/// (`src/**`, `*.md`), optionally for one root only (`docs:**`).
#[derive(Debug, Clone)]
pub(crate) struct PathPattern {
    root: Option<String>,
    glob: GlobMatcher,
    /// For `dir/**`, `dir`.
    base: Option<GlobMatcher>,
}

impl PathPattern {
    /// `roots` are the workspace's root names, for the `name:` prefix.
    pub(crate) fn new(specifier: &str, roots: &[&str]) -> Result<PathPattern, String> {
        let (root, glob) = match specifier.split_once(':') {
            Some((name, rest)) if roots.contains(&name) => (Some(name.to_owned()), rest),
            Some((name, _)) if !name.contains(['*', '?', '[', '{', '/']) => {
                return Err(format!(
                    "`{name}` is not a root of this workspace (roots: {}); write `root:glob` \
                     with one of them, or a glob relative to any root",
                    roots.join(", ")
                ));
            }
            _ => (None, specifier),
        };
        let glob = glob.strip_prefix("./").unwrap_or(glob);
        if glob.starts_with('/') || glob.starts_with('~') {
            return Err(format!(
                "`{specifier}` is not relative to a root; write a glob relative to a root \
                 (`src/**`) or `root:glob`"
            ));
        }
        if glob.split('/').any(|part| part == "..") {
            return Err(format!(
                "`{specifier}` climbs with `..`; write a glob beneath a root (`src/**`)"
            ));
        }
        let compile = |glob: &str| {
            GlobBuilder::new(glob)
                .literal_separator(true)
                .backslash_escape(true)
                .case_insensitive(crate::workspace::CASE_INSENSITIVE_NAMES)
                .build()
                .map(|g| g.compile_matcher())
                .map_err(|e| format!("`{specifier}` is not a valid glob: {}", e.kind()))
        };
        // `dir/**` is everything beneath `dir`, and `dir` itself (a search scoped to it).
        let base = match glob.strip_suffix("/**") {
            Some(base) if !base.is_empty() => Some(compile(base)?),
            _ => None,
        };
        Ok(PathPattern {
            root,
            glob: compile(glob)?,
            base,
        })
    }

    /// Whether it matches `relative` (the root itself is the empty path) in root `root`.
    pub(crate) fn matches(&self, root: &str, relative: &str) -> bool {
        self.root.as_deref().is_none_or(|r| r == root)
            && (self.glob.is_match(relative)
                || self.base.as_ref().is_some_and(|b| b.is_match(relative)))
    }
}

/// A pattern for `web`: an action, and for `fetch` a host pattern as the sandbox's allow-list
/// writes it (`fetch:docs.rs`, `fetch:*.rust-lang.org`, `fetch:localhost:8080`, `search`).
#[derive(Debug, Clone)]
pub(crate) struct WebPattern {
    action: String,
    host: Option<HostPattern>,
}

impl WebPattern {
    pub(crate) fn new(specifier: &str, actions: &[&str]) -> Result<WebPattern, String> {
        let (action, host) = match specifier.split_once(':') {
            Some((a, h)) => (a.trim(), Some(h.trim())),
            None => (specifier.trim(), None),
        };
        if !actions.iter().any(|a| wildcard(action, a)) {
            return Err(format!(
                "`{action}` is not an action of this tool (actions: {}); write `action` or \
                 `fetch:host`",
                actions.join(", ")
            ));
        }
        let host = host
            .map(|h| {
                HostPattern::parse(h).map_err(|why| {
                    format!(
                        "`{specifier}`: after `:` comes a host name (`docs.rs`, \
                         `*.rust-lang.org`), not a URL: {why}"
                    )
                })
            })
            .transpose()?;
        Ok(WebPattern {
            action: action.to_owned(),
            host,
        })
    }

    /// `target` (host and port) is `None` for an action without one.
    pub(crate) fn matches(&self, action: &str, target: Option<(&str, u16)>) -> bool {
        wildcard(&self.action, action)
            && match (&self.host, target) {
                (None, _) => true,
                (Some(p), Some((host, port))) => p.allows(host, port),
                (Some(_), None) => false,
            }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_patterns() {
        let roots = ["main", "docs"];
        let p = PathPattern::new("src/**", &roots).unwrap();
        assert!(p.matches("main", "src/a/b.rs"));
        assert!(p.matches("docs", "src/x"));
        assert!(!p.matches("main", "srcx/a"));
        assert!(p.matches("main", "src"));
        assert!(!p.matches("main", ""));
        let p = PathPattern::new("docs:*.md", &roots).unwrap();
        assert!(p.matches("docs", "a.md"));
        assert!(!p.matches("docs", "a/b.md"));
        assert!(!p.matches("main", "a.md"));
        for bad in ["/etc/**", "../x", "a/../../b", "~/x", "nope:x", "a[", "{a"] {
            assert!(PathPattern::new(bad, &roots).is_err(), "{bad}");
        }
    }

    #[test]
    fn web_patterns_name_actions_and_hosts_as_the_sandbox_does() {
        let actions = ["search", "fetch"];
        let p = |s: &str| WebPattern::new(s, &actions).unwrap();
        assert!(p("fetch:docs.rs").matches("fetch", Some(("docs.rs", 443))));
        assert!(!p("fetch:docs.rs").matches("fetch", Some(("evil.docs.rs", 443))));
        assert!(!p("fetch:docs.rs").matches("search", None));
        assert!(p("fetch:*.rust-lang.org").matches("fetch", Some(("doc.rust-lang.org", 443))));
        assert!(!p("fetch:*.rust-lang.org").matches("fetch", Some(("rust-lang.org.evil", 443))));
        assert!(p("fetch:localhost:8080").matches("fetch", Some(("localhost", 8080))));
        assert!(!p("fetch:localhost:8080").matches("fetch", Some(("localhost", 80))));
        assert!(p("search").matches("search", None));
        for bad in ["fetch:https://x/", "fetch:a b", "crawl", "fetch:doc*.rs"] {
            assert!(WebPattern::new(bad, &actions).is_err(), "{bad}");
        }
    }
}
