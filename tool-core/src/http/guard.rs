//! The [`Guard`]: who may reach a router's routes (token, `Origin`, `Host`).

use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};

/// The cookie that may carry the token instead of the `Authorization` header.
pub const TOKEN_COOKIE: &str = "toolsmith_token";

/// The token, `Origin` and `Host` checks (see the [module docs](super)), to put in front of
/// every route of a router, the ones a host added included.
///
/// ```
/// use tool_core::http::Guard;
///
/// let guard = Guard::new(Some("s3cret"), ["https://app.example"])?;
/// let app: axum::Router = guard.layer(axum::Router::new());
/// # let _ = app;
/// assert!(Guard::new(Some(""), Vec::<String>::new()).is_err());
/// # Ok::<(), tool_core::http::BadToken>(())
/// ```
#[derive(Clone)]
pub struct Guard(Arc<Policy>);

impl std::fmt::Debug for Guard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Guard")
            .field("token", &self.0.token.is_some())
            .field("principals", &self.0.principals.len())
            .field("origins", &self.0.origins)
            .finish()
    }
}

/// A token that cannot be one: empty, or not visible ASCII (it must fit an HTTP header).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadToken;

impl std::fmt::Display for BadToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the token must be non-empty visible ASCII (it is sent in an HTTP header)")
    }
}

impl std::error::Error for BadToken {}

impl Guard {
    /// The checks for a server with `token` (none: loopback names only) and the browser
    /// origins allowed besides the server's own.
    pub fn new<O: AsRef<str>>(
        token: Option<&str>,
        allowed_origins: impl IntoIterator<Item = O>,
    ) -> Result<Guard, BadToken> {
        let token = match token {
            None => None,
            Some(t) if t.is_empty() || HeaderValue::from_str(t).is_err() => return Err(BadToken),
            Some(t) => Some(Arc::<str>::from(t)),
        };
        Ok(Guard(Arc::new(Policy {
            // Without a token, only the name decides who is let in: a page on a rebound name
            // (`evil.example` resolving to 127.0.0.1) must not read any route.
            loopback_hosts_only: token.is_none(),
            token,
            principals: Vec::new(),
            origins: allowed_origins
                .into_iter()
                .map(|o| normalize_origin(o.as_ref()))
                .collect(),
        })))
    }

    /// Lets in, besides the token, each principal's token, given as its SHA-256: a request
    /// presenting one carries [`Authenticated`] with the principal's name in its extensions.
    /// With principals the guard no longer limits requests to loopback names: a token is
    /// required, as with [`Guard::new`]'s.
    pub fn principals(self, principals: impl IntoIterator<Item = (Arc<str>, [u8; 32])>) -> Guard {
        let principals: Vec<_> = principals.into_iter().collect();
        let old = &self.0;
        Guard(Arc::new(Policy {
            loopback_hosts_only: old.token.is_none() && principals.is_empty(),
            token: old.token.clone(),
            principals,
            origins: old.origins.clone(),
        }))
    }

    /// `router` with the checks in front of every route.
    pub fn layer(&self, router: Router) -> Router {
        router.layer(middleware::from_fn_with_state(self.0.clone(), check))
    }
}

/// The principal whose token a request presented, in the request's extensions (see
/// [`Guard::principals`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authenticated(pub Arc<str>);

struct Policy {
    token: Option<Arc<str>>,
    /// Principals' names and the SHA-256 of their tokens.
    principals: Vec<(Arc<str>, [u8; 32])>,
    loopback_hosts_only: bool,
    origins: Vec<String>,
}

async fn check(State(policy): State<Arc<Policy>>, mut request: Request, next: Next) -> Response {
    let headers = request.headers();
    if policy.loopback_hosts_only && !host_is_loopback(headers) {
        return (
            StatusCode::FORBIDDEN,
            "Forbidden: without a token this server answers only requests addressed to a \
             loopback name (localhost, 127.0.0.1, [::1]); start it with a token to serve \
             other names",
        )
            .into_response();
    }
    if !origin_allowed(headers, &policy.origins) {
        return (
            StatusCode::FORBIDDEN,
            "Forbidden: this Origin may not use the server; a browser page must be served by \
             this server or its origin allowed by the host",
        )
            .into_response();
    }
    if policy.token.is_some() || !policy.principals.is_empty() {
        let Some(who) = policy.admit(headers) else {
            return unauthorized();
        };
        if let Some(name) = who {
            request.extensions_mut().insert(Authenticated(name));
        }
    }
    next.run(request).await
}

impl Policy {
    /// Whom a request's tokens let in: `Some(None)` for the server's token, `Some(Some(name))`
    /// for a principal's, `None` for nobody.
    fn admit(&self, headers: &HeaderMap) -> Option<Option<Arc<str>>> {
        for presented in presented_tokens(headers) {
            if let Some(expected) = &self.token
                && tokens_match(presented.as_bytes(), expected.as_bytes())
            {
                return Some(None);
            }
            if self.principals.is_empty() {
                continue;
            }
            let hash = sha256(presented.as_bytes());
            // Every hash is compared, so the time does not tell which one matched.
            let mut found = None;
            for (name, expected) in &self.principals {
                if tokens_match(&hash, expected) {
                    found = Some(name.clone());
                }
            }
            if found.is_some() {
                return Some(found);
            }
        }
        None
    }
}

/// The SHA-256 of `bytes`.
pub(crate) fn sha256(bytes: &[u8]) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).into()
}

fn unauthorized() -> Response {
    {
        (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            "Unauthorized: send the server's token as `Authorization: Bearer TOKEN` (or the \
             `toolsmith_token` cookie)",
        )
            .into_response()
    }
}

/// The tokens a request presents: its bearer credential and its `toolsmith_token` cookies.
fn presented_tokens(headers: &HeaderMap) -> impl Iterator<Item = &str> {
    let bearer = headers
        .get_all(header::AUTHORIZATION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .filter_map(|v| {
            let (scheme, rest) = v.trim().split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim())
        });
    let cookies = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| {
            let (name, value) = pair.trim().split_once('=')?;
            (name.trim() == TOKEN_COOKIE).then(|| value.trim().trim_matches('"'))
        });
    bearer.chain(cookies).take(8)
}

/// Compares two secrets in time that depends on their lengths only, never on where they
/// first differ.
pub(crate) fn tokens_match(given: &[u8], expected: &[u8]) -> bool {
    use subtle::ConstantTimeEq;
    given.ct_eq(expected).into()
}

/// A request without `Origin` passes (not a browser); one whose origin is the server's own
/// (the `Host` it was sent to) or listed passes; any other does not.
fn origin_allowed(headers: &HeaderMap, allowed: &[String]) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    let origin = normalize_origin(origin);
    if allowed.contains(&origin) {
        return true;
    }
    let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
        return false;
    };
    let host = host.trim().to_ascii_lowercase();
    let authority = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"));
    authority == Some(host.as_str())
}

/// Whether the request's `Host` names a loopback address: `localhost`, an IPv4 loopback
/// address or `[::1]`, with or without a port. A request without `Host` (HTTP/1.0) is not
/// a browser's and passes.
fn host_is_loopback(headers: &HeaderMap) -> bool {
    let Some(host) = headers.get(header::HOST) else {
        return true;
    };
    let Some((name, port)) = host.to_str().ok().and_then(|h| split_host(h.trim())) else {
        return false;
    };
    let port_ok =
        port.is_none_or(|p| (1..=5).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit()));
    port_ok
        && (name.eq_ignore_ascii_case("localhost")
            || name
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback()))
}

/// `name[:port]` or `[v6][:port]` into the name (without brackets) and the port.
fn split_host(host: &str) -> Option<(&str, Option<&str>)> {
    if let Some(rest) = host.strip_prefix('[') {
        let (v6, tail) = rest.split_once(']')?;
        if tail.is_empty() {
            return Some((v6, None));
        }
        return Some((v6, Some(tail.strip_prefix(':')?)));
    }
    // An IPv6 literal must be bracketed: past the first `:` comes the port.
    match host.split_once(':') {
        None => Some((host, None)),
        Some((name, port)) => Some((name, Some(port))),
    }
}

fn normalize_origin(origin: &str) -> String {
    origin.trim().trim_end_matches('/').to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_compare_whole() {
        assert!(tokens_match(b"secret", b"secret"));
        assert!(!tokens_match(b"secre", b"secret"));
        assert!(!tokens_match(b"secret!", b"secret"));
        assert!(!tokens_match(b"", b"secret"));
        assert!(!tokens_match(b"Secret", b"secret"));
        assert!(!tokens_match(b"secret\0", b"secret"));
    }

    #[test]
    fn tokens_from_header_and_cookie() {
        let mut h = HeaderMap::new();
        h.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer abc"),
        );
        h.insert(
            header::COOKIE,
            HeaderValue::from_static("x=1; toolsmith_token=def; y=2"),
        );
        let got: Vec<&str> = presented_tokens(&h).collect();
        assert_eq!(got, ["abc", "def"]);
        let mut h = HeaderMap::new();
        h.insert(header::AUTHORIZATION, HeaderValue::from_static("Basic abc"));
        assert_eq!(presented_tokens(&h).count(), 0);
    }

    #[test]
    fn origins() {
        let mut h = HeaderMap::new();
        assert!(origin_allowed(&h, &[]));
        h.insert(header::HOST, HeaderValue::from_static("127.0.0.1:8080"));
        h.insert(
            header::ORIGIN,
            HeaderValue::from_static("http://127.0.0.1:8080"),
        );
        assert!(origin_allowed(&h, &[]));
        h.insert(
            header::ORIGIN,
            HeaderValue::from_static("http://evil.example"),
        );
        assert!(!origin_allowed(&h, &[]));
        assert!(origin_allowed(&h, &["http://evil.example".to_owned()]));
        h.insert(
            header::ORIGIN,
            HeaderValue::from_static("http://127.0.0.1:9999"),
        );
        assert!(!origin_allowed(&h, &[]));
    }

    #[test]
    fn loopback_hosts() {
        let allowed = [
            "127.0.0.1",
            "127.0.0.1:8080",
            "127.8.9.1:1",
            "localhost",
            "LOCALHOST:3000",
            "[::1]",
            "[::1]:8080",
        ];
        for host in allowed {
            let mut h = HeaderMap::new();
            h.insert(header::HOST, HeaderValue::from_static(host));
            assert!(host_is_loopback(&h), "{host} is loopback");
        }
        let refused = [
            "evil.example",
            "evil.example:8080",
            "localhost.evil.example",
            "127.0.0.1.nip.io",
            "10.0.0.1:80",
            "0.0.0.0:80",
            "[::2]:80",
            "[::1]x",
            "[::1",
            "127.0.0.1:",
            "127.0.0.1:123456",
            "127.0.0.1:80:80",
            "",
        ];
        for host in refused {
            let mut h = HeaderMap::new();
            h.insert(header::HOST, HeaderValue::from_static(host));
            assert!(!host_is_loopback(&h), "{host:?} is not loopback");
        }
        assert!(
            host_is_loopback(&HeaderMap::new()),
            "no Host: not a browser"
        );
    }
}
