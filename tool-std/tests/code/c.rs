//! A small C project under clangd: every action's known answer, through MCP.

use std::time::Duration;

use serde_json::json;

use crate::support::code::{C_FILES, Project, have_server, lines, until};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c_definition_references_hover_and_calls_have_their_known_answers() {
    if !have_server("clangd") {
        return;
    }
    let mut p = Project::new(C_FILES).await;
    // clangd learns util.c's definition once it has read util.c.
    let symbols = p.code(json!({"action": "symbols", "path": "util.c"})).await;
    assert_eq!(
        lines(&symbols.text),
        ["util.c:3: function add: int (int, int)"]
    );

    let def = p
        .code(json!({"action": "definition", "path": "main.c", "line": 4, "symbol": "add"}))
        .await;
    assert_eq!(lines(&def.text)[0], "util.c:3: int add(int a, int b) {");
    let item = &def.structured.as_ref().unwrap()["results"][0];
    assert_eq!(
        (
            item["path"].as_str(),
            item["line"].as_u64(),
            item["column"].as_u64()
        ),
        (Some("util.c"), Some(3), Some(5))
    );

    let refs = p
        .code(json!({"action": "references", "path": "util.h", "line": 3, "symbol": "add"}))
        .await;
    assert_eq!(
        lines(&refs.text)[..4],
        [
            "main.c:4: return add(x, x);",
            "main.c:8: return twice(add(1, 2));",
            "util.c:3: int add(int a, int b) {",
            "util.h:3: int add(int a, int b);",
        ]
    );
    assert!(
        refs.text
            .contains("Found 4 reference(s) to `add` at util.h:3:5."),
        "{}",
        refs.text
    );
    // Paged as grep pages.
    let page = p
        .code(json!({"action": "references", "path": "util.h", "line": 3, "symbol": "add", "max_results": 1, "offset": 1}))
        .await;
    assert_eq!(lines(&page.text)[0], "main.c:8: return twice(add(1, 2));");
    assert!(
        page.text.contains("call again with offset: 2"),
        "{}",
        page.text
    );
    assert_eq!(page.structured.as_ref().unwrap()["next_offset"], 2);

    // A column instead of the name: `twice` starts at column 12 of main.c:8.
    let hover = p
        .code(json!({"action": "hover", "path": "main.c", "line": 8, "column": 12}))
        .await;
    assert!(hover.text.contains("int twice(int x)"), "{}", hover.text);

    let calls = p
        .code(json!({"action": "calls", "path": "util.c", "line": 3, "symbol": "add"}))
        .await;
    assert_eq!(
        lines(&calls.text)[..2],
        [
            "main.c:4: return add(x, x); (in function twice)",
            "main.c:8: return twice(add(1, 2)); (in function main)",
        ]
    );
    p.end().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c_symbols_workspace_symbols_and_diagnostics_have_their_known_answers() {
    if !have_server("clangd") {
        return;
    }
    let broken = [("broken.c", "int f(void) {\n    return missing;\n}\n")];
    let files: Vec<(&str, &str)> = C_FILES.iter().copied().chain(broken).collect();
    let mut p = Project::new(&files).await;
    let symbols = p.code(json!({"action": "symbols", "path": "main.c"})).await;
    assert_eq!(
        lines(&symbols.text),
        [
            "main.c:3: function twice: int (int)",
            "main.c:7: function main: int (void)"
        ]
    );
    let found = until(
        &mut p,
        json!({"action": "workspace_symbols", "query": "twi", "path": "main.c"}),
        Duration::from_secs(20),
        |t| t.contains("main.c:3: function twice"),
    )
    .await;
    assert!(
        found.text.contains("main.c:3: function twice"),
        "{}",
        found.text
    );

    let clean = p
        .code(json!({"action": "diagnostics", "path": "main.c"}))
        .await;
    assert!(
        clean.text.starts_with("No diagnostic(s) in main.c."),
        "{}",
        clean.text
    );
    let errors = p
        .code(json!({"action": "diagnostics", "path": "broken.c"}))
        .await;
    let first = lines(&errors.text)[0];
    assert!(
        first.starts_with("broken.c:2: error: Use of undeclared identifier 'missing'"),
        "{}",
        errors.text
    );
    p.end().await;
}
