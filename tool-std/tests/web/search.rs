//! Search against a loopback server that speaks SearXNG's JSON API (seed 000's search tests,
//! ported, plus the network policy on the instance URL).

use std::time::Duration;

use tool_std::web::{
    NetworkPolicy, SearchBackend, SearxngBackend, WebError, WebErrorKind, WebResponse,
};

use crate::support::web::{Reply, TestServer, ok, response, search_policy, searxng_body};

async fn backend_for(server: &TestServer) -> SearxngBackend {
    SearxngBackend::new(&server.url("/"), search_policy()).expect("backend")
}

async fn search(
    reply: impl Fn() -> Reply + Send + Sync + 'static,
) -> Result<(TestServer, tool_std::web::SearchPage), (TestServer, WebError)> {
    let server = TestServer::start(move |_| reply()).await;
    let backend = backend_for(&server).await;
    match backend.search("ruby on rails", 10).await {
        Ok(page) => Ok((server, page)),
        Err(e) => Err((server, e)),
    }
}

#[tokio::test]
async fn search_returns_results_with_type_field() {
    let (server, page) = search(|| ok("application/json", searxng_body(2)))
        .await
        .expect("search");
    let results = page.into_results("ruby on rails");
    assert_eq!(results.results.len(), 2);
    assert_eq!(results.total_results, 200);
    assert_eq!(results.results[1].url, "https://example1.com");
    assert_eq!(results.results[1].title, "Result 1");
    assert_eq!(results.results[1].snippet, "Content 1");

    let json = serde_json::to_value(WebResponse::from(results)).expect("json");
    assert_eq!(json["type"], "search_results");
    assert_eq!(json["query"], "ruby on rails");

    let requests = server.requests.lock().expect("lock").clone();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].method, "GET");
    assert_eq!(requests[0].target, "/search?q=ruby+on+rails&format=json");
    assert!(
        requests[0]
            .header("user-agent")
            .is_some_and(|ua| ua.starts_with("toolsmith/"))
    );
}

#[tokio::test]
async fn search_limits_results_to_maximum() {
    // No Content-Type on purpose, as in seed 000's stub.
    let (_server, page) = search(|| response("200 OK", &[], searxng_body(15)))
        .await
        .expect("search");
    assert_eq!(page.results.len(), 10);
    assert_eq!(page.total_results, 1500);
}

#[tokio::test]
async fn search_http_500_is_an_error() {
    let (_s, err) = search(|| response("500 Internal Server Error", &[], ""))
        .await
        .expect_err("500");
    assert_eq!(err.to_string(), "HTTP 500: Internal Server Error");
    assert_eq!(err.kind(), WebErrorKind::System);
}

#[tokio::test]
async fn search_403_explains_the_json_format() {
    let (_s, err) = search(|| response("403 Forbidden", &[], "Forbidden"))
        .await
        .expect_err("403");
    assert_eq!(err, WebError::SearchFormatDisabled);
    let text = err.to_string();
    assert!(text.starts_with("HTTP 403"), "{text}");
    assert!(
        text.contains("search.formats") && text.contains("settings.yml"),
        "{text}"
    );
    assert!(text.contains("[html, json]"), "{text}");
}

#[tokio::test]
async fn search_invalid_json_is_an_invalid_response() {
    let (_s, err) = search(|| ok("text/html", "<html>rate limited</html>"))
        .await
        .expect_err("html");
    assert_eq!(err.to_string(), "Invalid response from search service");
    let (_s, err) = search(|| ok("application/json", "{\"results\": "))
        .await
        .expect_err("cut");
    assert_eq!(err, WebError::InvalidSearchResponse);
}

#[tokio::test]
async fn search_slow_response_times_out() {
    let started = std::time::Instant::now();
    let (_s, err) = search(|| {
        Reply::Delayed(
            Duration::from_secs(6),
            Box::new(ok("application/json", searxng_body(1))),
        )
    })
    .await
    .expect_err("timeout");
    assert_eq!(err.kind(), WebErrorKind::Timeout, "{err}");
    assert!(
        err.to_string()
            .starts_with("Timed out after 1 s waiting for a response"),
        "{err}"
    );
    assert!(started.elapsed() < Duration::from_secs(4));
}

#[tokio::test]
async fn search_through_the_trait_object() {
    let server = TestServer::start(|_| ok("application/json", searxng_body(4))).await;
    let backend: Box<dyn SearchBackend> = Box::new(backend_for(&server).await);
    let page = backend.search("x", 3).await.expect("search");
    assert_eq!(page.results.len(), 3);
}

#[tokio::test]
async fn missing_configuration_is_a_clear_error() {
    let err = SearxngBackend::from_config(None, NetworkPolicy::for_search()).expect_err("none");
    assert_eq!(
        err.to_string(),
        "SearXNG URL not configured. Pass --searxng-url or set SEARXNG_URL."
    );
}

#[tokio::test]
async fn loopback_instance_needs_an_allow_list_entry() {
    let server = TestServer::start(|_| ok("application/json", searxng_body(2))).await;

    // By address: refused before anything is sent.
    let err =
        SearxngBackend::new(&server.url("/"), NetworkPolicy::for_search()).expect_err("refused");
    assert_eq!(err.kind(), WebErrorKind::Security);

    // By name: refused after resolution, still before connecting.
    let by_name = format!("http://localhost:{}/", server.addr.port());
    let backend =
        SearxngBackend::new(&by_name, NetworkPolicy::for_search()).expect("a name passes");
    let err = backend
        .search("x", 10)
        .await
        .expect_err("refused after resolution");
    match &err {
        WebError::Refused { host, resolved, .. } => {
            assert_eq!(host, "localhost");
            assert!(resolved);
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert!(err.to_string().contains("--allow-host localhost"), "{err}");
    assert_eq!(server.connection_count(), 0, "nothing may reach the server");

    // Allow-listed by name: the local instance answers.
    let policy = NetworkPolicy::for_search().allow_host("localhost");
    let backend = SearxngBackend::new(&by_name, policy).expect("backend");
    let page = backend.search("x", 10).await.expect("allowed");
    assert_eq!(page.results.len(), 2);
    assert!(server.connection_count() >= 1);
}
