//! [`Fetcher`]: fetch one page as readable text, under a [`NetworkPolicy`].
//!
//! A fetch checks the URL, resolves the host once and connects only to the checked addresses
//! (see the `http` module), then:
//!
//! - a redirect (301, 302, 303, 307, 308) is answered as [`FetchOutcome::Redirect`] with the
//!   `Location` resolved against the URL, as seed 000 asks; with
//!   [`FetchOptions::follow_redirects`] set, up to that many hops (at most [`MAX_REDIRECTS`]) are
//!   followed here, each hop checked like the first URL;
//! - any other status outside 2xx is an error, `HTTP 404: Not Found`;
//! - binary content types are refused before the body is read;
//! - the body is read up to the policy's byte cap, decoded, HTML converted to text, and the
//!   window `start_index .. start_index + max_chars` of the text returned as a
//!   [`FetchedPage`].

use std::time::SystemTime;

use reqwest::StatusCode;
use reqwest::header::{CONTENT_TYPE, LOCATION};
use url::Url;

use super::content::{ContentKind, MediaType, decode_text, sniff};
use super::error::{TimeoutPhase, WebError};
use super::html::html_to_text;
use super::http::HttpClient;
use super::policy::NetworkPolicy;
use super::response::{FetchedPage, Redirect, WebResponse, rfc3339_utc};
use super::window::{MAX_CONTENT_CHARS, window};

/// The most redirect hops a fetch follows.
pub const MAX_REDIRECTS: u8 = 5;

/// The `Accept` header of a page fetch.
const ACCEPT_PAGE: &str =
    "text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.9,*/*;q=0.5";

/// How one fetch behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FetchOptions {
    /// How many redirect hops to follow (0, the default, returns the first redirect; values
    /// above [`MAX_REDIRECTS`] count as [`MAX_REDIRECTS`]).
    pub follow_redirects: u8,
    /// The character offset in the page's text to start the returned window at.
    pub start_index: usize,
    /// The most characters returned ([`MAX_CONTENT_CHARS`] by default).
    pub max_chars: usize,
}

impl Default for FetchOptions {
    fn default() -> Self {
        FetchOptions {
            follow_redirects: 0,
            start_index: 0,
            max_chars: MAX_CONTENT_CHARS,
        }
    }
}

/// What a fetch found: the page, or a redirect that was not followed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FetchOutcome {
    /// The page's text (one window of it).
    Page(FetchedPage),
    /// The server redirects elsewhere.
    Redirect(Redirect),
}

impl From<FetchOutcome> for WebResponse {
    fn from(outcome: FetchOutcome) -> Self {
        match outcome {
            FetchOutcome::Page(page) => WebResponse::FetchedPage(page),
            FetchOutcome::Redirect(redirect) => WebResponse::Redirect(redirect),
        }
    }
}

/// Fetches pages under a network policy.
///
/// ```no_run
/// use tool_std::web::{FetchOptions, FetchOutcome, Fetcher, NetworkPolicy};
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let fetcher = Fetcher::new(NetworkPolicy::new())?;
/// match fetcher.fetch("https://example.com", &FetchOptions::default()).await? {
///     FetchOutcome::Page(page) => println!("{}", page.content),
///     FetchOutcome::Redirect(r) => println!("moved to {}", r.redirect_url),
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct Fetcher {
    http: HttpClient,
}

/// Whether a status is a redirect that carries a `Location` to follow.
fn is_redirect(status: StatusCode) -> bool {
    matches!(status.as_u16(), 301 | 302 | 303 | 307 | 308)
}

impl Fetcher {
    /// A fetcher enforcing `policy` (use [`Timeouts::FETCH`](super::Timeouts::FETCH) limits,
    /// the default of [`NetworkPolicy::new`]).
    pub fn new(policy: NetworkPolicy) -> Result<Self, WebError> {
        Ok(Fetcher {
            http: HttpClient::new(policy)?,
        })
    }

    /// The policy this fetcher enforces.
    pub fn policy(&self) -> &NetworkPolicy {
        self.http.policy()
    }

    /// Fetch `url` and return its text (one window of it) or the redirect it answers with.
    pub async fn fetch(&self, url: &str, options: &FetchOptions) -> Result<FetchOutcome, WebError> {
        let total = self.policy().timeouts().total;
        match tokio::time::timeout(total, self.fetch_within(url, options)).await {
            Ok(outcome) => outcome,
            Err(_) => Err(WebError::Timeout {
                url: url.trim().to_owned(),
                phase: TimeoutPhase::Total,
                after: total,
            }),
        }
    }

    async fn fetch_within(
        &self,
        url: &str,
        options: &FetchOptions,
    ) -> Result<FetchOutcome, WebError> {
        let original = url.trim();
        let mut current = self.policy().check_url(original)?;
        let max_hops = options.follow_redirects.min(MAX_REDIRECTS);
        let mut hops = 0;
        loop {
            let mut response = self.http.get(&current, ACCEPT_PAGE).await?;
            let status = response.status();
            if is_redirect(status) {
                let location = response
                    .headers()
                    .get(LOCATION)
                    .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
                let next = location
                    .as_deref()
                    .and_then(|l| current.join(l.trim()).ok())
                    .ok_or_else(|| WebError::BadRedirect {
                        status: status.as_u16(),
                        location: location.clone(),
                    })?;
                if hops >= max_hops {
                    return Ok(FetchOutcome::Redirect(Redirect {
                        original_url: original.to_owned(),
                        redirect_url: next.to_string(),
                    }));
                }
                // The next hop is checked before anything is sent to it (and again on
                // resolution).
                self.policy().check_parsed_url(&next)?;
                hops += 1;
                current = next;
                continue;
            }
            if !status.is_success() {
                return Err(WebError::http(status.as_u16()));
            }
            let page_url = if hops == 0 {
                original.to_owned()
            } else {
                current.to_string()
            };
            return self
                .read_page(&mut response, &current, page_url, options)
                .await
                .map(FetchOutcome::Page);
        }
    }

    /// Check the content type, read the body up to the cap and cut the requested window.
    async fn read_page(
        &self,
        response: &mut reqwest::Response,
        url: &Url,
        page_url: String,
        options: &FetchOptions,
    ) -> Result<FetchedPage, WebError> {
        let media = response
            .headers()
            .get(CONTENT_TYPE)
            .map(|v| MediaType::parse(&String::from_utf8_lossy(v.as_bytes())));
        let declared_kind = match &media {
            Some(m) => Some(m.kind().ok_or_else(|| m.refusal())?),
            None => None,
        };
        let body = self.http.read_capped(response, url).await?;
        let (kind, content_type) = match (declared_kind, &media) {
            (Some(kind), Some(m)) => (kind, m.essence.clone()),
            _ => {
                let (kind, guessed) = sniff(&body.bytes)?;
                (kind, guessed.to_owned())
            }
        };
        let charset = media.as_ref().and_then(|m| m.charset.clone());
        let base = url.clone();
        let (bytes, cut) = (body.bytes, body.truncated);
        // Parsing megabytes of HTML is CPU work; keep it off the async worker threads.
        let text = tokio::task::spawn_blocking(move || {
            let text = decode_text(&bytes, charset.as_deref(), cut);
            match kind {
                ContentKind::Html => html_to_text(&text, Some(&base)),
                ContentKind::Text => text,
            }
        })
        .await
        .map_err(|e| WebError::Internal {
            message: format!("converting the page failed: {e}"),
        })?;
        let win = window(&text, options.start_index, options.max_chars)?;
        Ok(FetchedPage {
            url: page_url,
            truncated: win.truncated() || body.truncated,
            content: win.content,
            fetched_at: rfc3339_utc(SystemTime::now()),
            start_index: win.start_index,
            next_start_index: win.next_start_index,
            total_chars: win.total_chars,
            content_type,
            body_truncated: body.truncated,
        })
    }
}
