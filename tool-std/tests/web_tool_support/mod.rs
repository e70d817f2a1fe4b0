//! What the `web_tool_*` tests share: a registry with the web tool, sessions whose runtime
//! injects a [`WebConfig`] pointing at the loopback server, the calls a model makes, a SearXNG
//! answer, and the checks of an error.
#![allow(dead_code, unreachable_pub)]

use std::sync::Arc;

use serde_json::{Value, json};
use tool_core::{Registry, Runtime, Session, ToolCall};
use tool_std::web::{WebConfig, WebTool};

use crate::web_support::{TestServer, ok};

/// A registry with the web tool only.
pub fn registry() -> Registry {
    Registry::builder()
        .register(WebTool)
        .build()
        .expect("registry")
}

/// A session whose runtime injects `config`.
pub fn session_with(config: WebConfig) -> Session {
    Runtime::builder(registry())
        .service(Arc::new(config))
        .build()
        .session()
}

/// The configuration a command line builds with `--searxng-url` at the server and
/// `--allow-host 127.0.0.1`.
pub fn config_for(server: &TestServer) -> WebConfig {
    WebConfig::from_options(Some(&server.url("/")), &["127.0.0.1"]).expect("config")
}

pub fn session_for(server: &TestServer) -> Session {
    session_with(config_for(server))
}

/// Calls the tool (by `name`) and answers with the JSON the model reads.
pub async fn call_named(session: &Session, name: &str, args: Value) -> Value {
    let out = session
        .call(ToolCall::new("call", name, args.to_string()))
        .await;
    assert_eq!(out.tool, "web", "{name} resolves to web");
    out.to_json()
}

pub async fn call(session: &Session, args: Value) -> Value {
    call_named(session, "web", args).await
}

pub async fn search(session: &Session, query: &str) -> Value {
    call(session, json!({"action": "search", "query_or_url": query})).await
}

pub async fn fetch(session: &Session, url: &str) -> Value {
    call(session, json!({"action": "fetch", "query_or_url": url})).await
}

pub fn searxng_response(count: usize) -> String {
    json!({
        "query": "ruby on rails",
        "number_of_results": count * 100,
        "results": (0..count).map(|i| json!({
            "url": format!("https://example{i}.com"),
            "title": format!("Result {i}"),
            "content": format!("Content {i}"),
        })).collect::<Vec<_>>(),
    })
    .to_string()
}

/// A SearXNG stand-in answering every request with `count` results.
pub async fn searxng(count: usize) -> TestServer {
    TestServer::start(move |_| ok("application/json", searxng_response(count))).await
}

pub fn error_text(result: &Value) -> &str {
    result["error"].as_str().unwrap_or_default()
}

/// Asserts `result` is an error of `error_type` whose message contains `needle`.
#[track_caller]
pub fn assert_error(result: &Value, error_type: &str, needle: &str) {
    assert_eq!(result["type"], "error", "{result}");
    assert_eq!(result["error_type"], error_type, "{result}");
    assert!(
        error_text(result).contains(needle),
        "{needle:?} not in {result}"
    );
}
