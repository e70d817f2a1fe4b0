//! The server's memory stays bounded whatever callers send: 500 refused calls each carrying a
//! megabyte of extra field, then 5,000 ordinary calls, keep `toolsmith serve`'s peak resident
//! memory under 256 MiB (it once reached 527 MB: the activity store kept every call's
//! arguments), and the records of the refused calls keep a summary, not the megabyte.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::stdio::{StdioServe, Version};

const MAX_RSS: u64 = 256 * 1024 * 1024;

fn refused_megabytes_then_ordinary_calls(version: Version) {
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("a.txt"), "hello\n").expect("write");
    let root = dir.path().to_str().expect("utf-8");
    let mut server = StdioServe::start(dir.path(), &["--root", root]);
    let padding = "p".repeat(1 << 20);
    let mut frames = version.prelude();
    let call = |id: usize, args: Value| {
        let params = json!({"name": "read_file", "arguments": args});
        version
            .request(&json!(id), "tools/call", params)
            .to_string()
            .into_bytes()
    };
    for id in 0..500 {
        frames.push(call(id, json!({"paths": ["a.txt"], "extra": padding})));
    }
    for id in 500..5_500 {
        frames.push(call(id, json!({"paths": ["a.txt"]})));
    }
    server.send(frames);
    let want = version.prelude_answers() + 5_500;
    assert!(
        server.read_until(want, Duration::from_secs(240)),
        "{} of {want} answered",
        server.answered()
    );
    for id in 0..5_500 {
        let answers = server.answers_to(&json!(id));
        assert_eq!(answers.len(), 1, "{id}: {answers:?}");
        let result = &answers[0]["result"];
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        if id < 500 {
            assert_eq!(result["isError"], json!(true), "{id}: {text:.300}");
            assert!(text.contains("extra"), "{id}: {text:.300}");
        } else {
            assert_ne!(result["isError"], json!(true), "{id}: {text:.300}");
        }
    }
    let (peak, now) = server.memory();
    eprintln!(
        "{version:?}: 500 x 1 MiB refused + 5,000 calls: peak RSS {} MiB, now {} MiB",
        peak >> 20,
        now >> 20
    );
    assert!(peak < MAX_RSS, "peak RSS {} MiB", peak >> 20);
}

#[test]
fn refused_megabyte_calls_leave_memory_bounded_under_2025_11_25() {
    refused_megabytes_then_ordinary_calls(Version::V2025);
}

#[test]
fn refused_megabyte_calls_leave_memory_bounded_under_2026_07_28() {
    refused_megabytes_then_ordinary_calls(Version::V2026);
}
