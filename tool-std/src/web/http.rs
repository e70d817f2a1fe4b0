//! The HTTP client the fetcher and the search backend share.
//!
//! One `reqwest` client per [`NetworkPolicy`], set up so that the policy cannot be stepped
//! around:
//!
//! - **Resolve once, connect to what was checked.** Host names are resolved by
//!   [`PolicyResolver`], which checks every address with [`NetworkPolicy::check_resolved`] and
//!   hands reqwest exactly those addresses to connect to; there is no second lookup an attacker's
//!   DNS server could answer differently (DNS rebinding). Literal IP hosts never reach a resolver
//!   and are checked by [`NetworkPolicy::check_parsed_url`] before the request is sent.
//! - **No automatic redirects** (`Policy::none`): a redirect comes back as a response, and the
//!   fetcher decides whether to follow it, re-checking the next URL like the first.
//! - **No proxies**, not even from `HTTP_PROXY`: a proxy would make the connection for us, to an
//!   address we never checked.
//! - **Bounded reads**: connect and read timeouts on the client, and bodies read chunk by chunk
//!   up to the policy's byte cap (after gzip decoding, so a gzip bomb stops at the cap).
//! - TLS through rustls with the `ring` provider and the operating system's trust store.

use std::error::Error as StdError;
use std::net::SocketAddr;
use std::sync::Arc;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::header::ACCEPT;
use url::Url;

use super::error::{TimeoutPhase, WebError};
use super::policy::NetworkPolicy;

/// The `User-Agent` sent with every request.
pub(crate) const USER_AGENT: &str = concat!("toolsmith/", env!("CARGO_PKG_VERSION"), " (web tool)");

/// A response body read up to the byte cap.
#[derive(Debug)]
pub(crate) struct Body {
    /// The (decoded) bytes, at most the cap.
    pub(crate) bytes: Vec<u8>,
    /// Whether the body went on past the cap.
    pub(crate) truncated: bool,
}

/// A reqwest client bound to a network policy.
#[derive(Debug, Clone)]
pub(crate) struct HttpClient {
    client: reqwest::Client,
    policy: Arc<NetworkPolicy>,
}

/// Resolves host names and refuses the ones that lead to addresses the policy does not allow.
struct PolicyResolver {
    policy: Arc<NetworkPolicy>,
}

impl Resolve for PolicyResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let policy = Arc::clone(&self.policy);
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let limit = policy.timeouts().connect;
            let lookup = tokio::net::lookup_host((host.clone(), 0));
            let addrs: Vec<SocketAddr> = match tokio::time::timeout(limit, lookup).await {
                Err(_) => {
                    return Err(Box::new(WebError::Timeout {
                        url: host,
                        phase: TimeoutPhase::Resolve,
                        after: limit,
                    }) as Box<dyn StdError + Send + Sync>);
                }
                Ok(Err(e)) => {
                    return Err(Box::new(WebError::Resolve {
                        host,
                        message: e.to_string(),
                    }) as Box<dyn StdError + Send + Sync>);
                }
                Ok(Ok(addrs)) => addrs.collect(),
            };
            policy
                .check_resolved(&host, &addrs)
                .map_err(|e| Box::new(e) as Box<dyn StdError + Send + Sync>)?;
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

/// rustls with the `ring` provider and the platform verifier.
fn tls_config() -> Result<rustls::ClientConfig, WebError> {
    use rustls_platform_verifier::BuilderVerifierExt;
    let internal = |e: rustls::Error| WebError::Internal {
        message: format!("TLS setup failed: {e}"),
    };
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    Ok(rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(internal)?
        .with_platform_verifier()
        .map_err(internal)?
        .with_no_client_auth())
}

impl HttpClient {
    /// Build a client that enforces `policy`.
    pub(crate) fn new(policy: NetworkPolicy) -> Result<Self, WebError> {
        let policy = Arc::new(policy);
        let timeouts = policy.timeouts();
        let client = reqwest::Client::builder()
            .tls_backend_preconfigured(tls_config()?)
            .dns_resolver(PolicyResolver {
                policy: Arc::clone(&policy),
            })
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .connect_timeout(timeouts.connect)
            .read_timeout(timeouts.read)
            .user_agent(USER_AGENT)
            .build()
            .map_err(|e| WebError::Internal {
                message: format!("HTTP client setup failed: {e}"),
            })?;
        Ok(HttpClient { client, policy })
    }

    /// The policy this client enforces.
    pub(crate) fn policy(&self) -> &NetworkPolicy {
        &self.policy
    }

    /// Check `url` against the policy and send a GET; the response's body is not read yet.
    pub(crate) async fn get(&self, url: &Url, accept: &str) -> Result<reqwest::Response, WebError> {
        self.policy.check_parsed_url(url)?;
        self.client
            .get(url.clone())
            .header(ACCEPT, accept)
            .send()
            .await
            .map_err(|e| self.map_error(&e, url))
    }

    /// Read the body chunk by chunk, keeping at most the policy's byte cap.
    ///
    /// Reading stops at the first byte past the cap; the rest is never received (the connection
    /// is dropped with the response).
    pub(crate) async fn read_capped(
        &self,
        response: &mut reqwest::Response,
        url: &Url,
    ) -> Result<Body, WebError> {
        let cap = self.policy.max_body_bytes();
        let expected = response
            .content_length()
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(0);
        let mut bytes = Vec::with_capacity(expected.min(cap).min(1 << 20));
        loop {
            let full = bytes.len() >= cap;
            let chunk = match response.chunk().await {
                Ok(Some(chunk)) => chunk,
                Ok(None) => {
                    return Ok(Body {
                        bytes,
                        truncated: false,
                    });
                }
                // Past the cap, a broken rest (a cut connection, trailing garbage after a gzip
                // stream) does not spoil the bytes already read.
                Err(_) if full => {
                    return Ok(Body {
                        bytes,
                        truncated: true,
                    });
                }
                Err(e) => return Err(self.map_error(&e, url)),
            };
            if chunk.is_empty() {
                continue;
            }
            let room = cap.saturating_sub(bytes.len());
            if chunk.len() > room {
                bytes.extend_from_slice(&chunk[..room]);
                return Ok(Body {
                    bytes,
                    truncated: true,
                });
            }
            bytes.extend_from_slice(&chunk);
        }
    }

    /// Turn a reqwest error into a [`WebError`], unwrapping the resolver's own errors.
    pub(crate) fn map_error(&self, err: &reqwest::Error, url: &Url) -> WebError {
        let mut source: Option<&(dyn StdError + 'static)> = Some(err);
        let mut messages: Vec<String> = Vec::new();
        while let Some(e) = source {
            if let Some(web) = e.downcast_ref::<WebError>() {
                return match web {
                    WebError::Timeout { phase, after, .. } => WebError::Timeout {
                        url: url.to_string(),
                        phase: *phase,
                        after: *after,
                    },
                    other => other.clone(),
                };
            }
            let text = e.to_string();
            if !messages.iter().any(|m| m.contains(&text)) {
                messages.push(text);
            }
            source = e.source();
        }
        let timeouts = self.policy.timeouts();
        if err.is_timeout() {
            let (phase, after) = if err.is_connect() {
                (TimeoutPhase::Connect, timeouts.connect)
            } else {
                (TimeoutPhase::Read, timeouts.read)
            };
            return WebError::Timeout {
                url: url.to_string(),
                phase,
                after,
            };
        }
        // reqwest's outer messages repeat the URL; keep the innermost, most specific causes.
        let message = messages
            .iter()
            .rev()
            .take(2)
            .rev()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(": ");
        WebError::Connection {
            url: url.to_string(),
            message,
        }
    }
}
