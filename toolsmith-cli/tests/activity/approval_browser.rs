//! Approval on the activity page of `toolsmith serve --http`, in headless Chromium: a
//! 2026-07-28 client's `bash` call is asked about (`input_required`), and while the user
//! decides its card is `awaiting approval`, naming what asks; two seconds later the retry
//! brings the answer and the same card runs and ends, saying who allowed it and after how
//! long. A card of a call from another day shows its date. A screenshot goes to the build
//! output (`target/tmp/activity-approval.png`).
//!
//! Skips, saying why, where Chromium is not installed (`.ci/run` installs it).

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use toolsmith::{ActivityStart, ActivityStatus, ActivityStore, ActivityUpdate, Arguments};
use toolsmith::{SqliteActivityConfig, SqliteActivityStore};

use crate::support::browser::{Browser, chromium, find};
use crate::support::http::{Http, asking_call_2026, message, send};
use crate::support::mcp::ServeProcess;

const TOKEN: &str = "approval-page-token-0123456789abcdef";

/// A 2026-07-28 `tools/call` of `bash` over HTTP, from a client that can ask its user (with
/// the retry's state and answer when given); the JSON-RPC answer.
fn call(addr: &str, command: &str, retry: Option<(&str, &str)>) -> Value {
    let body = asking_call_2026(1, "bash", json!({"command": command}), retry);
    let bearer = format!("Bearer {TOKEN}");
    let headers = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "bash"),
        ("Authorization", bearer.as_str()),
    ];
    let answer = Http::read(send(addr, "POST", "/mcp", &headers, &body.to_string()));
    assert_eq!(answer.status, 200, "{}", answer.body);
    serde_json::from_str(message(&answer.body)).expect("a JSON-RPC answer")
}

/// Writes a finished `read_file` call of two days ago into the store at `path`.
async fn old_call(path: &std::path::Path) {
    let store = SqliteActivityStore::open(path, SqliteActivityConfig::default()).expect("store");
    let arguments = Arc::new(Arguments::Text(r#"{"paths": ["old.txt"]}"#.into()));
    let mut start = ActivityStart::new("act_old_1", "read_file", arguments, true);
    start.started_at_ms = now_ms() - 2 * 24 * 3600 * 1000;
    store.begin(start);
    let data = json!({"type": "text", "text": "old"});
    store.update(
        "act_old_1",
        ActivityUpdate::Finish {
            status: ActivityStatus::Success,
            data: data.as_object().cloned(),
            error: None,
        },
    );
    store.flush().await;
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_shows_a_call_awaiting_approval_then_who_allowed_it() {
    let Some(chrome_bin) = chromium() else {
        eprintln!(
            "skipped: no chromium on PATH (set CHROMIUM=/path/to/chromium, or apt-get install chromium)"
        );
        return;
    };
    let dir = tempfile::tempdir().expect("dir");
    old_call(&dir.path().join(".toolsmith").join("activity.db")).await;
    let server = ServeProcess::http(dir.path(), &["--token", TOKEN]);
    let addr = crate::support::http::addr_of(&server);

    let mut chrome = Browser::start(&chrome_bin).await;
    chrome
        .open_activity(&format!("http://{addr}/activity?token={TOKEN}"))
        .await;
    let cdp = &mut chrome.cdp;

    // A call of another day shows its date beside its time.
    let cells = cdp
        .wait_cells("the call of two days ago", |c| {
            find(c, "read_file").is_some()
        })
        .await;
    let old = find(&cells, "read_file").expect("the old card");
    let date: String = cdp
        .eval(&format!(
            "new Date({}).toLocaleDateString()",
            now_ms() - 2 * 24 * 3600 * 1000
        ))
        .await
        .as_str()
        .expect("a date")
        .to_owned();
    assert!(
        old["meta"].as_str().unwrap_or("").contains(&date),
        "{old} lacks {date}"
    );

    // Asked: the card waits for the user.
    let addr_for_call = addr.clone();
    let first = tokio::task::spawn_blocking(move || call(&addr_for_call, "echo x >> ran", None))
        .await
        .expect("join");
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let state = first["result"]["requestState"]
        .as_str()
        .expect("state")
        .to_owned();
    let cells = cdp
        .wait_cells("the call awaiting approval", |c| {
            find(c, "bash").is_some_and(|s| s["status"] == "awaiting_approval")
        })
        .await;
    let waiting = find(&cells, "bash").expect("bash card");
    assert!(
        waiting["meta"]
            .as_str()
            .unwrap_or("")
            .starts_with("awaiting approval"),
        "{waiting}"
    );
    assert_eq!(
        waiting["approval"],
        "waiting for approval, asked by `bash`'s declaration (requires_approval)",
        "{waiting}"
    );
    assert_eq!(waiting["subject"], "$ echo x >> ran");
    let count = cdp
        .eval("document.getElementById('count').textContent")
        .await;
    assert!(
        count.as_str().unwrap_or("").contains("1 awaiting approval"),
        "{count}"
    );

    // Answered two seconds later: the same card runs and ends, saying how it was allowed.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let second = tokio::task::spawn_blocking(move || {
        call(&addr, "echo x >> ran", Some((&state, "allow_once")))
    })
    .await
    .expect("join");
    assert_eq!(second["result"]["isError"], false, "{second}");
    let cells = cdp
        .wait_cells("the allowed call's end", |c| {
            find(c, "bash").is_some_and(|s| s["status"] == "success")
        })
        .await;
    let bash: Vec<&Value> = cells.iter().filter(|c| c["tool"] == "bash").collect();
    assert_eq!(bash.len(), 1, "one card for the round: {cells:#?}");
    assert_eq!(bash[0]["id"], waiting["id"]);
    let approval = bash[0]["approval"].as_str().unwrap_or("");
    // "allowed by the user (once) after 2.3 s": the wait, at least the two seconds.
    let waited: f64 = approval
        .strip_prefix("allowed by the user (once) after ")
        .and_then(|r| r.strip_suffix(" s"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{}", bash[0]));
    assert!(waited >= 2.0, "{}", bash[0]);

    // Read again from the store: the card keeps it.
    cdp.reload().await;
    let cells = cdp
        .wait_cells("the cards read from the store", |c| {
            find(c, "bash").is_some_and(|s| s["status"] == "success")
        })
        .await;
    let reread = find(&cells, "bash").expect("bash card");
    assert_eq!(reread["approval"], approval, "{reread}");

    let shot = cdp
        .screenshot(1280, 700, false, "activity-approval.png")
        .await;
    eprintln!("screenshot: {}", shot.display());
    let _ = chrome.child.kill().await;
}
