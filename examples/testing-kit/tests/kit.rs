//! The crate's tools tested with `toolsmith::testing` alone: through the runtime's whole path,
//! through MCP under every protocol version, their surface held to snapshots and their exports
//! to the providers' rules. Each test is at most 10 lines.

use serde_json::json;
use toolsmith::ErrorKind;
use toolsmith::testing::{Harness, McpClient, McpVersion, Surface, TestWorkspace, assert_exports};
use toolsmith_testing_kit_example::{Count, Greeting};

#[tokio::test]
async fn greet_answers_by_name() {
    let harness = Harness::linked().build();
    let called = harness.call("greet", json!({"name": "Ada"})).await;
    assert_eq!(called.output::<Greeting>().text, "Hello, Ada!");
    assert_eq!(called.record().status, toolsmith::ActivityStatus::Success);
}

#[tokio::test]
async fn counter_adds_and_refuses_an_unknown_action() {
    let harness = Harness::linked().build();
    let added = harness
        .call("counter", json!({"action": "add", "by": 2}))
        .await;
    assert_eq!(added.output::<Count>(), &Count { value: 2 });
    let bad = harness.call("counter", json!({"action": "reset"})).await;
    let problem = &bad.expect_err(ErrorKind::ValidationError).problems()[0];
    assert_eq!(problem.allowed, Some(vec![json!("add"), json!("show")]));
}

#[tokio::test]
async fn read_file_reads_the_workspace() {
    let ws = TestWorkspace::with_files([("notes.txt", "first\nsecond\n")]);
    let read = ws
        .harness()
        .build()
        .call("read_file", json!({"paths": ["notes.txt"]}))
        .await;
    assert!(read.expect_ok().text.contains("second"), "{}", read.text);
}

/// A client of `version` connected to the tools working in `ws`.
async fn connect(ws: &TestWorkspace, version: McpVersion) -> McpClient {
    let runtime = ws.harness().build().runtime().clone();
    McpClient::builder().version(version).start(runtime).await
}

#[tokio::test]
async fn every_protocol_version_calls_the_tools() {
    let ws = TestWorkspace::with_files([("a.txt", "alpha\n")]);
    for &version in McpVersion::ALL {
        let mut client = connect(&ws, version).await;
        let greet = client.call("greet", json!({"name": "Ada"})).await;
        let bad = client.call("counter", json!({"action": "nope"})).await;
        let read = client.call("read_file", json!({"paths": ["a.txt"]})).await;
        assert!(greet.text.contains("Hello, Ada!"), "{version:?}");
        assert!(bad.is_error && read.text.contains("alpha"), "{version:?}");
    }
}

#[test]
fn the_surface_keeps_its_callers() {
    let harness = Harness::linked().build();
    let mine = harness
        .runtime()
        .registry()
        .iter()
        .filter(|e| ["greet", "counter"].contains(&e.name()));
    Surface::from_specs(mine.map(|e| (**e.spec()).clone())).assert();
}

#[test]
fn every_tool_exports_within_the_providers_rules() {
    assert_exports(Harness::linked().build().runtime().registry());
}
