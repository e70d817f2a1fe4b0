//! `bash` streams a command's lines as chunk events while it runs, and caps what the model
//! reads, keeping the head and the tail.

use std::time::Duration;

use serde_json::json;
use tool_core::{CallOptions, EventKind};
use tool_std::shell::ShellConfig;

use crate::support::shell::Fixture;

#[tokio::test]
async fn chunks_arrive_in_order_before_the_command_ends() {
    let f = Fixture::new();
    let (out, seen, ended) = f
        .call_watched(
            json!({"command": "for i in 1 2 3 4 5 6; do echo line$i; sleep 0.1; done"}),
            CallOptions::new(),
        )
        .await;
    assert!(out.is_success(), "{:?}", out.to_json());
    let chunks: Vec<_> = seen
        .iter()
        .filter(|s| s.kind == EventKind::ToolOutputChunk)
        .collect();
    let streamed: String = chunks.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(streamed, "line1\nline2\nline3\nline4\nline5\nline6\n");
    assert!(chunks.len() >= 3, "one chunk per line or so: {chunks:?}");
    assert!(chunks.iter().all(|c| c.text.ends_with('\n')), "whole lines");
    let first = chunks[0].at;
    assert!(
        ended.duration_since(first) >= Duration::from_millis(300),
        "the first chunk came {:?} before the end",
        ended.duration_since(first)
    );
    assert!(chunks.windows(2).all(|w| w[0].at <= w[1].at));
}

#[tokio::test]
async fn stdout_and_stderr_are_interleaved_in_the_stream() {
    let f = Fixture::new();
    let (out, seen, _) = f
        .call_watched(
            json!({"command": "echo a; sleep 0.05; echo b >&2; sleep 0.05; echo c"}),
            CallOptions::new(),
        )
        .await;
    let streamed: String = seen
        .iter()
        .filter(|s| s.kind == EventKind::ToolOutputChunk)
        .map(|s| s.text.as_str())
        .collect();
    assert_eq!(streamed, "a\nb\nc\n");
    let out = out.to_json();
    assert_eq!(out["output"], "a\nc\n");
    assert_eq!(out["error"], "b\n");
}

#[tokio::test]
async fn ten_megabytes_of_lines_are_capped_keeping_head_and_tail() {
    let f = Fixture::new();
    let (out, text) = f
        .call_text(json!({
            "command": "seq 1 1500000 | head -c 10000000; echo tail-marker",
            "timeout": 30
        }))
        .await;
    assert_eq!(out["status"], "exited", "{}", out["note"]);
    let output = out["output"].as_str().unwrap();
    assert!(output.chars().count() <= 30_000 + 100, "{}", output.len());
    assert!(output.starts_with("1\n2\n3\n"), "the head is kept");
    assert!(output.ends_with("tail-marker\n"), "the tail is kept");
    let omitted = out["omitted_lines"].as_u64().unwrap();
    assert!(omitted > 1_000_000, "{omitted}");
    assert!(output.contains(&format!("[... omitted {omitted} lines ...]")));
    assert!(out["output_lines"].as_u64().unwrap() > 1_200_000);
    assert!(out["note"].as_str().unwrap().contains("left out"));
    assert!(text.len() < 32_000, "{}", text.len());
}

#[tokio::test]
async fn a_ten_megabyte_line_without_newline_is_cut() {
    let f = Fixture::new();
    let out = f
        .call(json!({"command": "head -c 10000000 /dev/zero | tr '\\0' a", "timeout": 30}))
        .await;
    assert_eq!(out["status"], "exited");
    let output = out["output"].as_str().unwrap();
    assert!(output.len() < 5_000, "{}", output.len());
    assert!(output.starts_with("aaaa"));
    assert!(
        output.contains("line cut"),
        "{}",
        &output[output.len() - 60..]
    );
    assert_eq!(out["output_lines"], 1);
}

#[tokio::test]
async fn the_cap_is_shared_between_stdout_and_stderr() {
    let mut config = ShellConfig::default();
    config.max_output_chars = 1_000;
    let f = Fixture::with_config(config);
    let out = f
        .call(json!({"command": "seq 1 2000; seq 1 2000 >&2; echo small"}))
        .await;
    let (o, e) = (
        out["output"].as_str().unwrap(),
        out["error"].as_str().unwrap(),
    );
    assert!(o.len() + e.len() <= 1_100, "{} + {}", o.len(), e.len());
    assert!(o.contains("omitted") && e.contains("omitted"));
    assert!(o.ends_with("small\n"));
    // A small stderr keeps all of it; stdout gets the rest.
    let out = f
        .call(json!({"command": "seq 1 2000; echo oops >&2"}))
        .await;
    assert_eq!(out["error"], "oops\n");
    assert!(out["output"].as_str().unwrap().len() > 900);
}
