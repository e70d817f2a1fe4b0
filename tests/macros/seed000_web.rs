//! Seed 000's `WebTool` declared with the macros and driven through the runtime: a `#[tool]`
//! function over a `#[derive(Action)]` enum. Its behaviour matrix, response shapes and
//! validation errors (`allowed_actions`) are the seed's; the network is a test double.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Value, json};
use toolsmith::{
    Action, Registry, Render, Runtime, Session, ToolCall, ToolContext, ToolError, ToolResult, tool,
};

use crate::support::macros::call;

// ---- WebTool -------------------------------------------------------------------------

const MAX_SEARCHES_PER_SESSION: u64 = 10;

const RESULT_LIMIT: usize = 10;

/// What the web tool can do.
#[derive(Action, Debug, PartialEq)]
enum WebAction {
    /// Search the web.
    Search {
        /// Search query for 'search' action, or URL for 'fetch' action.
        query_or_url: String,
    },
    /// Fetch a page.
    Fetch { query_or_url: String },
}

/// A search engine and a web server, as the test wants them.
struct Network {
    results: usize,
    pages: HashMap<&'static str, Result<&'static str, &'static str>>,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
enum WebResult {
    SearchResults {
        query: String,
        results: Vec<Value>,
        total_results: usize,
    },
    FetchedPage {
        url: String,
        content: String,
    },
    Redirect {
        original_url: String,
        redirect_url: String,
    },
}

impl Render for WebResult {}

fn web_error(message: &str, query_or_url: &str) -> ToolError {
    ToolError::user(message.to_owned()).with_field("query_or_url", query_or_url)
}

/// Search the web or fetch a page. action: search (query) or fetch (URL).
#[tool(
    name = "web",
    permissions(network),
    open_world,
    aliases(web_search, web_fetch),
    register = false
)]
async fn web(ctx: &ToolContext, args: WebAction) -> ToolResult<WebResult> {
    let net = ctx.require_service::<Network>()?;
    match args {
        WebAction::Search { query_or_url } => {
            if ctx.session().increment("web.searches") > MAX_SEARCHES_PER_SESSION {
                return Err(web_error(
                    "Search limit reached (10 searches per response)",
                    &query_or_url,
                ));
            }
            let results = (0..net.results.min(RESULT_LIMIT))
                .map(|i| json!({"url": format!("https://example{i}.com"), "title": format!("Result {i}")}))
                .collect();
            Ok(WebResult::SearchResults {
                query: query_or_url,
                results,
                total_results: net.results * 100,
            })
        }
        WebAction::Fetch { query_or_url } => {
            if !(query_or_url.starts_with("http://") || query_or_url.starts_with("https://")) {
                return Err(web_error(
                    "Invalid URL: must be http or https",
                    &query_or_url,
                ));
            }
            match net.pages.get(query_or_url.as_str()) {
                Some(Ok(body)) => Ok(WebResult::FetchedPage {
                    url: query_or_url.clone(),
                    content: (*body).to_owned(),
                }),
                Some(Err(location)) => Ok(WebResult::Redirect {
                    original_url: query_or_url.clone(),
                    redirect_url: (*location).to_owned(),
                }),
                None => Err(web_error("HTTP 404: Not Found", &query_or_url)),
            }
        }
    }
}

fn web_session(results: usize) -> Session {
    let registry = Registry::builder().register(WebTool).build().unwrap();
    let mut pages = HashMap::new();
    pages.insert("https://example.com", Ok("Hello World"));
    pages.insert("http://example.com", Err("https://example.com/new"));
    let net = Network { results, pages };
    Runtime::builder(registry)
        .service(Arc::new(net))
        .build()
        .session()
}

#[tokio::test]
async fn web_search_and_fetch() {
    let s = web_session(2);
    let out = call(
        &s,
        "web",
        json!({"action": "search", "query_or_url": "ruby on rails"}),
    )
    .await;
    assert_eq!(out["type"], "search_results");
    assert_eq!(out["query"], "ruby on rails");
    assert_eq!(out["results"].as_array().unwrap().len(), 2);

    let out = call(
        &s,
        "web",
        json!({"action": "fetch", "query_or_url": "https://example.com"}),
    )
    .await;
    assert_eq!(
        out,
        json!({"type": "fetched_page", "url": "https://example.com", "content": "Hello World"})
    );

    let out = call(
        &s,
        "web",
        json!({"action": "fetch", "query_or_url": "http://example.com"}),
    )
    .await;
    assert_eq!(
        out,
        json!({"type": "redirect", "original_url": "http://example.com", "redirect_url": "https://example.com/new"})
    );

    let out = call(
        &s,
        "web",
        json!({"action": "fetch", "query_or_url": "ftp://example.com"}),
    )
    .await;
    assert_eq!(out["type"], "error");
    assert!(out["error"].as_str().unwrap().contains("Invalid URL"));
    assert_eq!(out["query_or_url"], "ftp://example.com");
}

#[tokio::test]
async fn web_search_limits_results_and_searches() {
    let s = web_session(15);
    let out = call(
        &s,
        "web",
        json!({"action": "search", "query_or_url": "test"}),
    )
    .await;
    assert_eq!(out["results"].as_array().unwrap().len(), 10);

    let s = web_session(2);
    for i in 0..MAX_SEARCHES_PER_SESSION {
        let args = json!({"action": "search", "query_or_url": format!("query {i}")});
        let out = s
            .call(ToolCall::new("c", "web", args.to_string()))
            .await
            .to_json();
        assert_eq!(out["type"], "search_results", "{out}");
    }
    let args = json!({"action": "search", "query_or_url": "one too many"});
    let out = s
        .call(ToolCall::new("c", "web", args.to_string()))
        .await
        .to_json();
    assert_eq!(out["type"], "error");
    assert!(
        out["error"]
            .as_str()
            .unwrap()
            .contains("Search limit reached")
    );
}

#[tokio::test]
async fn web_invalid_action_lists_allowed_actions() {
    let s = web_session(2);
    let out = call(
        &s,
        "web",
        json!({"action": "crawl", "query_or_url": "test"}),
    )
    .await;
    assert_eq!(out["type"], "error");
    assert!(
        out["error"]
            .as_str()
            .unwrap()
            .contains("Invalid action 'crawl'"),
        "{out}"
    );
    assert_eq!(out["allowed_actions"], json!(["search", "fetch"]));

    let out = call(&s, "web", json!({"action": "search"})).await;
    assert!(
        out["error"]
            .as_str()
            .unwrap()
            .contains("query_or_url is required for search action"),
        "{out}"
    );
}

#[tokio::test]
async fn web_old_names_resolve() {
    let s = web_session(1);
    let out = call(
        &s,
        "web_search",
        json!({"action": "search", "query_or_url": "x"}),
    )
    .await;
    assert_eq!(out["type"], "search_results");
}
