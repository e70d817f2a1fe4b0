//! Web search: the [`SearchBackend`] trait and the shipped [`SearxngBackend`].
//!
//! A backend turns a query into at most [`MAX_RESULTS`] results. Other engines plug in by
//! implementing the trait; the `web` tool only sees a `dyn SearchBackend`.
//!
//! [`SearxngBackend`] speaks SearXNG's JSON API (`GET {instance}/search?q=..&format=json`),
//! seed 000's search service. Its instance URL goes through the same [`NetworkPolicy`] as every
//! fetch, so an instance on `localhost` needs an allow-list entry (`--allow-host localhost`).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use reqwest::StatusCode;
use serde_json::Value;
use tool_core::{RateDecision, RateWindows};
use url::Url;

use super::error::{TimeoutPhase, WebError};
use super::http::HttpClient;
use super::policy::NetworkPolicy;
use super::response::{SearchResult, SearchResults};

/// The most results one search returns (seed 000's `RESULT_LIMIT`).
pub const MAX_RESULTS: usize = 10;

/// The environment variable [`SearxngBackend::from_env`] reads the instance URL from.
pub const SEARXNG_URL_ENV: &str = "SEARXNG_URL";

/// How many searches one turn may make (seed 000's `MAX_SEARCHES_PER_SESSION`).
pub const MAX_SEARCHES_PER_TURN: usize = 10;

/// Counts the searches of one turn and refuses the ones past the limit.
///
/// The tool keeps one per turn (or calls [`SearchLimit::reset`] when a turn starts).
///
/// ```
/// use tool_std::web::{SearchLimit, WebError};
///
/// let limit = SearchLimit::new(2);
/// assert!(limit.take().is_ok() && limit.take().is_ok());
/// assert_eq!(limit.take(), Err(WebError::SearchLimitReached { limit: 2 }));
/// ```
#[derive(Debug)]
pub struct SearchLimit {
    limit: usize,
    used: AtomicUsize,
}

impl Default for SearchLimit {
    fn default() -> Self {
        SearchLimit::new(MAX_SEARCHES_PER_TURN)
    }
}

impl SearchLimit {
    /// A counter allowing `limit` searches.
    pub fn new(limit: usize) -> Self {
        SearchLimit {
            limit,
            used: AtomicUsize::new(0),
        }
    }

    /// Count one search, or refuse it with [`WebError::SearchLimitReached`] when the limit is
    /// used up.
    pub fn take(&self) -> Result<(), WebError> {
        self.used
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |used| {
                (used < self.limit).then_some(used + 1)
            })
            .map(|_| ())
            .map_err(|_| WebError::SearchLimitReached { limit: self.limit })
    }

    /// How many searches were counted.
    pub fn used(&self) -> usize {
        self.used.load(Ordering::SeqCst)
    }

    /// Start counting again (a new turn).
    pub fn reset(&self) {
        self.used.store(0, Ordering::SeqCst);
    }
}

/// How long the server-wide search window is by default (see [`SearchWindow`]).
pub const DEFAULT_SEARCH_WINDOW: Duration = Duration::from_secs(60);

/// The searches a whole server allows in a rolling window: the limit where calls do not come
/// in turns (an MCP server, a command line), so that a limit per turn would never reset.
///
/// Counted in this process, or, with [`shared`](Self::shared), in [`RateWindows`] that
/// several replicas reach (the Postgres store), so the limit holds wherever a search lands.
/// When the shared count cannot be reached, the search is counted here instead (logged once
/// a minute at most): a database outage neither stops searches nor lifts the limit.
///
/// ```
/// use std::time::Duration;
/// use tool_std::web::{SearchWindow, WebError};
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build()?.block_on(async {
/// let window = SearchWindow::new(2, Duration::from_secs(60));
/// assert!(window.take().await.is_ok() && window.take().await.is_ok());
/// match window.take().await {
///     Err(WebError::SearchRateLimited { limit: 2, retry_in, .. }) => {
///         assert!(retry_in <= Duration::from_secs(60))
///     }
///     other => panic!("{other:?}"),
/// }
/// # });
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct SearchWindow {
    limit: usize,
    window: Duration,
    /// When the searches still inside the window were made, oldest first (at most `limit`).
    times: Mutex<VecDeque<Instant>>,
    /// Where replicas count together, and the key they count under.
    shared: Option<(Arc<dyn RateWindows>, String)>,
    /// When an unreachable shared count was last logged.
    warned: Mutex<Option<Instant>>,
}

impl Default for SearchWindow {
    fn default() -> Self {
        SearchWindow::new(MAX_SEARCHES_PER_TURN, DEFAULT_SEARCH_WINDOW)
    }
}

/// The key the web tool's searches are counted under in shared [`RateWindows`].
pub const SEARCH_WINDOW_KEY: &str = "toolsmith.web.search";

impl SearchWindow {
    /// At most `limit` searches in any `window` (a zero window is taken as a millisecond).
    pub fn new(limit: usize, window: Duration) -> Self {
        SearchWindow {
            limit,
            window: window.max(Duration::from_millis(1)),
            times: Mutex::new(VecDeque::new()),
            shared: None,
            warned: Mutex::new(None),
        }
    }

    /// The same limit, counted in `windows` under [`SEARCH_WINDOW_KEY`] together with every
    /// replica that counts there.
    pub fn shared(mut self, windows: Arc<dyn RateWindows>) -> Self {
        self.shared = Some((windows, SEARCH_WINDOW_KEY.to_owned()));
        self
    }

    /// The limit and the window.
    pub fn limits(&self) -> (usize, Duration) {
        (self.limit, self.window)
    }

    /// Counts one search now, or refuses it with [`WebError::SearchRateLimited`], which says
    /// when the next one is allowed.
    pub async fn take(&self) -> Result<(), WebError> {
        if let Some((windows, key)) = &self.shared {
            match windows.take(key, self.limit, self.window).await {
                Ok(RateDecision::Allowed) => return Ok(()),
                Ok(RateDecision::Refused { retry_in }) => return Err(self.refused(retry_in)),
                Err(e) => {
                    let mut warned = self.warned.lock().unwrap_or_else(|e| e.into_inner());
                    if warned.is_none_or(|t| t.elapsed() >= Duration::from_secs(60)) {
                        *warned = Some(Instant::now());
                        tracing::warn!(
                            target: "toolsmith::web",
                            "the shared search limit cannot be reached ({e}); searches are \
                             counted in this process until it can"
                        );
                    }
                }
            }
        }
        self.take_here()
    }

    fn refused(&self, retry_in: Duration) -> WebError {
        WebError::SearchRateLimited {
            limit: self.limit,
            window: self.window,
            retry_in,
        }
    }

    /// Counts one search in this process's window.
    fn take_here(&self) -> Result<(), WebError> {
        let now = Instant::now();
        let mut times = self.times.lock().unwrap_or_else(|e| e.into_inner());
        while times
            .front()
            .is_some_and(|t| now.duration_since(*t) >= self.window)
        {
            times.pop_front();
        }
        if times.len() < self.limit {
            times.push_back(now);
            return Ok(());
        }
        let retry_in = match times.front() {
            Some(oldest) => (*oldest + self.window).saturating_duration_since(now),
            None => self.window,
        };
        Err(self.refused(retry_in))
    }
}

/// One page of search results.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SearchPage {
    /// At most the requested number of results (and at most [`MAX_RESULTS`]), best first.
    pub results: Vec<SearchResult>,
    /// How many results the engine reports in total (the number it returned when it does not
    /// say).
    pub total_results: u64,
}

impl SearchPage {
    /// The `search_results` answer for `query`.
    pub fn into_results(self, query: &str) -> SearchResults {
        SearchResults {
            query: query.to_owned(),
            results: self.results,
            total_results: self.total_results,
        }
    }
}

/// A web search engine.
#[async_trait]
pub trait SearchBackend: Send + Sync {
    /// Search for `query`, returning at most `limit` results (and never more than
    /// [`MAX_RESULTS`]).
    async fn search(&self, query: &str, limit: usize) -> Result<SearchPage, WebError>;
}

/// Searches through a SearXNG instance's JSON API.
///
/// ```
/// use tool_std::web::{NetworkPolicy, SearxngBackend, WebError};
///
/// let err = SearxngBackend::from_config(None, NetworkPolicy::for_search()).unwrap_err();
/// assert_eq!(err, WebError::SearchNotConfigured);
///
/// let searx = SearxngBackend::new(
///     "http://localhost:8888/",
///     NetworkPolicy::for_search().allow_host("localhost"),
/// )?;
/// assert_eq!(
///     searx.search_url("rust async").as_str(),
///     "http://localhost:8888/search?q=rust+async&format=json"
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct SearxngBackend {
    instance: Url,
    http: HttpClient,
}

impl SearxngBackend {
    /// A backend for the instance at `instance_url` (`https://searx.example.org/`, or with a
    /// path prefix), checked against `policy` now and on every search.
    ///
    /// Use [`NetworkPolicy::for_search`] for seed 000's timeouts (connect 10 s, read 15 s).
    pub fn new(instance_url: &str, policy: NetworkPolicy) -> Result<Self, WebError> {
        let instance = policy.check_url(instance_url)?;
        Ok(SearxngBackend {
            instance,
            http: HttpClient::new(policy)?,
        })
    }

    /// A backend for a configured instance URL; `None` or a blank URL is
    /// [`WebError::SearchNotConfigured`].
    pub fn from_config(
        instance_url: Option<&str>,
        policy: NetworkPolicy,
    ) -> Result<Self, WebError> {
        match instance_url.map(str::trim) {
            Some(url) if !url.is_empty() => SearxngBackend::new(url, policy),
            _ => Err(WebError::SearchNotConfigured),
        }
    }

    /// A backend for the instance named by the `SEARXNG_URL` environment variable.
    pub fn from_env(policy: NetworkPolicy) -> Result<Self, WebError> {
        let url = std::env::var(SEARXNG_URL_ENV).ok();
        SearxngBackend::from_config(url.as_deref(), policy)
    }

    /// The instance URL.
    pub fn instance_url(&self) -> &Url {
        &self.instance
    }

    /// The policy the backend enforces.
    pub fn policy(&self) -> &NetworkPolicy {
        self.http.policy()
    }

    /// The request URL for `query`: `{instance}/search?q={query}&format=json`.
    pub fn search_url(&self, query: &str) -> Url {
        let mut url = self.instance.clone();
        let path = format!("{}/search", url.path().trim_end_matches('/'));
        url.set_path(&path);
        url.set_fragment(None);
        url.query_pairs_mut()
            .clear()
            .append_pair("q", query)
            .append_pair("format", "json");
        url
    }

    async fn request(&self, query: &str, limit: usize) -> Result<SearchPage, WebError> {
        let url = self.search_url(query);
        let mut response = self.http.get(&url, "application/json").await?;
        let status = response.status();
        if status == StatusCode::FORBIDDEN {
            return Err(WebError::SearchFormatDisabled);
        }
        if !status.is_success() {
            return Err(WebError::http(status.as_u16()));
        }
        let body = self.http.read_capped(&mut response, &url).await?;
        if body.truncated {
            return Err(WebError::InvalidSearchResponse);
        }
        parse_searxng(&body.bytes, limit)
    }
}

#[async_trait]
impl SearchBackend for SearxngBackend {
    async fn search(&self, query: &str, limit: usize) -> Result<SearchPage, WebError> {
        let total = self.policy().timeouts().total;
        match tokio::time::timeout(total, self.request(query, limit)).await {
            Ok(result) => result,
            Err(_) => Err(WebError::Timeout {
                url: self.search_url(query).to_string(),
                phase: TimeoutPhase::Total,
                after: total,
            }),
        }
    }
}

/// A string field of a result, or "" when it is missing or not a string.
fn string_field(result: &Value, key: &str) -> String {
    result
        .get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .unwrap_or_default()
        .to_owned()
}

/// Read SearXNG's JSON answer: `results[].{url, title, content}` and `number_of_results`.
///
/// Results without a URL are skipped; at most `limit` (and [`MAX_RESULTS`]) are kept. Anything
/// that is not a JSON object with a `results` array is [`WebError::InvalidSearchResponse`].
pub fn parse_searxng(body: &[u8], limit: usize) -> Result<SearchPage, WebError> {
    let data: Value = serde_json::from_slice(body).map_err(|_| WebError::InvalidSearchResponse)?;
    let raw = data
        .get("results")
        .and_then(Value::as_array)
        .ok_or(WebError::InvalidSearchResponse)?;
    let results: Vec<SearchResult> = raw
        .iter()
        .filter_map(|r| {
            let url = string_field(r, "url");
            (!url.is_empty()).then(|| SearchResult {
                url,
                title: string_field(r, "title"),
                snippet: string_field(r, "content"),
            })
        })
        .take(limit.clamp(1, MAX_RESULTS))
        .collect();
    let reported = data.get("number_of_results").and_then(|n| {
        n.as_u64().or_else(|| {
            n.as_f64()
                .filter(|f| f.is_finite() && *f >= 0.0)
                .map(|f| f as u64)
        })
    });
    let total_results = match reported {
        Some(n) if n > 0 => n,
        _ => raw.len() as u64,
    };
    Ok(SearchPage {
        results,
        total_results,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn page(value: Value, limit: usize) -> Result<SearchPage, WebError> {
        parse_searxng(value.to_string().as_bytes(), limit)
    }

    #[test]
    fn maps_fields_and_caps_results() {
        let results: Vec<Value> = (0..15)
            .map(|i| json!({"url": format!("https://example{i}.com"), "title": format!("Result {i}"), "content": format!("Content {i}")}))
            .collect();
        let p = page(json!({"number_of_results": 1500, "results": results}), 10).unwrap();
        assert_eq!(p.results.len(), 10);
        assert_eq!(p.total_results, 1500);
        assert_eq!(p.results[3].url, "https://example3.com");
        assert_eq!(p.results[3].title, "Result 3");
        assert_eq!(p.results[3].snippet, "Content 3");
        assert_eq!(
            page(json!({"results": results}), 3).unwrap().results.len(),
            3
        );
        assert_eq!(
            page(json!({"results": results}), 50).unwrap().results.len(),
            10
        );
    }

    #[test]
    fn tolerates_missing_fields() {
        let p = page(
            json!({"number_of_results": 0.0, "results": [{"url": "https://a"}, {"title": "no url"}, 7]}),
            10,
        )
        .unwrap();
        assert_eq!(p.results.len(), 1);
        assert_eq!(p.results[0].title, "");
        assert_eq!(p.total_results, 3);
    }

    #[test]
    fn rejects_what_is_not_searxng_json() {
        for body in [
            &b"<html>oops</html>"[..],
            b"",
            b"{\"results\": 5}",
            b"[]",
            b"null",
        ] {
            assert_eq!(
                parse_searxng(body, 10),
                Err(WebError::InvalidSearchResponse)
            );
        }
    }

    #[test]
    fn the_eleventh_search_is_refused() {
        let limit = SearchLimit::default();
        for _ in 0..MAX_SEARCHES_PER_TURN {
            limit.take().unwrap();
        }
        let err = limit.take().unwrap_err();
        assert!(
            err.to_string()
                .starts_with("Search limit reached (10 searches per response)")
        );
        assert_eq!(err.kind().as_str(), "rate_limited");
        assert_eq!(limit.used(), 10);
        limit.reset();
        assert!(limit.take().is_ok());
    }

    #[test]
    fn configuration() {
        let policy = NetworkPolicy::for_search();
        assert_eq!(
            SearxngBackend::from_config(Some("  "), policy.clone()).unwrap_err(),
            WebError::SearchNotConfigured
        );
        let err = SearxngBackend::new("searx.example.org", policy.clone()).unwrap_err();
        assert!(err.to_string().starts_with("Invalid URL"), "{err}");
        // A loopback instance needs an allow-list entry.
        let err = SearxngBackend::new("http://127.0.0.1:8888", policy.clone()).unwrap_err();
        assert!(err.to_string().contains("--allow-host 127.0.0.1"), "{err}");
        let searx = SearxngBackend::new("https://searx.example.org/sub/?x=1#f", policy).unwrap();
        assert_eq!(
            searx.search_url("a&b c").as_str(),
            "https://searx.example.org/sub/search?q=a%26b+c&format=json"
        );
    }
}
