//! The "modified since read" guard with versions the model carries: `read_file` gives each
//! file's version (the first 12 hex digits of the SHA-256 of its whole content), every tool
//! that changes a file takes it back as `expected_version` (`expected_versions` for
//! `delete_file` and `apply_patch`), refuses a stale one, and answers with the new version.

use serde_json::{Value, json};
use tool_core::ResourcesTracker;
use tool_std::workspace::Version;

use crate::support::file::{Fixture, error_text, error_type};

/// The version `read_file` gives `rel` now, after checking the text shows it too.
async fn read_version(f: &Fixture, rel: &str) -> String {
    let out = f.outcome("read_file", json!({"paths": [rel]})).await;
    let v = out.to_json()["files"][0]["version"]
        .as_str()
        .unwrap_or_else(|| panic!("no version: {}", out.to_json()))
        .to_owned();
    let text = out.model_text(&mut ResourcesTracker::new());
    assert!(text.contains(&format!("version: {v})")), "{text}");
    v
}

/// The version of what is on disk at `rel`.
fn disk_version(f: &Fixture, rel: &str) -> String {
    Version::of(&f.read(rel)).to_string()
}

#[tokio::test]
async fn read_file_gives_the_version_of_the_whole_file_in_its_answer_and_text() {
    let f = Fixture::new();
    f.write("a.txt", "one\ntwo\nthree\n");
    // `printf 'one\ntwo\nthree\n' | sha256sum`: b6285c57e879...
    let (answer, text) = f.call_text("read_file", json!({"paths": ["a.txt"]})).await;
    assert_eq!(answer["files"][0]["version"], "b6285c57e879", "{answer}");
    assert!(
        text.contains(
            ">>>>> FILE: main:a.txt (lines 1-3 of 3, ~3 tokens, version: b6285c57e879)\n"
        ),
        "{text}"
    );
    // A range, an offset and a limit read part of the file; the version is still the
    // whole file's.
    let r = f
        .call(
            "read_file",
            json!({"paths": ["a.txt:2-2", "main:a.txt:3-"]}),
        )
        .await;
    assert_eq!(r["files"][0]["content"], "two\n");
    assert_eq!(r["files"][0]["version"], "b6285c57e879");
    assert_eq!(r["files"][1]["version"], "b6285c57e879");
    let r = f
        .call(
            "read_file",
            json!({"paths": ["a.txt"], "offset": 2, "limit": 1}),
        )
        .await;
    assert_eq!(r["files"][0]["version"], "b6285c57e879", "{r}");
    // An empty file has the version of no bytes (sha256 e3b0c44298fc...).
    f.write("e.txt", "");
    let r = f.call("read_file", json!({"paths": ["e.txt"]})).await;
    assert_eq!(r["files"][0]["version"], "e3b0c44298fc", "{r}");
}

/// For each tool that changes an existing file: the arguments of a change of `rel` (without
/// a version) and the version argument's form.
fn changes(rel: &str) -> Vec<(&'static str, Value)> {
    vec![
        ("update_file", json!({"path": rel, "content": "mine\n"})),
        ("append_file", json!({"path": rel, "content": "more\n"})),
        (
            "replace_in_file",
            json!({"path": rel, "find": "else", "replace": "ELSE"}),
        ),
        (
            "edit_lines",
            json!({"path": rel, "operation": "insert", "start_line": 0, "content": "top"}),
        ),
        ("delete_file", json!({"paths": [rel]})),
        (
            "apply_patch",
            json!({"patch": format!(
                "*** Begin Patch\n*** Update File: {rel}\n@@\n-v2 from someone else\n+patched\n*** End Patch"
            )}),
        ),
    ]
}

/// `args` with `version` as the tool takes it.
fn with_version(tool: &str, rel: &str, mut args: Value, version: &str) -> Value {
    if matches!(tool, "delete_file" | "apply_patch") {
        args["expected_versions"] = json!([{"path": rel, "version": version}]);
    } else {
        args["expected_version"] = json!(version);
    }
    args
}

#[tokio::test]
async fn every_change_refuses_a_stale_version_applies_the_current_one_and_answers_the_new_one() {
    let f = Fixture::new();
    for (n, (tool, args)) in changes("s.txt").into_iter().enumerate() {
        let rel = "s.txt";
        f.write(rel, "v1\n");
        let v1 = read_version(&f, rel).await;
        assert_eq!(v1, "2d27fbdf4e8c", "{tool}");
        // Someone else changes the file.
        std::fs::write(f.ws.join(rel), "v2 from someone else\n").unwrap();
        let v2 = "9fd5b4443bca";

        let r = f
            .call(tool, with_version(tool, rel, args.clone(), &v1))
            .await;
        assert_eq!(error_type(&r), "user_error", "{tool}: {r}");
        assert_eq!(
            error_text(&r),
            format!(
                "modified since read: `main:s.txt` changed since version {v1}: now version {v2}, 1 line, 3 -> 21 bytes; nothing was changed"
            ),
            "{tool}"
        );
        assert_eq!(r["current_version"], v2, "{tool}");
        assert!(
            r["suggestion"].as_str().unwrap().contains("read_file"),
            "{tool}: {r}"
        );
        assert_eq!(f.read_str(rel), "v2 from someone else\n", "{tool}");

        let (r, text) = f.call_text(tool, with_version(tool, rel, args, v2)).await;
        assert_eq!(error_type(&r), "(no error)", "{tool}: {r}");
        if tool == "delete_file" {
            assert!(!f.ws.join(rel).exists());
            continue;
        }
        let new = disk_version(&f, rel);
        assert_ne!(new, v2, "{tool} wrote nothing");
        let answered = if tool == "apply_patch" {
            &r["files"][0]["version"]
        } else {
            &r["version"]
        };
        assert_eq!(answered, &json!(new), "{tool}: {r}");
        assert!(text.contains(&new), "{tool}: {text}");
        // The new version chains: the next change with it passes (number `n` appended).
        let r = f
            .call(
                "append_file",
                json!({"path": rel, "content": format!("{n}\n"), "expected_version": new}),
            )
            .await;
        assert_eq!(r["written"], true, "after {tool}: {r}");
    }
}

#[tokio::test]
async fn a_version_given_for_a_deleted_file_says_it_was_deleted() {
    let f = Fixture::new();
    f.write("gone.txt", "here\n");
    let v = read_version(&f, "gone.txt").await;
    std::fs::remove_file(f.ws.join("gone.txt")).unwrap();
    let r = f
        .call(
            "update_file",
            json!({"path": "gone.txt", "content": "x", "expected_version": v}),
        )
        .await;
    assert_eq!(
        error_text(&r),
        format!(
            "modified since read: `main:gone.txt` was deleted since version {v}; nothing was changed"
        ),
        "{r}"
    );
    assert!(!f.ws.join("gone.txt").exists());
}

#[tokio::test]
async fn what_changed_is_counted_in_lines_and_bytes() {
    let f = Fixture::new();
    let before: String = (1..=120)
        .map(|i| format!("line {i:04} of the file\n"))
        .collect();
    f.write("big.txt", &before);
    let v = read_version(&f, "big.txt").await;
    let after: String = (1..=134)
        .map(|i| format!("line {i:04} of the file\n"))
        .collect();
    std::fs::write(f.ws.join("big.txt"), &after).unwrap();
    let r = f
        .call(
            "replace_in_file",
            json!({"path": "big.txt", "find": "line 0001", "replace": "x", "expected_version": v}),
        )
        .await;
    assert_eq!(
        error_text(&r),
        format!(
            "modified since read: `main:big.txt` changed since version {v}: now version {}, 120 -> 134 lines, 2,640 -> 2,948 bytes; nothing was changed",
            disk_version(&f, "big.txt")
        )
    );
}

#[tokio::test]
async fn a_malformed_version_is_a_validation_error_and_changes_nothing() {
    let f = Fixture::new();
    f.write("m.txt", "m\n");
    for bad in ["3f2a9c1b", "version: 3f2a9c1b7d4e", "zzzzzzzzzzzz"] {
        let r = f
            .call(
                "update_file",
                json!({"path": "m.txt", "content": "x", "expected_version": bad}),
            )
            .await;
        assert_eq!(error_type(&r), "validation_error", "{bad}: {r}");
        assert!(
            error_text(&r).starts_with(&format!("expected_version `{bad}` is not a version")),
            "{r}"
        );
    }
    // Either case is read.
    let v = read_version(&f, "m.txt").await.to_uppercase();
    let r = f
        .call(
            "append_file",
            json!({"path": "m.txt", "content": "x\n", "expected_version": v}),
        )
        .await;
    assert_eq!(r["written"], true, "{r}");
    assert_eq!(f.read_str("m.txt"), "m\nx\n");
}

#[tokio::test]
async fn expected_versions_of_files_a_call_does_not_change_are_refused() {
    let f = Fixture::new();
    f.write("a.txt", "a\n");
    f.write("b.txt", "b\n");
    let va = read_version(&f, "a.txt").await;
    let vb = read_version(&f, "b.txt").await;
    // `./a.txt` and `main:a.txt` name the same file as `a.txt`.
    let r = f
        .call(
            "delete_file",
            json!({"paths": ["a.txt"], "expected_versions": [
                {"path": "./a.txt", "version": va}, {"path": "main:b.txt", "version": vb}]}),
        )
        .await;
    assert_eq!(error_type(&r), "validation_error", "{r}");
    assert_eq!(
        error_text(&r),
        "expected_versions names `main:b.txt`, which is not among delete_file's paths; nothing was changed"
    );
    assert!(f.ws.join("a.txt").exists());
    let r = f
        .call(
            "apply_patch",
            json!({"patch": "*** Begin Patch\n*** Add File: c.txt\n+c\n*** End Patch",
                   "expected_versions": [{"path": "c.txt", "version": va}]}),
        )
        .await;
    assert_eq!(error_type(&r), "validation_error", "{r}");
    assert!(
        error_text(&r).contains("which is not among the files this patch updates or deletes"),
        "{r}"
    );
    assert!(!f.ws.join("c.txt").exists());
    // Matching names pass.
    let r = f
        .call(
            "delete_file",
            json!({"paths": ["a.txt"], "expected_versions": [{"path": "main:a.txt", "version": va}]}),
        )
        .await;
    assert_eq!(r["deleted"], json!(["main:a.txt"]), "{r}");
}

#[tokio::test]
async fn one_stale_file_of_a_patch_or_a_deletion_changes_none() {
    let f = Fixture::new();
    f.write("x.txt", "x\n");
    f.write("y.txt", "y\n");
    let vx = read_version(&f, "x.txt").await;
    let vy = read_version(&f, "y.txt").await;
    std::fs::write(f.ws.join("y.txt"), "y changed\n").unwrap();
    let versions = json!([{"path": "x.txt", "version": vx}, {"path": "y.txt", "version": vy}]);
    let r = f
        .call(
            "apply_patch",
            json!({"patch": "*** Begin Patch\n*** Update File: x.txt\n@@\n-x\n+X\n*** Delete File: y.txt\n*** End Patch",
                   "expected_versions": versions}),
        )
        .await;
    assert!(
        error_text(&r).starts_with("modified since read: `main:y.txt` changed since version"),
        "{r}"
    );
    let r = f
        .call(
            "delete_file",
            json!({"paths": ["x.txt", "y.txt"], "expected_versions": versions}),
        )
        .await;
    assert!(error_text(&r).starts_with("modified since read"), "{r}");
    assert_eq!(f.read_str("x.txt"), "x\n");
    assert_eq!(f.read_str("y.txt"), "y changed\n");
}
