//! Edit correctness: CRLF, BOM, no final newline, empty files, unicode, a 10 MB file; the
//! ambiguity errors with their texts; previews, 0 replacements, regex groups, line edits with
//! `expected`, and the permission bits kept. (The "modified since read" guard: `versions`.)

use std::os::unix::fs::PermissionsExt;

use serde_json::json;

use crate::support::file::{Fixture, error_text, error_type};

#[tokio::test]
async fn crlf_and_bom_are_kept_by_every_edit() {
    let f = Fixture::new();
    f.write("w.txt", "\u{feff}one\r\ntwo\r\nthree\r\n");
    let r = f
        .call(
            "replace_in_file",
            json!({"path": "w.txt", "find": "one\ntwo", "replace": "1\n2"}),
        )
        .await;
    assert_eq!(r["replacements"], 1, "{r}");
    assert_eq!(f.read_str("w.txt"), "\u{feff}1\r\n2\r\nthree\r\n");
    let r = f.call("edit_lines", json!({"path": "w.txt", "operation": "insert", "start_line": 1, "content": "one-and-a-half"})).await;
    assert_eq!(r["line_count"], 4, "{r}");
    assert_eq!(
        f.read_str("w.txt"),
        "\u{feff}1\r\none-and-a-half\r\n2\r\nthree\r\n"
    );
    f.call("append_file", json!({"path": "w.txt", "content": "four\n"}))
        .await;
    assert_eq!(
        f.read_str("w.txt"),
        "\u{feff}1\r\none-and-a-half\r\n2\r\nthree\r\nfour\r\n"
    );
    f.call("update_file", json!({"path": "w.txt", "content": "a\nb\n"}))
        .await;
    assert_eq!(f.read_str("w.txt"), "\u{feff}a\r\nb\r\n");
    f.call(
        "create_file",
        json!({"path": "w.txt", "content": "\u{feff}c\n", "overwrite": true}),
    )
    .await;
    assert_eq!(f.read_str("w.txt"), "\u{feff}c\r\n");
    // A file with mixed line ends is edited byte for byte.
    f.write("mixed.txt", "a\r\nb\nc\r\n");
    f.call(
        "replace_in_file",
        json!({"path": "mixed.txt", "find": "b", "replace": "B"}),
    )
    .await;
    assert_eq!(f.read_str("mixed.txt"), "a\r\nB\nc\r\n");
}

#[tokio::test]
async fn missing_final_newline_and_empty_files() {
    let f = Fixture::new();
    f.write("n.txt", "a\nb");
    f.call(
        "edit_lines",
        json!({"path": "n.txt", "operation": "insert", "start_line": 2, "content": "c"}),
    )
    .await;
    assert_eq!(f.read_str("n.txt"), "a\nb\nc");
    f.call(
        "edit_lines",
        json!({"path": "n.txt", "operation": "delete", "start_line": 3}),
    )
    .await;
    assert_eq!(f.read_str("n.txt"), "a\nb");
    f.call(
        "edit_lines",
        json!({"path": "n.txt", "operation": "replace", "start_line": 2, "content": "B\n"}),
    )
    .await;
    assert_eq!(f.read_str("n.txt"), "a\nB");
    f.call(
        "replace_in_file",
        json!({"path": "n.txt", "find": "B", "replace": "bee"}),
    )
    .await;
    assert_eq!(f.read_str("n.txt"), "a\nbee");

    f.write("e.txt", "");
    let r = f
        .call(
            "replace_in_file",
            json!({"path": "e.txt", "find": "x", "replace": "y"}),
        )
        .await;
    assert_eq!(r["replacements"], 0);
    let r = f
        .call(
            "edit_lines",
            json!({"path": "e.txt", "operation": "insert", "start_line": 0, "content": "first"}),
        )
        .await;
    assert_eq!(r["line_count"], 1, "{r}");
    assert_eq!(f.read_str("e.txt"), "first\n");
    f.write("e2.txt", "");
    f.call("append_file", json!({"path": "e2.txt", "content": "x"}))
        .await;
    assert_eq!(f.read_str("e2.txt"), "x");
    let r = f
        .call(
            "edit_lines",
            json!({"path": "e2.txt", "operation": "delete", "start_line": 2}),
        )
        .await;
    assert_eq!(
        error_text(&r),
        "lines 2-2 are not in `main:e2.txt`, which has 1 lines; start_line is 1 to 1 and end_line from start_line to 1"
    );
    let read = f
        .call("read_file", json!({"paths": ["main:e.txt", "main:e2.txt"]}))
        .await;
    assert_eq!(read["files"][1]["content"], "x\n");
}

#[tokio::test]
async fn unicode_text_is_matched_and_counted_by_characters() {
    let f = Fixture::new();
    f.write("u.txt", "naïve café\n日本語のテキスト\nemoji 🦀 crab\n");
    let r = f
        .call(
            "replace_in_file",
            json!({"path": "u.txt", "find": "日本語", "replace": "にほんご"}),
        )
        .await;
    assert_eq!(r["replacements"], 1);
    let r = f.call("replace_in_file", json!({"path": "u.txt", "find": "(\\p{Han}|🦀)", "replace": "<$1>", "is_regex": true, "replace_all": true})).await;
    assert_eq!(r["replacements"], 1, "{r}");
    assert_eq!(
        f.read_str("u.txt"),
        "naïve café\nにほんごのテキスト\nemoji <🦀> crab\n"
    );
    let read = f.call("read_file", json!({"paths": ["u.txt:3"]})).await;
    assert_eq!(read["files"][0]["content"], "emoji <🦀> crab\n");
}

#[tokio::test]
async fn literal_replacement_has_no_dollar_surprises_and_regex_has_groups() {
    let f = Fixture::new();
    f.write("d.txt", "price: 5\nfn a(x) {}\n");
    f.call(
        "replace_in_file",
        json!({"path": "d.txt", "find": "5", "replace": "$1 $0 ${x}"}),
    )
    .await;
    assert_eq!(f.read_str("d.txt"), "price: $1 $0 ${x}\nfn a(x) {}\n");
    f.call("replace_in_file", json!({"path": "d.txt", "find": "fn (\\w+)\\((\\w+)\\)", "replace": "fn $1(${2}: i32)", "is_regex": true})).await;
    assert_eq!(f.read_str("d.txt"), "price: $1 $0 ${x}\nfn a(x: i32) {}\n");
    let bad = f
        .call(
            "replace_in_file",
            json!({"path": "d.txt", "find": "(", "replace": "", "is_regex": true}),
        )
        .await;
    assert_eq!(error_type(&bad), "validation_error");
    assert!(
        error_text(&bad).starts_with("find is not a valid regular expression"),
        "{bad}"
    );
}

#[tokio::test]
async fn ambiguity_error_lists_every_match_line_and_changes_nothing() {
    let f = Fixture::new();
    f.write("a.rs", "let x = 1;\nlet y = 2;\nlet x = 3;\n\nlet x = 4;\n");
    let r = f
        .call(
            "replace_in_file",
            json!({"path": "a.rs", "find": "let x", "replace": "let z"}),
        )
        .await;
    assert_eq!(error_type(&r), "user_error");
    assert_eq!(
        error_text(&r),
        "`find` matches 3 times in `main:a.rs` (lines 1, 3, 5); replace_all is false, so nothing was changed"
    );
    assert_eq!(r["match_lines"], json!([1, 3, 5]));
    assert!(
        r["suggestion"]
            .as_str()
            .unwrap()
            .contains("replace_all: true")
    );
    assert_eq!(
        f.read_str("a.rs"),
        "let x = 1;\nlet y = 2;\nlet x = 3;\n\nlet x = 4;\n"
    );
    let r = f
        .call(
            "replace_in_file",
            json!({"path": "a.rs", "find": "let x", "replace": "let z", "replace_all": true}),
        )
        .await;
    assert_eq!(r["replacements"], 3);
    assert_eq!(
        r["message"],
        "Replaced 3 occurrence(s) in `main:a.rs` (now 5 lines)"
    );
}

#[tokio::test]
async fn zero_replacements_is_a_success_and_preview_writes_nothing() {
    let f = Fixture::new();
    f.write("p.txt", "alpha\nbeta\ngamma\n");
    let r = f
        .call(
            "replace_in_file",
            json!({"path": "p.txt", "find": "delta", "replace": "x"}),
        )
        .await;
    assert_eq!(r["type"], "replaced");
    assert_eq!(r["replacements"], 0);
    assert_eq!(r["written"], false);
    assert_eq!(
        r["message"],
        "0 replacements: `find` was not found in `main:p.txt`; the file is unchanged"
    );
    let r = f
        .call(
            "replace_in_file",
            json!({"path": "p.txt", "find": "beta", "replace": "BETA", "preview_only": true}),
        )
        .await;
    assert_eq!(r["type"], "preview");
    assert_eq!(
        r["diff"],
        "--- a/main:p.txt\n+++ b/main:p.txt\n@@ -1,3 +1,3 @@\n alpha\n-beta\n+BETA\n gamma\n"
    );
    assert_eq!(f.read_str("p.txt"), "alpha\nbeta\ngamma\n");
}

#[tokio::test]
async fn edit_lines_checks_expected_and_answers_diff_and_line_count() {
    let f = Fixture::new();
    let text: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    f.write("l.txt", &text);
    let r = f
        .call("edit_lines", json!({"path": "l.txt", "operation": "replace", "start_line": 4, "end_line": 5, "content": "four\nfive\nfive-b", "expected": "line 4\nline 5"}))
        .await;
    assert_eq!(r["line_count"], 11, "{r}");
    assert_eq!(
        r["message"],
        "Replaced lines 4-5 with 3 line(s) of `main:l.txt`; it now has 11 lines"
    );
    assert!(r["diff"].as_str().unwrap().contains("@@ -1,8 +1,9 @@\n line 1\n line 2\n line 3\n-line 4\n-line 5\n+four\n+five\n+five-b\n line 6\n"), "{r}");
    // Stale numbers: lines 4-5 are no longer "line 4\nline 5".
    let r = f
        .call("edit_lines", json!({"path": "l.txt", "operation": "delete", "start_line": 4, "end_line": 5, "expected": "line 4\nline 5\n"}))
        .await;
    assert_eq!(error_type(&r), "user_error");
    assert_eq!(
        error_text(&r),
        "expected text does not match line(s) 4-5 of `main:l.txt` (the file changed, or the line numbers are stale); nothing was changed"
    );
    assert_eq!(r["actual"], "four\nfive\n");
    let r = f
        .call(
            "edit_lines",
            json!({"path": "l.txt", "operation": "delete", "start_line": 1, "end_line": 3}),
        )
        .await;
    assert_eq!(r["line_count"], 8);
    let r = f
        .call(
            "edit_lines",
            json!({"path": "l.txt", "operation": "replace", "start_line": 1}),
        )
        .await;
    assert_eq!(
        error_text(&r),
        "content is required for operation `replace`"
    );
    assert_eq!(f.read_str("l.txt").lines().next(), Some("four"));
}

#[tokio::test]
async fn a_ten_megabyte_file_is_edited_in_place_correctly() {
    let f = Fixture::new();
    let mut text = String::with_capacity(10_500_000);
    let mut i = 0;
    while text.len() < 10 * 1024 * 1024 {
        i += 1;
        text.push_str(&format!(
            "row {i:07} some filler text to make the line longer\n"
        ));
    }
    f.write("big.txt", &text);
    let r = f
        .call(
            "replace_in_file",
            json!({"path": "big.txt", "find": "row 0123456 ", "replace": "ROW 0123456 "}),
        )
        .await;
    assert_eq!(r["replacements"], 1, "{r}");
    assert!(
        r["diff"]
            .as_str()
            .unwrap()
            .contains("@@ -123453,7 +123453,7 @@"),
        "{r}"
    );
    let expected = text.replace("row 0123456 ", "ROW 0123456 ");
    assert_eq!(f.read("big.txt"), expected.as_bytes());
    let r = f.call("edit_lines", json!({"path": "big.txt", "operation": "delete", "start_line": i, "expected": format!("row {i:07} some filler text to make the line longer")})).await;
    assert_eq!(r["line_count"], i - 1, "{r}");
    let read = f
        .call(
            "read_file",
            json!({"paths": [format!("big.txt:{}-", i - 1)]}),
        )
        .await;
    assert_eq!(read["files"][0]["total_lines"], i - 1);
}

#[tokio::test]
async fn permission_bits_are_kept_and_parents_created_on_request() {
    let f = Fixture::new();
    f.write("run.sh", "#!/bin/sh\necho hi\n");
    std::fs::set_permissions(f.ws.join("run.sh"), std::fs::Permissions::from_mode(0o750)).unwrap();
    f.call(
        "replace_in_file",
        json!({"path": "run.sh", "find": "hi", "replace": "hello"}),
    )
    .await;
    let mode = std::fs::metadata(f.ws.join("run.sh"))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o750);
    let r = f
        .call("create_file", json!({"path": "a/b/c.txt", "content": "x"}))
        .await;
    assert_eq!(error_type(&r), "not_found", "{r}");
    assert!(
        r["suggestion"]
            .as_str()
            .unwrap()
            .contains("create_parents: true")
    );
    let r = f
        .call(
            "create_file",
            json!({"path": "a/b/c.txt", "content": "x", "create_parents": true}),
        )
        .await;
    assert_eq!(r["type"], "file_created", "{r}");
    let r = f
        .call("create_file", json!({"path": "a/b/c.txt", "content": "y"}))
        .await;
    assert_eq!(error_text(&r), "`main:a/b/c.txt` already exists");
    assert_eq!(f.read_str("a/b/c.txt"), "x");
}

/// A name of 63 four-byte characters (252 bytes, near the 255-byte limit): the temporary file
/// beside it must still have a name the file system accepts.
#[tokio::test]
async fn a_long_non_ascii_name_is_written_and_replaced() {
    let f = Fixture::new();
    let name = "\u{1f600}".repeat(63);
    let r = f
        .call("create_file", json!({"path": name, "content": "one\n"}))
        .await;
    assert_eq!(error_type(&r), "(no error)", "{r}");
    let r = f
        .call(
            "apply_patch",
            json!({"patch": format!("*** Begin Patch\n*** Update File: {name}\n@@\n-one\n+two\n*** End Patch\n")}),
        )
        .await;
    assert_eq!(error_type(&r), "(no error)", "{r}");
    assert_eq!(f.read_str(&name), "two\n");
}
