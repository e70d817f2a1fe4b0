//! [`Principal`]: who a token means, and what it is served with.

use std::sync::Arc;

use super::IntoRuntime;
use crate::runtime::{Runtime, SessionConfig};

/// One of several tokens an HTTP server accepts, naming someone: a request presenting it is
/// served with the principal's own runtime (its roots, rules, agent, tools) and session set-up,
/// and `tools/list` shows the principal's tools. The server keeps only the token's SHA-256.
#[derive(Debug, Clone)]
pub struct Principal {
    pub(crate) name: Arc<str>,
    pub(crate) token_sha256: [u8; 32],
    pub(crate) runtime: Runtime,
    pub(crate) session: Option<SessionConfig>,
}

impl Principal {
    /// A principal called `name` whose token has the SHA-256 `token_sha256`, served with
    /// `runtime`.
    pub fn new(
        name: impl Into<Arc<str>>,
        token_sha256: [u8; 32],
        runtime: impl IntoRuntime,
    ) -> Self {
        Principal {
            name: name.into(),
            token_sha256,
            runtime: runtime.into_runtime(),
            session: None,
        }
    }

    /// Sets up the principal's tool sessions (default: the server's
    /// [`ServeOptions::session`](super::ServeOptions::session)); the principal's name is set
    /// on it either way.
    pub fn session(mut self, config: SessionConfig) -> Self {
        self.session = Some(config);
        self
    }

    /// The principal's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// The SHA-256 of a token, as [`Principal::new`] takes it.
pub fn token_sha256(token: &str) -> [u8; 32] {
    crate::http::sha256(token.as_bytes())
}

/// Reads a SHA-256 written as 64 hexadecimal digits (either case); `None` for anything else.
pub fn parse_sha256_hex(hex: &str) -> Option<[u8; 32]> {
    let mut out = [0u8; 32];
    ::hex::decode_to_slice(hex, &mut out).ok()?;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_read_back() {
        let h = token_sha256("test");
        let text = hex::encode(h);
        assert_eq!(
            text,
            "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
        );
        assert_eq!(parse_sha256_hex(&text), Some(h));
        assert_eq!(parse_sha256_hex(&text.to_uppercase()), Some(h));
        assert_eq!(parse_sha256_hex(&text[1..]), None);
        assert_eq!(parse_sha256_hex(&format!("{}zz", &text[2..])), None);
        assert_eq!(parse_sha256_hex(&format!("+{}", &text[1..])), None);
        assert_eq!(parse_sha256_hex(&format!("{text}00")), None);
    }
}
