//! The patch grammar end to end on real files: every directive, the leniency models need, and
//! each malformed patch answered with its exact error text and nothing written.

use tool_core::ErrorKind;
use tool_std::file::apply_patch::{ChangeKind, MAX_PATCH_BYTES, MatchLevel};

use crate::support::patch::{fixture, patch};

#[test]
fn every_directive_in_one_patch() {
    let fx = fixture();
    fx.write("old.txt", "bye\n");
    fx.write("src/app.py", "class A:\n    def f(self):\n        return 1\n\nclass B:\n    def f(self):\n        return 1\n");
    fx.write("tail.txt", "a\nb\nb\n");
    let done = fx.applied(&patch(
        "*** Add File: docs/new/notes.md\n+# Notes\n+\n+done\n\
         *** Delete File: old.txt\n\
         *** Update File: src/app.py\n\
         *** Move to: src/lib.py\n\
         @@ class B:\n\
         @@     def f(self):\n\
         -        return 1\n\
         +        return 2\n\
         *** Update File: tail.txt\n\
         @@\n\
         -b\n\
         +c\n\
         *** End of File",
    ));
    assert_eq!(fx.read("docs/new/notes.md"), "# Notes\n\ndone\n");
    assert!(!fx.exists("old.txt"));
    assert!(!fx.exists("src/app.py"));
    assert_eq!(
        fx.read("src/lib.py"),
        "class A:\n    def f(self):\n        return 1\n\nclass B:\n    def f(self):\n        return 2\n"
    );
    assert_eq!(fx.read("tail.txt"), "a\nb\nc\n");

    let kinds: Vec<ChangeKind> = done.files.iter().map(|f| f.action).collect();
    assert_eq!(
        kinds,
        [
            ChangeKind::Added,
            ChangeKind::Deleted,
            ChangeKind::Moved,
            ChangeKind::Updated
        ]
    );
    assert_eq!(done.files[0].lines_added, 3);
    assert_eq!(done.files[1].lines_removed, Some(1));
    assert_eq!(done.files[2].moved_to.as_deref(), Some("src/lib.py"));
    assert_eq!(
        (done.files[2].hunks[0].line, done.files[2].hunks[0].level),
        (7, MatchLevel::Exact)
    );
    assert_eq!(
        done.files[3].hunks[0].line, 3,
        "End of File takes the last `b`"
    );
    assert_eq!((done.lines_added, done.lines_removed), (5, 3));
}

#[test]
fn heredoc_padding_crlf_and_a_headerless_first_hunk() {
    let fx = fixture();
    fx.write("f.txt", "one\ntwo\n");
    fx.applied("<<'EOF'\r\n *** Begin Patch \r\n  *** Update File: f.txt\r\n one\r\n-two\r\n+2\r\n*** End Patch  \r\nEOF\r\n");
    assert_eq!(fx.read("f.txt"), "one\n2\n");
}

#[test]
fn unified_diff_range_headers_are_understood() {
    let fx = fixture();
    fx.write("m.rs", "fn a() {\n    x();\n}\nfn main() {\n    x();\n}\n");
    fx.applied(&patch(
        "*** Update File: m.rs\n@@ -4,3 +4,3 @@ fn main() {\n-    x();\n+    y();",
    ));
    assert_eq!(
        fx.read("m.rs"),
        "fn a() {\n    x();\n}\nfn main() {\n    y();\n}\n"
    );
}

#[test]
fn a_move_without_hunks_is_a_rename_and_keeps_the_bytes() {
    let fx = fixture();
    fx.write("a.txt", "x\r\ny");
    let done = fx.applied(&patch("*** Update File: a.txt\n*** Move to: sub/b.txt"));
    assert_eq!(done.files[0].action, ChangeKind::Moved);
    assert_eq!(fx.read("sub/b.txt"), "x\r\ny");
    assert!(!fx.exists("a.txt"));
}

#[test]
fn delete_then_add_replaces_and_add_then_update_edits_the_new_text() {
    let fx = fixture();
    fx.write("a.txt", "old\n");
    fx.applied(&patch(
        "*** Delete File: a.txt\n*** Add File: a.txt\n+new\n*** Add File: b.txt\n+1\n+2\n*** Update File: b.txt\n@@\n-2\n+two",
    ));
    assert_eq!(fx.read("a.txt"), "new\n");
    assert_eq!(fx.read("b.txt"), "1\ntwo\n");
}

/// Each malformed patch: its exact message, its line, nothing written.
#[test]
fn malformed_patches_are_validation_errors_with_exact_texts() {
    let fx = fixture();
    fx.write("a", "x\n");
    let big = format!(
        "*** Begin Patch\n*** Add File: big\n+{}\n*** End Patch",
        "y".repeat(MAX_PATCH_BYTES)
    );
    let too_big = format!(
        "invalid patch, line 1 ``: the patch has {} bytes, more than the 4194304 accepted; split it into several patches",
        big.len()
    );
    let cases: Vec<(String, usize, &str)> = vec![
        (
            "".into(),
            1,
            "invalid patch, line 1 ``: the patch is empty; it must start with `*** Begin Patch`",
        ),
        (
            "hello\n*** End Patch".into(),
            1,
            "invalid patch, line 1 `hello`: the first line of a patch must be `*** Begin Patch`",
        ),
        (
            "*** Begin Patch\n*** Add File: b\n+x".into(),
            3,
            "invalid patch, line 3 `+x`: the last line of a patch must be `*** End Patch`",
        ),
        (
            "*** Begin Patch\n*** Delete File: a\n*** End Patch\nmore".into(),
            4,
            "invalid patch, line 4 `more`: text after `*** End Patch`; the patch must end there",
        ),
        (
            "*** Begin Patch\n*** End Patch".into(),
            2,
            "invalid patch, line 2 `*** End Patch`: the patch has no file operation; put at least one `*** Add File:`, `*** Delete File:` or `*** Update File:` before `*** End Patch`",
        ),
        (
            patch("*** Remove File: a"),
            2,
            "invalid patch, line 2 `*** Remove File: a`: expected a file operation: `*** Add File: <path>`, `*** Delete File: <path>` or `*** Update File: <path>`",
        ),
        (
            patch("*** Add File:"),
            2,
            "invalid patch, line 2 `*** Add File:`: `*** Add File:` names no path; write the path after it: `*** Add File: src/app.py`",
        ),
        (
            patch("*** Add File: b\nhello"),
            3,
            "invalid patch, line 3 `hello`: every line of an added file starts with `+`; this line of `*** Add File: b` does not",
        ),
        (
            patch("*** Update File: a"),
            2,
            "invalid patch, line 2 `*** Update File: a`: `*** Update File: a` has no hunk; add at least one `@@` hunk with the lines to change",
        ),
        (
            patch("*** Update File: a\n*** Move to:"),
            3,
            "invalid patch, line 3 `*** Move to:`: `*** Move to:` names no path; write the path after it: `*** Move to: src/app.py`",
        ),
        (
            patch("*** Update File: a\n@@\n-x\n\tfoo"),
            5,
            "invalid patch, line 5 `\tfoo`: not a hunk line; every line of a hunk starts with ` ` (context), `-` (removed) or `+` (added)",
        ),
        (
            patch("*** Update File: a\n@@\n-x\n+y\n*** End of File\n z"),
            7,
            "invalid patch, line 7 ` z`: expected `@@` to start the next hunk (every line of a hunk starts with ` `, `-` or `+`)",
        ),
        (
            patch("*** Update File: a\n@@\n-x\n+y\n*** Move to: b"),
            6,
            "invalid patch, line 6 `*** Move to: b`: `*** Move to:` must come right after `*** Update File: a`, before its hunks",
        ),
        (
            patch("*** Update File: a\n@@\n*** End of File"),
            4,
            "invalid patch, line 4 `*** End of File`: `*** End of File` must come right after the last line of a hunk",
        ),
        (
            patch("*** Update File: a\n@@\n*** Delete File: b"),
            3,
            "invalid patch, line 3 `@@`: the hunk has no lines; after `@@` come the lines to change, each starting with ` `, `-` or `+`",
        ),
        (
            patch("*** Update File: a\n@@\n x\n y"),
            3,
            "invalid patch, line 3 `@@`: the hunk changes nothing: it has no `-` or `+` line",
        ),
        (
            patch("*** Move to: b"),
            2,
            "invalid patch, line 2 `*** Move to: b`: `*** Move to:` must come right after the `*** Update File:` line of the file it renames",
        ),
        (big.clone(), 1, &too_big),
    ];
    let before = fx.snapshot();
    for (text, line, message) in cases {
        let err = fx.fails(&text, ErrorKind::ValidationError);
        assert_eq!(err.message(), message);
        assert_eq!(err.fields()["line"], line, "{message}");
        let example = err.suggestion().expect("an example");
        assert!(example.contains("for example:\n"), "{example}");
    }
    assert_eq!(fx.snapshot(), before, "a malformed patch writes nothing");
}

#[test]
fn the_example_fits_the_mistake() {
    let fx = fixture();
    let add = fx.fails(&patch("*** Add File: b\nhello"), ErrorKind::ValidationError);
    assert!(
        add.suggestion()
            .unwrap()
            .contains("*** Add File: notes.txt\n+first line\n+\n+third line")
    );
    let hunk = fx.fails(
        &patch("*** Update File: a\n@@\n\tx"),
        ErrorKind::ValidationError,
    );
    assert!(
        hunk.suggestion()
            .unwrap()
            .starts_with("A hunk starts with `@@`")
    );
}
