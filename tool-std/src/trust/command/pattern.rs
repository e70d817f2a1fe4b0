//! Command patterns: what a `bash` rule's specifier and the sandbox's per-command network
//! name, matched against a [`CommandLine`](super::CommandLine)'s simple commands.

/// `*` matches any run of characters (none included), `?` one; everything else is itself.
/// Compared byte for byte, without case folding.
pub fn wildcard(pattern: &str, text: &str) -> bool {
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandPattern(String);

impl CommandPattern {
    /// The pattern `specifier`, runs of white space read as one space.
    pub fn new(specifier: &str) -> CommandPattern {
        CommandPattern(specifier.split_whitespace().collect::<Vec<_>>().join(" "))
    }

    /// Whether `words` (a simple command's words joined by single spaces) match.
    pub fn matches(&self, words: &str) -> bool {
        wildcard(&self.0, words)
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
}
