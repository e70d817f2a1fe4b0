//! Fetching pages from a loopback server: HTML to text, redirects, windows, byte caps, gzip
//! bombs, binary content and the network policy (seed 000's fetch tests, ported and extended).

use std::io::Write;
use std::time::Duration;

use tool_std::web::{
    FetchOptions, FetchOutcome, FetchedPage, Fetcher, NetworkPolicy, Redirect, WebError,
    WebErrorKind, WebResponse,
};

use crate::support::web::{Reply, TestServer, fetch_policy, ok, redirect, response};

const MIB: usize = 1024 * 1024;

fn fetcher() -> Fetcher {
    Fetcher::new(fetch_policy()).expect("fetcher")
}

async fn page(fetcher: &Fetcher, url: &str, options: FetchOptions) -> FetchedPage {
    match fetcher.fetch(url, &options).await {
        Ok(FetchOutcome::Page(page)) => page,
        other => panic!("{url}: expected a page, got {other:?}"),
    }
}

async fn error(fetcher: &Fetcher, url: &str, options: FetchOptions) -> WebError {
    match fetcher.fetch(url, &options).await {
        Err(e) => e,
        other => panic!("{url}: expected an error, got {other:?}"),
    }
}

#[tokio::test]
async fn fetch_returns_content_with_type_field() {
    let server =
        TestServer::start(|_| ok("text/html", "<html><body>Hello World</body></html>")).await;
    let url = server.url("");
    let page = page(&fetcher(), &url, FetchOptions::default()).await;
    assert_eq!(page.url, url, "the URL as given");
    assert_eq!(page.content, "Hello World");
    assert_eq!(page.content_type, "text/html");
    assert!(!page.truncated);
    assert_eq!(page.total_chars, 11);
    let at = page.fetched_at.as_bytes();
    assert_eq!(
        (at.len(), at[10], at[19]),
        (20, b'T', b'Z'),
        "{}",
        page.fetched_at
    );

    let json = serde_json::to_value(WebResponse::from(page)).expect("json");
    assert_eq!(json["type"], "fetched_page");
}

#[tokio::test]
async fn html_becomes_readable_text() {
    let html = r#"<!doctype html><html><head><title>T</title><style>body{}</style></head><body>
        <header><a href="/">Site</a></header><nav><ul><li>Menu</li></ul></nav>
        <main><h1>Guide</h1><p>Read <a href="next.html">the next page</a> &amp; more.</p>
        <h2>Steps</h2><ol><li>one</li><li>two</li></ol><ul><li>apple</li><li>pear</li></ul>
        <pre>let x = 1;
let y = 2;</pre><script>document.write("nope")</script></main>
        <footer>(c) 2024</footer></body></html>"#;
    let server = TestServer::start(move |_| ok("text/html; charset=utf-8", html)).await;
    let url = server.url("/docs/guide.html");
    let page = page(&fetcher(), &url, FetchOptions::default()).await;
    let expected = format!(
        "# Guide\n\nRead [the next page](http://{}/docs/next.html) & more.\n\n## Steps\n\n\
         1. one\n2. two\n\n- apple\n- pear\n\n```\nlet x = 1;\nlet y = 2;\n```",
        server.addr
    );
    assert_eq!(page.content, expected);
}

#[tokio::test]
async fn fetch_returns_redirects() {
    let server = TestServer::start(|req| match req.target.as_str() {
        "/old" => redirect("301 Moved Permanently", "/new?x=1"),
        "/abs" => redirect("302 Found", "https://example.com/new"),
        _ => ok("text/plain", format!("at {}", req.target)),
    })
    .await;
    let fetcher = fetcher();
    let old = server.url("/old");
    match fetcher.fetch(&old, &FetchOptions::default()).await {
        Ok(FetchOutcome::Redirect(r)) => assert_eq!(
            r,
            Redirect {
                original_url: old.clone(),
                redirect_url: server.url("/new?x=1"),
            }
        ),
        other => panic!("expected a redirect, got {other:?}"),
    }
    let abs = server.url("/abs");
    let outcome = fetcher
        .fetch(&abs, &FetchOptions::default())
        .await
        .expect("redirect");
    let json = serde_json::to_value(WebResponse::from(outcome)).expect("json");
    assert_eq!(json["type"], "redirect");
    assert_eq!(json["original_url"], abs);
    assert_eq!(json["redirect_url"], "https://example.com/new");
    assert_eq!(
        server.connection_count(),
        2,
        "redirects are not followed by default"
    );
}

#[tokio::test]
async fn redirects_are_followed_on_request_and_each_hop_is_checked() {
    let server = TestServer::start(|req| {
        let hop = |n: usize| redirect("307 Temporary Redirect", &format!("/hop{n}"));
        match req.target.as_str() {
            "/start" => hop(1),
            "/hop1" => hop(2),
            "/hop2" => ok("text/plain", "arrived"),
            "/loop" => redirect("302 Found", "/loop"),
            "/to-loopback" => redirect("302 Found", "http://127.0.0.2:9/secret"),
            "/to-ftp" => redirect("302 Found", "ftp://example.com/file"),
            "/no-location" => response("302 Found", &[], ""),
            _ => response("404 Not Found", &[], ""),
        }
    })
    .await;
    let fetcher = fetcher();
    let follow = FetchOptions {
        follow_redirects: 5,
        ..FetchOptions::default()
    };

    let arrived = page(&fetcher, &server.url("/start"), follow).await;
    assert_eq!(arrived.content, "arrived");
    assert_eq!(
        arrived.url,
        server.url("/hop2"),
        "the URL the content came from"
    );

    // Five hops at most: a loop ends as a redirect after them.
    let before = server.connection_count();
    match fetcher.fetch(&server.url("/loop"), &follow).await {
        Ok(FetchOutcome::Redirect(r)) => assert_eq!(r.redirect_url, server.url("/loop")),
        other => panic!("expected a redirect, got {other:?}"),
    }
    assert_eq!(server.connection_count() - before, 6);

    // A hop to an address the policy refuses is refused at the hop.
    let err = error(&fetcher, &server.url("/to-loopback"), follow).await;
    assert_eq!(err.kind(), WebErrorKind::Security, "{err}");
    assert!(err.to_string().contains("127.0.0.2"), "{err}");
    // Not following, the same redirect is only reported.
    match fetcher
        .fetch(&server.url("/to-loopback"), &FetchOptions::default())
        .await
    {
        Ok(FetchOutcome::Redirect(r)) => assert_eq!(r.redirect_url, "http://127.0.0.2:9/secret"),
        other => panic!("expected a redirect, got {other:?}"),
    }
    let err = error(&fetcher, &server.url("/to-ftp"), follow).await;
    assert!(
        err.to_string()
            .starts_with("Invalid URL: must be http or https"),
        "{err}"
    );
    let err = error(&fetcher, &server.url("/no-location"), follow).await;
    assert_eq!(
        err.to_string(),
        "HTTP 302: redirect without a Location header"
    );
}

#[tokio::test]
async fn truncation_and_start_index_windows() {
    let text: String = (0..100_000)
        .map(|i| if i % 10 == 9 { 'é' } else { 'a' })
        .collect();
    let body = text.clone();
    let server = TestServer::start(move |_| ok("text/plain; charset=utf-8", body.clone())).await;
    let fetcher = fetcher();
    let url = server.url("/long.txt");

    let first = page(&fetcher, &url, FetchOptions::default()).await;
    assert!(first.truncated);
    assert!(!first.body_truncated);
    assert_eq!(first.total_chars, 100_000);
    assert_eq!(first.start_index, 0);
    assert_eq!(first.content.chars().count(), 40_000);
    assert_eq!(first.next_start_index, Some(40_000));

    let mut all = first.content.clone();
    let mut next = first.next_start_index;
    while let Some(start_index) = next {
        let window = page(
            &fetcher,
            &url,
            FetchOptions {
                start_index,
                ..FetchOptions::default()
            },
        )
        .await;
        assert_eq!(window.start_index, start_index);
        all.push_str(&window.content);
        next = window.next_start_index;
        assert_eq!(window.truncated, next.is_some());
    }
    assert_eq!(all, text);

    let past = FetchOptions {
        start_index: 100_000,
        ..FetchOptions::default()
    };
    let err = error(&fetcher, &url, past).await;
    assert_eq!(
        err,
        WebError::StartIndexOutOfRange {
            start_index: 100_000,
            total_chars: 100_000
        }
    );
}

#[tokio::test]
async fn a_50_mb_body_is_cut_at_the_cap() {
    const TOTAL: u64 = 50 * 1024 * 1024;
    let server = TestServer::start(|_| Reply::Stream {
        head: format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {TOTAL}\r\n\r\n"
        )
        .into_bytes(),
        total: TOTAL,
        fill: b'a',
    })
    .await;
    let fetcher = Fetcher::new(fetch_policy().with_max_body_bytes(MIB)).expect("fetcher");
    let page = page(&fetcher, &server.url("/huge"), FetchOptions::default()).await;
    assert!(page.body_truncated && page.truncated);
    assert_eq!(page.total_chars, MIB);
    assert_eq!(page.content.len(), 40_000);

    // The client hung up long before the end: the server could not send the 50 MB.
    server.wait_streams_done(1).await;
    let sent = server.streamed.load(std::sync::atomic::Ordering::SeqCst);
    assert!(sent < TOTAL / 2, "the server sent {sent} bytes");
}

#[tokio::test]
async fn a_gzip_bomb_is_cut_at_the_cap_of_decoded_bytes() {
    // 64 MiB of zeros in about 300 KiB on the wire.
    let zeros = vec![0u8; MIB];
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    for _ in 0..64 {
        gz.write_all(&zeros).expect("compress");
    }
    let bomb = gz.finish().expect("gzip");
    assert!(bomb.len() < 512 * 1024);

    let server = TestServer::start(move |_| {
        response(
            "200 OK",
            &[("Content-Type", "text/plain"), ("Content-Encoding", "gzip")],
            &bomb,
        )
    })
    .await;
    let fetcher = Fetcher::new(fetch_policy().with_max_body_bytes(MIB)).expect("fetcher");
    let page = page(&fetcher, &server.url("/bomb"), FetchOptions::default()).await;
    assert!(page.body_truncated);
    assert_eq!(page.total_chars, MIB, "exactly the cap of decoded bytes");
    assert!(page.content.chars().all(|c| c == '\0'));
    let requests = server.requests.lock().expect("lock").clone();
    assert!(
        requests[0]
            .header("accept-encoding")
            .is_some_and(|v| v.contains("gzip"))
    );
}

#[tokio::test]
async fn binary_content_is_refused() {
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01";
    let server = TestServer::start(move |req| match req.target.as_str() {
        "/image" => ok("image/png", png),
        "/untyped-binary" => response("200 OK", &[], png),
        "/untyped-html" => response("200 OK", &[], "<!DOCTYPE html><p>typed by sniffing</p>"),
        "/json" => ok("application/json", "{\"a\": [1, 2]}"),
        "/latin1" => ok("text/plain; charset=ISO-8859-1", b"caf\xe9"),
        _ => response("404 Not Found", &[], "nothing here"),
    })
    .await;
    let fetcher = fetcher();
    let err = error(&fetcher, &server.url("/image"), FetchOptions::default()).await;
    assert_eq!(
        err,
        WebError::UnsupportedContentType {
            content_type: "image/png".into()
        }
    );
    assert!(err.to_string().contains("image/png"), "{err}");
    assert_eq!(err.kind(), WebErrorKind::User);
    let err = error(
        &fetcher,
        &server.url("/untyped-binary"),
        FetchOptions::default(),
    )
    .await;
    assert!(
        matches!(err, WebError::UnsupportedContentType { .. }),
        "{err}"
    );

    let html = page(
        &fetcher,
        &server.url("/untyped-html"),
        FetchOptions::default(),
    )
    .await;
    assert_eq!(
        (html.content.as_str(), html.content_type.as_str()),
        ("typed by sniffing", "text/html")
    );
    let json = page(&fetcher, &server.url("/json"), FetchOptions::default()).await;
    assert_eq!(json.content, "{\"a\": [1, 2]}");
    let latin = page(&fetcher, &server.url("/latin1"), FetchOptions::default()).await;
    assert_eq!(latin.content, "café");
    let err = error(&fetcher, &server.url("/missing"), FetchOptions::default()).await;
    assert_eq!(err.to_string(), "HTTP 404: Not Found");
}

#[tokio::test]
async fn fetch_rejects_non_http_urls() {
    let server = TestServer::start(|_| ok("text/plain", "no")).await;
    let fetcher = fetcher();
    for url in [
        format!("ftp://{}/", server.addr),
        "file:///etc/passwd".to_owned(),
        "javascript:alert(1)".to_owned(),
        "example.com".to_owned(),
    ] {
        let err = error(&fetcher, &url, FetchOptions::default()).await;
        assert!(err.to_string().starts_with("Invalid URL"), "{url}: {err}");
    }
    assert_eq!(server.connection_count(), 0);
}

#[tokio::test]
async fn policy_refuses_loopback_unless_allow_listed() {
    let server = TestServer::start(|_| ok("text/plain", "secret")).await;
    let strict = Fetcher::new(NetworkPolicy::new()).expect("fetcher");
    let port = server.addr.port();
    for url in [
        server.url("/"),
        format!("http://2130706433:{port}/"),
        format!("http://0x7f.1:{port}/"),
        format!("http://0177.0.0.1:{port}/"),
        format!("http://[::ffff:127.0.0.1]:{port}/"),
    ] {
        let err = error(&strict, &url, FetchOptions::default()).await;
        match &err {
            WebError::Refused {
                address, resolved, ..
            } => {
                assert!(address.to_canonical().is_loopback(), "{url}: {address}");
                assert!(!resolved);
            }
            other => panic!("{url}: expected a refusal, got {other:?}"),
        }
        assert!(err.to_string().contains("--allow-host"), "{err}");
        assert_eq!(err.kind(), WebErrorKind::Security);
    }
    // A host name that resolves to loopback is refused after resolution.
    let err = error(
        &strict,
        &format!("http://localhost:{port}/"),
        FetchOptions::default(),
    )
    .await;
    assert!(
        matches!(err, WebError::Refused { resolved: true, .. }),
        "{err:?}"
    );
    assert_eq!(server.connection_count(), 0, "nothing may reach the server");

    let allowed = page(&fetcher(), &server.url("/"), FetchOptions::default()).await;
    assert_eq!(allowed.content, "secret");
}

#[tokio::test]
async fn slow_pages_time_out_and_closed_ports_fail() {
    let server = TestServer::start(|_| {
        Reply::Delayed(Duration::from_secs(6), Box::new(ok("text/plain", "late")))
    })
    .await;
    let started = std::time::Instant::now();
    let err = error(&fetcher(), &server.url("/slow"), FetchOptions::default()).await;
    assert_eq!(err.kind(), WebErrorKind::Timeout, "{err}");
    assert!(started.elapsed() < Duration::from_secs(4));

    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.local_addr().expect("addr")
    };
    let err = error(
        &fetcher(),
        &format!("http://{closed}/"),
        FetchOptions::default(),
    )
    .await;
    assert!(matches!(err, WebError::Connection { .. }), "{err:?}");
    assert!(
        err.to_string()
            .starts_with(&format!("Request to http://{closed}/ failed")),
        "{err}"
    );
}
