//! The `web` tool through the runtime (seed 000's WebTool test plan, ported, and more): every
//! call goes through `Session::call` with a [`WebConfig`] service pointing at a loopback server
//! on 127.0.0.1.

mod web_support;

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tool_core::{
    Mode, Permission, PermissionSet, Registry, Runtime, Session, SessionConfig, ToolCall,
};
use tool_std::prompt::STANDARD_RENAMES;
use tool_std::web::{Fetcher, NetworkPolicy, SearxngBackend, Timeouts, WebConfig, WebTool};
use web_support::{Reply, TestServer, ok, redirect, response};

/// A registry with the web tool only.
fn registry() -> Registry {
    Registry::builder()
        .register(WebTool)
        .build()
        .expect("registry")
}

/// A session whose runtime injects `config`.
fn session_with(config: WebConfig) -> Session {
    Runtime::builder(registry())
        .service(Arc::new(config))
        .build()
        .session()
}

/// The configuration a command line builds with `--searxng-url` at the server and
/// `--allow-host 127.0.0.1`.
fn config_for(server: &TestServer) -> WebConfig {
    WebConfig::from_options(Some(&server.url("/")), &["127.0.0.1"]).expect("config")
}

fn session_for(server: &TestServer) -> Session {
    session_with(config_for(server))
}

/// Calls the tool (by `name`) and answers with the JSON the model reads.
async fn call_named(session: &Session, name: &str, args: Value) -> Value {
    let out = session
        .call(ToolCall::new("call", name, args.to_string()))
        .await;
    assert_eq!(out.tool, "web", "{name} resolves to web");
    out.to_json()
}

async fn call(session: &Session, args: Value) -> Value {
    call_named(session, "web", args).await
}

async fn search(session: &Session, query: &str) -> Value {
    call(session, json!({"action": "search", "query_or_url": query})).await
}

async fn fetch(session: &Session, url: &str) -> Value {
    call(session, json!({"action": "fetch", "query_or_url": url})).await
}

fn searxng_response(count: usize) -> String {
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
async fn searxng(count: usize) -> TestServer {
    TestServer::start(move |_| ok("application/json", searxng_response(count))).await
}

fn error_text(result: &Value) -> &str {
    result["error"].as_str().unwrap_or_default()
}

/// Asserts `result` is an error of `error_type` whose message contains `needle`.
#[track_caller]
fn assert_error(result: &Value, error_type: &str, needle: &str) {
    assert_eq!(result["type"], "error", "{result}");
    assert_eq!(result["error_type"], error_type, "{result}");
    assert!(
        error_text(result).contains(needle),
        "{needle:?} not in {result}"
    );
}

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
    let server = TestServer::start(|_| response("200 OK", &[], searxng_response(15))).await;
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

#[tokio::test]
async fn search_error_includes_type_field() {
    let server = TestServer::start(|_| response("500 Internal Server Error", &[], "")).await;
    let result = search(&session_for(&server), "test").await;

    assert_error(&result, "system_error", "500");
    assert!(
        error_text(&result).ends_with("HTTP 500: Internal Server Error"),
        "{result}"
    );
    assert_eq!(result["query_or_url"], "test");
}

// === seed 000: fetch ===

#[tokio::test]
async fn fetch_returns_content_with_type_field() {
    let server =
        TestServer::start(|_| ok("text/html", "<html><body>Hello World</body></html>")).await;
    let url = server.url("");
    let result = fetch(&session_for(&server), &url).await;

    assert_eq!(result["type"], "fetched_page", "{result}");
    assert_eq!(result["url"], url);
    assert!(
        result["content"]
            .as_str()
            .is_some_and(|c| c.contains("Hello World"))
    );
    let fetched_at = result["fetched_at"].as_str().expect("fetched_at");
    assert_rfc3339(fetched_at);
    assert_eq!(result["truncated"], false);
}

/// `YYYY-MM-DDTHH:MM:SSZ`, a valid date and time.
#[track_caller]
fn assert_rfc3339(text: &str) {
    let b = text.as_bytes();
    assert_eq!(b.len(), 20, "{text}");
    let digits = |r: std::ops::Range<usize>| -> u32 {
        text[r]
            .parse()
            .unwrap_or_else(|_| panic!("not RFC 3339: {text}"))
    };
    assert_eq!(
        (b[4], b[7], b[10], b[13], b[16], b[19]),
        (b'-', b'-', b'T', b':', b':', b'Z')
    );
    assert!(digits(0..4) >= 2024, "{text}");
    assert!((1..=12).contains(&digits(5..7)), "{text}");
    assert!((1..=31).contains(&digits(8..10)), "{text}");
    assert!(
        digits(11..13) < 24 && digits(14..16) < 60 && digits(17..19) < 61,
        "{text}"
    );
}

#[tokio::test]
async fn fetch_handles_redirects() {
    let server =
        TestServer::start(|_| redirect("301 Moved Permanently", "https://example.com/new")).await;
    let url = server.url("");
    let result = fetch(&session_for(&server), &url).await;

    assert_eq!(result["type"], "redirect", "{result}");
    assert_eq!(result["original_url"], url);
    assert_eq!(result["redirect_url"], "https://example.com/new");
}

#[tokio::test]
async fn fetch_rejects_non_http_urls() {
    let server = searxng(0).await;
    let result = fetch(&session_for(&server), "ftp://example.com").await;

    assert_error(&result, "user_error", "Invalid URL: must be http or https");
    assert_eq!(result["query_or_url"], "ftp://example.com");
    assert_eq!(server.connection_count(), 0);
}

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
        error_text(&result).starts_with("web(action=\"crawl\", query_or_url=\"test\")"),
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
        t if t.starts_with("/search") => ok("application/json", searxng_response(3)),
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

// === beyond the seed ===

#[tokio::test]
async fn old_names_resolve_to_web() {
    let server = TestServer::start(|req| {
        if req.target.starts_with("/search") {
            ok("application/json", searxng_response(1))
        } else {
            ok("text/plain", "page")
        }
    })
    .await;
    let session = session_for(&server);
    let page = server.url("/p");
    for (i, name) in ["web_search", "WebSearchTool", "web", "WebTool"]
        .iter()
        .enumerate()
    {
        let q = format!("query {i}");
        let result = call_named(
            &session,
            name,
            json!({"action": "search", "query_or_url": q}),
        )
        .await;
        assert_eq!(result["type"], "search_results", "{name}: {result}");
    }
    for name in ["web_fetch", "WebFetchTool"] {
        let result = call_named(
            &session,
            name,
            json!({"action": "fetch", "query_or_url": page}),
        )
        .await;
        assert_eq!(result["type"], "fetched_page", "{name}: {result}");
        session.clear_current_turn();
    }

    // The aliases are the ones the agent-store migration rewrites.
    let registry = registry();
    let spec = registry.get("web_fetch").expect("alias").spec().clone();
    let (_, renames) = STANDARD_RENAMES
        .iter()
        .find(|(new, _)| *new == "web")
        .expect("web renames");
    assert_eq!(spec.aliases, renames.to_vec());
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
        assert!(error_text(&result).contains(needle), "{needle}: {result}");
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
            Box::new(ok("application/json", searxng_response(1))),
        )
    })
    .await;
    let policy = NetworkPolicy::for_search()
        .allow_host("127.0.0.1")
        .with_timeouts(Timeouts {
            connect: Duration::from_secs(2),
            read: Duration::from_secs(1),
            total: Duration::from_secs(5),
        });
    let backend = SearxngBackend::new(&server.url("/"), policy).expect("backend");
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
async fn loopback_fetch_without_allow_list_is_a_security_error() {
    let server = TestServer::start(|_| ok("text/plain", "secret")).await;
    let url = server.url("/admin");

    // The host's configuration without the allow-list entry.
    let config = WebConfig::from_options(None, &[] as &[&str]).expect("config");
    let result = fetch(&session_with(config), &url).await;
    assert_error(&result, "security_error", "Refused to connect to 127.0.0.1");
    assert!(
        error_text(&result).contains("--allow-host 127.0.0.1"),
        "{result}"
    );
    assert_eq!(result["query_or_url"], url);

    // No configuration at all: the default one (public addresses only) is used, not a failure.
    let session = Runtime::builder(registry()).build().session();
    let result = fetch(&session, &url).await;
    assert_error(&result, "security_error", "Refused to connect to 127.0.0.1");

    // Names that resolve to loopback are refused after resolution, before connecting.
    let by_name = format!("http://localhost:{}/admin", server.addr.port());
    let result = fetch(&session, &by_name).await;
    assert_error(&result, "security_error", "Refused to connect to localhost");
    assert_eq!(server.connection_count(), 0, "nothing may reach the server");
}

#[tokio::test]
async fn start_index_reads_a_long_page_in_windows() {
    let text: String = (0..90_000)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    let body = text.clone();
    let server = TestServer::start(move |_| ok("text/plain", body.clone())).await;
    let session = session_for(&server);
    let url = server.url("/long.txt");

    let mut read = String::new();
    let mut start = 0;
    let mut windows = Vec::new();
    loop {
        let args = json!({"action": "fetch", "query_or_url": url, "start_index": start});
        let result = call(&session, args).await;
        assert_eq!(result["type"], "fetched_page", "{result}");
        assert_eq!(result["start_index"], start);
        assert_eq!(result["total_chars"], 90_000);
        let content = result["content"].as_str().expect("content");
        read.push_str(content);
        windows.push((content.chars().count(), result["truncated"].clone()));
        match result["next_start_index"].as_u64() {
            Some(next) => start = usize::try_from(next).expect("index"),
            None => break,
        }
    }
    assert_eq!(
        windows,
        [
            (40_000, json!(true)),
            (40_000, json!(true)),
            (10_000, json!(false))
        ]
    );
    assert_eq!(read, text);

    let args = json!({"action": "fetch", "query_or_url": url, "start_index": 90_000});
    let result = call(&session, args).await;
    assert_error(
        &result,
        "user_error",
        "start_index 90000 is past the end of the page",
    );

    // start_index belongs to fetch: a search with it is refused before anything is sent.
    let args = json!({"action": "search", "query_or_url": "x", "start_index": 5});
    let result = call(&session, args).await;
    assert_eq!(result["error_type"], "validation_error", "{result}");
    assert!(error_text(&result).contains("start_index"), "{result}");
}

#[tokio::test]
async fn binary_content_is_refused() {
    let server = TestServer::start(|_| ok("image/png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")).await;
    let url = server.url("/logo.png");
    let result = fetch(&session_for(&server), &url).await;

    assert_error(
        &result,
        "user_error",
        "Cannot read binary content (image/png)",
    );
    assert_eq!(result["query_or_url"], url);
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
    assert!(!error_text(&result).contains("did you mean"), "{result}");
    let suggestion = result["suggestion"].as_str().unwrap_or_default();
    assert!(suggestion.contains("web(action=\"search\""), "{result}");
}

#[tokio::test]
async fn followed_redirects_answer_with_the_last_page() {
    let server = TestServer::start(|req| match req.target.as_str() {
        "/a" => redirect("301 Moved Permanently", "/b"),
        "/b" => redirect("302 Found", "/c"),
        _ => ok("text/plain", "arrived"),
    })
    .await;
    let config = config_for(&server).with_follow_redirects(5);
    let result = fetch(&session_with(config), &server.url("/a")).await;

    assert_eq!(result["type"], "fetched_page", "{result}");
    assert_eq!(result["url"], server.url("/c"));
    assert_eq!(result["content"], "arrived");
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

#[test]
fn spec_metadata() {
    let registry = registry();
    let spec = registry.get("web").expect("web").spec().clone();
    assert_eq!(
        spec.description,
        "Search the web or fetch a page. action: search (query) or fetch (URL). Limited to 10 \
         searches per response."
    );
    assert_eq!(spec.category.as_deref(), Some("web"));
    assert!(spec.permissions.contains(Permission::Network));
    assert_eq!(spec.permissions.iter().count(), 1);
    assert!(spec.annotations.read_only && spec.annotations.open_world);
    assert!(!spec.annotations.destructive);
    assert!(!spec.requires_approval);
    for mode in [Mode::Agent, Mode::Mcp, Mode::Cli] {
        assert!(spec.supports_mode(mode), "{mode:?}");
    }
    let _ = Fetcher::new(NetworkPolicy::new()).expect("fetcher");
}

#[test]
fn input_schema_snapshot() {
    let registry = registry();
    let schema = registry
        .get("web")
        .expect("web")
        .spec()
        .input_schema
        .clone();
    let expected = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "action": {
                "type": "string",
                "enum": ["search", "fetch"],
                "description": "The action to perform, one of:\n\
                    - `search` (query_or_url): Search the web for `query_or_url`: at most 10 \
                    results, 10 searches per response.\n\
                    - `fetch` (query_or_url, [start_index]): Fetch the page at the http(s) URL \
                    `query_or_url` as readable text, 40,000 characters at a time; a redirect is \
                    answered as `redirect`."
            },
            "query_or_url": {
                "type": "string",
                "description": "Search query for 'search' action, or URL for 'fetch' action."
            },
            "start_index": {
                "type": "integer",
                "format": "uint",
                "minimum": 0,
                "default": 0,
                "description": "Character offset in the page's text to start at; pass the \
                    previous answer's `next_start_index` (only for the `fetch` action)."
            }
        },
        "required": ["action", "query_or_url"],
        "additionalProperties": false
    });
    assert_eq!(
        *schema,
        expected,
        "{}",
        serde_json::to_string_pretty(&*schema).unwrap_or_default()
    );
}

#[test]
fn exports_to_every_provider_format() {
    use tool_core::provider::{Format, export};
    let registry = registry();
    let spec = registry.get("web").expect("web").spec().clone();
    for format in Format::ALL {
        let exported = export(&spec, *format);
        assert!(exported.is_ok(), "{format:?}: {exported:?}");
    }
    let mcp = export(&spec, Format::Mcp).expect("mcp");
    let mcp = mcp.as_json().expect("json");
    assert_eq!(mcp["annotations"]["readOnlyHint"], true, "{mcp}");
    assert_eq!(mcp["annotations"]["openWorldHint"], true, "{mcp}");
}
