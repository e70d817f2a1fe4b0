//! The `web` tool: one polymorphic tool with the actions `search` and `fetch` (seed 000's
//! `WebTool`), declared with `#[tool]` over the network code of this module.
//!
//! | action | `query_or_url` | answer |
//! |---|---|---|
//! | `search` | a query | `search_results`: at most 10 results; 10 searches per turn (per server window over MCP) |
//! | `fetch` | an http(s) URL (`start_index` to read on) | `fetched_page`, or `redirect` |
//!
//! Every answer carries `type`; failures are tool errors (`type: "error"`) whose `error_type`
//! follows [`WebError::kind`] (`user_error`, `security_error`, `timeout`, `rate_limited`,
//! `system_error`) and which echo `query_or_url`, as seed 000's error responses do: the tool's
//! `error_context(query_or_url)` has the runtime echo it into the errors it answers with
//! before the tool runs, too. Validation errors (an unknown action, an empty `query_or_url`)
//! also list `allowed_actions`.
//!
//! The old tools' names, `web_search`, `web_fetch`, `WebSearchTool`, `WebFetchTool` and
//! `WebTool`, are aliases that still resolve to `web` (seed 000's migration).
//!
//! Configuration comes from the host as a [`WebConfig`] service; without one the tool uses
//! [`WebConfig::from_env`], built once per process.
//!
//! A fetched page is text by nature; the tool declares an output schema all the same, as
//! its text for the model is its JSON: the structured content is the text, token for token
//! (the token benchmark's page and search answer: 1.00x).

use std::sync::{Arc, OnceLock};

use tool_core::{ErrorKind, Render, ToolContext, ToolError, ToolResult};
use tool_macros::tool;

use super::config::WebConfig;
use super::error::{WebError, WebErrorKind};
use super::fetch::FetchOptions;
use super::response::WebResponse;
use super::search::{MAX_RESULTS, SearchPage};

/// The tool's actions, in the order its schema lists them (seed 000's `ACTIONS`).
pub const WEB_ACTIONS: [&str; 2] = ["search", "fetch"];

/// The per-turn counter of searches, in the session's turn state.
pub const SEARCH_COUNTER: &str = "web.searches";

/// The `web` tool: search the web or fetch a page.
///
/// Register it like any tool (it also registers itself through `inventory`) and inject a
/// [`WebConfig`]:
///
/// ```no_run
/// use std::sync::Arc;
/// use tool_core::{Registry, Runtime, ToolCall};
/// use tool_std::web::{WebConfig, WebTool};
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let registry = Registry::builder().register(WebTool).build()?;
/// let config = WebConfig::from_options(Some("https://searx.example.org"), &[] as &[&str])?;
/// let session = Runtime::builder(registry)
///     .service(Arc::new(config))
///     .build()
///     .session();
/// let out = session
///     .call(ToolCall::new(
///         "1",
///         "web",
///         r#"{"action": "search", "query_or_url": "rust async"}"#,
///     ))
///     .await;
/// assert_eq!(out.to_json()["type"], "search_results");
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct WebTool;

/// How the `web` tool's description begins; [`WebConfig::tool_description`] adds the search
/// limit.
pub(crate) const DESCRIPTION_HEAD: &str =
    "Search the web or fetch a page. action: search (query) or fetch (URL).";

/// Search the web or fetch a page.
#[tool(
    name = "web",
    description = "Search the web or fetch a page. action: search (query) or fetch (URL). Limited to 10 searches per response.",
    category = "web",
    permissions(network),
    read_only,
    open_world,
    // Longer than the fetch and search totals (60 s), so their own, more precise timeout
    // errors are the ones the model sees.
    timeout = "75s",
    // Every error echoes the query or URL, those the runtime answers with before the tool
    // runs (an invalid action, a missing permission) included, as seed 000's errors do.
    error_context(query_or_url),
    toolsets(web),
    aliases(web_search, web_fetch, WebSearchTool, WebFetchTool, WebTool)
)]
impl WebTool {
    /// Search the web for `query_or_url`: at most 10 results.
    #[action]
    async fn search(
        &self,
        ctx: &ToolContext,
        /// Search query for 'search' action, or URL for 'fetch' action.
        query_or_url: String,
    ) -> ToolResult<WebResponse> {
        let query = non_blank(&query_or_url, "search")?;
        let config = config(ctx).map_err(|e| tool_error(&e, &query_or_url))?;
        let page = search(ctx, &config, query)
            .await
            .map_err(|e| tool_error(&e, &query_or_url))?;
        Ok(WebResponse::from(page.into_results(&query_or_url)))
    }

    /// Fetch the page at the http(s) URL `query_or_url` as readable text, 40,000 characters
    /// at a time; a redirect is answered as `redirect`.
    #[action]
    async fn fetch(
        &self,
        ctx: &ToolContext,
        query_or_url: String,
        /// Character offset in the page's text to start at; pass the previous answer's `next_start_index`.
        #[param(default)]
        start_index: usize,
    ) -> ToolResult<WebResponse> {
        let url = non_blank(&query_or_url, "fetch")?;
        let config = config(ctx).map_err(|e| tool_error(&e, &query_or_url))?;
        let options = fetch_options_for(&config, start_index);
        config
            .fetcher()
            .fetch(url, &options)
            .await
            .map(WebResponse::from)
            .map_err(|e| tool_error(&e, &query_or_url))
    }
}

/// The host's fetch defaults with the call's `start_index`.
fn fetch_options_for(config: &WebConfig, start_index: usize) -> FetchOptions {
    let mut options = config.fetch_options();
    options.start_index = start_index;
    options
}

/// The host's [`WebConfig`], or the default one built from the environment once per process.
fn config(ctx: &ToolContext) -> Result<Arc<WebConfig>, WebError> {
    static FALLBACK: OnceLock<Result<Arc<WebConfig>, WebError>> = OnceLock::new();
    match ctx.service::<WebConfig>() {
        Some(config) => Ok(config),
        None => FALLBACK
            .get_or_init(|| WebConfig::from_env().map(Arc::new))
            .clone(),
    }
}

/// One search, counted before anything is sent: against the turn's limit in a session whose
/// host marks turns, else against the server's window.
async fn search(
    ctx: &ToolContext,
    config: &WebConfig,
    query: &str,
) -> Result<SearchPage, WebError> {
    if ctx.has_turns() {
        let limit = config.max_searches_per_turn();
        let used = ctx.session().increment(SEARCH_COUNTER);
        if used > u64::try_from(limit).unwrap_or(u64::MAX) {
            return Err(WebError::SearchLimitReached { limit });
        }
    } else {
        config.search_window().take().await?;
    }
    let backend = config.search_backend()?;
    let mut page = backend.search(query, MAX_RESULTS).await?;
    // A backend that returns more than it was asked for is cut here.
    page.results.truncate(MAX_RESULTS);
    Ok(page)
}

/// The trimmed `query_or_url`, or a validation error when it is blank.
fn non_blank<'a>(query_or_url: &'a str, action: &str) -> Result<&'a str, ToolError> {
    let trimmed = query_or_url.trim();
    if !trimmed.is_empty() {
        return Ok(trimmed);
    }
    let wanted = if action == "search" {
        "a search query"
    } else {
        "an http or https URL"
    };
    Err(
        ToolError::validation(format!("query_or_url is empty: give {wanted}"))
            .with_field("query_or_url", query_or_url)
            .with_field("allowed_actions", WEB_ACTIONS.to_vec())
            .with_suggestion(format!(
                "Example: web(action=\"{action}\", query_or_url=\"{}\")",
                if action == "search" {
                    "rust async runtime"
                } else {
                    "https://example.com"
                }
            )),
    )
}

/// The tool error a [`WebError`] becomes: its kind, its text, and `query_or_url`.
pub fn tool_error(err: &WebError, query_or_url: &str) -> ToolError {
    let kind = match err.kind() {
        WebErrorKind::User => ErrorKind::UserError,
        WebErrorKind::Security => ErrorKind::SecurityError,
        WebErrorKind::Timeout => ErrorKind::Timeout,
        WebErrorKind::RateLimited => ErrorKind::RateLimited,
        WebErrorKind::System => ErrorKind::SystemError,
    };
    let mut out = ToolError::new(kind, err.to_string()).with_field("query_or_url", query_or_url);
    if let WebError::InvalidUrl { .. } = err
        && query_or_url.trim().contains(char::is_whitespace)
    {
        out = out.with_suggestion(format!(
            "To search for this text instead: web(action=\"search\", query_or_url={:?})",
            query_or_url.trim()
        ));
    }
    out
}

impl Render for WebResponse {
    fn status(&self) -> Option<String> {
        Some(match self {
            WebResponse::SearchResults(r) => {
                format!("Found {} result(s) for {:?}", r.results.len(), r.query)
            }
            WebResponse::FetchedPage(p) => {
                let shown = p.content.chars().count();
                if p.truncated {
                    format!(
                        "Fetched {} (characters {}..{} of {})",
                        p.url,
                        p.start_index,
                        p.start_index + shown,
                        p.total_chars
                    )
                } else {
                    format!("Fetched {} ({shown} characters)", p.url)
                }
            }
            WebResponse::Redirect(r) => {
                format!("{} redirects to {}", r.original_url, r.redirect_url)
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tool_core::Registry;

    #[test]
    fn actions_match_the_schema() {
        let registry = Registry::builder()
            .register(WebTool)
            .build()
            .expect("registry");
        let spec = registry.get("web").expect("web").spec().clone();
        let set = spec.actions.as_ref().expect("polymorphic");
        assert_eq!(set.names().collect::<Vec<_>>(), WEB_ACTIONS);
    }

    #[test]
    fn errors_keep_kind_text_and_query() {
        let err = tool_error(&WebError::SearchLimitReached { limit: 10 }, "q");
        assert_eq!(err.kind(), ErrorKind::RateLimited);
        assert!(
            err.message()
                .starts_with("Search limit reached (10 searches per response)")
        );
        assert_eq!(err.fields()["query_or_url"], "q");

        let invalid = WebError::InvalidUrl {
            url: "rust async".into(),
            reason: "must be http or https".into(),
        };
        let err = tool_error(&invalid, "rust async");
        assert_eq!(err.kind(), ErrorKind::UserError);
        assert!(
            err.suggestion()
                .is_some_and(|s| s.contains("action=\"search\""))
        );
        assert_eq!(
            tool_error(&WebError::http(503), "u").kind(),
            ErrorKind::SystemError
        );
        assert_eq!(
            tool_error(&WebError::http(404), "u").kind(),
            ErrorKind::UserError
        );
    }

    #[test]
    fn blank_input_is_a_validation_error() {
        let err = non_blank("  ", "fetch").expect_err("blank");
        assert_eq!(err.kind(), ErrorKind::ValidationError);
        assert_eq!(
            err.to_json()["allowed_actions"],
            serde_json::json!(["search", "fetch"])
        );
        assert_eq!(non_blank(" x ", "search").ok(), Some("x"));
    }
}
