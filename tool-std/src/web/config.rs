//! [`WebConfig`]: what the `web` tool needs from its host, injected as a service.
//!
//! The host builds one `WebConfig` and hands it to the runtime
//! (`Runtime::builder(registry).service(Arc::new(config))`); the tool reads it with
//! `ToolContext::service::<WebConfig>()`. It holds:
//!
//! - the [`Fetcher`] (and with it the fetch [`NetworkPolicy`]: allow-list, byte cap, timeouts);
//! - the search engine, an `Arc<dyn SearchBackend>`, or the reason there is none (no SearXNG URL
//!   configured, or one the policy refuses), which a `search` answers with;
//! - the fetch defaults ([`FetchOptions`]: redirects returned rather than followed, 40,000
//!   characters per window);
//! - the per-turn search limit (seed 000's 10).
//!
//! A command line builds it from its flags with [`WebConfig::from_options`]; a host that injects
//! nothing gets [`WebConfig::from_env`] (public addresses only, SearXNG from `SEARXNG_URL`).

use std::fmt;
use std::sync::Arc;

use super::error::WebError;
use super::fetch::{FetchOptions, Fetcher, MAX_REDIRECTS};
use super::policy::NetworkPolicy;
use super::search::{
    MAX_SEARCHES_PER_TURN, SEARXNG_URL_ENV, SearchBackend, SearchWindow, SearxngBackend,
};

/// The search side of a configuration: an engine, or why there is none.
#[derive(Clone)]
enum Search {
    Backend(Arc<dyn SearchBackend>),
    Unavailable(WebError),
}

/// The `web` tool's configuration: fetcher, search engine, fetch defaults and search limit.
///
/// ```
/// use std::sync::Arc;
/// use tool_std::web::{WebConfig, WebError};
///
/// // What `toolsmith --searxng-url https://searx.example.org --allow-host localhost` builds.
/// let config = WebConfig::from_options(Some("https://searx.example.org"), &["localhost"])?;
/// assert!(config.search_backend().is_ok());
/// assert!(config.fetcher().policy().is_host_allowed("localhost"));
///
/// // Without a SearXNG URL, fetching works and searching answers with the setup hint.
/// let config = WebConfig::from_options(None, &[] as &[String])?;
/// let err = config.search_backend().err().expect("not configured");
/// assert_eq!(err, WebError::SearchNotConfigured);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct WebConfig {
    fetcher: Fetcher,
    search: Search,
    fetch_options: FetchOptions,
    max_searches_per_turn: usize,
    /// Shared by every clone: the server's window.
    search_window: Arc<SearchWindow>,
}

impl fmt::Debug for WebConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let search: &dyn fmt::Debug = match &self.search {
            Search::Backend(_) => &"configured",
            Search::Unavailable(e) => e,
        };
        f.debug_struct("WebConfig")
            .field("fetch_policy", self.fetcher.policy())
            .field("search", search)
            .field("fetch_options", &self.fetch_options)
            .field("max_searches_per_turn", &self.max_searches_per_turn)
            .field("search_window", &self.search_window.limits())
            .finish()
    }
}

impl WebConfig {
    /// A configuration that fetches with `fetcher` and has no search engine (a search answers
    /// [`WebError::SearchNotConfigured`] until [`WebConfig::with_search_backend`] adds one).
    pub fn new(fetcher: Fetcher) -> Self {
        WebConfig {
            fetcher,
            search: Search::Unavailable(WebError::SearchNotConfigured),
            fetch_options: FetchOptions::default(),
            max_searches_per_turn: MAX_SEARCHES_PER_TURN,
            search_window: Arc::new(SearchWindow::default()),
        }
    }

    /// The configuration a command line builds from `--searxng-url` and `--allow-host`.
    ///
    /// Fetches go through [`NetworkPolicy::new`] and searches through
    /// [`NetworkPolicy::for_search`] (seed 000's 10 s open and 15 s read timeouts), both with
    /// `allow_hosts` on the allow-list (host names or IP addresses, see
    /// [`NetworkPolicy::allow_host`]). A `searxng_url` of `None` or blank leaves search
    /// unconfigured; this function does not read `SEARXNG_URL` (a command line passes
    /// `--searxng-url` or that variable's value, see [`WebConfig::from_env`]).
    ///
    /// # Errors
    ///
    /// A SearXNG URL that is not an absolute http(s) URL ([`WebError::InvalidUrl`]) or whose
    /// host is a literal address the policy refuses ([`WebError::Refused`], which says which
    /// `--allow-host` to add), and a TLS setup failure ([`WebError::Internal`]).
    pub fn from_options<S: AsRef<str>>(
        searxng_url: Option<&str>,
        allow_hosts: &[S],
    ) -> Result<Self, WebError> {
        let hosts = || allow_hosts.iter().map(AsRef::as_ref);
        let fetcher = Fetcher::new(NetworkPolicy::new().allow_hosts(hosts()))?;
        let config = WebConfig::new(fetcher);
        match searxng_url.map(str::trim).filter(|u| !u.is_empty()) {
            None => Ok(config),
            Some(url) => {
                let searx =
                    SearxngBackend::new(url, NetworkPolicy::for_search().allow_hosts(hosts()))?;
                Ok(config.with_search_backend(Arc::new(searx)))
            }
        }
    }

    /// The configuration the `web` tool falls back to when the host injects none: public
    /// addresses only, SearXNG at `SEARXNG_URL` if that is set.
    ///
    /// A `SEARXNG_URL` that cannot be used (not a URL, or a refused address) does not fail
    /// here: every search answers with the reason instead, so fetching keeps working.
    ///
    /// # Errors
    ///
    /// Only when the HTTP client cannot be set up ([`WebError::Internal`]).
    pub fn from_env() -> Result<Self, WebError> {
        let fetcher = Fetcher::new(NetworkPolicy::new())?;
        let config = WebConfig::new(fetcher);
        let url = std::env::var(SEARXNG_URL_ENV).ok();
        Ok(
            match SearxngBackend::from_config(url.as_deref(), NetworkPolicy::for_search()) {
                Ok(searx) => config.with_search_backend(Arc::new(searx)),
                Err(reason) => config.with_search_unavailable(reason),
            },
        )
    }

    /// Search with `backend` (any engine implementing [`SearchBackend`]).
    pub fn with_search_backend(mut self, backend: Arc<dyn SearchBackend>) -> Self {
        self.search = Search::Backend(backend);
        self
    }

    /// No search engine: every search answers with `reason` (for example
    /// [`WebError::SearchNotConfigured`]).
    pub fn with_search_unavailable(mut self, reason: WebError) -> Self {
        self.search = Search::Unavailable(reason);
        self
    }

    /// Follow up to `hops` redirects (at most [`MAX_REDIRECTS`], each hop checked against the
    /// policy) instead of answering with the first one as a `redirect` (`0`, the default, as
    /// seed 000 does).
    pub fn with_follow_redirects(mut self, hops: u8) -> Self {
        self.fetch_options.follow_redirects = hops.min(MAX_REDIRECTS);
        self
    }

    /// The most characters of page text one fetch answers with (at least 1; default
    /// [`MAX_CONTENT_CHARS`](super::MAX_CONTENT_CHARS)).
    pub fn with_max_chars(mut self, max_chars: usize) -> Self {
        self.fetch_options.max_chars = max_chars.max(1);
        self
    }

    /// How many searches one turn may make (default [`MAX_SEARCHES_PER_TURN`]).
    pub fn with_max_searches_per_turn(mut self, limit: usize) -> Self {
        self.max_searches_per_turn = limit;
        self
    }

    /// How many searches the whole server allows in a rolling `window` where calls do not
    /// come in turns (an MCP server, a command line; default 10 a minute). Clones of this
    /// configuration share the window.
    pub fn with_search_window(mut self, limit: usize, window: std::time::Duration) -> Self {
        self.search_window = Arc::new(SearchWindow::new(limit, window));
        self
    }

    /// Counts the server-wide search window in `windows` (the Postgres store), where every
    /// replica counting there shares it; set the limit first
    /// ([`with_search_window`](Self::with_search_window)).
    pub fn with_shared_search_window(mut self, windows: Arc<dyn tool_core::RateWindows>) -> Self {
        let (limit, window) = self.search_window.limits();
        self.search_window = Arc::new(SearchWindow::new(limit, window).shared(windows));
        self
    }

    /// The server-wide search window.
    pub fn search_window(&self) -> &SearchWindow {
        &self.search_window
    }

    /// The `web` tool's description under this configuration, stating the search limit a
    /// model meets: per response where calls come in turns (`in_turns`, an agent loop),
    /// else the server's window (an MCP server, the command line). Give it to
    /// [`RegistryBuilder::describe`](tool_core::RegistryBuilder::describe) so the description
    /// says the limits the server enforces.
    ///
    /// ```
    /// use std::time::Duration;
    /// let config = tool_std::web::WebConfig::from_options(None, &[] as &[&str])?
    ///     .with_search_window(5, Duration::from_secs(60));
    /// assert!(config.tool_description(false).ends_with("Limited to 5 searches a minute on this server."));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn tool_description(&self, in_turns: bool) -> String {
        let limit = if in_turns {
            format!(
                "Limited to {} searches per response.",
                self.max_searches_per_turn
            )
        } else {
            let (limit, window) = self.search_window.limits();
            format!(
                "Limited to {limit} searches {} on this server.",
                super::error::per_window(window)
            )
        };
        format!("{} {limit}", super::tool::DESCRIPTION_HEAD)
    }

    /// The fetcher.
    pub fn fetcher(&self) -> &Fetcher {
        &self.fetcher
    }

    /// The search engine, or why there is none.
    ///
    /// # Errors
    ///
    /// The reason search is unavailable, [`WebError::SearchNotConfigured`] when no engine was
    /// given.
    pub fn search_backend(&self) -> Result<&dyn SearchBackend, WebError> {
        match &self.search {
            Search::Backend(backend) => Ok(backend.as_ref()),
            Search::Unavailable(reason) => Err(reason.clone()),
        }
    }

    /// The options every fetch starts from (its `start_index` is the call's).
    pub fn fetch_options(&self) -> FetchOptions {
        self.fetch_options
    }

    /// How many searches one turn may make.
    pub fn max_searches_per_turn(&self) -> usize {
        self.max_searches_per_turn
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_build_both_policies() {
        let config =
            WebConfig::from_options(Some(" http://127.0.0.1:8888 "), &["127.0.0.1".to_owned()])
                .expect("allow-listed instance");
        assert!(config.search_backend().is_ok());
        assert!(config.fetcher().policy().is_host_allowed("127.0.0.1"));
        assert_eq!(config.fetch_options(), FetchOptions::default());
        assert_eq!(config.max_searches_per_turn(), 10);

        let err = WebConfig::from_options(Some("http://127.0.0.1:8888"), &[] as &[&str])
            .expect_err("loopback instance without an allow-list entry");
        assert!(err.to_string().contains("--allow-host 127.0.0.1"), "{err}");

        let err = WebConfig::from_options(Some("searx.example.org"), &[] as &[&str])
            .expect_err("not a URL");
        assert!(err.to_string().starts_with("Invalid URL"), "{err}");

        let config = WebConfig::from_options(Some("  "), &[] as &[&str]).expect("blank");
        assert_eq!(
            config.search_backend().err(),
            Some(WebError::SearchNotConfigured)
        );
    }

    #[test]
    fn builders() {
        let config = WebConfig::from_options(None, &[] as &[&str])
            .expect("config")
            .with_follow_redirects(9)
            .with_max_chars(0)
            .with_max_searches_per_turn(3)
            .with_search_unavailable(WebError::InvalidSearchResponse);
        assert_eq!(config.fetch_options().follow_redirects, MAX_REDIRECTS);
        assert_eq!(config.fetch_options().max_chars, 1);
        assert_eq!(config.max_searches_per_turn(), 3);
        assert_eq!(
            config.search_backend().err(),
            Some(WebError::InvalidSearchResponse)
        );
        let debug = format!("{config:?}");
        assert!(debug.contains("InvalidSearchResponse"), "{debug}");
    }
}
