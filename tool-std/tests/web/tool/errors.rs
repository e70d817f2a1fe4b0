//! The `web` tool's errors through the runtime: an unknown action with the allowed ones, the
//! `query_or_url` echoed into errors answered before the tool runs, the `type` field of every
//! answer, a blank query, a query given to `fetch`, and a role without the network permission.

use std::sync::Arc;

use serde_json::json;
use tool_core::{Permission, PermissionSet, Runtime, SessionConfig};

use crate::support::error_message;
use crate::support::web::*;

// === seed 000: validation ===

#[tokio::test]
async fn invalid_action_returns_error_with_allowed_values() {
    let server = searxng(0).await;
    let result = call(
        &session_for(&server),
        json!({"action": "crawl", "query_or_url": "test"}),
    )
    .await;

    assert_error(&result, "validation_error", "Invalid action 'crawl'");
    assert_eq!(result["allowed_actions"], json!(["search", "fetch"]));
    // The call signature in the message echoes what was asked.
    assert!(
        error_message(&result).starts_with("web(action=\"crawl\", query_or_url=\"test\")"),
        "{result}"
    );
}

// Regression: seed 000's error shape echoes `query_or_url` in every error of `web`, but the
// errors the runtime answers with before the tool runs (an invalid action, a permission or
// approval refusal) lacked it; `#[tool(error_context(query_or_url))]` echoes it now.
#[tokio::test]
async fn errors_answered_before_the_tool_runs_echo_query_or_url() {
    let server = searxng(0).await;
    let result = call(
        &session_for(&server),
        json!({"action": "crawl", "query_or_url": "test"}),
    )
    .await;
    assert_eq!(result["type"], "error", "{result}");
    assert_eq!(result["error_type"], "validation_error");
    assert_eq!(
        result["error"],
        "web(action=\"crawl\", query_or_url=\"test\"): Invalid action 'crawl'"
    );
    assert_eq!(result["query_or_url"], "test", "{result}");
    assert_eq!(result["allowed_actions"], json!(["search", "fetch"]));

    // A parameter of the other action, a missing permission, a denied approval.
    let result = call(
        &session_for(&server),
        json!({"action": "search", "query_or_url": "rust", "start_index": 5}),
    )
    .await;
    assert_eq!(result["error_type"], "validation_error", "{result}");
    assert_eq!(result["query_or_url"], "rust", "{result}");

    let no_network = Runtime::builder(registry())
        .service(Arc::new(config_for(&server)))
        .build()
        .session_with(SessionConfig::default().permissions(PermissionSet::EMPTY));
    let result = search(&no_network, "rust").await;
    assert_eq!(result["error_type"], "permission_error", "{result}");
    assert_eq!(result["query_or_url"], "rust", "{result}");

    let gated = Runtime::builder(registry())
        .service(Arc::new(config_for(&server)))
        .require_approval("web", None)
        .build()
        .session();
    let result = fetch(&gated, "https://example.com").await;
    assert_eq!(result["error_type"], "approval_denied", "{result}");
    assert_eq!(result["query_or_url"], "https://example.com", "{result}");

    // Nothing given, nothing echoed.
    let result = call(&session_for(&server), json!({"action": "search"})).await;
    assert_eq!(result["error_type"], "validation_error", "{result}");
    assert!(result.get("query_or_url").is_none(), "{result}");
    assert_eq!(server.connection_count(), 0);
}

#[tokio::test]
async fn consistent_type_field_in_all_responses() {
    let server = TestServer::start(|req| match req.target.as_str() {
        t if t.starts_with("/search") => ok("application/json", searxng_body(3)),
        "/moved" => redirect("302 Found", "/page"),
        "/page" => ok("text/plain", "plain text"),
        _ => response("404 Not Found", &[], ""),
    })
    .await;
    let session = session_for(&server);
    let cases = [
        (
            json!({"action": "search", "query_or_url": "x"}),
            "search_results",
        ),
        (
            json!({"action": "fetch", "query_or_url": server.url("/page")}),
            "fetched_page",
        ),
        (
            json!({"action": "fetch", "query_or_url": server.url("/moved")}),
            "redirect",
        ),
        (
            json!({"action": "fetch", "query_or_url": server.url("/gone")}),
            "error",
        ),
        (
            json!({"action": "fetch", "query_or_url": "mailto:a@b.c"}),
            "error",
        ),
        (json!({"action": "crawl", "query_or_url": "x"}), "error"),
        (json!({"action": "search"}), "error"),
        (json!({}), "error"),
    ];
    for (args, expected) in cases {
        let result = call(&session, args.clone()).await;
        assert_eq!(result["type"], expected, "{args} -> {result}");
        if expected == "error" {
            assert!(result["error_type"].is_string(), "{result}");
        }
    }
}

#[tokio::test]
async fn blank_query_is_a_validation_error_with_allowed_actions() {
    let server = searxng(1).await;
    let result = search(&session_for(&server), "   ").await;

    assert_error(&result, "validation_error", "query_or_url is empty");
    assert_eq!(result["allowed_actions"], json!(["search", "fetch"]));
    assert_eq!(result["query_or_url"], "   ");
    assert_eq!(server.connection_count(), 0);
}

#[tokio::test]
async fn a_search_query_given_to_fetch_suggests_searching() {
    let server = searxng(1).await;
    let result = fetch(&session_for(&server), "rust async runtime").await;

    assert_error(&result, "user_error", "Invalid URL: must be http or https");
    assert!(!error_message(&result).contains("did you mean"), "{result}");
    let suggestion = result["suggestion"].as_str().unwrap_or_default();
    assert!(suggestion.contains("web(action=\"search\""), "{result}");
}

#[tokio::test]
async fn a_role_without_network_permission_is_refused() {
    let server = searxng(1).await;
    let runtime = Runtime::builder(registry())
        .service(Arc::new(config_for(&server)))
        .build();
    let permissions: PermissionSet = [Permission::ReadFiles].into_iter().collect();
    let session = runtime.session_with(SessionConfig::default().permissions(permissions));
    let result = search(&session, "x").await;

    assert_error(&result, "permission_error", "network");
    assert_eq!(server.connection_count(), 0);
}
