//! What a rule's argument specifier means for each kind of tool, compiled once when the
//! rules are built.

use globset::{GlobBuilder, GlobMatcher};

/// `*` matches any run of characters (none included), `?` one; everything else is itself.
/// Compared byte for byte, without case folding.
pub(crate) fn wildcard(pattern: &str, text: &str) -> bool {
    let (p, t) = (pattern.as_bytes(), text.as_bytes());
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == b'?' || (p[pi] != b'*' && p[pi] == t[ti])) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == b'*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == b'*')
}

/// A command pattern for `bash`: a wildcard over a simple command's words, joined by single
/// spaces (`cargo test*`; `git status` alone is that command exactly).
#[derive(Debug, Clone)]
pub(crate) struct CommandPattern(String);

impl CommandPattern {
    pub(crate) fn new(specifier: &str) -> CommandPattern {
        CommandPattern(specifier.split_whitespace().collect::<Vec<_>>().join(" "))
    }

    pub(crate) fn matches(&self, words: &str) -> bool {
        wildcard(&self.0, words)
    }
}

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

/// A pattern for `web`: an action, and for `fetch` a host (`fetch:docs.rs`,
/// `fetch:*.rust-lang.org`, `search`).
#[derive(Debug, Clone)]
pub(crate) struct WebPattern {
    action: String,
    host: Option<String>,
}

impl WebPattern {
    pub(crate) fn new(specifier: &str, actions: &[&str]) -> Result<WebPattern, String> {
        let (action, host) = match specifier.split_once(':') {
            Some((a, h)) => (a.trim(), Some(h.trim().to_ascii_lowercase())),
            None => (specifier.trim(), None),
        };
        if !actions.iter().any(|a| wildcard(action, a)) {
            return Err(format!(
                "`{action}` is not an action of this tool (actions: {}); write `action` or \
                 `fetch:host`",
                actions.join(", ")
            ));
        }
        if let Some(h) = &host
            && (h.is_empty() || h.contains(['/', ' ']))
        {
            return Err(format!(
                "`{specifier}`: after `:` comes a host name (`docs.rs`, `*.rust-lang.org`), \
                 not a URL"
            ));
        }
        Ok(WebPattern {
            action: action.to_owned(),
            host,
        })
    }

    /// `host` is `None` for an action without one.
    pub(crate) fn matches(&self, action: &str, host: Option<&str>) -> bool {
        wildcard(&self.action, action)
            && match (&self.host, host) {
                (None, _) => true,
                (Some(p), Some(h)) => wildcard(p, h),
                (Some(_), None) => false,
            }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards() {
        assert!(wildcard("cargo test*", "cargo test"));
        assert!(wildcard("cargo test*", "cargo test --all"));
        assert!(wildcard("cargo test *", "cargo test --all"));
        assert!(!wildcard("cargo test *", "cargo testx"));
        assert!(!wildcard("cargo test", "cargo test --all"));
        assert!(wildcard("*", ""));
        assert!(wildcard("a?c", "abc"));
        assert!(!wildcard("a*c", "abd"));
        assert!(wildcard("*.rust-lang.org", "doc.rust-lang.org"));
        assert!(!wildcard("*.rust-lang.org", "rust-lang.org.evil"));
    }

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
}
