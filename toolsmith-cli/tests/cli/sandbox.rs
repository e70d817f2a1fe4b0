//! The command line's bash sandbox, driven through the built binary (which is its own
//! helper): `list` says its state on stderr, a command cannot write outside the root or read
//! the default agent store, `--bash-network` and `--bash-sandbox off` are taken, and with the
//! sandbox forced unavailable (the test switch) `bash` refuses and names the opt-out.

use std::process::Command;

use crate::support::cli::{code, json, toolsmith_in as toolsmith};

const FORCE: &str = "TOOLSMITH_SANDBOX_FORCE_UNAVAILABLE";

fn with_env(dir: &std::path::Path, env: &[(&str, &str)], args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_toolsmith"))
        .args(args)
        .current_dir(dir)
        .envs(env.iter().copied())
        .output()
        .expect("run toolsmith")
}

#[test]
fn list_reports_the_sandbox_and_commands_run_inside_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let outside = tempfile::tempdir().expect("temp dir");
    let root = dir.path().to_str().expect("utf-8");
    let out = toolsmith(dir.path(), &["--root", root, "list"]);
    assert_eq!(code(&out), 0);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("bash sandbox: on (Landlock ABI"),
        "{stderr}"
    );

    std::fs::create_dir_all(dir.path().join(".toolsmith")).expect("store dir");
    std::fs::write(dir.path().join(".toolsmith/agents.db"), "STORE-SECRET").expect("store");
    let command = format!(
        "echo hi > inside.txt; echo pwned > {0}/x; cat .toolsmith/agents.db; echo done",
        outside.path().display()
    );
    let args = serde_json::json!({ "command": command }).to_string();
    let out = toolsmith(
        dir.path(),
        &["--root", root, "--approve", "call", "bash", &args],
    );
    let v = json(&out);
    assert_eq!(v["output"], "done\n", "{v}");
    assert!(dir.path().join("inside.txt").exists());
    assert!(!outside.path().join("x").exists(), "{v}");

    let out = toolsmith(
        dir.path(),
        &[
            "--root",
            root,
            "--bash-sandbox",
            "off",
            "--approve",
            "call",
            "bash",
            &args,
        ],
    );
    assert!(
        json(&out)["output"]
            .as_str()
            .unwrap()
            .contains("STORE-SECRET")
    );
    assert!(
        outside.path().join("x").exists(),
        "off runs with the server's rights"
    );

    let out = toolsmith(dir.path(), &["--root", root, "--bash-network", "list"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("network on"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unix sockets off"));
    let out = toolsmith(dir.path(), &["--root", root, "--bash-unix-sockets", "list"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("unix sockets on"));
    // The configuration file's key, and a UNIX socket a command makes with it.
    std::fs::write(
        dir.path().join("unix.toml"),
        "[bash]\nunix_sockets = true\n",
    )
    .unwrap();
    let command =
        "{\"command\": \"python3 -c 'import socket; socket.socket(socket.AF_UNIX); print(1)'\"}";
    let with = [
        "--root",
        root,
        "--config",
        "unix.toml",
        "--approve",
        "call",
        "bash",
        command,
    ];
    let out = toolsmith(dir.path(), &with);
    assert_eq!(
        json(&out)["output"],
        "1\n",
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let without = ["--root", root, "--approve", "call", "bash", command];
    let out = toolsmith(dir.path(), &without);
    assert!(
        json(&out)["error"]
            .as_str()
            .unwrap()
            .contains("not permitted"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = toolsmith(
        dir.path(),
        &["--root", root, "--bash-network-host", "crates.io", "list"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("network off but for crates.io through a proxy"),
        "{stderr}"
    );
    let out = toolsmith(
        dir.path(),
        &[
            "--root",
            root,
            "--bash-network-host",
            "a b",
            "call",
            "list_projects",
            "{}",
        ],
    );
    assert_eq!(code(&out), 2);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--bash-network-host: `a b`"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = toolsmith(dir.path(), &["--bash-sandbox", "maybe", "list"]);
    assert_eq!(code(&out), 2);
}

#[test]
fn an_unavailable_sandbox_refuses_bash_and_names_the_opt_out() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().to_str().expect("utf-8");
    let env = [(FORCE, "no Landlock here (test)")];
    let out = with_env(dir.path(), &env, &["--root", root, "list"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("bash sandbox: unavailable: no Landlock here (test)"),
        "{stderr}"
    );
    assert!(stderr.contains("--bash-sandbox off"), "{stderr}");
    let args = r#"{"command": "touch ran.txt"}"#;
    let out = with_env(
        dir.path(),
        &env,
        &["--root", root, "--approve", "call", "bash", args],
    );
    assert_eq!(code(&out), 1);
    let v = json(&out);
    assert_eq!(v["error_type"], "security_error", "{v}");
    assert!(
        v["suggestion"]
            .as_str()
            .unwrap()
            .contains("--bash-sandbox off"),
        "{v}"
    );
    assert!(!dir.path().join("ran.txt").exists());
    let out = with_env(
        dir.path(),
        &env,
        &[
            "--root",
            root,
            "--bash-sandbox",
            "off",
            "--approve",
            "call",
            "bash",
            args,
        ],
    );
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stdout));
    assert!(dir.path().join("ran.txt").exists());
}
