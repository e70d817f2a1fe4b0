//! Output caps: no call returns more than its configured cap, and each says which cap it hit
//! and how to get the rest.

use serde_json::json;
use tool_std::file::FileConfig;

use crate::support::file::{Fixture, error_text, error_type};

fn small() -> Fixture {
    let mut c = FileConfig::default();
    c.max_output_chars = 1_000;
    c.max_diff_chars = 300;
    c.max_write_bytes = 2_000;
    c.max_edit_bytes = 50_000;
    c.max_files_per_read = 3;
    c.max_read_lines = 100;
    Fixture::with_config(c)
}

fn lines(n: usize) -> String {
    (1..=n).map(|i| format!("line number {i}\n")).collect()
}

#[tokio::test]
async fn a_read_stops_at_the_output_cap_and_says_how_to_read_on() {
    let f = small();
    f.write("big.txt", lines(500));
    let (r, text) = f
        .call_text("read_file", json!({"paths": ["big.txt"]}))
        .await;
    let file = &r["files"][0];
    let content = file["content"].as_str().unwrap();
    assert!(content.len() <= 1_000, "{} bytes", content.len());
    let last = file["end_line"].as_u64().unwrap();
    assert!(last > 10);
    assert_eq!(
        file["note"],
        format!(
            "Output cap of 1000 characters per call reached after line {last} of 500. Read on with offset={} and a smaller limit (or `main:big.txt:{}-{}`).",
            last + 1,
            last + 1,
            last + 200
        )
    );
    assert!(text.len() < 1_000 + 400, "model text {} bytes", text.len());
    // Reading on from the note's offset continues exactly after.
    let r = f
        .call(
            "read_file",
            json!({"paths": ["big.txt"], "offset": last + 1, "limit": 2}),
        )
        .await;
    assert!(
        r["files"][0]["content"]
            .as_str()
            .unwrap()
            .starts_with(&format!("line number {}\n", last + 1))
    );
}

#[tokio::test]
async fn the_cap_is_shared_by_every_file_of_a_call() {
    let f = small();
    f.write("a.txt", lines(30));
    f.write("b.txt", lines(30));
    f.write("c.txt", lines(30));
    let r = f
        .call("read_file", json!({"paths": ["a.txt", "b.txt", "c.txt"]}))
        .await;
    let total: usize = r["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["content"].as_str().unwrap().len())
        .sum();
    assert!(total <= 1_000, "{total}");
    let failed = r["failed"].as_array().unwrap();
    assert!(!failed.is_empty(), "{r}");
    assert!(
        failed[0]["error"]
            .as_str()
            .unwrap()
            .contains("output cap of 1000 characters was reached")
    );
    let r = f
        .call(
            "read_file",
            json!({"paths": ["a.txt", "b.txt", "c.txt", "a.txt"]}),
        )
        .await;
    assert_eq!(error_type(&r), "validation_error");
    assert_eq!(error_text(&r), "4 paths given; one call reads at most 3");
    let r = f
        .call("read_file", json!({"paths": ["a.txt"], "limit": 100000}))
        .await;
    assert!(r["files"][0]["content"].as_str().unwrap().len() <= 1_000);
}

#[tokio::test]
async fn listings_and_diffs_are_capped() {
    let f = small();
    for i in 0..200 {
        f.write(
            &format!("some/rather/long/directory/name/file-{i:03}.txt"),
            "x",
        );
    }
    let r = f
        .call(
            "list_directory",
            json!({"path": "some/rather/long/directory/name", "limit": 5000}),
        )
        .await;
    // What the cap counts: each entry's path from the root and 32 bytes.
    let dir = "some/rather/long/directory/name/";
    let shown: usize = r["entries"]
        .as_object()
        .unwrap()
        .keys()
        .map(|k| dir.len() + k.trim_end_matches('/').len() + 32)
        .sum();
    assert!(shown <= 1_000, "{shown}");
    assert!(r["more"].as_u64().unwrap() > 0);
    assert!(
        r["note"]
            .as_str()
            .unwrap()
            .contains("the output cap of 1000 characters was reached"),
        "{r}"
    );

    f.write("d.txt", lines(200));
    let r = f
        .call(
            "replace_in_file",
            json!({"path": "d.txt", "find": "line", "replace": "LINE", "replace_all": true}),
        )
        .await;
    let diff = r["diff"].as_str().unwrap();
    assert!(diff.chars().count() <= 300 + 80, "{}", diff.len());
    assert!(
        diff.ends_with("[diff cut at 300 characters; read the file to see the rest]\n"),
        "{diff}"
    );
}

#[tokio::test]
async fn writes_and_edits_have_size_limits() {
    let f = small();
    let r = f
        .call(
            "create_file",
            json!({"path": "w.txt", "content": "x".repeat(2_001)}),
        )
        .await;
    assert_eq!(error_type(&r), "validation_error");
    assert_eq!(
        error_text(&r),
        "content is 2001 bytes; a write takes at most 2000 bytes"
    );
    f.write("huge.txt", "y".repeat(50_001));
    let r = f
        .call(
            "replace_in_file",
            json!({"path": "huge.txt", "find": "y", "replace": "z"}),
        )
        .await;
    assert_eq!(
        error_text(&r),
        "`main:huge.txt` is 50001 bytes; the file tools edit files of at most 50000 bytes"
    );
    // Reading it is still possible (streamed, capped).
    let r = f.call("read_file", json!({"paths": ["huge.txt"]})).await;
    assert_eq!(r["files_read"], 1);
}
