//! [`ActivityServer`]: the page on an address of its own, for a host whose calls come by
//! another way (an MCP server on stdio, an agent loop).

use std::net::SocketAddr;

use tokio_util::sync::CancellationToken;

use super::Activity;
use crate::http::Guard;

/// The activity routes alone on a bound listener, behind a [`Guard`]: loopback only unless
/// the [`Activity`] has a token ([`Activity::token`]), which every request must then carry
/// (a browser holds it as a cookie after a first visit to `/activity?token=TOKEN`).
#[derive(Debug)]
pub struct ActivityServer {
    listener: tokio::net::TcpListener,
    activity: Activity,
    guard: Guard,
}

impl ActivityServer {
    /// Binds `addr`. A non-loopback address without a token is refused before any socket
    /// is opened.
    pub async fn bind(addr: SocketAddr, activity: Activity) -> std::io::Result<ActivityServer> {
        let token = activity.shared.token.clone();
        if token.is_none() && !addr.ip().is_loopback() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "{addr} is not a loopback address: serving the activity page beyond this \
                     machine needs a token (--token or TOOLSMITH_TOKEN), or bind 127.0.0.1 / [::1]"
                ),
            ));
        }
        let guard = Guard::new(token.as_deref(), Vec::<String>::new()).map_err(|_| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "the token must be non-empty visible ASCII (it travels in an HTTP header)",
            )
        })?;
        let listener = tokio::net::TcpListener::bind(addr).await?;
        Ok(ActivityServer {
            listener,
            activity,
            guard,
        })
    }

    /// The address bound (with the port the system chose for port 0).
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// The page's URL, `http://ADDR/activity`.
    pub fn url(&self) -> std::io::Result<String> {
        Ok(format!("http://{}/activity", self.local_addr()?))
    }

    /// Serves until `shutdown` is cancelled; the page's event streams are closed first, so
    /// the graceful shutdown does not wait on an open browser tab.
    pub async fn run(self, shutdown: CancellationToken) -> std::io::Result<()> {
        let app = self
            .activity
            .with_token_exchange(self.guard.layer(self.activity.router::<()>()));
        let activity = self.activity.clone();
        axum::serve(self.listener, app)
            .with_graceful_shutdown(async move {
                shutdown.cancelled().await;
                activity.close_streams();
            })
            .await
    }
}
