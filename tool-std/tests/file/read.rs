//! `read_file`: ranges and offset/limit, `cat -n` numbering, the default limits with the note
//! that reads on, binary files, token estimates, one failing path among others, the
//! de-duplication of repeated content, and the reads recorded for staleness.

use serde_json::json;
use tool_core::ResourcesTracker;

use crate::support::file::{Fixture, error_text, error_type};

/// Lines `from..=to` of [`lines`]: the structured `content`, bare.
fn bare(from: usize, to: usize) -> String {
    (from..=to).map(|i| format!("line {i}\n")).collect()
}

/// The same lines numbered like `cat -n`, as the text shows them.
fn numbered(from: usize, to: usize) -> String {
    (from..=to).map(|i| format!("{i:>6}\tline {i}\n")).collect()
}

fn lines(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

#[tokio::test]
async fn ranges_offsets_and_numbering() {
    let f = Fixture::new();
    f.write("f.txt", lines(30));
    let (r, text) = f
        .call_text("read_file", json!({"paths": ["f.txt:10-20"]}))
        .await;
    let file = &r["files"][0];
    assert_eq!(file["content"], bare(10, 20));
    assert!(text.contains(&numbered(10, 20)), "{text}");
    assert_eq!(
        (file["start_line"].clone(), file["end_line"].clone()),
        (json!(10), json!(20))
    );
    assert_eq!(file["total_lines"], 30);
    assert_eq!(file["truncated"], true);
    assert_eq!(
        file["note"],
        "Showing lines 10-20 of 30; more lines follow. Read on with offset=21 (or `main:f.txt:21-`)."
    );
    let r = f
        .call(
            "read_file",
            json!({"paths": ["f.txt"], "offset": 25, "limit": 3}),
        )
        .await;
    assert_eq!(r["files"][0]["content"], bare(25, 27));
    let r = f.call("read_file", json!({"paths": ["f.txt:28-"]})).await;
    assert_eq!(r["files"][0]["content"], bare(28, 30));
    assert_eq!(r["files"][0]["truncated"], false);
    assert!(r["files"][0].get("note").is_none(), "{r}");
    let r = f.call("read_file", json!({"paths": ["f.txt:40-50"]})).await;
    assert_eq!(r["files"][0]["content"], "");
    assert_eq!(
        r["files"][0]["note"],
        "The file has 30 lines; line 40 is past its end."
    );
    let r = f.call("read_file", json!({"paths": ["f.txt:20-10"]})).await;
    assert_eq!(error_type(&r), "validation_error");
    assert_eq!(r["type"], "error");
}

#[tokio::test]
async fn default_limits_cut_at_2000_lines_and_2000_chars_with_a_way_on() {
    let f = Fixture::new();
    f.write("long.txt", lines(2500));
    let r = f.call("read_file", json!({"paths": ["long.txt"]})).await;
    let file = &r["files"][0];
    assert_eq!(file["end_line"], 2000);
    assert_eq!(file["content"].as_str().unwrap().lines().count(), 2000);
    assert_eq!(
        file["note"],
        "Showing lines 1-2000 of 2500; more lines follow. Read on with offset=2001 (or `main:long.txt:2001-`)."
    );
    let wide = format!("{}\nshort\n", "x".repeat(5000));
    f.write("wide.txt", &wide);
    let r = f.call("read_file", json!({"paths": ["wide.txt"]})).await;
    let content = r["files"][0]["content"].as_str().unwrap();
    let first = content.lines().next().unwrap();
    assert_eq!(
        first,
        format!(
            "{} … [line cut at 2000 of 5000 characters]",
            "x".repeat(2000)
        )
    );
    assert!(
        r["files"][0]["note"]
            .as_str()
            .unwrap()
            .starts_with("1 line(s) longer than 2000 characters were cut")
    );
}

#[tokio::test]
async fn binary_files_are_refused_and_others_still_read() {
    let f = Fixture::new();
    f.write("bin.dat", [0x7f, b'E', b'L', b'F', 0, 1, 2, 3]);
    f.write("latin1.txt", [b'c', b'a', b'f', 0xe9, b'\n']);
    f.write("ok.txt", "fine\n");
    let r = f.call("read_file", json!({"paths": ["bin.dat"]})).await;
    assert_eq!(error_type(&r), "user_error");
    assert!(
        error_text(&r).starts_with("`main:bin.dat` is a binary file"),
        "{r}"
    );
    let r = f
        .call(
            "read_file",
            json!({"paths": ["bin.dat", "missing.txt", "ok.txt", "latin1.txt"]}),
        )
        .await;
    assert_eq!(r["files_read"], 1, "{r}");
    assert_eq!(r["files"][0]["path"], "main:ok.txt");
    let kinds: Vec<&str> = r["failed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["error_type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["user_error", "not_found", "user_error"]);
    let r = f
        .call(
            "replace_in_file",
            json!({"path": "bin.dat", "find": "E", "replace": "e"}),
        )
        .await;
    assert!(error_text(&r).contains("binary file"), "{r}");
}

#[tokio::test]
async fn token_estimates_and_repeated_content_shown_once() {
    let f = Fixture::new();
    f.write("a.txt", "abcdefgh\n");
    let out = f.outcome("read_file", json!({"paths": ["a.txt"]})).await;
    assert_eq!(out.to_json()["files"][0]["tokens"], 2);
    let mut tracker = ResourcesTracker::new();
    let first = out.model_text(&mut tracker);
    assert!(
        first.contains(
            ">>>>> FILE: main:a.txt (lines 1-1 of 1, ~2 tokens, version: 97c68304cee2)\n     1\tabcdefgh\n<<<<< END FILE"
        ),
        "{first}"
    );
    f.session.clear_current_turn();
    let again = f.outcome("read_file", json!({"paths": ["a.txt"]})).await;
    let second = again.model_text(&mut tracker);
    assert!(
        second.contains(
            ">>>>> FILE: main:a.txt (lines 1-1 of 1, version: 97c68304cee2; content shown in another tool invocation)"
        ),
        "{second}"
    );
    assert!(!second.contains("abcdefgh"));
    // Changed content is shown again.
    f.write("a.txt", "changed\n");
    f.session.clear_current_turn();
    let third = f
        .outcome("read_file", json!({"paths": ["a.txt"]}))
        .await
        .model_text(&mut tracker);
    assert!(third.contains("changed"), "{third}");
}

#[tokio::test]
async fn reads_are_recorded_for_staleness() {
    let f = Fixture::new();
    f.write("t.txt", "one\n");
    // Never read: an edit passes.
    std::fs::write(f.ws.join("t.txt"), "two\n").unwrap();
    let r = f
        .call("append_file", json!({"path": "t.txt", "content": "x\n"}))
        .await;
    assert_eq!(r["written"], true, "{r}");
    // A partial read records the file too.
    f.call("read_file", json!({"paths": ["t.txt:1-1"]})).await;
    std::fs::write(f.ws.join("t.txt"), "three\n").unwrap();
    let r = f
        .call("append_file", json!({"path": "t.txt", "content": "x\n"}))
        .await;
    assert!(error_text(&r).starts_with("modified since read"), "{r}");
}

#[tokio::test]
async fn aliases_and_list_projects() {
    let f = Fixture::new();
    f.write("a.txt", "x\n");
    for name in ["read", "read_files"] {
        let r = f.call(name, json!({"paths": ["a.txt"]})).await;
        assert_eq!(r["files_read"], 1, "{name}: {r}");
    }
    let r = f.call("list_projects", json!({})).await;
    assert_eq!(r["type"], "projects");
    assert_eq!(r["projects"][0]["name"], "main");
    assert_eq!(r["projects"][0]["read_only"], false);
    assert_eq!(r["projects"][1]["name"], "ro");
    assert_eq!(r["projects"][1]["read_only"], true);
    assert_eq!(r["projects"][1]["path"], f.ro.display().to_string());
    let r = f.call("read_file", json!({"paths": ["ro:file.txt"]})).await;
    assert_eq!(r["files"][0]["content"], "read-only content\n");
}
