//! Streamable HTTP: rmcp's tower service on `/mcp`, mounted in axum, behind the token and
//! `Origin` guard.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

use super::activity::Activity;
use super::handler::{McpHandler, Shared};
use super::{IntoRuntime, ServeError, ServeOptions};

/// The path the MCP endpoint is mounted on.
pub const MCP_PATH: &str = "/mcp";
/// The cookie that may carry the token instead of the `Authorization` header.
pub const TOKEN_COOKIE: &str = "toolsmith_token";

/// The MCP endpoint on [`MCP_PATH`] with no guard in front of it: for a host that merges
/// other routes first and then applies [`guard`] to the whole router.
pub fn service(runtime: impl IntoRuntime, options: &ServeOptions) -> Result<Router, ServeError> {
    let shared = Arc::new(Shared::new(runtime.into_runtime(), options)?);
    let mut config = StreamableHttpServerConfig::default()
        .with_cancellation_token(options.shutdown.child_token());
    if options.token.is_some() {
        // With a token the server may face other machines under names it cannot know;
        // the token, not the `Host` header, keeps strangers out. Without one, rmcp's
        // loopback-only `Host` list stays and refuses DNS-rebound names.
        config = config.disable_allowed_hosts();
    }
    let mcp = StreamableHttpService::new(
        move || Ok(McpHandler::new(shared.clone())),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    Ok(Router::new().route_service(MCP_PATH, mcp))
}

/// The MCP endpoint behind the guard: [`service`] then [`guard`].
pub fn router(runtime: impl IntoRuntime, options: ServeOptions) -> Result<Router, ServeError> {
    let router = service(runtime, &options)?;
    guard(router, &options)
}

/// Puts the token and `Origin` checks (see the [module docs](super)) in front of every route
/// of `router`, the ones a host added included.
pub fn guard(router: Router, options: &ServeOptions) -> Result<Router, ServeError> {
    let token = match &options.token {
        None => None,
        Some(t) if t.is_empty() || HeaderValue::from_str(t).is_err() => {
            return Err(ServeError::BadToken);
        }
        Some(t) => Some(Arc::<str>::from(t.as_str())),
    };
    let policy = Arc::new(Policy {
        // Without a token, only the name decides who is let in: a page on a rebound name
        // (`evil.example` resolving to 127.0.0.1) must not read any route.
        loopback_hosts_only: token.is_none(),
        token,
        origins: options
            .allowed_origins
            .iter()
            .map(|o| normalize_origin(o))
            .collect(),
    });
    Ok(router.layer(middleware::from_fn_with_state(policy, check)))
}

struct Policy {
    token: Option<Arc<str>>,
    loopback_hosts_only: bool,
    origins: Vec<String>,
}

async fn check(State(policy): State<Arc<Policy>>, request: Request, next: Next) -> Response {
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
    if let Some(expected) = &policy.token
        && !presented_tokens(headers).any(|t| tokens_match(t.as_bytes(), expected.as_bytes()))
    {
        return (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            "Unauthorized: send the server's token as `Authorization: Bearer TOKEN` (or the \
             `toolsmith_token` cookie)",
        )
            .into_response();
    }
    next.run(request).await
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
pub fn tokens_match(given: &[u8], expected: &[u8]) -> bool {
    let mut diff = u8::from(given.len() != expected.len());
    for (i, &e) in expected.iter().enumerate() {
        // Past the end of `given`, compare against 0 so the loop's length is `expected`'s.
        let g = given.get(i).copied().unwrap_or(0);
        diff |= g ^ e;
    }
    std::hint::black_box(diff) == 0
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

/// A bound HTTP server: [`HttpServer::bind`], mount more routes with [`HttpServer::merge`],
/// then [`HttpServer::run`].
pub struct HttpServer {
    listener: tokio::net::TcpListener,
    router: Router,
    options: ServeOptions,
    activity: Option<Activity>,
}

impl std::fmt::Debug for HttpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpServer")
            .field("addr", &self.listener.local_addr().ok())
            .finish_non_exhaustive()
    }
}

impl HttpServer {
    /// Binds `addr`. A non-loopback address needs [`ServeOptions::token`]; the refusal
    /// comes before any socket is opened.
    pub async fn bind(
        addr: SocketAddr,
        runtime: impl IntoRuntime,
        options: ServeOptions,
    ) -> Result<HttpServer, ServeError> {
        check_bind(addr, &options)?;
        let router = service(runtime, &options)?;
        let listener = tokio::net::TcpListener::bind(addr).await?;
        Ok(HttpServer {
            listener,
            router,
            options,
            activity: None,
        })
    }

    /// Whether [`HttpServer::bind`] would accept `addr` with these options (a non-loopback
    /// address needs a token, a token must be non-empty visible ASCII), without binding.
    pub fn check(addr: SocketAddr, options: &ServeOptions) -> Result<(), ServeError> {
        check_bind(addr, options)
    }

    /// The address bound (with the port the system chose for port 0).
    pub fn local_addr(&self) -> Result<SocketAddr, ServeError> {
        Ok(self.listener.local_addr()?)
    }

    /// The MCP endpoint's URL, `http://ADDR/mcp`.
    pub fn endpoint(&self) -> Result<String, ServeError> {
        Ok(format!("http://{}{MCP_PATH}", self.local_addr()?))
    }

    /// Mounts more routes beside `/mcp`; the guard covers them too.
    pub fn merge(mut self, routes: Router) -> Self {
        self.router = self.router.merge(routes);
        self
    }

    /// Mounts the live activity page ([`activity`](super::activity)) beside `/mcp`, behind
    /// the same guard, with its `?token=` first visit in front of the guard. Build `activity`
    /// from the runtime given to [`HttpServer::bind`] (and with [`Activity::token`] set to
    /// the server's token, if any) so the page shows the calls this server runs.
    pub fn with_activity(mut self, activity: Activity) -> Self {
        self.activity = Some(activity);
        self
    }

    /// The activity page's URL, `http://ADDR/activity`, when it is mounted.
    pub fn activity_url(&self) -> Result<Option<String>, ServeError> {
        let addr = self.local_addr()?;
        Ok(self
            .activity
            .as_ref()
            .map(|_| format!("http://{addr}/activity")))
    }

    /// Serves until [`ServeOptions::shutdown`] is cancelled. On shutdown the activity
    /// page's event streams are closed first, so the graceful shutdown does not wait on an
    /// open browser tab.
    pub async fn run(self) -> Result<(), ServeError> {
        let mut router = self.router;
        if let Some(activity) = &self.activity {
            router = router.merge(activity.router());
        }
        let mut app = guard(router, &self.options)?;
        if let Some(activity) = &self.activity {
            app = activity.with_token_exchange(app);
        }
        let shutdown = self.options.shutdown.clone();
        let activity = self.activity;
        axum::serve(self.listener, app)
            .with_graceful_shutdown(async move {
                shutdown.cancelled().await;
                if let Some(activity) = activity {
                    activity.close_streams();
                }
            })
            .await?;
        Ok(())
    }
}

/// Refuses a non-loopback address without a token, and a bad token.
pub(crate) fn check_bind(addr: SocketAddr, options: &ServeOptions) -> Result<(), ServeError> {
    match &options.token {
        Some(t) if t.is_empty() || HeaderValue::from_str(t).is_err() => Err(ServeError::BadToken),
        None if !addr.ip().is_loopback() => Err(ServeError::TokenRequired(addr)),
        _ => Ok(()),
    }
}

/// Serves streamable HTTP on `addr` (`/mcp`) until [`ServeOptions::shutdown`] is cancelled.
pub async fn serve_http(
    addr: SocketAddr,
    runtime: impl IntoRuntime,
    options: ServeOptions,
) -> Result<(), ServeError> {
    HttpServer::bind(addr, runtime, options).await?.run().await
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

    #[test]
    fn non_loopback_needs_a_token() {
        let o = ServeOptions::new("t");
        assert!(check_bind("127.0.0.1:0".parse().expect("addr"), &o).is_ok());
        assert!(check_bind("[::1]:0".parse().expect("addr"), &o).is_ok());
        let err = check_bind("0.0.0.0:8080".parse().expect("addr"), &o).expect_err("refused");
        assert!(err.to_string().contains("needs a token"), "{err}");
        let o = o.token("");
        assert!(matches!(
            check_bind("127.0.0.1:0".parse().expect("addr"), &o),
            Err(ServeError::BadToken)
        ));
    }
}
