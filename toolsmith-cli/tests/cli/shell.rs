//! The command line's options for the `bash` tool: `--bash-timeout`, `--bash-max-timeout`,
//! `--bash-allow`, `--no-bash`, driven through the built binary.

use std::time::{Duration, Instant};

use crate::support::cli::{code, json, toolsmith_in as toolsmith};

#[test]
fn bash_runs_in_the_root_when_approved() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().to_str().expect("utf-8");
    let out = toolsmith(
        dir.path(),
        &[
            "--root",
            root,
            "--approve",
            "call",
            "bash",
            r#"{"command": "echo hi; pwd"}"#,
        ],
    );
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let v = json(&out);
    let canonical = dir.path().canonicalize().expect("canonical");
    assert_eq!(v["output"], format!("hi\n{}\n", canonical.display()));
    assert_eq!(v["return_code"], 0);

    // Without --approve the call is denied and nothing runs.
    let out = toolsmith(
        dir.path(),
        &[
            "--root",
            root,
            "call",
            "bash",
            r#"{"command": "touch ran.txt"}"#,
        ],
    );
    assert_eq!(code(&out), 1);
    assert_eq!(json(&out)["error_type"], "approval_denied");
    assert!(!dir.path().join("ran.txt").exists());
}

#[test]
fn bash_timeout_options_set_the_default_and_the_limit() {
    let dir = tempfile::tempdir().expect("temp dir");
    let started = Instant::now();
    let out = toolsmith(
        dir.path(),
        &[
            "--approve",
            "--bash-timeout",
            "1",
            "call",
            "bash",
            r#"{"command": "echo a; sleep 20"}"#,
        ],
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(code(&out), 0, "a timeout is a result");
    let v = json(&out);
    assert_eq!(v["status"], "timeout");
    assert_eq!(v["output"], "a\n");

    let out = toolsmith(
        dir.path(),
        &[
            "--approve",
            "--bash-max-timeout",
            "2",
            "call",
            "bash",
            r#"{"command": "true", "timeout": 10}"#,
        ],
    );
    assert_eq!(code(&out), 1);
    let v = json(&out);
    assert_eq!(v["error_type"], "validation_error");
    assert!(
        v["error"].as_str().expect("error").contains("at most 2 s"),
        "{v}"
    );

    let out = toolsmith(
        dir.path(),
        &[
            "--bash-timeout",
            "10",
            "--bash-max-timeout",
            "5",
            "call",
            "bash",
            r#"{"command": "true"}"#,
        ],
    );
    assert_eq!(code(&out), 2, "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn bash_can_be_limited_or_switched_off() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = toolsmith(
        dir.path(),
        &[
            "--approve",
            "--bash-allow",
            "echo",
            "call",
            "bash",
            r#"{"command": "echo ok"}"#,
        ],
    );
    assert_eq!(code(&out), 0);
    let out = toolsmith(
        dir.path(),
        &[
            "--approve",
            "--bash-allow",
            "echo",
            "call",
            "bash",
            r#"{"command": "touch x"}"#,
        ],
    );
    assert_eq!(code(&out), 1);
    assert_eq!(json(&out)["error_type"], "permission_error");
    let out = toolsmith(
        dir.path(),
        &[
            "--approve",
            "--no-bash",
            "call",
            "bash",
            r#"{"command": "echo ok"}"#,
        ],
    );
    assert_eq!(code(&out), 1);
    assert_eq!(json(&out)["error_type"], "permission_error");
    assert!(!dir.path().join("x").exists());
}
