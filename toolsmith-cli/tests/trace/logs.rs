//! `--log-format json`: every line `toolsmith serve` writes to stderr is a JSON object with a
//! level and a message, the startup lines keep their words, and a call's lines carry the call's
//! fields.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::stdio::{StdioServe, Version};

#[test]
fn json_logs_are_one_object_a_line_with_the_calls_fields() {
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("a.txt"), "logged\n").expect("write");
    let root = dir.path().to_str().expect("utf-8");
    let args = ["--root", root, "--log-format", "json"];
    let mut server = StdioServe::start_with_env(dir.path(), &args, &[("RUST_LOG", "info")]);
    let calls = [
        json!({"paths": ["a.txt"]}),
        json!({"paths": ["missing.txt"]}),
        json!({"pathz": ["a.txt"]}),
    ];
    let frames = calls
        .iter()
        .enumerate()
        .map(|(n, args)| {
            let params = json!({"name": "read_file", "arguments": args});
            Version::V2026
                .request(&json!(n), "tools/call", params)
                .to_string()
                .into_bytes()
        })
        .collect();
    server.send(frames);
    assert!(server.read_until(calls.len(), Duration::from_secs(30)));
    assert!(server.close(Duration::from_secs(10)), "clean exit");
    let stderr = std::fs::read_to_string(dir.path().join("serve.stderr")).expect("stderr");

    let lines: Vec<Value> = stderr
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    for line in &lines {
        assert!(line["level"].is_string(), "{line}");
        assert!(line["message"].is_string(), "{line}");
    }
    let message = |m: &str| {
        lines
            .iter()
            .find(|l| l["message"] == m)
            .unwrap_or_else(|| panic!("a line `{m}` in {stderr}"))
    };
    assert_eq!(message("serving MCP on stdio")["level"], "INFO");
    let failed = message("call failed");
    assert_eq!(failed["level"], "WARN");
    assert_eq!(failed["kind"], "not_found");
    assert_eq!(failed["span"]["gen_ai.tool.name"], "read_file");
    assert_eq!(failed["span"]["gen_ai.tool.call.id"], "1");
    assert_eq!(failed["span"]["toolsmith.mode"], "mcp");
    let refused = message("call refused");
    assert_eq!(refused["kind"], "validation_error");
    assert_eq!(refused["span"]["gen_ai.tool.call.id"], "2");
}
