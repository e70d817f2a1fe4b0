//! The `web` tool's `search` action through the runtime (seed 000's WebTool test plan, ported,
//! and more), against a SearXNG answer from a loopback server on 127.0.0.1: results and their
//! limit, the rate limit, errors of the backend (403, invalid JSON, a slow answer) and a
//! missing configuration.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tool_std::web::{SearxngBackend, WebConfig};

use crate::support::error_message;
use crate::support::web::*;

// === seed 000: search ===

#[tokio::test]
async fn search_returns_results_with_type_field() {
    let server = searxng(2).await;
    let result = search(&session_for(&server), "ruby on rails").await;

    assert_eq!(result["type"], "search_results", "{result}");
    assert_eq!(result["query"], "ruby on rails");
    assert_eq!(result["results"].as_array().map(Vec::len), Some(2));
    assert_eq!(
        result["results"][1],
        json!({"url": "https://example1.com", "title": "Result 1", "snippet": "Content 1"})
    );
    assert_eq!(result["total_results"], 200);
    let requests = server.requests.lock().expect("lock").clone();
    assert_eq!(requests[0].target, "/search?q=ruby+on+rails&format=json");
}

#[tokio::test]
async fn search_limits_results_to_maximum() {
    // No Content-Type, as in seed 000's stub.
    let server = TestServer::start(|_| response("200 OK", &[], searxng_body(15))).await;
    let result = search(&session_for(&server), "test").await;

    assert_eq!(
        result["results"].as_array().map(Vec::len),
        Some(10),
        "{result}"
    );
    assert_eq!(result["total_results"], 1500);
}

#[tokio::test]
async fn search_enforces_rate_limit() {
    let server = searxng(2).await;
    let session = session_for(&server);

    for i in 0..10 {
        let result = search(&session, &format!("query {i}")).await;
        assert!(result.get("error").is_none(), "search {i}: {result}");
    }
    let result = search(&session, "one too many").await;
    assert_error(
        &result,
        "rate_limited",
        "Search limit reached (10 searches per response)",
    );
    assert_eq!(result["query_or_url"], "one too many");
    assert_eq!(
        server.requests.lock().expect("lock").len(),
        10,
        "the refused search sends nothing"
    );

    // A fetch is not counted against the search limit.
    let result = fetch(&session, "ftp://example.com").await;
    assert_error(&result, "user_error", "Invalid URL");

    // The next turn starts counting again.
    session.clear_current_turn();
    let result = search(&session, "a new turn").await;
    assert_eq!(result["type"], "search_results", "{result}");
    assert_eq!(session.state().count(tool_std::web::SEARCH_COUNTER), 1);
}

/// Sessions whose host does not mark turns (an MCP server: each request on a fresh session)
/// share the server's rolling window instead: the 11th search within it is refused, saying
/// when the next is allowed, and allowed again once the window has moved on.
#[tokio::test]
async fn without_turns_searches_share_the_servers_rolling_window() {
    let server = searxng(2).await;
    let window = Duration::from_millis(1500);
    let config = config_for(&server).with_search_window(10, window);
    let runtime = tool_core::Runtime::builder(registry())
        .service(Arc::new(config))
        .build();
    let fresh = || runtime.session_with(tool_core::SessionConfig::default().turns(false));
    let started = std::time::Instant::now();
    for i in 0..10 {
        // Each on a session of its own, as stateless requests are.
        let result = search(&fresh(), &format!("query {i}")).await;
        assert!(result.get("error").is_none(), "search {i}: {result}");
    }
    let result = search(&fresh(), "one too many").await;
    assert_error(
        &result,
        "rate_limited",
        "Search limit reached (10 searches per 1500 ms on this server). The next search is \
         allowed in ",
    );
    let message = error_message(&result);
    let secs: u64 = message
        .split("allowed in ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("a number of seconds in {message}"));
    assert!((1..=2).contains(&secs), "{message}");
    assert_eq!(server.requests.lock().expect("lock").len(), 10);
    assert!(started.elapsed() < Duration::from_secs(60));
    // Marking a turn changes nothing here; the window moving on does (retried when the
    // refusal says, in whole seconds rounded up).
    fresh().clear_current_turn();
    tokio::time::sleep(Duration::from_secs(secs)).await;
    let result = search(&fresh(), "after the window").await;
    assert_eq!(result["type"], "search_results", "{result}");
}

#[tokio::test]
async fn search_error_includes_type_field() {
    let server = TestServer::start(|_| response("500 Internal Server Error", &[], "")).await;
    let result = search(&session_for(&server), "test").await;

    assert_error(&result, "system_error", "500");
    assert!(
        error_message(&result).ends_with("HTTP 500: Internal Server Error"),
        "{result}"
    );
    assert_eq!(result["query_or_url"], "test");
}

#[tokio::test]
async fn search_403_explains_the_json_format() {
    let server = TestServer::start(|_| response("403 Forbidden", &[], "Forbidden")).await;
    let result = search(&session_for(&server), "test").await;

    assert_error(&result, "system_error", "HTTP 403: Forbidden");
    for needle in [
        "JSON output format",
        "search.formats",
        "settings.yml",
        "[html, json]",
    ] {
        assert!(
            error_message(&result).contains(needle),
            "{needle}: {result}"
        );
    }
}

#[tokio::test]
async fn search_invalid_json_is_an_invalid_response() {
    let server = TestServer::start(|_| ok("text/html", "<html>not json</html>")).await;
    let result = search(&session_for(&server), "test").await;

    assert_error(
        &result,
        "system_error",
        "Invalid response from search service",
    );
    assert_eq!(result["query_or_url"], "test");
}

#[tokio::test]
async fn slow_search_times_out() {
    let server = TestServer::start(|_| {
        Reply::Delayed(
            Duration::from_secs(6),
            Box::new(ok("application/json", searxng_body(1))),
        )
    })
    .await;
    let backend = SearxngBackend::new(&server.url("/"), search_policy()).expect("backend");
    let config = config_for(&server).with_search_backend(Arc::new(backend));
    let started = std::time::Instant::now();
    let result = search(&session_with(config), "slow").await;

    assert_error(
        &result,
        "timeout",
        "Timed out after 1 s waiting for a response",
    );
    assert_eq!(result["query_or_url"], "slow");
    assert!(started.elapsed() < Duration::from_secs(4));
}

#[tokio::test]
async fn missing_searxng_configuration_is_a_clear_error() {
    let config = WebConfig::from_options(None, &["127.0.0.1"]).expect("config");
    let result = search(&session_with(config), "rust").await;

    assert_error(
        &result,
        "system_error",
        "SearXNG URL not configured. Pass --searxng-url or set SEARXNG_URL.",
    );
    assert_eq!(result["query_or_url"], "rust");
}

/// A shared count that cannot be reached (a database away): searches are counted in this
/// process instead, so the limit still holds and searches still work.
#[tokio::test]
async fn an_unreachable_shared_window_falls_back_to_this_process() {
    #[derive(Debug)]
    struct Away;
    #[async_trait::async_trait]
    impl tool_core::RateWindows for Away {
        async fn take(
            &self,
            _: &str,
            _: usize,
            _: Duration,
        ) -> Result<tool_core::RateDecision, String> {
            Err("connection refused".into())
        }
    }
    let server = searxng(1).await;
    let config = config_for(&server)
        .with_search_window(2, Duration::from_secs(60))
        .with_shared_search_window(Arc::new(Away));
    let runtime = tool_core::Runtime::builder(registry())
        .service(Arc::new(config))
        .build();
    let fresh = || runtime.session_with(tool_core::SessionConfig::default().turns(false));
    for i in 0..2 {
        let result = search(&fresh(), &format!("q{i}")).await;
        assert_eq!(result["type"], "search_results", "{result}");
    }
    assert_error(
        &search(&fresh(), "q3").await,
        "rate_limited",
        "Search limit reached",
    );
}

/// Two replicas (two stores on one Postgres database, two runtimes): the 11th search within
/// the window is refused wherever it lands.
#[cfg(feature = "postgres")]
#[tokio::test]
async fn replicas_share_the_search_window_through_postgres() {
    use tool_core::postgres::{PostgresConfig, PostgresStore};
    let db = match tool_core::testing::postgres::TestDatabase::create().await {
        Ok(db) => db,
        Err(why) => return eprintln!("skipping replicas_share_the_search_window: {why}"),
    };
    let server = searxng(1).await;
    let mut replicas = Vec::new();
    for _ in 0..2 {
        let store = PostgresStore::connect(db.url(), PostgresConfig::default().pool_size(2))
            .await
            .expect("connects");
        let config = config_for(&server)
            .with_search_window(10, Duration::from_secs(60))
            .with_shared_search_window(Arc::new(store));
        replicas.push(
            tool_core::Runtime::builder(registry())
                .service(Arc::new(config))
                .build(),
        );
    }
    let fresh =
        |i: usize| replicas[i % 2].session_with(tool_core::SessionConfig::default().turns(false));
    for i in 0..10 {
        let result = search(&fresh(i), &format!("query {i}")).await;
        assert_eq!(result["type"], "search_results", "search {i}: {result}");
    }
    for i in 0..2 {
        assert_error(
            &search(&fresh(i), "one too many").await,
            "rate_limited",
            "Search limit reached (10 searches a minute on this server)",
        );
    }
    assert_eq!(server.requests.lock().expect("lock").len(), 10);
}
