//! The `toolsmith` command line, driven as a user or script would: the built binary, its
//! stdout, and its exit codes (0 success, 1 tool error, 2 usage error).

use std::process::{Command, Output};

use serde_json::Value;

fn toolsmith(args: &[&str]) -> Output {
    let dir = tempfile::tempdir().expect("temp dir");
    Command::new(env!("CARGO_BIN_EXE_toolsmith"))
        .args(args)
        .current_dir(dir.path())
        .env_remove("SEARXNG_URL")
        .output()
        .expect("run toolsmith")
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn code(out: &Output) -> i32 {
    out.status.code().expect("exit code")
}

#[test]
fn list_prints_every_tool_as_json() {
    let out = toolsmith(&["list"]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let tools = json(&out);
    let names: Vec<&str> = tools
        .as_array()
        .expect("array")
        .iter()
        .map(|t| t["name"].as_str().expect("name"))
        .collect();
    assert!(names.contains(&"echo"), "{names:?}");
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted, "tools are listed in a deterministic order");
    let echo = tools
        .as_array()
        .and_then(|a| a.iter().find(|t| t["name"] == "echo"))
        .expect("echo");
    assert_eq!(echo["input_schema"]["type"], "object");
    assert_eq!(
        echo["input_schema"]["required"],
        serde_json::json!(["text"])
    );
}

#[test]
fn list_filters_by_toolset_and_mode() {
    let out = toolsmith(&["list", "--toolset", "demo"]);
    assert_eq!(code(&out), 0);
    assert!(json(&out).as_array().expect("array").iter().all(|t| {
        t["toolsets"]
            .as_array()
            .is_some_and(|s| s.contains(&Value::from("demo")))
    }));
    let out = toolsmith(&["list", "--toolset", "no-such-toolset"]);
    assert_eq!(code(&out), 0);
    assert_eq!(json(&out), serde_json::json!([]));
    let out = toolsmith(&["list", "--mode", "mcp"]);
    assert_eq!(code(&out), 0);
}

#[test]
fn schema_prints_one_tool() {
    let out = toolsmith(&["schema", "echo"]);
    assert_eq!(code(&out), 0);
    let v = json(&out);
    assert_eq!(v[0]["name"], "echo");
    assert_eq!(v.as_array().map(Vec::len), Some(1));
}

#[test]
fn schema_of_an_unknown_tool_is_a_usage_error() {
    let out = toolsmith(&["schema", "no_such_tool"]);
    assert_eq!(code(&out), 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no tool named `no_such_tool`"), "{err}");
}

#[test]
fn call_success_exits_zero_with_the_result() {
    let out = toolsmith(&["call", "echo", r#"{"text":"ab","times":2}"#]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stdout));
    assert_eq!(
        json(&out),
        serde_json::json!({"type": "echoed", "text": "abab"})
    );
}

#[test]
fn call_with_invalid_arguments_exits_one_with_the_error() {
    let out = toolsmith(&["call", "echo", r#"{"text":"ab","times":0,"txt":1}"#]);
    assert_eq!(code(&out), 1);
    let err = json(&out);
    assert_eq!(err["type"], "error");
    assert_eq!(err["error_type"], "validation_error");
    let paths: Vec<&str> = err["problems"]
        .as_array()
        .expect("problems")
        .iter()
        .map(|p| p["path"].as_str().expect("path"))
        .collect();
    assert_eq!(paths, ["/times", "/txt"]);
    assert!(
        err["error"]
            .as_str()
            .expect("message")
            .starts_with("echo(text=\"ab\", times=0, txt=1): ")
    );
}

#[test]
fn call_with_malformed_json_is_a_validation_error() {
    let out = toolsmith(&["call", "echo", r#"{"text": "ab""#]);
    assert_eq!(code(&out), 1);
    let err = json(&out);
    assert_eq!(err["error_type"], "validation_error");
    assert!(
        err["error"]
            .as_str()
            .expect("message")
            .contains("Invalid JSON arguments"),
        "{err}"
    );
}

#[test]
fn call_of_an_unknown_tool_lists_the_tools_and_the_nearest() {
    let out = toolsmith(&["call", "ecko", "{}"]);
    assert_eq!(code(&out), 1);
    let err = json(&out);
    assert_eq!(err["error_type"], "not_found");
    assert_eq!(err["did_you_mean"], "echo");
    assert!(
        err["available_tools"]
            .as_array()
            .expect("list")
            .contains(&Value::from("echo"))
    );
}

#[test]
fn usage_errors_exit_two() {
    for args in [
        &["bogus"][..],
        &["list", "--no-such-option"][..],
        &["list", "--format", "yaml"][..],
        &["list", "--mode", "batch"][..],
        &["call"][..],
        &[][..],
    ] {
        let out = toolsmith(args);
        assert_eq!(code(&out), 2, "toolsmith {args:?}");
        assert!(
            out.stdout.is_empty(),
            "toolsmith {args:?} printed to stdout"
        );
    }
}
