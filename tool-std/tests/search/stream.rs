//! The search tools stream what they find as output chunks while they run: `grep` and
//! `search` a line per file with its matches, `glob` a line per name; at most
//! `MAX_STREAMED_BYTES`, then one line saying the rest is in the answer, which is whole.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tool_core::{CallOptions, EventData, ToolCall};
use tool_std::search::MAX_STREAMED_BYTES;

use crate::support::search::Fixture;

/// Calls `tool` and returns its answer and the chunks it streamed, in order.
async fn streamed(f: &Fixture, tool: &str, args: Value) -> (Value, Vec<String>) {
    let chunks = Arc::new(Mutex::new(Vec::new()));
    let sink = chunks.clone();
    let options = CallOptions::new().observer(move |e| {
        if let EventData::Chunk { text } = &e.data {
            sink.lock().unwrap().push(text.clone());
        }
    });
    let out = f
        .session
        .call_with(ToolCall::new("s", tool, args.to_string()), options)
        .await
        .to_json();
    let chunks = chunks.lock().unwrap().clone();
    (out, chunks)
}

#[tokio::test]
async fn grep_and_glob_stream_what_they_find() {
    let f = Fixture::new();
    for i in 0..30 {
        let text = if i % 3 == 0 {
            "needle\nneedle\n"
        } else {
            "hay\n"
        };
        f.write(&format!("d/f{i:02}.txt"), text);
    }
    let (out, chunks) = streamed(&f, "grep", json!({"pattern": "needle"})).await;
    assert_eq!(out["type"], "grep_results", "{out}");
    let mut lines: Vec<&str> = chunks.iter().flat_map(|c| c.lines()).collect();
    lines.sort_unstable();
    assert_eq!(lines.len(), 10, "{lines:?}");
    assert_eq!(lines[0], "d/f00.txt (2 matches)");

    let (out, chunks) = streamed(&f, "glob", json!({"pattern": "**/*.txt"})).await;
    assert_eq!(out["files"].as_array().map(Vec::len), Some(30), "{out}");
    let mut names: Vec<&str> = chunks.iter().flat_map(|c| c.lines()).collect();
    names.sort_unstable();
    assert_eq!(names.len(), 30);
    assert_eq!(names[0], "d/f00.txt");
}

#[tokio::test]
async fn the_stream_is_bounded_and_says_the_rest_is_in_the_answer() {
    let f = Fixture::new();
    // 3,000 names of ~40 bytes each: past the bound several times over.
    for i in 0..3000 {
        f.write(&format!("deep/dir/name-{i:05}-padding-padding.txt"), "x\n");
    }
    let (out, chunks) = streamed(&f, "glob", json!({"pattern": "**/*.txt"})).await;
    assert_eq!(out["type"], "glob_results", "{out}");
    let total: usize = chunks.iter().map(String::len).sum();
    assert!(total <= MAX_STREAMED_BYTES + 64, "{total}");
    assert_eq!(
        chunks
            .iter()
            .filter(|c| c.contains("more in the answer"))
            .count(),
        1,
        "one closing line"
    );
}
