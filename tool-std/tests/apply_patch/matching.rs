//! Where hunks land: each match level, ambiguity, `@@` anchors, end-of-file anchoring, the
//! errors for hunks that land nowhere, and the bytes around them (CRLF, BOM, missing final
//! newline, unicode, mode, a 10 MB file).

use std::fs;
use std::os::unix::fs::PermissionsExt;

use tool_core::ErrorKind;
use tool_std::file::apply_patch::MatchLevel;

use crate::support::patch::{fixture, patch};

fn levels(done: &tool_std::file::apply_patch::PatchApplied) -> Vec<(usize, MatchLevel)> {
    done.files[0]
        .hunks
        .iter()
        .map(|h| (h.line, h.level))
        .collect()
}

#[test]
fn each_level_in_turn_and_the_files_own_context_is_kept() {
    let fx = fixture();
    fx.write(
        "f.txt",
        "exact\nvalue = 1\ntrailing   \nvalue = 2\n    indented\nvalue = 3\nsay \u{201C}hi\u{201D} \u{2014} ok\u{00A0}now\nvalue = 4\n",
    );
    let done = fx.applied(&patch(
        "*** Update File: f.txt\n@@\n exact\n-value = 1\n+value = 10\n\
         @@\n trailing\n-value = 2\n+value = 20\n\
         @@\n indented\n-value = 3\n+value = 30\n\
         @@\n say \"hi\" - ok now\n-value = 4\n+value = 40",
    ));
    assert_eq!(
        levels(&done),
        [
            (1, MatchLevel::Exact),
            (3, MatchLevel::TrailingWhitespace),
            (5, MatchLevel::SurroundingWhitespace),
            (7, MatchLevel::Typographic)
        ]
    );
    assert!(done.loose_matches);
    assert_eq!(
        fx.read("f.txt"),
        "exact\nvalue = 10\ntrailing   \nvalue = 20\n    indented\nvalue = 30\nsay \u{201C}hi\u{201D} \u{2014} ok\u{00A0}now\nvalue = 40\n",
        "context lines keep the file's whitespace and punctuation"
    );
}

#[test]
fn a_stricter_match_further_down_wins_over_a_looser_one_nearer() {
    let fx = fixture();
    fx.write("f.txt", "  x = 1\nx = 1\n");
    let done = fx.applied(&patch("*** Update File: f.txt\n@@\n-x = 1\n+x = 2"));
    assert_eq!(levels(&done), [(2, MatchLevel::Exact)]);
    assert_eq!(fx.read("f.txt"), "  x = 1\nx = 2\n");
}

/// A snippet that occurs twice: the first occurrence below the cursor wins (Codex's rule);
/// `@@` anchors and earlier hunks move the cursor.
#[test]
fn ambiguity_is_settled_by_position_and_anchors() {
    let src = "def first():\n    return 0\n\ndef second():\n    return 0\n";
    let fx = fixture();
    for f in ["a.py", "b.py", "c.py"] {
        fx.write(f, src);
    }
    fx.applied(&patch(
        "*** Update File: a.py\n@@\n-    return 0\n+    return 1",
    ));
    assert_eq!(
        fx.read("a.py"),
        "def first():\n    return 1\n\ndef second():\n    return 0\n"
    );

    let done = fx.applied(&patch(
        "*** Update File: b.py\n@@ def second():\n-    return 0\n+    return 2",
    ));
    assert_eq!(levels(&done), [(5, MatchLevel::Exact)]);
    assert_eq!(
        fx.read("b.py"),
        "def first():\n    return 0\n\ndef second():\n    return 2\n"
    );

    // The second hunk is looked for below the first one.
    fx.applied(&patch(
        "*** Update File: c.py\n@@\n-    return 0\n+    return 1\n@@\n-    return 0\n+    return 2",
    ));
    assert_eq!(
        fx.read("c.py"),
        "def first():\n    return 1\n\ndef second():\n    return 2\n"
    );
}

#[test]
fn nested_anchors_narrow_step_by_step() {
    let fx = fixture();
    fx.write(
        "c.py",
        "class A:\n    def run(self):\n        go()\nclass B:\n    def stop(self):\n        go()\n    def run(self):\n        go()\n",
    );
    let done = fx.applied(&patch(
        "*** Update File: c.py\n@@ class B:\n@@ def run(self):\n-        go()\n+        went()",
    ));
    assert_eq!(levels(&done), [(8, MatchLevel::Exact)]);
    assert!(
        fx.read("c.py")
            .ends_with("    def run(self):\n        went()\n")
    );
}

#[test]
fn end_of_file_anchors_the_hunk_at_the_end() {
    let fx = fixture();
    fx.write("t.txt", "x\ny\nx\ny\n");
    fx.applied(&patch(
        "*** Update File: t.txt\n@@\n x\n-y\n+z\n*** End of File",
    ));
    assert_eq!(fx.read("t.txt"), "x\ny\nx\nz\n");
    fx.applied(&patch("*** Update File: t.txt\n@@\n x\n-y\n+z"));
    assert_eq!(fx.read("t.txt"), "x\nz\nx\nz\n");
    // Pure additions at the end.
    fx.applied(&patch("*** Update File: t.txt\n@@\n+end\n*** End of File"));
    assert_eq!(fx.read("t.txt"), "x\nz\nx\nz\nend\n");
}

#[test]
fn lines_not_at_the_end_fail_an_end_of_file_hunk() {
    let fx = fixture();
    fx.write("t.txt", "x\ny\nz\n");
    let err = fx.fails(
        &patch("*** Update File: t.txt\n@@\n-y\n+Y\n*** End of File"),
        ErrorKind::UserError,
    );
    assert_eq!(
        err.message(),
        "`t.txt`: hunk 1 of 1 (patch line 3) does not apply: it ends with `*** End of File`, but its lines are not the last lines of the file; nothing was written.\n\
         The hunk begins:\n  @@\n  -y\n  +Y\n\
         The nearest text in the file, line 2 (1 of the 1 non-blank lines equal):\n  2 | y"
    );
    assert_eq!(fx.read("t.txt"), "x\ny\nz\n");
}

#[test]
fn a_hunk_that_matches_nowhere_shows_the_nearest_text() {
    let fx = fixture();
    fx.write(
        "g.py",
        "import os\n\ndef greet():\n    name = \"world\"\n    print(\"Hello\", name)\n",
    );
    fx.write("other.txt", "keep\n");
    let before = fx.snapshot();
    let err = fx.fails(
        &patch(
            "*** Update File: other.txt\n@@\n-keep\n+changed\n\
             *** Update File: g.py\n@@ def greet():\n     name = \"world\"\n-    print(\"Hi\", name)\n+    print(\"Hey\", name)",
        ),
        ErrorKind::UserError,
    );
    assert_eq!(
        err.message(),
        "`g.py`: hunk 1 of 1 (patch line 7) does not apply: its context and `-` lines were not found below line 3 (where the previous hunk or `@@` line matched); nothing was written.\n\
         The hunk begins:\n  @@ def greet():\n       name = \"world\"\n  -    print(\"Hi\", name)\n  +    print(\"Hey\", name)\n\
         The nearest text in the file, lines 4-5 (1 of the 2 non-blank lines equal):\n  4 |     name = \"world\"\n  5 |     print(\"Hello\", name)"
    );
    assert_eq!(err.fields()["path"], "g.py");
    assert_eq!(err.fields()["hunk"], 1);
    assert_eq!(err.fields()["nearest_line"], 4);
    assert!(err.suggestion().unwrap().contains("Read the file again"));
    assert_eq!(
        fx.snapshot(),
        before,
        "the first file's valid hunk was not written either"
    );
}

#[test]
fn an_anchor_that_is_missing_is_named() {
    let fx = fixture();
    fx.write("g.py", "def greet():\n    pass\n");
    let err = fx.fails(
        &patch("*** Update File: g.py\n@@ def great():\n-    pass\n+    return"),
        ErrorKind::UserError,
    );
    assert!(
        err.message().starts_with(
            "`g.py`: hunk 1 of 1 (patch line 3) does not apply: its line `@@ def great():` was not found in the file; nothing was written."
        ),
        "{}",
        err.message()
    );
    assert!(
        err.message().ends_with(
            "The nearest text in the file, line 1 (a similar line):\n  1 | def greet():"
        ),
        "{}",
        err.message()
    );
}

#[test]
fn crlf_bom_missing_final_newline_and_mixed_endings_are_kept() {
    let fx = fixture();
    fx.write("crlf.txt", "\u{feff}one\r\ntwo\r\nthree");
    fx.write("mixed.txt", "a\r\nb\nc\r\n");
    let done = fx.applied(&patch(
        "*** Update File: crlf.txt\n@@\n one\n-two\n+2\n+2b\n three\n\
         *** Update File: mixed.txt\n@@\n a\n-b\n+B\n c",
    ));
    assert_eq!(levels(&done), [(1, MatchLevel::Exact)]);
    assert_eq!(
        fs::read(fx.path("crlf.txt")).unwrap(),
        "\u{feff}one\r\n2\r\n2b\r\nthree".as_bytes()
    );
    // `\r\n` is the more common ending here, so the new line takes it; the others keep theirs.
    assert_eq!(fx.read("mixed.txt"), "a\r\nB\r\nc\r\n");
}

#[test]
fn unicode_lines_and_an_empty_file() {
    let fx = fixture();
    fx.write("u.txt", "naïve café\n日本語 🎉\ne\u{301}\n");
    fx.write("empty.txt", "");
    fx.applied(&patch(
        "*** Update File: u.txt\n@@\n 日本語 🎉\n-e\u{301}\n+é 👍\n*** Update File: empty.txt\n@@\n+first",
    ));
    assert_eq!(fx.read("u.txt"), "naïve café\n日本語 🎉\né 👍\n");
    assert_eq!(fx.read("empty.txt"), "first\n");
}

#[test]
fn binary_files_are_refused() {
    let fx = fixture();
    fx.write("b.bin", b"\x00\xff\xfe data\n");
    let err = fx.fails(
        &patch("*** Update File: b.bin\n@@\n-x\n+y"),
        ErrorKind::UserError,
    );
    assert_eq!(
        err.message(),
        "`b.bin` is not UTF-8 text (invalid bytes at offset 1); apply_patch edits text files only"
    );
}

#[test]
fn mode_is_kept_on_update_and_move() {
    let fx = fixture();
    fx.write("run.sh", "#!/bin/sh\necho hi\n");
    fs::set_permissions(fx.path("run.sh"), fs::Permissions::from_mode(0o750)).unwrap();
    fx.applied(&patch("*** Update File: run.sh\n@@\n-echo hi\n+echo hello"));
    let mode = |p: &str| fs::metadata(fx.path(p)).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode("run.sh"), 0o750);
    fx.applied(&patch(
        "*** Update File: run.sh\n*** Move to: bin/run.sh\n@@\n-echo hello\n+echo bye",
    ));
    assert_eq!(mode("bin/run.sh"), 0o750);
    assert_eq!(fx.read("bin/run.sh"), "#!/bin/sh\necho bye\n");
    fx.applied(&patch("*** Add File: new.txt\n+x"));
    assert_eq!(mode("new.txt"), 0o644);
}

#[test]
fn a_ten_megabyte_file_is_edited_near_its_end() {
    let fx = fixture();
    let mut content = String::with_capacity(10 << 20);
    let mut i = 0;
    while content.len() < 10 << 20 {
        content.push_str(&format!(
            "line {i:07} of a large file, padded to a realistic width\n"
        ));
        i += 1;
    }
    fx.write("big.txt", &content);
    let target = format!(
        "line {:07} of a large file, padded to a realistic width",
        i - 3
    );
    let done = fx.applied(&patch(&format!(
        "*** Update File: big.txt\n@@\n-{target}\n+changed"
    )));
    assert_eq!(levels(&done), [(i - 2, MatchLevel::Exact)]);
    let after = fx.read("big.txt");
    assert_eq!(after.len(), content.len() - target.len() + "changed".len());
    assert_eq!(after, content.replace(&target, "changed"));
}
