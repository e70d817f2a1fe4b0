//! The activity page in a real browser: the MCP server and the activity routes on one loopback
//! server behind the token guard; headless Chromium, driven over the DevTools protocol on a
//! loopback websocket, opens the page with `?token=`; an MCP client makes calls through
//! `/mcp`, and the test reads the page's DOM: cells grouped by conversation (one group per MCP
//! session), a cell whose data changes while it runs and loses a deleted field, the status
//! line and preview of a finished call. Screenshots (desktop and phone width) go to the build
//! output: `target/tmp/activity-*.png`.
//!
//! Skips, saying why, where Chromium is not installed (`.ci/run` installs it).

use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::json;
use tool_core::http::activity::{Activity, ActivityConfig};
use tool_core::mcp::{ServeOptions, service};

use crate::support::activity::{HOSTILE, runtime_with_steps};
use crate::support::browser::{Browser, chromium, find, mcp_call};

const TOKEN: &str = "t0ken-for-the-page";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_shows_each_call_live_and_escapes_tool_output() {
    let Some(browser) = chromium() else {
        eprintln!(
            "skipped: no chromium on PATH (set CHROMIUM=/path/to/chromium, or apt-get install chromium)"
        );
        return;
    };
    let (rt, gate, steps) = runtime_with_steps();
    // One server: /mcp and the activity routes behind the MCP guard (token), with the
    // `?token=` first visit in front of it.
    let activity = Activity::with_config(&rt, ActivityConfig::default())
        .expect("activity")
        .token(TOKEN);
    let options = ServeOptions::new("activity-test").token(TOKEN);
    let routes = service(rt.clone(), &options)
        .expect("mcp service")
        .merge(activity.router());
    let guard = options.guard().expect("guard");
    let app = activity.with_token_exchange(guard.layer(routes));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    // reqwest refuses to build a client without a TLS crypto provider when a workspace build
    // enables its `rustls-no-provider` (tool-std does); the test speaks plain HTTP.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = ()
        .serve(StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(format!("http://{addr}/mcp"))
                .auth_header(TOKEN),
        ))
        .await
        .expect("an MCP session");
    let peer = client.peer().clone();

    let mut chrome = Browser::start(&browser).await;
    chrome
        .open_activity(&format!("http://{addr}/activity?token={TOKEN}"))
        .await;
    let cdp = &mut chrome.cdp;

    // The token left the address bar for a cookie the page's requests carry.
    assert_eq!(
        cdp.eval("location.href").await,
        format!("http://{addr}/activity")
    );

    // The calls, through /mcp.
    let (ok, is_error) = mcp_call(&peer, "echo", json!({"text": "hello page"})).await;
    assert!(!is_error, "{ok}");
    let (bad, is_error) = mcp_call(&peer, "echo", json!({"text": 5})).await;
    assert!(is_error, "{bad}");
    let bad_text = bad["error"].as_str().expect("the error's text").to_owned();
    mcp_call(&peer, "html", json!({})).await;
    mcp_call(&peer, "internal", json!({})).await;
    let streaming = {
        let peer = peer.clone();
        tokio::spawn(async move { mcp_call(&peer, "stream", json!({"lines": 600})).await })
    };

    // The streaming cell shows its first line while the call still runs.
    let cells = cdp
        .wait_cells("the stream's first line", |c| {
            find(c, "stream").is_some_and(|s| s["output"].as_str().unwrap().contains("line 1\n"))
        })
        .await;
    let stream = find(&cells, "stream").unwrap();
    assert_eq!(stream["status"], "in_progress", "{stream}");
    assert_eq!(stream["message"], "Running the command");
    assert!(stream["meta"].as_str().unwrap().starts_with("running"));
    assert!(
        !streaming.is_finished(),
        "the call had not ended when its line showed"
    );
    let mid = cdp
        .screenshot(1280, 900, false, "activity-running.png")
        .await;
    eprintln!("screenshot while the stream runs: {}", mid.display());

    gate.0.cancel();
    assert!(!streaming.await.unwrap().1, "the stream call succeeded");
    let cells = cdp
        .wait_cells("the stream's end", |c| {
            find(c, "stream").is_some_and(|s| s["status"] == "success")
        })
        .await;

    // One cell per call, newest on top.
    let order: Vec<_> = cells.iter().map(|c| c["tool"].as_str().unwrap()).collect();
    assert_eq!(order, ["stream", "internal", "html", "echo", "echo"]);
    let (ok, failed) = (&cells[4], &cells[3]);
    assert_eq!(
        (ok["name"].as_str(), ok["status"].as_str()),
        (Some("echo"), Some("success"))
    );
    assert!(ok["result"].as_str().unwrap().contains("hello page"));
    assert!(ok["input"].as_str().unwrap().contains("hello page"));
    assert!(
        ok["meta"].as_str().unwrap().contains(" ms") || ok["meta"].as_str().unwrap().contains(" s")
    );
    assert_eq!(failed["status"], "failure");
    let shown_error = failed["error"].as_str().unwrap();
    assert!(
        shown_error.starts_with("validation_error: "),
        "{shown_error}"
    );
    assert!(
        bad_text.contains(shown_error.trim_start_matches("validation_error: ")),
        "the page shows the error's text: {shown_error:?} vs {bad_text:?}"
    );
    let stream = find(&cells, "stream").unwrap();
    assert!(stream["output"].as_str().unwrap().starts_with("line 1\n"));
    assert_eq!(
        stream["message"], "",
        "the display message goes when the call ends"
    );

    // Markup in tool output is text.
    let html = find(&cells, "html").unwrap();
    assert_eq!(html["status"], "success");
    assert_eq!(html["output"], HOSTILE);
    assert!(
        html["result"]
            .as_str()
            .unwrap()
            .contains("<script>window.__pwned=1</script>")
    );
    assert_eq!(html["elements"], 0, "no element was made from tool output");
    assert_eq!(cdp.eval("typeof window.__pwned").await, "undefined");

    // `user_facing = false` is hidden until the toggle shows it.
    assert_eq!(find(&cells, "internal").unwrap()["hidden"], true);
    cdp.eval("document.getElementById('f-hidden').click()")
        .await;
    let cells = cdp.cells().await;
    assert_eq!(find(&cells, "internal").unwrap()["hidden"], false);
    cdp.eval("document.getElementById('f-hidden').click()")
        .await;

    // Filters: toolset and status.
    cdp.eval(
        "(() => { const s = document.getElementById('f-toolset'); s.value = 'shell'; \
         s.dispatchEvent(new Event('change')); })()",
    )
    .await;
    let shown: Vec<_> = cdp
        .cells()
        .await
        .into_iter()
        .filter(|c| c["hidden"] == false)
        .map(|c| c["tool"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(shown, ["stream"]);
    cdp.eval(
        "(() => { const s = document.getElementById('f-toolset'); s.value = ''; \
         s.dispatchEvent(new Event('change')); \
         document.querySelector('#f-status [data-status=failure]').click(); })()",
    )
    .await;
    let shown: Vec<_> = cdp
        .cells()
        .await
        .into_iter()
        .filter(|c| c["hidden"] == false)
        .map(|c| c["status"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(shown, ["failure"]);
    cdp.eval("document.querySelector('#f-status [data-status=\"\"]').click()")
        .await;

    // A page whose stream breaks resumes from its last event: what streamed while it was
    // away shows (chunks are only in events, not in the records), and nothing twice.
    activity.close_streams();
    for _ in 0..100 {
        if cdp
            .eval("document.getElementById('conn').dataset.state")
            .await
            != "live"
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_ne!(
        cdp.eval("document.getElementById('conn').dataset.state")
            .await,
        "live",
        "the page saw its stream end"
    );
    assert!(!mcp_call(&peer, "chunks", json!({"n": 3})).await.1);
    let cells = cdp
        .wait_cells("the call made while the page was away", |c| {
            find(c, "chunks").is_some_and(|c| c["status"] == "success")
        })
        .await;
    assert_eq!(find(&cells, "chunks").unwrap()["output"], "0 \n1 \n2 \n");
    assert_eq!(cells.len(), 6, "one cell per call, none twice");
    let stream_output = find(&cells, "stream").unwrap()["output"].as_str().unwrap();
    assert_eq!(
        stream_output.matches("line 1\n").count(),
        1,
        "{stream_output}"
    );
    assert_eq!(
        cdp.eval("document.getElementById('conn').dataset.state")
            .await,
        "live"
    );

    // A cell whose data changes while it runs: fields come, change and go at once, and the
    // display message clears when the tool clears it.
    let stepping = {
        let peer = peer.clone();
        tokio::spawn(async move { mcp_call(&peer, "steps", json!({})).await })
    };
    let cells = cdp
        .wait_cells("the steps call's first data", |c| {
            find(c, "steps").is_some_and(|s| s["data"]["scratch"] == "/tmp/steps.partial")
        })
        .await;
    let running = find(&cells, "steps").unwrap();
    assert_eq!(running["status"], "in_progress");
    assert_eq!(running["data"]["phase"], "scanning");
    assert_eq!(running["message"], "Scanning the tree");
    cdp.screenshot(1280, 900, false, "activity-data-running.png")
        .await;
    steps.advance();
    let cells = cdp
        .wait_cells("the steps call's second data", |c| {
            find(c, "steps").is_some_and(|s| s["data"]["phase"] == "indexing")
        })
        .await;
    let running = find(&cells, "steps").unwrap();
    assert_eq!(running["status"], "in_progress");
    assert_eq!(
        running["data"],
        json!({"phase": "indexing", "files": "3"}),
        "{running}"
    );
    assert_eq!(
        running["message"], "",
        "the tool cleared its display message"
    );
    steps.advance();
    assert!(!stepping.await.unwrap().1);
    let cells = cdp
        .wait_cells("the steps call's end", |c| {
            find(c, "steps").is_some_and(|s| s["status"] == "success")
        })
        .await;
    let done = find(&cells, "steps").unwrap();
    assert_eq!(done["status_line"], "Indexed 3 files");
    assert_eq!(done["preview"], "indexed: a.rs, b.rs, c.rs");
    assert_eq!(done["data"], json!({}), "live data gives way to the result");
    assert!(done["result"].as_str().unwrap().contains("b.rs"));

    // A second client is a second conversation: its group goes on top, the first keeps its
    // calls together.
    let other = ()
        .serve(StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(format!("http://{addr}/mcp"))
                .auth_header(TOKEN),
        ))
        .await
        .expect("a second MCP session");
    mcp_call(other.peer(), "echo", json!({"text": "from the other"})).await;
    let cells = cdp
        .wait_cells("the second conversation", |c| {
            c.first()
                .is_some_and(|f| f["input"].as_str().unwrap().contains("the other"))
        })
        .await;
    let keys: Vec<&str> = cells.iter().map(|c| c["group"].as_str().unwrap()).collect();
    assert_eq!(
        keys.iter().filter(|k| **k == keys[0]).count(),
        1,
        "{keys:?}"
    );
    assert!(
        keys[1..].iter().all(|k| *k == keys[1]) && keys[0] != keys[1],
        "{keys:?}"
    );
    assert!(keys[0].starts_with("mcp-session:"), "{keys:?}");
    let groups = cdp
        .eval("document.querySelectorAll('#cells > section.group').length")
        .await;
    assert_eq!(groups, 2);
    assert!(
        cells[0]["group_title"]
            .as_str()
            .unwrap()
            .contains("session "),
        "{}",
        cells[0]["group_title"]
    );
    // The tool filter shows one tool's calls, across groups.
    cdp.eval(
        "(() => { const s = document.getElementById('f-tool'); s.value = 'echo'; \
         s.dispatchEvent(new Event('change')); })()",
    )
    .await;
    let shown: Vec<_> = cdp
        .cells()
        .await
        .into_iter()
        .filter(|c| c["hidden"] == false)
        .map(|c| c["tool"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(shown, ["echo", "echo", "echo"]);
    cdp.eval(
        "(() => { const s = document.getElementById('f-tool'); s.value = ''; \
         s.dispatchEvent(new Event('change')); })()",
    )
    .await;
    let _ = other.cancel().await;

    // Fold open the error and the html result for the screenshots, as a click would.
    cdp.eval(
        "document.querySelectorAll('.cell[data-status=failure] .result, \
         .cell[data-tool=html] .result').forEach(d => d.querySelector('summary').click())",
    )
    .await;
    let desktop = cdp
        .screenshot(1280, 900, false, "activity-desktop.png")
        .await;
    let phone = cdp.screenshot(390, 844, true, "activity-phone.png").await;
    eprintln!("screenshots: {} {}", desktop.display(), phone.display());
    // Nothing at phone width is wider than the screen.
    let overflow = cdp
        .eval("document.documentElement.scrollWidth <= window.innerWidth")
        .await;
    assert_eq!(overflow, true, "the page fits a 390 px wide screen");

    let _ = client.cancel().await;
    let _ = chrome.child.kill().await;
}
