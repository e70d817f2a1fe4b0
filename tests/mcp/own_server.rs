//! `examples/rmcp_server.rs`, an rmcp server of its own with one resource, one prompt and one
//! rmcp `#[tool]`, serving tool-std's read-only tools and `create_file` through
//! `mcp::McpTools`, driven over stdio by the Python `mcp` client under 2025-11-25
//! (`initialize`) and 2026-07-28 (`server/discover`, every request on its own): its own
//! tool, resource and prompt answer beside toolsmith's tools, which keep their validation
//! errors, output schemas and structured results, and `create_file` asks the client's user
//! in each version's form (elicitation while the call waits; `input_required` and the retry).

use std::path::Path;

use serde_json::{Value, json};

use crate::support::mcp::{example, python, run_python_as};

/// Runs the steps against the example serving `dir`, the client answering `answer` (none: it
/// cannot ask); every answer line after the protocol's.
fn run(dir: &Path, discover: bool, answer: Option<&str>, steps: &Value) -> Vec<Value> {
    let py = python().expect("python");
    let exe = example("rmcp_server");
    let mut transport: Vec<&str> = Vec::new();
    if let Some(a) = answer {
        transport.extend(["--elicit", a]);
    }
    let root = dir.to_str().expect("utf-8");
    transport.extend(["stdio", exe.to_str().expect("utf-8"), root]);
    let (protocol, answers, stderr) = run_python_as(&py, discover, &transport, steps, dir);
    let want = if discover { "2026-07-28" } else { "2025-11-25" };
    assert!(protocol.contains(want), "{protocol}\n{stderr}");
    assert_eq!(answers.len(), steps.as_array().unwrap().len(), "{stderr}");
    answers
}

#[test]
fn an_own_rmcp_server_serves_its_parts_beside_toolsmiths_tools() {
    if python().is_none() {
        return;
    }
    for discover in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.md"), "tests run on every push\n").unwrap();
        let steps = json!([
            {"op": "list"},
            {"op": "call", "name": "shout", "arguments": {"text": "hi"}},
            {"op": "call", "name": "read_file", "arguments": {"paths": ["notes.md"]}},
            {"op": "call", "name": "grep", "arguments": {"pattern": "x", "output_mode": "lines"}},
            {"op": "call", "name": "create_file", "arguments": {"path": "new.md", "content": "hello\n"}},
            {"op": "resources"},
            {"op": "prompt", "name": "summarize", "arguments": {"topic": "tests"}},
        ]);
        let label = format!("discover={discover}");
        let answers = run(dir.path(), discover, Some("allow_once"), &steps);

        let tools = answers[0]["tools"].as_array().unwrap();
        let mut names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
        names.sort_unstable();
        assert_eq!(
            names,
            [
                "create_file",
                "glob",
                "grep",
                "list_directory",
                "read_file",
                "search",
                "shout"
            ],
            "{label}"
        );
        let read_file = tools.iter().find(|t| t["name"] == "read_file").unwrap();
        assert_eq!(read_file["outputSchema"]["type"], "object", "{label}");
        assert_eq!(read_file["annotations"]["readOnlyHint"], true, "{label}");

        assert_eq!(answers[1]["text"], "HI", "{label}: {}", answers[1]);
        let read = &answers[2];
        assert_eq!(read["isError"], false, "{label}: {read}");
        assert!(
            read["text"]
                .as_str()
                .unwrap()
                .contains("tests run on every push"),
            "{read}"
        );
        assert!(read["structured"]["files"].is_array(), "{label}: {read}");
        let bad = &answers[3];
        assert_eq!(bad["isError"], true, "{label}: {bad}");
        let text = bad["text"].as_str().unwrap();
        for part in [
            "validation_error",
            "output_mode",
            "files_with_matches",
            "example",
        ] {
            assert!(text.contains(part), "{label}: {part} not in {text}");
        }
        let created = &answers[4];
        assert_eq!(created["isError"], false, "{label}: {created}");
        let asked = created["asked"].as_array().unwrap();
        assert_eq!(asked.len(), 1, "{label}: {created}");
        assert!(
            asked[0].as_str().unwrap().contains("create_file"),
            "{created}"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("new.md")).unwrap(),
            "hello\n",
            "{label}"
        );
        assert_eq!(
            answers[5]["resources"][0]["uri"], "notes://readme",
            "{label}"
        );
        assert!(
            answers[5]["read"][0]
                .as_str()
                .unwrap()
                .contains("writes only what you allow"),
            "{label}: {}",
            answers[5]
        );
        assert_eq!(answers[6]["prompts"][0]["name"], "summarize", "{label}");
        assert!(
            answers[6]["messages"][0]
                .as_str()
                .unwrap()
                .contains("about tests"),
            "{label}: {}",
            answers[6]
        );
    }
}

#[test]
fn create_file_is_refused_when_the_user_denies_or_cannot_be_asked() {
    if python().is_none() {
        return;
    }
    for discover in [false, true] {
        for answer in [Some("deny"), None] {
            let dir = tempfile::tempdir().unwrap();
            let steps = json!([
                {"op": "call", "name": "create_file", "arguments": {"path": "new.md", "content": "x"}},
            ]);
            let answers = run(dir.path(), discover, answer, &steps);
            let label = format!("discover={discover} answer={answer:?}");
            assert_eq!(answers[0]["isError"], true, "{label}: {}", answers[0]);
            let text = answers[0]["text"].as_str().unwrap();
            assert!(text.contains("approval_denied"), "{label}: {text}");
            assert!(!dir.path().join("new.md").exists(), "{label}");
        }
    }
}
