//! The parameter names models are trained on (Claude Code's and Gemini CLI's), through
//! `toolsmith serve` on stdio: each alias of the table in `docs/tools.md` answered exactly as
//! its canonical call, and a value given under two names refused.

use serde_json::{Value, json};

use crate::support::stdio::{StdioServe, Version, text_of};

fn call(server: &mut StdioServe, id: u64, tool: &str, arguments: &Value) -> Value {
    server.ask(Version::V2026.request(
        &json!(id),
        "tools/call",
        json!({"name": tool, "arguments": arguments}),
    ))
}

/// What a call answered, comparable between two calls: the structured content (the text
/// for a text-only tool), with `a`'s file names written as `b`'s.
fn answer(result: &Value, a: &str, b: &str) -> String {
    let shown = match result["result"].get("structuredContent") {
        Some(v) => v.to_string(),
        None => text_of(result),
    };
    if a.is_empty() {
        shown
    } else {
        shown.replace(a, b)
    }
}

#[test]
fn every_alias_answers_as_its_parameter_and_a_value_twice_is_refused() {
    let dir = tempfile::tempdir().expect("dir");
    let text = "fn Main() {}\nlet main = 1;\n// MAIN here\n";
    for name in ["x1.rs", "x2.rs", "y1.rs", "y2.rs", "z1.rs", "z2.rs"] {
        std::fs::write(dir.path().join(name), text).expect("write");
    }
    std::fs::create_dir(dir.path().join("sub")).expect("sub");
    let root = dir.path().to_str().expect("utf-8");
    let mut server = StdioServe::start(dir.path(), &["--root", root, "--approve"]);

    // (tool, the call with aliases, the canonical call, the file the first touches and the
    // one the second touches, for the tools that change files).
    let table: Vec<(&str, Value, Value, &str, &str)> = vec![
        (
            "read_file",
            json!({"file_path": "x1.rs"}),
            json!({"paths": ["x1.rs"]}),
            "",
            "",
        ),
        (
            "read_file",
            json!({"file_paths": ["x1.rs"]}),
            json!({"paths": ["x1.rs"]}),
            "",
            "",
        ),
        (
            "replace_in_file",
            json!({"file_path": "x1.rs", "old_string": "main", "new_string": "start", "replace_all": true}),
            json!({"path": "x2.rs", "find": "main", "replace": "start", "replace_all": true}),
            "x1.rs",
            "x2.rs",
        ),
        (
            "edit_lines",
            json!({"file_path": "y1.rs", "operation": "delete", "start_line": 2, "overwrite": true}),
            json!({"path": "y2.rs", "operation": "delete", "start_line": 2, "overwrite": true}),
            "y1.rs",
            "y2.rs",
        ),
        (
            "append_file",
            json!({"file_path": "z1.rs", "content": "// end\n", "overwrite": true}),
            json!({"path": "z2.rs", "content": "// end\n", "overwrite": true}),
            "z1.rs",
            "z2.rs",
        ),
        (
            "create_file",
            json!({"file_path": "n1.rs", "content": "new\n"}),
            json!({"path": "n2.rs", "content": "new\n"}),
            "n1.rs",
            "n2.rs",
        ),
        (
            "update_file",
            json!({"file_path": "n1.rs", "content": "newer\n", "overwrite": true}),
            json!({"path": "n2.rs", "content": "newer\n", "overwrite": true}),
            "n1.rs",
            "n2.rs",
        ),
        (
            "delete_file",
            json!({"file_path": "n1.rs", "overwrite": true}),
            json!({"paths": ["n2.rs"], "overwrite": true}),
            "n1.rs",
            "n2.rs",
        ),
        (
            "grep",
            json!({"pattern": "main", "-i": true, "head_limit": 2, "type": "rust", "glob": "x*.rs", "-C": 1}),
            json!({"pattern": "main", "case_sensitive": false, "max_results": 2, "file_type": "rust", "glob": ["x*.rs"], "context": 1}),
            "",
            "",
        ),
        (
            "grep",
            json!({"pattern": "main", "-i": false, "-A": 1, "-B": 1}),
            json!({"pattern": "main", "case_sensitive": true, "after": 1, "before": 1}),
            "",
            "",
        ),
        (
            "bash",
            json!({"command": "pwd", "workdir": "sub"}),
            json!({"command": "pwd", "working_dir": "sub"}),
            "",
            "",
        ),
        (
            "bash",
            json!({"command": "pwd", "directory": "sub"}),
            json!({"command": "pwd", "working_dir": "sub"}),
            "",
            "",
        ),
    ];
    let mut id = 0;
    for (tool, aliased, canonical, a, b) in &table {
        id += 2;
        let first = call(&mut server, id, tool, aliased);
        let second = call(&mut server, id + 1, tool, canonical);
        assert_eq!(
            first["result"]["isError"], false,
            "{tool} {aliased}: {first}"
        );
        assert_eq!(
            answer(&first, a, b),
            answer(&second, "", ""),
            "{tool}: {aliased} against {canonical}"
        );
    }

    for (tool, twice) in [
        (
            "read_file",
            json!({"paths": ["x1.rs"], "file_path": "x1.rs"}),
        ),
        (
            "grep",
            json!({"pattern": "m", "case_sensitive": true, "-i": true}),
        ),
        (
            "replace_in_file",
            json!({"path": "x1.rs", "find": "a", "old_string": "a", "replace": "b"}),
        ),
    ] {
        id += 1;
        let refused = call(&mut server, id, tool, &twice);
        let text = text_of(&refused);
        assert_eq!(refused["result"]["isError"], true, "{refused}");
        assert!(text.contains("is given twice, also as"), "{tool}: {text}");
    }
    assert!(server.close(std::time::Duration::from_secs(10)));
}
