//! What a rule's argument specifier means for each kind of tool, compiled once when the
//! rules are built.

use crate::trust::command::wildcard;
use crate::trust::net::HostPattern;

pub(crate) use crate::workspace::PathGlob as PathPattern;

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
