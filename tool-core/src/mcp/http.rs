//! Streamable HTTP: rmcp's tower service on `/mcp`, mounted in axum, behind the
//! [`Guard`](crate::http::Guard).

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::any_service;
use axum::serve::{Listener, ListenerExt};
use rmcp::transport::common::http_header::HEADER_SESSION_ID;
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use super::drain::{DRAIN_TIMEOUT, Drain};
use super::handler::{McpHandler, Shared};
use super::{IntoRuntime, ServeError, ServeOptions};
use crate::http::activity::Activity;

/// The path the MCP endpoint is mounted on.
pub const MCP_PATH: &str = "/mcp";

/// The MCP endpoint on [`MCP_PATH`] with no guard in front of it: for a host that merges
/// other routes first and then applies [`ServeOptions::guard`] to the whole router.
///
/// A host serving it on its own listener sets `TCP_NODELAY` on each connection, as
/// [`HttpServer`] does (`axum::serve(listener.tap_io(|s| { let _ = s.set_nodelay(true); }),
/// app)`, with `axum::serve::ListenerExt`): without it every call on a kept-alive connection
/// waits ~40 ms for the client's delayed ACK.
pub fn service(runtime: impl IntoRuntime, options: &ServeOptions) -> Result<Router, ServeError> {
    let shared = Arc::new(Shared::new(runtime.into_runtime(), options)?);
    let mut config = StreamableHttpServerConfig::default()
        .with_cancellation_token(after_drain(&shared.drain, &options.shutdown));
    if options.token.is_some() || !options.principals.is_empty() {
        // With a token the server may face other machines under names it cannot know;
        // the token, not the `Host` header, keeps strangers out. Without one, rmcp's
        // loopback-only `Host` list stays and refuses DNS-rebound names.
        config = config.disable_allowed_hosts();
    }
    let sessions = Arc::new(LocalSessionManager::default());
    let mcp = StreamableHttpService::new(
        move || Ok(McpHandler::new(shared.clone())),
        sessions.clone(),
        config,
    );
    let mcp = any_service(mcp).layer(middleware::from_fn_with_state(sessions, end_session));
    Ok(Router::new().route(MCP_PATH, mcp))
}

/// The token that stops rmcp's sessions and streams: cancelled once a stopping server's calls
/// have answered (or after [`DRAIN_TIMEOUT`]), so that their answers are written first. Outside
/// a tokio runtime, where nothing can wait, at once with `shutdown`.
fn after_drain(drain: &Arc<Drain>, shutdown: &CancellationToken) -> CancellationToken {
    match tokio::runtime::Handle::try_current() {
        Ok(handle) => {
            let (token, drain) = (CancellationToken::new(), drain.clone());
            let stop = token.clone();
            handle.spawn(async move {
                drain.drained(DRAIN_TIMEOUT).await;
                stop.cancel();
            });
            token
        }
        Err(_) => shutdown.child_token(),
    }
}

/// `DELETE /mcp` with an `Mcp-Session-Id`: 204 when it ended a live session, 404 when there
/// was no such session. rmcp answers both with 202, which clients read as a failure (the
/// Python SDK takes only 200 and 204 as a session ended) and which tells a client holding a
/// stale id nothing. Every other answer (405 under 2026-07-28, which has no sessions; 400
/// for a missing id or a bad version) is rmcp's.
async fn end_session(
    State(sessions): State<Arc<LocalSessionManager>>,
    request: Request,
    next: Next,
) -> Response {
    let id = match request.headers().get(HEADER_SESSION_ID) {
        Some(id) if request.method() == Method::DELETE => id.to_str().ok().map(Arc::<str>::from),
        _ => return next.run(request).await,
    };
    // Whether the session lived is asked before rmcp closes it (closing an unknown id is
    // no error to rmcp).
    let live = match &id {
        Some(id) => sessions.has_session(id).await.unwrap_or(false),
        None => false,
    };
    let response = next.run(request).await;
    match response.status() {
        StatusCode::ACCEPTED if live => StatusCode::NO_CONTENT.into_response(),
        StatusCode::ACCEPTED => {
            (StatusCode::NOT_FOUND, "Not Found: Session not found").into_response()
        }
        _ => response,
    }
}

/// The MCP endpoint behind the guard: [`service`] then [`ServeOptions::guard`].
pub fn router(runtime: impl IntoRuntime, options: ServeOptions) -> Result<Router, ServeError> {
    let router = service(runtime, &options)?;
    Ok(options.guard()?.layer(router))
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

    /// Mounts the live activity page ([`activity`](crate::http::activity)) beside `/mcp`, behind
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

    /// Serves until [`ServeOptions::shutdown`] is cancelled, then stops gracefully: no new
    /// connection is taken, the calls running are ended and answered, and the server returns
    /// once the connections have closed. The activity page's event streams are closed first,
    /// so the stop does not wait on an open browser tab.
    pub async fn run(self) -> Result<(), ServeError> {
        let mut router = self.router;
        if let Some(activity) = &self.activity {
            router = router.merge(activity.router());
        }
        let mut app = self.options.guard()?.layer(router);
        if let Some(activity) = &self.activity {
            app = activity.with_token_exchange(app);
        }
        let shutdown = self.options.shutdown.clone();
        let activity = self.activity;
        axum::serve(no_delay(self.listener), app)
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

/// `listener` with `TCP_NODELAY` set on every connection it accepts. The server's answers
/// are small writes (an SSE event, then the end of the chunked body); with Nagle's algorithm
/// on, each write after the first waits for the ACK of the one before, which a client sends
/// late (delayed ACK, 40 ms on Linux), so every call on a kept-alive connection took ~44 ms.
fn no_delay(
    listener: tokio::net::TcpListener,
) -> impl Listener<Io = tokio::net::TcpStream, Addr = SocketAddr> {
    listener.tap_io(|stream| {
        // A connection that refuses the option still works, only slower: serve it anyway.
        let _ = stream.set_nodelay(true);
    })
}

/// Refuses a non-loopback address without a token, and a bad token.
pub(crate) fn check_bind(addr: SocketAddr, options: &ServeOptions) -> Result<(), ServeError> {
    options.guard()?;
    let guarded = options.token.is_some() || !options.principals.is_empty();
    if !guarded && !addr.ip().is_loopback() {
        return Err(ServeError::TokenRequired(addr));
    }
    Ok(())
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

    // Every connection `HttpServer::run` serves comes from `no_delay`: without the option
    // each small write of a kept-alive connection waited for the client's delayed ACK.
    #[tokio::test]
    async fn accepted_connections_have_tcp_nodelay() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let mut listener = no_delay(listener);
        let client = tokio::net::TcpStream::connect(addr);
        let ((accepted, _), client) = tokio::join!(listener.accept(), client);
        let _client = client.expect("connect");
        assert!(
            accepted.nodelay().expect("nodelay"),
            "TCP_NODELAY on the accepted socket"
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
