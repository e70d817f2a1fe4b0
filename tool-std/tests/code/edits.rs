//! Edits see their errors: an edit that makes an error shows it in its answer, and the fix
//! clears it; a file whose language has no running server is edited as before.

use serde_json::json;

use crate::support::code::{C_FILES, PY_FILES, Project, have_server};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_c_edit_shows_its_error_and_the_fix_clears_it() {
    if !have_server("clangd") {
        return;
    }
    let mut p = Project::new(C_FILES).await;
    p.code(json!({"action": "symbols", "path": "main.c"})).await;
    // edit_lines: a call of a function that does not exist.
    let broken = p
        .call(
            "edit_lines",
            json!({"path": "main.c", "operation": "replace", "start_line": 4,
                   "content": "    return add(x, nothere);", "expected": "    return add(x, x);"}),
        )
        .await;
    assert!(!broken.is_error, "{}", broken.text);
    assert!(
        broken.text.contains("clangd reports 1 error(s) in `main.c` now:\nmain.c:4: error: Use of undeclared identifier 'nothere'"),
        "{}",
        broken.text
    );
    let reported = &broken.structured.as_ref().unwrap()["diagnostics"][0];
    assert_eq!(reported["source"], "clangd");
    assert_eq!(reported["path"], "main.c");

    // apply_patch fixes it, and says so.
    let patch = "*** Begin Patch\n*** Update File: main.c\n@@\n-    return add(x, nothere);\n+    return add(x, x);\n*** End Patch\n";
    let fixed = p.call("apply_patch", json!({"patch": patch})).await;
    assert!(!fixed.is_error, "{}", fixed.text);
    assert!(
        fixed
            .text
            .contains("clangd reports no errors in `main.c` now."),
        "{}",
        fixed.text
    );
    // The server follows the edits: its answers are of the new text.
    let refs = p
        .code(json!({"action": "references", "path": "util.h", "line": 3, "symbol": "add"}))
        .await;
    assert!(
        refs.text.contains("main.c:4: return add(x, x);"),
        "{}",
        refs.text
    );
    p.end().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_python_edit_shows_its_error_and_the_fix_clears_it() {
    if !have_server("pylsp") {
        return;
    }
    let mut p = Project::new(PY_FILES).await;
    p.code(json!({"action": "symbols", "path": "app.py"})).await;
    let broken = p
        .call(
            "replace_in_file",
            json!({"path": "app.py", "find": "sum(c.area()", "replace": "sum(undefined_name + c.area()"}),
        )
        .await;
    assert!(
        broken.text.contains("pylsp reports 1 error(s) in `app.py` now:\napp.py:5: error: undefined name 'undefined_name' [pyflakes]"),
        "{}",
        broken.text
    );
    let fixed = p
        .call(
            "replace_in_file",
            json!({"path": "app.py", "find": "undefined_name + ", "replace": ""}),
        )
        .await;
    assert!(
        fixed
            .text
            .contains("pylsp reports no errors in `app.py` now."),
        "{}",
        fixed.text
    );
    // A file of a language with no running server: the edit says nothing of errors.
    let other = p
        .call(
            "create_file",
            json!({"path": "notes.txt", "content": "x\n"}),
        )
        .await;
    assert!(!other.text.contains("reports"), "{}", other.text);
    p.end().await;
}
