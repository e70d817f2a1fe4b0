//! The operator's deny rule over the command line: with `read_file(secrets/**)` denied in the
//! project's `toolsmith.toml`, no tool returns the secret (a search of the whole root, a listing,
//! a command's `cat`), and the server's own files are not listed.

use serde_json::Value;

use crate::support::cli::{code, json, toolsmith_in as toolsmith};

const SECRET: &str = "hunter2-cli-secret";

#[test]
fn a_read_denial_keeps_the_secret_from_every_tool_and_the_servers_files_stay_unlisted() {
    let proj = tempfile::tempdir().expect("dir");
    let p = proj.path();
    std::fs::create_dir_all(p.join("secrets")).expect("secrets");
    std::fs::write(p.join("secrets/key.txt"), format!("API_KEY={SECRET}\n")).expect("key");
    std::fs::write(p.join("main.rs"), "fn main() {} // reads API_KEY\n").expect("main");
    std::fs::write(
        p.join("toolsmith.toml"),
        "[rules]\ndeny = [\"read_file(secrets/**)\"]\n",
    )
    .expect("config");
    // The agent store and the activity store, as the server makes them.
    let out = toolsmith(
        p,
        &[
            "--agent",
            "A",
            "call",
            "prompt_manager",
            r#"{"action": "view", "prompt_type": "system"}"#,
        ],
    );
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    assert!(p.join(".toolsmith/agents.db").exists());
    let calls: [(&str, &str); 7] = [
        (
            "grep",
            r#"{"pattern": "API_KEY", "output_mode": "content"}"#,
        ),
        ("search", r#"{"query": "API_KEY"}"#),
        ("glob", r#"{"pattern": "**/*", "include_hidden": true}"#),
        (
            "list_directory",
            r#"{"path": ".", "depth": 3, "respect_gitignore": false}"#,
        ),
        ("read_file", r#"{"paths": ["secrets/key.txt"]}"#),
        ("grep", r#"{"pattern": "API_KEY", "path": "secrets"}"#),
        (
            "bash",
            r#"{"command": "cat secrets/key.txt; ls -a; ls .toolsmith; true"}"#,
        ),
    ];
    for (tool, args) in calls {
        let out = toolsmith(p, &["--approve", "call", tool, args]);
        let v: Value = json(&out);
        let text = v.to_string();
        assert!(!text.contains(SECRET), "{tool} {args}: {text}");
        assert!(!text.contains("agents.db"), "{tool} {args}: {text}");
        if tool == "grep" && !args.contains("secrets") {
            // The search ran and found the one line outside the secret.
            assert_eq!(v["total_matches"], 1, "{text}");
        }
        if tool == "bash" {
            assert_eq!(v["status"], "exited", "{text}");
        }
    }
}
