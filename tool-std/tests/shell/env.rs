//! A command gets only the allow-listed part of the host's environment; secret-looking
//! variables are withheld unless the host names them.
//!
//! The test re-runs itself alone in a new process of this binary with variables set (this crate
//! forbids the `unsafe` `set_var`), and the child runs `env` through the tool.

use serde_json::json;
use tool_std::shell::ShellConfig;

use crate::support::alone;
use crate::support::shell::Fixture;

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
    let env = [
        ("LANG", "C.UTF-8"),
        ("MY_API_KEY", "hunter2"),
        ("DB_PASSWORD", "hunter2"),
        ("GITHUB_TOKEN", "gh-value"),
        ("CLIENT_SECRET", "hunter2"),
        ("UNLISTED_VAR", "plain"),
    ];
    if alone(module_path!(), "secrets_are_withheld_from_commands", &env) {
        tokio::runtime::Runtime::new().unwrap().block_on(child());
    }
}
