//! The activity routes without a browser: events in order, resume with `Last-Event-ID`, many
//! subscribers, a slow subscriber dropped, records paged, the first visit's cookie.

use serde_json::{Value, json};
use tool_core::ToolCall;
use tool_core::http::activity::{ActivityConfig, MAX_RECORDS_LIMIT};

use crate::support::activity::{SseClient, get, get_json, runtime, serve};

fn seqs(events: &[Value]) -> Vec<u64> {
    events.iter().map(|e| e["seq"].as_u64().unwrap()).collect()
}

/// Waits until the feed holds `n` events.
async fn feed_reaches(activity: &tool_core::http::activity::Activity, n: u64) {
    let want = Some(format!("{}.{n}", activity.feed().epoch()));
    for _ in 0..1000 {
        if activity.feed().last_event_id() == want {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!(
        "the feed did not reach {n} events: {:?}",
        activity.feed().last_event_id()
    );
}

/// Waits for the hello that opens every stream and returns it.
async fn hello(c: &mut SseClient) -> Value {
    let m = c.expect("hello").await;
    assert_eq!(m.event, "hello", "{m:?}");
    m.json()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_arrive_in_order_with_ids_and_tool_metadata() {
    let (rt, _) = runtime();
    let (addr, activity) = serve(&rt, ActivityConfig::default()).await;
    let mut c = SseClient::connect(addr, None).await;
    let h = hello(&mut c).await;
    assert_eq!(h["epoch"], activity.feed().epoch());
    assert_eq!(h["last_event_id"], Value::Null);

    let s = rt.session();
    assert!(
        s.call(ToolCall::new("1", "echo", r#"{"text": "hi"}"#))
            .await
            .is_success()
    );
    assert!(
        s.call(ToolCall::new("2", "echo", r#"{"text": 5}"#))
            .await
            .error()
            .is_some()
    );
    s.call(ToolCall::new("3", "chunks", r#"{"n": 3}"#)).await;
    s.call(ToolCall::new("4", "internal", "{}")).await;

    let events = c.events(2 + 2 + 5 + 2).await;
    assert_eq!(seqs(&events), (1..=11).collect::<Vec<_>>());
    let epoch = activity.feed().epoch();
    for e in &events {
        let id = e["event_id"].as_str().unwrap();
        assert_eq!(id, format!("{epoch}.{}", e["seq"]));
    }
    let kinds: Vec<_> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "TOOL_CALL_START",
            "TOOL_CALL_END",
            "TOOL_CALL_START",
            "ERROR",
            "TOOL_CALL_START",
            "TOOL_OUTPUT_CHUNK",
            "TOOL_OUTPUT_CHUNK",
            "TOOL_OUTPUT_CHUNK",
            "TOOL_CALL_END",
            "TOOL_CALL_START",
            "TOOL_CALL_END",
        ]
    );
    assert_eq!(events[0]["tool"], "echo");
    assert_eq!(events[0]["toolsets"], json!(["demo"]));
    assert_eq!(events[0]["data"]["arguments"], json!({"text": "hi"}));
    assert_eq!(events[1]["data"]["result"], json!({"text": "hi"}));
    assert_eq!(events[3]["data"]["error"]["error_type"], "validation_error");
    let chunks: Vec<_> = events[5..8]
        .iter()
        .map(|e| e["data"]["text"].clone())
        .collect();
    assert_eq!(chunks, [json!("0 \n"), json!("1 \n"), json!("2 \n")]);
    assert_eq!(events[9]["user_facing"], false);
    assert_eq!(events[0]["user_facing"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reconnecting_client_resumes_after_its_last_event_id() {
    let (rt, _) = runtime();
    let (addr, activity) = serve(&rt, ActivityConfig::default()).await;
    let s = rt.session();
    let mut first = SseClient::connect(addr, None).await;
    hello(&mut first).await;
    s.call(ToolCall::new("1", "chunks", r#"{"n": 2}"#)).await;
    let seen = first.events(4).await;
    let last = seen[3]["event_id"].as_str().unwrap().to_owned();
    drop(first);

    // While it is away: two more calls.
    s.call(ToolCall::new("2", "echo", r#"{"text": "a"}"#)).await;
    s.call(ToolCall::new("3", "chunks", r#"{"n": 1}"#)).await;
    let mut back = SseClient::connect(addr, Some(&last)).await;
    hello(&mut back).await;
    let missed = back.events(5).await;
    assert_eq!(
        seqs(&missed),
        [5, 6, 7, 8, 9],
        "exactly what came after {last}"
    );
    // And it goes on live.
    s.call(ToolCall::new("4", "internal", "{}")).await;
    assert_eq!(seqs(&back.events(2).await), [10, 11]);

    // The query parameter works as the header does.
    let epoch = activity.feed().epoch().to_owned();
    let mut q = SseClient::connect(addr, Some(&format!("{epoch}.9"))).await;
    hello(&mut q).await;
    assert_eq!(seqs(&q.events(2).await), [10, 11]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resume_point_the_buffer_lost_or_never_had_opens_with_a_reset() {
    let (rt, _) = runtime();
    let config = ActivityConfig::default().buffer_events(16);
    let (addr, activity) = serve(&rt, config).await;
    let s = rt.session();
    s.call(ToolCall::new("1", "chunks", r#"{"n": 38}"#)).await; // 40 events
    feed_reaches(&activity, 40).await;
    let epoch = activity.feed().epoch().to_owned();
    for (given, why) in [
        (format!("{epoch}.3"), "no longer buffered"),
        ("0123.5".to_owned(), "earlier run"),
        (format!("{epoch}.999"), "past the newest"),
        ("garbage".to_owned(), "not an id"),
    ] {
        let mut c = SseClient::connect(addr, Some(&given)).await;
        hello(&mut c).await;
        let reset = c.expect("a reset").await;
        assert_eq!(reset.event, "reset", "{given}");
        assert!(
            reset.json()["reason"].as_str().unwrap().contains(why),
            "{reset:?}"
        );
        // Then the buffer from its oldest event.
        assert_eq!(seqs(&c.events(16).await), (25..=40).collect::<Vec<_>>());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_events_reach_ten_subscribers_with_none_lost() {
    let (rt, _) = runtime();
    let (addr, activity) = serve(&rt, ActivityConfig::default()).await;
    let mut clients = Vec::new();
    for _ in 0..10 {
        let mut c = SseClient::connect(addr, None).await;
        hello(&mut c).await;
        clients.push(c);
    }
    assert_eq!(activity.feed().clients(), 10);
    let readers: Vec<_> = clients
        .into_iter()
        .map(|mut c| tokio::spawn(async move { c.events(1000).await }))
        .collect();
    // 100 calls of 10 events each (START, 8 chunks, END), from 4 sessions at once.
    let mut callers = Vec::new();
    for k in 0..4 {
        let s = rt.session();
        callers.push(tokio::spawn(async move {
            for i in 0..25 {
                let call = ToolCall::new(format!("{k}-{i}"), "chunks", r#"{"n": 8}"#);
                assert!(s.call(call).await.is_success());
            }
        }));
    }
    for c in callers {
        c.await.unwrap();
    }
    for r in readers {
        let events = r.await.unwrap();
        assert_eq!(seqs(&events), (1..=1000).collect::<Vec<_>>());
        // Per call: START first, END last, 8 chunks between.
        let mut per_call = std::collections::HashMap::<String, Vec<String>>::new();
        for e in &events {
            per_call
                .entry(e["call_id"].as_str().unwrap().to_owned())
                .or_default()
                .push(e["type"].as_str().unwrap().to_owned());
        }
        assert_eq!(per_call.len(), 100);
        for kinds in per_call.values() {
            assert_eq!(kinds.len(), 10);
            assert_eq!(kinds[0], "TOOL_CALL_START");
            assert_eq!(kinds[9], "TOOL_CALL_END");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_subscriber_is_dropped_and_the_calls_go_on() {
    let (rt, _) = runtime();
    let config = ActivityConfig::default().buffer_events(256);
    let (addr, activity) = serve(&rt, config).await;
    // Reads its hello, then nothing while the calls run.
    let mut slow = SseClient::connect_with(addr, None, Some(4096)).await;
    hello(&mut slow).await;

    // 20 calls of 200 chunks of 8 KiB: 32 MB, far more than the socket buffers and the
    // 256-event ring hold together.
    let s = rt.session();
    for i in 0..20 {
        let call = ToolCall::new(i.to_string(), "chunks", r#"{"n": 200, "size": 8192}"#);
        assert!(s.call(call).await.is_success());
    }
    let total = 20 * 202;
    // Every event reached the feed (no EVENTS_LOST note after them).
    feed_reaches(&activity, total).await;

    // Now the slow one reads: what the sockets held, then `dropped`, then the end.
    let mut got = 0u64;
    let dropped = loop {
        let m = slow.expect("events, then dropped").await;
        match m.event.as_str() {
            "message" => {
                got += 1;
                assert_eq!(m.json()["seq"], got, "in order, no gap until dropped");
            }
            "dropped" => break m.json(),
            other => panic!("unexpected event {other}"),
        }
    };
    assert!(got < total, "got {got} of {total}");
    // It missed what the ring let go while it was not reading: all but the last 256.
    assert_eq!(dropped["missed"].as_u64().unwrap() + got + 256, total);
    assert_eq!(
        dropped["last_event_id"],
        json!(format!("{}.{got}", activity.feed().epoch()))
    );
    assert!(slow.next().await.is_none(), "the stream ends after dropped");
    // Its slot is free again.
    for _ in 0..100 {
        if activity.feed().clients() == 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(activity.feed().clients(), 0);
    assert_eq!(
        activity.feed().last_event_id(),
        Some(format!("{}.{total}", activity.feed().epoch()))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_past_the_client_limit_are_refused_with_a_reason() {
    let (rt, _) = runtime();
    let config = ActivityConfig::default().max_clients(2);
    let (addr, _activity) = serve(&rt, config).await;
    let _a = SseClient::connect(addr, None).await;
    let _b = SseClient::connect(addr, None).await;
    let (status, body) = get_json(addr, "/activity/events").await;
    assert_eq!(status, 503);
    assert!(
        body["error"].as_str().unwrap().contains("close a page"),
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_come_newest_first_in_bounded_pages() {
    let (rt, _) = runtime();
    let (addr, _activity) = serve(&rt, ActivityConfig::default()).await;
    let s = rt.session();
    for i in 0..7 {
        s.call(ToolCall::new(
            i.to_string(),
            "echo",
            format!(r#"{{"text": "{i}"}}"#),
        ))
        .await;
    }
    s.call(ToolCall::new("bad", "echo", "{}")).await;

    let (status, page) = get_json(addr, "/activity/records?limit=3").await;
    assert_eq!(status, 200);
    assert_eq!(page["total"], 8);
    let recs = page["records"].as_array().unwrap();
    assert_eq!(recs.len(), 3);
    assert_eq!(recs[0]["status"], "failure");
    assert!(recs[0]["error"].as_str().unwrap().contains("text"));
    assert_eq!(recs[1]["input"], json!({"text": "6"}));
    assert_eq!(recs[1]["data"], json!({"text": "6"}));
    assert_eq!(recs[1]["toolsets"], json!(["demo"]));

    // The cursor walks on without repeats, and the last page has none.
    let mut seen: Vec<String> = recs
        .iter()
        .map(|r| r["id"].as_str().unwrap().into())
        .collect();
    let mut cursor = page["next_cursor"].as_str().unwrap().to_owned();
    loop {
        let (_, p) = get_json(addr, &format!("/activity/records?limit=3&cursor={cursor}")).await;
        seen.extend(
            p["records"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["id"].as_str().unwrap().into()),
        );
        match p["next_cursor"].as_str() {
            Some(c) => cursor = c.to_owned(),
            None => break,
        }
    }
    let mut unique = seen.clone();
    unique.dedup();
    assert_eq!((seen.len(), unique.len()), (8, 8));

    let (_, p) = get_json(addr, "/activity/records?offset=6").await;
    assert_eq!(p["records"].as_array().unwrap().len(), 2);
    assert_eq!(p["next_cursor"], Value::Null);
    let (_, p) = get_json(addr, "/activity/records?limit=100000").await;
    assert_eq!(p["limit"], MAX_RECORDS_LIMIT);

    for (query, status, says) in [
        ("limit=0", 400, "at least 1"),
        ("limit=ten", 400, "whole number"),
        ("offset=1&cursor=act_1", 400, "not both"),
        ("cursor=act_0", 410, "start again"),
        ("colour=red", 400, "unknown parameter"),
    ] {
        let (got, body) = get_json(addr, &format!("/activity/records?{query}")).await;
        assert_eq!(got, status, "{query}: {body}");
        assert!(
            body["error"].as_str().unwrap().contains(says),
            "{query}: {body}"
        );
    }
    let id = recs[1]["id"].as_str().unwrap();
    let (_, one) = get_json(addr, &format!("/activity/records?id={id}")).await;
    assert_eq!(one["record"]["input"], json!({"text": "6"}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_is_one_embedded_document_with_a_strict_policy() {
    let (rt, _) = runtime();
    let (addr, _activity) = serve(&rt, ActivityConfig::default()).await;
    let (status, headers, body) = get(addr, "/activity").await;
    assert_eq!(status, 200);
    let header = |n: &str| headers.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
    assert!(header("content-type").unwrap().starts_with("text/html"));
    let csp = header("content-security-policy").unwrap();
    assert!(
        csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"),
        "{csp}"
    );
    assert!(body.contains("activity/assets/app.js"));
    assert!(
        !body.contains("http://") && !body.contains("https://"),
        "no outside resource"
    );
    for asset in ["/activity/assets/app.js", "/activity/assets/style.css"] {
        let (status, _, body) = get(addr, asset).await;
        assert_eq!(status, 200, "{asset}");
        assert!(
            !body.contains("innerHTML"),
            "{asset} writes data as text only"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_first_visit_with_a_token_sets_the_cookie_and_redirects() {
    let (rt, _) = runtime();
    let (addr, _activity) = serve(&rt, ActivityConfig::default()).await;
    let (status, headers, _) = get(addr, "/activity?token=s3cret-T0ken").await;
    assert_eq!(status, 303);
    let header = |n: &str| headers.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
    assert_eq!(header("location").as_deref(), Some("activity"));
    let cookie = header("set-cookie").unwrap();
    assert!(
        cookie.starts_with("toolsmith_token=s3cret-T0ken;"),
        "{cookie}"
    );
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );
    // A token that would split the header is refused, not stored.
    let (status, headers, _) = get(addr, "/activity?token=a%3B%20Domain%3Devil").await;
    assert_eq!(status, 400);
    assert!(!headers.iter().any(|(k, _)| k == "set-cookie"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_server_token_a_wrong_first_visit_is_refused() {
    let (rt, _) = runtime();
    let activity = tool_core::http::activity::Activity::new(&rt)
        .unwrap()
        .token("right");
    let app: axum::Router = activity.router();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    assert_eq!(get(addr, "/activity?token=wrong").await.0, 401);
    assert_eq!(get(addr, "/activity?token=right").await.0, 303);
}

#[tokio::test(flavor = "current_thread")]
async fn events_lost_before_the_feed_are_announced_with_their_count() {
    // One thread: the tool's 100 chunks are emitted before the feed's task runs, so its
    // 16-event queue overflows.
    let (rt, _) = runtime();
    let activity =
        tool_core::http::activity::Activity::with_config(&rt, ActivityConfig::default().queue(16))
            .unwrap();
    let mut sub = activity.feed().subscribe(None);
    rt.session()
        .call(ToolCall::new("1", "chunks", r#"{"n": 100}"#))
        .await;
    let (mut delivered, mut lost, mut seq) = (0, 0, 0);
    while delivered + lost < 102 {
        let Some(tool_core::http::activity::FeedMessage::Event(e)) = sub.next().await else {
            panic!("the feed ended early");
        };
        seq += 1;
        assert_eq!(e.seq, seq, "the feed's own numbering has no gap");
        let v: Value = serde_json::from_str(&e.json).unwrap();
        if v["type"] == "EVENTS_LOST" {
            lost += v["count"].as_u64().unwrap();
        } else {
            delivered += 1;
        }
    }
    assert!(lost > 50, "{lost} lost, {delivered} delivered");
    assert_eq!(delivered + lost, 102);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_streams_ends_open_streams_so_a_graceful_shutdown_finishes() {
    use std::future::IntoFuture;
    let (rt, _) = runtime();
    let activity = tool_core::http::activity::Activity::new(&rt).unwrap();
    let app: axum::Router = activity.router();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = tokio_util::sync::CancellationToken::new();
    let server = tokio::spawn(
        axum::serve(listener, app)
            .with_graceful_shutdown(stop.clone().cancelled_owned())
            .into_future(),
    );
    let mut c = SseClient::connect(addr, None).await;
    hello(&mut c).await;
    stop.cancel();
    activity.close_streams();
    let end = tokio::time::timeout(std::time::Duration::from_secs(10), c.next()).await;
    assert!(matches!(end, Ok(None)), "the stream ended: {end:?}");
    tokio::time::timeout(std::time::Duration::from_secs(10), server)
        .await
        .expect("the server shut down once its streams closed")
        .unwrap()
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_exchange_answers_the_first_visit_in_front_of_the_guard() {
    use axum::http::StatusCode;
    use axum::response::IntoResponse;
    // A stand-in guard: the cookie or nothing.
    async fn guard(
        request: axum::extract::Request,
        next: axum::middleware::Next,
    ) -> axum::response::Response {
        let ok = request
            .headers()
            .get_all("cookie")
            .iter()
            .any(|v| v.to_str().unwrap_or("").contains("toolsmith_token=right"));
        if ok {
            next.run(request).await
        } else {
            StatusCode::UNAUTHORIZED.into_response()
        }
    }
    let (rt, _) = runtime();
    let activity = tool_core::http::activity::Activity::new(&rt)
        .unwrap()
        .token("right");
    let guarded: axum::Router = activity.router().layer(axum::middleware::from_fn(guard));
    let app = activity.with_token_exchange(guarded);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });

    assert_eq!(get(addr, "/activity").await.0, 401, "the guard holds");
    assert_eq!(get(addr, "/activity?token=wrong").await.0, 401);
    let (status, headers, _) = get(addr, "/activity?token=right").await;
    assert_eq!(status, 303);
    let cookie = headers
        .iter()
        .find(|(k, _)| k == "set-cookie")
        .unwrap()
        .1
        .clone();
    let cookie = cookie.split(';').next().unwrap().to_owned();
    // With the cookie the guard lets the page and its data through.
    for path in ["/activity", "/activity/records"] {
        let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        s.write_all(format!("GET {path} HTTP/1.0\r\nCookie: {cookie}\r\n\r\n").as_bytes())
            .await
            .unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).await.unwrap();
        assert!(out.starts_with("HTTP/1.0 200"), "{path}: {out}");
    }
}
