//! The `web` tool's `fetch` action through the runtime (seed 000's WebTool test plan, ported,
//! and more), against a loopback server on 127.0.0.1: content and its timestamp, redirects,
//! non-HTTP URLs, loopback without an allow list, long pages read in windows, and binary
//! content.

use serde_json::json;
use tool_core::Runtime;
use tool_std::web::WebConfig;

use crate::support::error_message;
use crate::support::web::*;

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

#[tokio::test]
async fn loopback_fetch_without_allow_list_is_a_security_error() {
    let server = TestServer::start(|_| ok("text/plain", "secret")).await;
    let url = server.url("/admin");

    // The host's configuration without the allow-list entry.
    let config = WebConfig::from_options(None, &[] as &[&str]).expect("config");
    let result = fetch(&session_with(config), &url).await;
    assert_error(&result, "security_error", "Refused to connect to 127.0.0.1");
    assert!(
        error_message(&result).contains("--allow-host 127.0.0.1"),
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
    assert!(error_message(&result).contains("start_index"), "{result}");
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
