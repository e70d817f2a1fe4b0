//! A small Python project under pylsp: every action's known answer, through MCP.

use serde_json::json;

use crate::support::code::{PY_FILES, Project, have_server, lines};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_actions_have_their_known_answers() {
    if !have_server("pylsp") {
        return;
    }
    let broken = [("broken.py", "def f():\n    return missing\n")];
    let files: Vec<(&str, &str)> = PY_FILES.iter().copied().chain(broken).collect();
    let mut p = Project::new(&files).await;

    let def = p
        .code(json!({"action": "definition", "path": "app.py", "line": 8, "symbol": "unit_circle"}))
        .await;
    assert_eq!(lines(&def.text)[0], "shapes.py:12: def unit_circle():");

    let refs = p
        .code(json!({"action": "references", "path": "shapes.py", "line": 12, "symbol": "unit_circle"}))
        .await;
    assert_eq!(
        lines(&refs.text)[..3],
        [
            "app.py:1: from shapes import Circle, unit_circle",
            "app.py:8: print(total([unit_circle(), Circle(2)]))",
            "shapes.py:12: def unit_circle():",
        ]
    );

    let hover = p
        .code(json!({"action": "hover", "path": "app.py", "line": 8, "symbol": "unit_circle"}))
        .await;
    assert!(
        hover.text.contains("The circle of radius one."),
        "{}",
        hover.text
    );

    let symbols = p
        .code(json!({"action": "symbols", "path": "shapes.py"}))
        .await;
    let shown = lines(&symbols.text);
    for expected in [
        "shapes.py:4: class Circle",
        "shapes.py:8: method Circle.area",
        "shapes.py:12: function unit_circle",
    ] {
        assert!(shown.contains(&expected), "{expected} not in {shown:?}");
    }

    // pylsp has no workspace/symbol: the project's files are searched one by one.
    let found = p
        .code(json!({"action": "workspace_symbols", "query": "circle", "path": "app.py"}))
        .await;
    let shown = lines(&found.text);
    for expected in [
        "shapes.py:4: class Circle",
        "shapes.py:12: function unit_circle",
    ] {
        assert!(
            shown.contains(&expected),
            "{expected} not in {}",
            found.text
        );
    }
    assert!(
        found.text.contains("has no workspace/symbol"),
        "{}",
        found.text
    );

    let errors = p
        .code(json!({"action": "diagnostics", "path": "broken.py"}))
        .await;
    assert!(
        lines(&errors.text).contains(&"broken.py:2: error: undefined name 'missing' [pyflakes]"),
        "{}",
        errors.text
    );

    // An action the server lacks is a clear error, not a hang.
    let calls = p
        .call(
            "code",
            json!({"action": "calls", "path": "shapes.py", "line": 12, "symbol": "unit_circle"}),
        )
        .await;
    assert!(calls.is_error);
    assert!(
        calls
            .text
            .contains("does not answer textDocument/prepareCallHierarchy"),
        "{}",
        calls.text
    );
    p.end().await;
}
