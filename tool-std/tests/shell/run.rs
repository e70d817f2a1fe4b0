//! `bash` runs a command and answers with its exit code and its stdout and stderr apart; its
//! working directory is a directory inside a root; the host's configuration and the approval
//! gate decide whether it runs at all.

use std::time::Duration;

use serde_json::json;
use tool_core::{CallOptions, DenyAll, EventKind};
use tool_std::shell::ShellConfig;

use crate::support::shell::Fixture;

#[tokio::test]
async fn echo_exits_zero_with_its_output() {
    let f = Fixture::new();
    let (out, text) = f.call_text(json!({"command": "echo hello"})).await;
    assert_eq!(out["type"], "command_result");
    assert_eq!(out["status"], "exited");
    assert_eq!(out["success"], true);
    assert_eq!(out["return_code"], 0);
    assert_eq!(out["output"], "hello\n");
    assert!(out.get("error").is_none(), "no stderr, no `error`: {out}");
    assert_eq!(out["output_lines"], 1);
    assert_eq!(out["working_dir"], "main:.");
    assert!(text.starts_with("Exit code 0\nhello\n"), "{text}");
}

#[tokio::test]
async fn a_non_zero_exit_is_a_result_the_model_reads() {
    let f = Fixture::new();
    let outcome = f.outcome(json!({"command": "echo partial; exit 3"})).await;
    assert!(
        outcome.result.is_ok(),
        "not an error: {:?}",
        outcome.error()
    );
    assert!(!outcome.is_success(), "but not a success either");
    let out = outcome.to_json();
    assert_eq!(out["return_code"], 3);
    assert_eq!(out["success"], false);
    assert_eq!(out["output"], "partial\n");
    let out = f.call(json!({"command": "kill -9 $$"})).await;
    assert_eq!(out["return_code"], 128 + 9);
    assert_eq!(out["signal"], 9);
}

#[tokio::test]
async fn stderr_is_kept_apart_from_stdout() {
    let f = Fixture::new();
    let (out, text) = f
        .call_text(json!({"command": "echo out1; echo err1 >&2; echo out2; echo err2 1>&2"}))
        .await;
    assert_eq!(out["output"], "out1\nout2\n");
    assert_eq!(out["error"], "err1\nerr2\n");
    assert_eq!(out["error_lines"], 2);
    assert!(text.contains("out2\n[stderr]\nerr1\nerr2\n"), "{text}");
}

#[tokio::test]
async fn stdin_is_closed() {
    let f = Fixture::new();
    let out = f
        .call(json!({"command": "cat; read x; echo read=$?"}))
        .await;
    assert_eq!(out["output"], "read=1\n");
}

#[tokio::test]
async fn working_dir_is_a_directory_inside_a_root() {
    let f = Fixture::new();
    let out = f
        .call(json!({"command": "pwd", "working_dir": "sub"}))
        .await;
    assert_eq!(out["output"], format!("{}\n", f.ws.join("sub").display()));
    assert_eq!(out["working_dir"], "main:sub");
    let out = f
        .call(json!({"command": "pwd", "working_dir": "other:"}))
        .await;
    assert_eq!(out["output"], format!("{}\n", f.other.display()));
    let out = f
        .call(json!({"command": "pwd", "working_dir": f.ws.join("sub").to_str()}))
        .await;
    assert_eq!(out["output"], format!("{}\n", f.ws.join("sub").display()));
}

#[tokio::test]
async fn working_dir_outside_the_roots_is_refused_and_nothing_runs() {
    let f = Fixture::new();
    let outside = f.outside.to_str().unwrap().to_owned();
    for dir in [
        "../outside",
        outside.as_str(),
        "/",
        "/tmp",
        "sub/../../outside",
    ] {
        let out = f
            .call(json!({"command": "touch ran.txt", "working_dir": dir}))
            .await;
        assert_eq!(out["error_type"], "security_error", "{dir}: {out}");
        assert!(out["suggestion"].is_string(), "{out}");
    }
    std::os::unix::fs::symlink(&f.outside, f.ws.join("escape")).unwrap();
    let out = f
        .call(json!({"command": "touch ran.txt", "working_dir": "escape"}))
        .await;
    assert_eq!(out["error_type"], "security_error", "{out}");
    assert!(!f.exists("ran.txt"));
    assert!(!f.outside.join("ran.txt").exists());

    let out = f
        .call(json!({"command": "touch ran.txt", "working_dir": "file.txt"}))
        .await;
    assert_eq!(out["error_type"], "user_error", "{out}");
    let out = f
        .call(json!({"command": "touch ran.txt", "working_dir": "missing"}))
        .await;
    assert_eq!(out["error_type"], "not_found", "{out}");
    assert!(!f.exists("ran.txt"));
}

#[tokio::test]
async fn approval_denied_runs_nothing() {
    let f = Fixture::with(ShellConfig::default(), |b| b.approver(DenyAll));
    let out = f.call(json!({"command": "touch ran.txt"})).await;
    assert_eq!(out["error_type"], "approval_denied", "{out}");
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!f.exists("ran.txt"));
}

#[tokio::test]
async fn a_disabled_tool_runs_nothing() {
    let mut config = ShellConfig::default();
    config.enabled = false;
    let f = Fixture::with_config(config);
    let out = f.call(json!({"command": "touch ran.txt"})).await;
    assert_eq!(out["error_type"], "permission_error", "{out}");
    assert!(!f.exists("ran.txt"));
}

#[tokio::test]
async fn the_host_allow_list_of_prefixes_is_enforced() {
    let mut config = ShellConfig::default();
    config.allowed_prefixes = vec!["echo".into(), "git status".into()];
    let f = Fixture::with_config(config);
    let out = f.call(json!({"command": "echo ok | echo fine"})).await;
    assert_eq!(out["output"], "fine\n", "{out}");
    for bad in [
        "touch ran.txt",
        "echo ok; touch ran.txt",
        "echo $(touch ran.txt)",
        "echo ok && bash -c 'touch ran.txt'",
    ] {
        let out = f.call(json!({ "command": bad })).await;
        assert_eq!(out["error_type"], "permission_error", "{bad}: {out}");
        assert_eq!(out["allowed_prefixes"], json!(["echo", "git status"]));
    }
    assert!(!f.exists("ran.txt"));
}

#[tokio::test]
async fn the_timeout_is_checked_against_the_host_limit() {
    let mut config = ShellConfig::default();
    config.max_timeout = Duration::from_secs(10);
    let f = Fixture::with_config(config);
    let out = f
        .call(json!({"command": "touch ran.txt", "timeout": 11}))
        .await;
    assert_eq!(out["error_type"], "validation_error", "{out}");
    assert!(
        out["error"].as_str().unwrap().contains("at most 10 s"),
        "{out}"
    );
    let out = f
        .call(json!({"command": "touch ran.txt", "timeout": 0}))
        .await;
    assert_eq!(out["error_type"], "validation_error", "{out}");
    assert!(!f.exists("ran.txt"));
    let out = f.call(json!({"command": "echo ok", "timeout": 10})).await;
    assert_eq!(out["output"], "ok\n");
    let out = f.call(json!({"command": "  "})).await;
    assert_eq!(out["error_type"], "validation_error", "{out}");
}

#[tokio::test]
async fn the_description_is_the_display_message() {
    let f = Fixture::new();
    let (out, seen, _) = f
        .call_watched(
            json!({"command": "true", "description": "Check that nothing happens"}),
            CallOptions::new(),
        )
        .await;
    assert!(out.is_success());
    let progress: Vec<&str> = seen
        .iter()
        .filter(|s| s.kind == EventKind::Progress)
        .map(|s| s.text.as_str())
        .collect();
    assert_eq!(progress, ["Check that nothing happens"]);
    let (_, seen, _) = f
        .call_watched(
            json!({"command": "echo hi\necho there"}),
            CallOptions::new(),
        )
        .await;
    let progress: Vec<&str> = seen
        .iter()
        .filter(|s| s.kind == EventKind::Progress)
        .map(|s| s.text.as_str())
        .collect();
    assert_eq!(progress, ["Running `echo hi…`"]);
}

#[tokio::test]
async fn the_tool_is_declared_as_the_issue_says() {
    let f = Fixture::new();
    let registry = f.session.runtime().registry();
    let spec = registry
        .get("bash")
        .expect("bash is registered")
        .spec()
        .clone();
    assert!(spec.requires_approval);
    assert!(spec.annotations.destructive);
    assert_eq!(spec.category.as_deref(), Some("execution"));
    assert!(spec.toolsets.iter().any(|t| &**t == "shell"));
    assert!(
        spec.permissions
            .contains(tool_core::Permission::ExecuteCommands)
    );
    let props = &spec.input_schema["properties"];
    for p in ["command", "description", "timeout", "working_dir"] {
        assert!(props[p].is_object(), "{p}");
    }
    assert_eq!(spec.input_schema["required"], json!(["command"]));
}
