//! The "modified since read" guard without versions: the workspace's record of reads and
//! writes, one for every session of the process, so a request that runs on a fresh session
//! (every request under MCP 2026-07-28) is guarded as well as one in a long session.

use serde_json::{Value, json};
use tool_core::Session;
use tool_std::workspace::Version;

use crate::support::file::{Fixture, error_text, error_type};
use crate::support::{call, call_text};

/// The changes of `s.txt` every tool that changes a file makes, without a version.
fn changes() -> Vec<(&'static str, Value)> {
    vec![
        (
            "replace_in_file",
            json!({"path": "s.txt", "find": "v", "replace": "w"}),
        ),
        ("update_file", json!({"path": "s.txt", "content": "mine\n"})),
        ("append_file", json!({"path": "s.txt", "content": "more\n"})),
        (
            "edit_lines",
            json!({"path": "s.txt", "operation": "delete", "start_line": 1}),
        ),
        ("delete_file", json!({"paths": ["s.txt"]})),
        (
            "apply_patch",
            json!({"patch": "*** Begin Patch\n*** Update File: s.txt\n@@\n-v2 from someone else\n+patched\n*** End Patch"}),
        ),
    ]
}

#[tokio::test]
async fn a_read_in_one_session_guards_the_edits_of_every_other_session() {
    let f = Fixture::new();
    f.write("s.txt", "v1\n");
    let reader = f.other_session();
    call(&reader, "read_file", json!({"paths": ["s.txt"]})).await;
    std::fs::write(f.ws.join("s.txt"), "v2 from someone else\n").unwrap();
    let now = Version::of(b"v2 from someone else\n");
    for (tool, args) in changes() {
        // A fresh session per request, as under MCP 2026-07-28.
        let fresh: Session = f.other_session();
        let r = call(&fresh, tool, args).await;
        assert_eq!(error_type(&r), "user_error", "{tool}: {r}");
        assert_eq!(
            error_text(&r),
            format!(
                "modified since read: `main:s.txt` changed since it was last read: now version {now}, 1 line, 3 -> 21 bytes; nothing was changed"
            ),
            "{tool}"
        );
        assert_eq!(r["current_version"], now.to_string(), "{tool}");
    }
    assert_eq!(f.read_str("s.txt"), "v2 from someone else\n");

    // overwrite skips the guard, and the write is recorded: any session's next edit passes.
    let r = call(
        &f.other_session(),
        "update_file",
        json!({"path": "s.txt", "content": "mine\n", "overwrite": true}),
    )
    .await;
    assert_eq!(r["written"], true, "{r}");
    let (r, text) = call_text(
        &f.other_session(),
        "append_file",
        json!({"path": "s.txt", "content": "ok\n"}),
    )
    .await;
    assert_eq!(r["written"], true, "{r}");
    assert_eq!(f.read_str("s.txt"), "mine\nok\n");
    let v = Version::of(b"mine\nok\n").to_string();
    assert_eq!(r["version"], v);
    assert!(
        text.starts_with(&format!(
            "Appended 3 bytes to `main:s.txt` (now 8 bytes, 2 lines); version: {v}\n"
        )),
        "{text}"
    );
}

#[tokio::test]
async fn a_file_never_read_is_changed_without_a_check() {
    let f = Fixture::new();
    for (tool, args) in changes() {
        f.write("s.txt", "v2 from someone else\n");
        let r = call(&f.other_session(), tool, args).await;
        assert_eq!(error_type(&r), "(no error)", "{tool}: {r}");
        // Forget what the tool's write recorded: the next round starts from a file never read.
        f.workspace
            .forget_seen(&f.workspace.resolve("s.txt").unwrap());
    }
}

#[tokio::test]
async fn a_file_touched_but_not_changed_passes_and_a_deleted_one_is_named() {
    let f = Fixture::new();
    f.write("t.txt", "same\n");
    f.call("read_file", json!({"paths": ["t.txt"]})).await;
    // Rewritten with the same bytes: a new inode and modification time, the same content.
    std::fs::remove_file(f.ws.join("t.txt")).unwrap();
    f.write("t.txt", "same\n");
    let r = f
        .call("append_file", json!({"path": "t.txt", "content": "more\n"}))
        .await;
    assert_eq!(r["written"], true, "{r}");

    f.call("read_file", json!({"paths": ["t.txt"]})).await;
    std::fs::remove_file(f.ws.join("t.txt")).unwrap();
    let r = f
        .call("update_file", json!({"path": "t.txt", "content": "x"}))
        .await;
    assert_eq!(
        error_text(&r),
        "modified since read: `main:t.txt` was deleted since it was last read; nothing was changed"
    );
}

#[tokio::test]
async fn a_large_file_is_recorded_by_size_and_time_without_a_version() {
    let mut config = tool_std::file::FileConfig::default();
    config.max_edit_bytes = 8;
    let f = Fixture::with_config(config);
    f.write("l.txt", "0123456789\n");
    let r = f.call("read_file", json!({"paths": ["l.txt"]})).await;
    assert_eq!(r["files"][0]["version"], Value::Null, "{r}");
    std::fs::write(f.ws.join("l.txt"), "01234567890123\n").unwrap();
    let r = f.call("delete_file", json!({"paths": ["l.txt"]})).await;
    assert_eq!(
        error_text(&r),
        "modified since read: `main:l.txt` changed since it was last read: 11 -> 15 bytes; nothing was changed"
    );
    let r = f
        .call(
            "delete_file",
            json!({"paths": ["l.txt"], "expected_versions": [{"path": "l.txt", "version": "3f2a9c1b7d4e"}]}),
        )
        .await;
    assert_eq!(
        error_text(&r),
        "`main:l.txt` (15 bytes) is too large to have a version, so expected_version cannot be checked; nothing was changed"
    );
    assert!(f.ws.join("l.txt").exists());
}
