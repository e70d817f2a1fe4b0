//! The in-process MCP client (`testing::McpClient`) under every protocol version: it opens the
//! session as the version does (`initialize`, or `server/discover`), lists and calls tools
//! through the server `serve` runs, answers the approval question from its script (while the
//! call waits under 2025-11-25, by the retry under 2026-07-28), and keeps the frames and the
//! progress notifications.

use serde_json::json;
use tool_core::testing::{Elicit, McpClient, McpVersion};

use crate::support::*;

#[tokio::test]
async fn every_version_lists_calls_and_reports_errors() {
    for &version in McpVersion::ALL {
        let runtime = registry(|b| b.register(Add));
        let mut client = McpClient::builder().version(version).start(runtime).await;
        let opening = &client.frames()[0].message;
        let expected = match version {
            McpVersion::V2026_07_28 => "server/discover",
            _ => "initialize",
        };
        assert_eq!(opening["method"], expected, "{version:?}");
        let tools = client.list_tools().await;
        assert_eq!(tools[0]["name"], "add", "{version:?}");
        let sum = client.call("add", json!({"a": 2, "b": 3})).await;
        assert!(!sum.is_error, "{version:?}: {sum:?}");
        assert_eq!(sum.structured, Some(json!({"sum": 5})), "{version:?}");
        let bad = client.call("add", json!({"a": "two", "b": 3})).await;
        assert!(
            bad.is_error && bad.text.contains("validation_error"),
            "{version:?}: {bad:?}"
        );
        client.close().await;
    }
}

#[tokio::test]
async fn the_approval_question_is_answered_from_the_script() {
    for &version in &[McpVersion::V2025_11_25, McpVersion::V2026_07_28] {
        let risky = Risky::default();
        let runtime = tool_core::Runtime::builder(registry(|b| b.register(risky.clone()))).build();
        let mut client = McpClient::builder()
            .version(version)
            .elicit([Elicit::allow_once(), Elicit::deny()])
            .start(runtime)
            .await;
        let allowed = client.call("risky", json!({"key": "a"})).await;
        assert!(!allowed.is_error, "{version:?}: {allowed:?}");
        assert_eq!(allowed.asked.len(), 1, "{version:?}");
        assert!(
            allowed.asked[0].contains("Allow `risky` to run?"),
            "{allowed:?}"
        );
        let denied = client.call("risky", json!({"key": "b"})).await;
        assert!(
            denied.is_error && denied.text.contains("the user denied the call"),
            "{denied:?}"
        );
        assert_eq!(
            risky.inner.runs.load(std::sync::atomic::Ordering::SeqCst),
            1,
            "{version:?}"
        );
        client.close().await;
    }
    // A client that cannot ask: refused, nobody asked.
    let mut client = McpClient::builder()
        .start(registry(|b| b.register(Risky::default())))
        .await;
    let refused = client.call("risky", json!({"key": "a"})).await;
    assert!(refused.is_error && refused.asked.is_empty(), "{refused:?}");
}

#[tokio::test]
async fn progress_notifications_and_frames_are_kept() {
    let waiter = Waiter::default();
    waiter.release.notify_one();
    let mut client = McpClient::builder()
        .version(McpVersion::V2025_11_25)
        .start(registry(|b| b.register(waiter.clone())))
        .await;
    let done = client.call("waiter", json!({})).await;
    assert!(!done.is_error, "{done:?}");
    assert!(
        client
            .progress()
            .iter()
            .any(|m| m.contains("Waiting for release")),
        "{:?}",
        client.notifications()
    );
    let methods: Vec<&str> = client
        .frames()
        .iter()
        .filter(|f| f.sent)
        .filter_map(|f| f.message["method"].as_str())
        .collect();
    assert_eq!(
        methods,
        ["initialize", "notifications/initialized", "tools/call"]
    );
    client.close().await;
}
