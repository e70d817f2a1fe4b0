//! Command patterns: what a `bash` rule's specifier and the sandbox's per-command network
//! name, matched against a [`CommandLine`](super::CommandLine)'s simple commands.

/// `*` matches any run of characters (none included), `?` one, `\\` makes the next character
/// itself (`\\*` is a star); everything else is itself. Compared byte for byte, without case
/// folding.
pub fn wildcard(pattern: &str, text: &str) -> bool {
    // The pattern as tokens: a star, a question mark, or one literal byte.
    #[derive(Clone, Copy, PartialEq)]
    enum Token {
        Star,
        Any,
        Byte(u8),
    }
    let mut tokens = Vec::with_capacity(pattern.len());
    let mut bytes = pattern.bytes();
    while let Some(b) = bytes.next() {
        tokens.push(match b {
            b'*' => Token::Star,
            b'?' => Token::Any,
            b'\\' => Token::Byte(bytes.next().unwrap_or(b'\\')),
            b => Token::Byte(b),
        });
    }
    let (p, t) = (tokens.as_slice(), text.as_bytes());
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        match p.get(pi) {
            Some(Token::Any) => {
                pi += 1;
                ti += 1;
            }
            Some(Token::Byte(b)) if *b == t[ti] => {
                pi += 1;
                ti += 1;
            }
            Some(Token::Star) => {
                star = Some((pi, ti));
                pi += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    pi = sp + 1;
                    ti = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|&tok| tok == Token::Star)
}

/// `text` with the characters [`wildcard`] reads specially (`*`, `?`, `\\`) made literal.
pub fn escape_wildcards(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '*' | '?' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
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

    /// Whether `words` (a simple command's words joined by single spaces) match. A pattern
    /// ending in ` *` also matches the command without arguments (`ls *` matches `ls`).
    pub fn matches(&self, words: &str) -> bool {
        wildcard(&self.0, words)
            || self
                .0
                .strip_suffix(" *")
                .is_some_and(|bare| wildcard(bare, words))
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
        // Escapes: a star and a question mark as themselves.
        assert!(wildcard("ls \\*.rs", "ls *.rs"));
        assert!(!wildcard("ls \\*.rs", "ls main.rs"));
        assert!(wildcard("a\\?", "a?"));
        assert!(!wildcard("a\\?", "ab"));
        assert!(wildcard("a\\\\b", "a\\b"));
        assert!(!wildcard("x\\*", "x"));
        assert_eq!(escape_wildcards("rm *.o a?b c\\d"), "rm \\*.o a\\?b c\\\\d");
        assert!(wildcard(&escape_wildcards("rm *.o a?b"), "rm *.o a?b"));
    }

    #[test]
    fn a_prefix_pattern_matches_the_bare_command() {
        let ls = CommandPattern::new("ls *");
        assert!(ls.matches("ls"));
        assert!(ls.matches("ls -la"));
        assert!(!ls.matches("lsof"));
        assert!(!CommandPattern::new("git status *").matches("git"));
        assert!(CommandPattern::new("git status *").matches("git status"));
    }
}
