//! A command gets only the allow-listed part of the host's environment; secret-looking
//! variables are withheld unless the host names them.
//!
//! The test re-runs its own binary with variables set (this crate forbids the `unsafe`
//! `set_var`), and the child runs `env` through the tool.

mod shell_support;

use std::process::Command;

use serde_json::json;
use shell_support::Fixture;
use tool_std::shell::ShellConfig;

const CHILD: &str = "SHELL_ENV_CHILD";

async fn child() {
    let f = Fixture::new();
    let out = f.call(json!({"command": "env"})).await;
    let env = out["output"].as_str().unwrap().to_owned();
    let names: Vec<&str> = env
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, _)| k)
        .collect();
    assert!(names.contains(&"PATH"), "{env}");
    assert!(names.contains(&"HOME"), "{env}");
    assert!(names.contains(&"LANG"), "{env}");
    for withheld in [
        "MY_API_KEY",
        "DB_PASSWORD",
        "GITHUB_TOKEN",
        "CLIENT_SECRET",
        "UNLISTED_VAR",
    ] {
        assert!(!names.contains(&withheld), "{withheld} was passed: {env}");
    }
    assert!(!env.contains("hunter2"), "{env}");

    let mut config = ShellConfig::default();
    config.allowed_secrets = vec!["GITHUB_TOKEN".into()];
    config.env_allow.push("UNLISTED_VAR".into());
    let f = Fixture::with_config(config);
    let out = f
        .call(json!({"command": "echo $GITHUB_TOKEN $UNLISTED_VAR $MY_API_KEY"}))
        .await;
    assert_eq!(out["output"], "gh-value plain\n");
}

#[test]
fn secrets_are_withheld_from_commands() {
    if std::env::var_os(CHILD).is_some() {
        tokio::runtime::Runtime::new().unwrap().block_on(child());
        return;
    }
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "secrets_are_withheld_from_commands",
            "--nocapture",
        ])
        .env(CHILD, "1")
        .env("LANG", "C.UTF-8")
        .env("MY_API_KEY", "hunter2")
        .env("DB_PASSWORD", "hunter2")
        .env("GITHUB_TOKEN", "gh-value")
        .env("CLIENT_SECRET", "hunter2")
        .env("UNLISTED_VAR", "plain")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
