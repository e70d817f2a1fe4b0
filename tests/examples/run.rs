//! Every example runs: its binary (built by `cargo test`, or here when missing) is executed
//! and must exit 0; the examples assert their own results. The MCP server example is driven
//! over its stdio with raw JSON-RPC lines.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::support::mcp::example;

fn runs(name: &str) -> String {
    let out = Command::new(example(name)).output().expect("run example");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "example {name} failed: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn declare_tools_runs() {
    assert!(runs("declare_tools").contains("calc"));
}

#[test]
fn plain_tool_runs() {
    assert!(runs("plain_tool").contains("hi hi hi"));
}

#[test]
fn polymorphic_tool_runs() {
    assert!(runs("polymorphic_tool").contains("allowed_actions"));
}

#[test]
fn agent_loop_runs() {
    assert!(runs("agent_loop").contains("3.048"));
}

#[test]
fn mcp_server_example_serves_stdio() {
    let mut child = Command::new(example("mcp_server"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut send = |v: Value| {
        writeln!(stdin, "{v}").expect("write");
        stdin.flush().expect("flush");
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}),
    );
    let init: Value =
        serde_json::from_str(&lines.next().expect("line").expect("read")).expect("JSON");
    assert_eq!(
        init["result"]["serverInfo"]["name"], "temperature-tools",
        "{init}"
    );
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let list: Value =
        serde_json::from_str(&lines.next().expect("line").expect("read")).expect("JSON");
    assert_eq!(
        list["result"]["tools"].as_array().map(Vec::len),
        Some(2),
        "{list}"
    );
    send(
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "convert", "arguments": {"value": 0, "from": "celsius", "to": "kelvin"}}}),
    );
    let call: Value =
        serde_json::from_str(&lines.next().expect("line").expect("read")).expect("JSON");
    assert_eq!(
        call["result"]["structuredContent"]["value"], 273.15,
        "{call}"
    );
    drop(stdin);
    assert!(child.wait().expect("exit").success());
}
