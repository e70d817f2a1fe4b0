//! The rule a refusal suggests lets exactly the refused call through: for every kind of
//! suggestion (a command that only reads, one that does not, a line of several, wildcard
//! characters, a path with glob characters, an `ask` rule to take out), the suggestion added to
//! `toolsmith.toml` runs the call without asking, and a neighbouring call still asks.

use serde_json::Value;

use crate::support::cli::{code, json, toolsmith_in as toolsmith};

/// Calls `tool` with `args` in `dir` (no terminal, no --approve): its JSON answer.
fn call(dir: &std::path::Path, tool: &str, args: &str) -> Value {
    json(&toolsmith(dir, &["call", tool, args]))
}

/// The rules the refusal suggests adding to `allow`.
fn suggested(answer: &Value) -> Vec<String> {
    let message = answer["error"].as_str().unwrap_or_default();
    let list = message
        .split_once("add ")
        .and_then(|(_, rest)| rest.split_once(" to `allow`"))
        .map(|(list, _)| list)
        .unwrap_or_else(|| panic!("no suggestion: {answer}"));
    let parsed: toml::Table = toml::from_str(&format!("x = [{list}]")).expect("TOML strings");
    parsed["x"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|v| v.as_str().expect("a string").to_owned())
        .collect()
}

fn allow(dir: &std::path::Path, rules: &[String]) {
    let list: Vec<String> = rules
        .iter()
        .map(|r| toml::Value::String(r.clone()).to_string())
        .collect();
    std::fs::write(
        dir.join("toolsmith.toml"),
        format!("[rules]\nallow = [{}]\n", list.join(", ")),
    )
    .expect("write");
}

#[test]
fn every_suggested_rule_lets_exactly_its_call_through() {
    // (tool, the refused call, the rules it must suggest, a neighbour that must still ask).
    let table: [(&str, &str, &[&str], &str); 6] = [
        (
            "bash",
            r#"{"command": "rm -rf build"}"#,
            &["bash(rm -rf build)"],
            r#"{"command": "rm -rf src"}"#,
        ),
        (
            "bash",
            r#"{"command": "ls"}"#,
            &["bash(ls *)"],
            r#"{"command": "lsof"}"#,
        ),
        (
            "bash",
            r#"{"command": "git status"}"#,
            &["bash(git status *)"],
            r#"{"command": "git push"}"#,
        ),
        (
            "bash",
            r#"{"command": "git status --short && rm *.o"}"#,
            &["bash(git status *)", "bash(rm \\*.o)"],
            r#"{"command": "rm a.o"}"#,
        ),
        (
            "create_file",
            r#"{"path": "a[1].txt", "content": "x"}"#,
            &["create_file(a\\[1\\].txt)"],
            r#"{"path": "a1.txt", "content": "x"}"#,
        ),
        (
            "delete_file",
            r#"{"paths": ["old.txt"]}"#,
            &["delete_file(old.txt)"],
            r#"{"paths": ["keep.txt"]}"#,
        ),
    ];
    for (tool, args, want, neighbour) in table {
        let dir = tempfile::tempdir().expect("dir");
        let d = dir.path();
        std::fs::create_dir_all(d.join("build")).expect("build");
        for f in ["x.o", "old.txt", "keep.txt"] {
            std::fs::write(d.join(f), "x").expect("file");
        }
        let refused = call(d, tool, args);
        assert_eq!(
            refused["error_type"], "approval_denied",
            "{tool} {args}: {refused}"
        );
        let rules = suggested(&refused);
        assert_eq!(rules, want, "{tool} {args}: {refused}");
        allow(d, &rules);
        let ran = call(d, tool, args);
        assert!(
            ran["error_type"].is_null(),
            "{tool} {args} with {rules:?}: {ran}"
        );
        let other = call(d, tool, neighbour);
        assert_eq!(
            other["error_type"], "approval_denied",
            "{tool} {neighbour} with {rules:?}: {other}"
        );
    }
}

#[test]
fn an_ask_rule_is_named_to_take_out_and_a_redirect_has_no_allow_rule() {
    let dir = tempfile::tempdir().expect("dir");
    let d = dir.path();
    std::fs::write(
        d.join("toolsmith.toml"),
        "[rules]\nask = [\"bash(touch *)\"]\nallow = [\"bash(touch a)\"]\n",
    )
    .expect("write");
    let refused = call(d, "bash", r#"{"command": "touch a"}"#);
    let message = refused["error"].as_str().unwrap_or_default();
    assert!(
        message.contains("take \"bash(touch *)\" out of `ask`")
            && message.contains("does not beat it"),
        "{refused}"
    );
    let refused = call(d, "bash", r#"{"command": "echo x > f"}"#);
    let message = refused["error"].as_str().unwrap_or_default();
    assert!(
        message.contains("no `allow` rule lets a command that writes a file"),
        "{refused}"
    );
    assert_eq!(code(&toolsmith(d, &["list"])), 0);
}
