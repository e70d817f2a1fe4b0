//! The network side of the `web` tool: search and fetch, under one network policy.
//!
//! The `web` tool (seed 000) has two actions, `search` and `fetch`, and both reach the network.
//! Everything they need lives here as plain Rust, so the tool itself is a thin wrapper:
//!
//! - [`WebTool`] is the tool, declared with `#[tool]`: `action` (`search` | `fetch`),
//!   `query_or_url` and, for `fetch`, `start_index`; aliases `web_search`, `web_fetch`,
//!   `WebSearchTool`, `WebFetchTool` and `WebTool`; errors echo `query_or_url` and take their
//!   `error_type` from [`WebError::kind`] ([`tool_error`]). It reads its [`WebConfig`] (fetcher,
//!   search engine, fetch defaults, per-turn search limit) from the host's services, or builds
//!   one from the environment ([`WebConfig::from_env`]).
//! - [`NetworkPolicy`] decides what may be reached: `http` and `https` only; no loopback,
//!   private, link-local, CGNAT, multicast, reserved or cloud-metadata address (judged by
//!   [`classify`], IPv4 spellings like `0x7f.1` and IPv4-in-IPv6 forms included), checked
//!   on the URL, again after DNS resolution, and at every redirect hop; an explicit allow-list for
//!   tests and local services; a byte cap and time limits ([`Timeouts`]).
//! - [`Fetcher`] fetches a page: it resolves each host once and connects only to the addresses it
//!   checked, returns redirects as [`Redirect`] (or follows up to [`MAX_REDIRECTS`] hops when
//!   asked), reads bodies in chunks up to the cap (a 50 MB body or a gzip bomb stops there),
//!   refuses binary content, and turns HTML into Markdown-like text ([`html_to_text`]) cut into
//!   windows of [`MAX_CONTENT_CHARS`] characters ([`window()`]).
//! - [`SearchBackend`] is the search engine interface and [`SearxngBackend`] the shipped engine,
//!   SearXNG's JSON API; [`SearchLimit`] counts a turn's searches (10 by default).
//! - Answers are [`WebResponse`]s tagged with `type` (`search_results`, `fetched_page`,
//!   `redirect`), failures [`WebError`]s whose [`WebError::kind`] says which tool error they
//!   become.
//!
//! ```no_run
//! use tool_std::web::{FetchOptions, Fetcher, NetworkPolicy, SearchBackend, SearxngBackend, WebResponse};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let searx = SearxngBackend::new("https://searx.example.org", NetworkPolicy::for_search())?;
//! let found = searx.search("rust html parser", 10).await?.into_results("rust html parser");
//!
//! let fetcher = Fetcher::new(NetworkPolicy::new())?;
//! let page = fetcher.fetch(&found.results[0].url, &FetchOptions::default()).await?;
//! println!("{}", serde_json::to_string_pretty(&WebResponse::from(page))?);
//! # Ok(())
//! # }
//! ```

pub mod config;
pub mod content;
pub mod depth;
pub mod error;
pub mod fetch;
pub mod html;
mod http;
pub mod policy;
pub mod response;
pub mod search;
mod text;
pub mod tool;
pub mod window;

pub use crate::trust::net::{AddressClass, classify};
pub use config::WebConfig;
pub use error::{TimeoutPhase, WebError, WebErrorKind};
pub use fetch::{FetchOptions, FetchOutcome, Fetcher, MAX_REDIRECTS};
pub use html::html_to_text;
pub use policy::{DEFAULT_MAX_BODY_BYTES, NetworkPolicy, Timeouts};
pub use response::{FetchedPage, Redirect, SearchResult, SearchResults, WebResponse, rfc3339_utc};
pub use search::{
    DEFAULT_SEARCH_WINDOW, MAX_RESULTS, MAX_SEARCHES_PER_TURN, SEARCH_WINDOW_KEY, SEARXNG_URL_ENV,
    SearchBackend, SearchLimit, SearchPage, SearchWindow, SearxngBackend,
};
pub use tool::{SEARCH_COUNTER, WEB_ACTIONS, WebTool, tool_error};
pub use window::{MAX_CONTENT_CHARS, TextWindow, window};
