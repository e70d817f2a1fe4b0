//! A path rule across tools: `deny: read_file(secrets/**)` refuses every reading tool that
//! names the path, and hides it (with the host's own files) from every tool and command, so
//! that a search of the whole root, a listing or a `cat` returns nothing of it.

use std::sync::Arc;

use serde_json::{Value, json};
use tool_core::Effect;
use tool_core::{ApproveAll, Runtime, Session};
use tool_std::shell::ShellConfig;
use tool_std::trust::rules::StandardPolicy;
use tool_std::workspace::Workspace;

use crate::support::shell::helper;
use crate::support::{call, inventory_registry, temp_dir, write};

const SECRET: &str = "hunter2-secret";

/// A root holding `secrets/key.txt`, `app/.env.local` and the server's own `.toolsmith/` and
/// `toolsmith.toml`, the latter two hidden by the host; `rules` over it, and whether each
/// denial hides its paths.
fn session(
    rules: &[(Effect, &str)],
    hide: bool,
) -> (tempfile::TempDir, std::path::PathBuf, Session) {
    let (tmp, base) = temp_dir();
    let root = base.join("proj");
    write(&root.join("secrets/key.txt"), format!("API_KEY={SECRET}\n"));
    write(
        &root.join("src/lib.rs"),
        "pub fn api_key() {} // API_KEY lives elsewhere\n",
    );
    write(&root.join("keys/a.pem"), format!("{SECRET}\n"));
    write(&root.join("notes.txt"), "notes\n");
    write(&root.join(".toolsmith/activity.db"), format!("{SECRET}\n"));
    write(&root.join("toolsmith.toml"), format!("# {SECRET}\n"));
    let ws = Arc::new(
        Workspace::builder()
            .root("proj", &root)
            .hidden(["proj:.toolsmith/**", "proj:toolsmith.toml"])
            .build()
            .expect("workspace"),
    );
    let mut shell = ShellConfig::default();
    shell.sandbox.helper = Some(helper());
    let shell = Arc::new(shell);
    let registry = inventory_registry();
    let mut builder = StandardPolicy::builder(&registry, ws.clone()).shell(shell.clone());
    for (effect, rule) in rules {
        builder = builder.rules(*effect, [*rule]);
    }
    let policy = builder.build().expect("policy");
    if hide {
        ws.hide(&policy.hidden_paths()).expect("hide");
    }
    let runtime = Runtime::builder(registry)
        .service(Arc::new((*ws).clone()))
        .service(shell)
        .policy(Arc::new(policy))
        .approver(ApproveAll)
        .dedupe(false)
        .build();
    (tmp, root, runtime.session())
}

fn leaks(answer: &Value) -> bool {
    answer.to_string().contains(SECRET)
        || answer.to_string().contains("key.txt")
        || answer.to_string().contains("activity.db")
        || answer.to_string().contains("toolsmith.toml")
}

#[tokio::test]
async fn a_read_denial_holds_for_every_tool_that_reads_and_for_commands() {
    let denied = [
        (Effect::Deny, "read_file(secrets/**)"),
        (Effect::Deny, "grep(**/*.pem)"),
    ];
    let (_tmp, _root, s) = session(&denied, true);
    // Calls that name the path are refused by the rule, whichever reading tool makes them.
    for (tool, args) in [
        ("read_file", json!({"paths": ["secrets/key.txt"]})),
        ("grep", json!({"pattern": "API_KEY", "path": "secrets"})),
        (
            "search",
            json!({"query": "API_KEY", "path": "secrets/key.txt"}),
        ),
        ("glob", json!({"pattern": "*", "path": "secrets"})),
        ("list_directory", json!({"path": "secrets"})),
        ("read_file", json!({"paths": ["keys/a.pem"]})),
    ] {
        let answer = call(&s, tool, args.clone()).await;
        assert_eq!(
            answer["error_type"], "approval_denied",
            "{tool} {args}: {answer}"
        );
        assert!(!answer.to_string().contains(SECRET), "{tool}: {answer}");
    }
    // Calls over the whole root skip what is hidden: the rules' paths and the host's own.
    for (tool, args) in [
        (
            "grep",
            json!({"pattern": "API_KEY|hunter2", "output_mode": "content"}),
        ),
        (
            "grep",
            json!({"pattern": "hunter2", "output_mode": "files_with_matches"}),
        ),
        ("search", json!({"query": "hunter2"})),
        ("search", json!({"query": "key"})),
        ("glob", json!({"pattern": "**/*"})),
        ("glob", json!({"pattern": "**/.*", "include_hidden": true})),
        (
            "list_directory",
            json!({"path": ".", "depth": 4, "respect_gitignore": false}),
        ),
    ] {
        let answer = call(&s, tool, args.clone()).await;
        assert!(answer["error_type"].is_null(), "{tool} {args}: {answer}");
        assert!(!leaks(&answer), "{tool} {args}: {answer}");
    }
    // The host's own files are neither read nor written.
    for (tool, args) in [
        ("read_file", json!({"paths": ["toolsmith.toml"]})),
        (
            "update_file",
            json!({"path": "toolsmith.toml", "content": "[rules]\n", "overwrite": true}),
        ),
        (
            "create_file",
            json!({"path": ".toolsmith/x", "content": "x"}),
        ),
    ] {
        let answer = call(&s, tool, args.clone()).await;
        assert_eq!(answer["error_type"], "security_error", "{tool}: {answer}");
        assert!(answer["hidden_by"].is_string(), "{tool}: {answer}");
        assert!(!answer.to_string().contains(SECRET), "{tool}: {answer}");
    }
    // A command reads none of it either: the sandbox denies what the workspace hides.
    let cat = json!({"command": "cat secrets/key.txt keys/a.pem toolsmith.toml \
                                  .toolsmith/activity.db; grep -r hunter2 . ; true"});
    let answer = call(&s, "bash", cat.clone()).await;
    assert_eq!(answer["status"], "exited", "{answer}");
    assert!(!answer.to_string().contains(SECRET), "{answer}");
    // The same command where the rules hide nothing reads the secret: the test can fail.
    let (_tmp2, _root2, open) = session(&denied, false);
    let answer = call(&open, "bash", cat).await;
    assert!(
        answer["output"]
            .as_str()
            .is_some_and(|o| o.contains(SECRET)),
        "{answer}"
    );
}

/// Links inside the root that lead to hidden paths (made before the calls, and one made by a
/// command while the rules hold) reach nothing: the file tools judge the path a link leads to,
/// the walkers do not follow links, and the sandbox's mask lies under every name of the path.
#[tokio::test]
async fn links_to_a_hidden_path_reach_nothing() {
    let (_tmp, root, s) = session(&[(Effect::Deny, "read_file(secrets/**)")], true);
    std::os::unix::fs::symlink("secrets/key.txt", root.join("keylink")).expect("link");
    std::os::unix::fs::symlink("secrets", root.join("dirlink")).expect("link");
    for (tool, args) in [
        ("read_file", json!({"paths": ["keylink"]})),
        ("read_file", json!({"paths": ["dirlink/key.txt"]})),
        ("list_directory", json!({"path": "dirlink"})),
        ("grep", json!({"pattern": "API_KEY", "path": "dirlink"})),
        (
            "update_file",
            json!({"path": "keylink", "content": "x", "overwrite": true}),
        ),
    ] {
        let answer = call(&s, tool, args.clone()).await;
        assert!(answer["error_type"].is_string(), "{tool} {args}: {answer}");
        assert!(
            !answer.to_string().contains(SECRET),
            "{tool} {args}: {answer}"
        );
    }
    for (tool, args) in [
        (
            "grep",
            json!({"pattern": "hunter2", "output_mode": "content"}),
        ),
        ("search", json!({"query": "hunter2"})),
    ] {
        // `keys/a.pem` holds the same words and is not hidden here; nothing comes from the
        // secret's directory, by its name or through a link.
        let answer = call(&s, tool, args.clone()).await;
        let text = answer.to_string();
        assert!(answer["error_type"].is_null(), "{tool} {args}: {answer}");
        for name in ["secrets", "keylink", "dirlink", "API_KEY"] {
            assert!(!text.contains(name), "{tool} {args}: {name}: {answer}");
        }
    }
    // A command makes its own link and reads through it, and through the ones made before.
    let answer = call(
        &s,
        "bash",
        json!({"command": "ln -s secrets/key.txt mine; cat mine keylink dirlink/key.txt; true"}),
    )
    .await;
    assert_eq!(answer["status"], "exited", "{answer}");
    assert!(!answer.to_string().contains(SECRET), "{answer}");
    assert_eq!(
        std::fs::read_to_string(root.join("secrets/key.txt")).expect("the secret"),
        format!("API_KEY={SECRET}\n"),
        "the secret is untouched"
    );
}

#[tokio::test]
async fn a_path_rule_of_one_tool_is_its_familys_and_a_bare_rule_stays_its_own() {
    let (_tmp, root, s) = session(
        &[
            (Effect::Deny, "create_file(src/**)"),
            (Effect::Deny, "update_file"),
        ],
        false,
    );
    // `create_file(src/**)` refuses the other writing tools in `src` ...
    for (tool, args) in [
        ("append_file", json!({"path": "src/lib.rs", "content": "x"})),
        ("delete_file", json!({"paths": ["src/lib.rs"]})),
        (
            "apply_patch",
            json!({"patch": "*** Begin Patch\n*** Delete File: src/lib.rs\n*** End Patch\n"}),
        ),
    ] {
        let answer = call(&s, tool, args).await;
        assert_eq!(
            answer["rule"], "deny: create_file(src/**)",
            "{tool}: {answer}"
        );
    }
    assert!(root.join("src/lib.rs").exists());
    // ... and not a reading tool, nor a write elsewhere.
    let answer = call(&s, "read_file", json!({"paths": ["src/lib.rs"]})).await;
    assert!(answer["error_type"].is_null(), "{answer}");
    let answer = call(
        &s,
        "append_file",
        json!({"path": "notes.txt", "content": "x"}),
    )
    .await;
    assert!(answer["error_type"].is_null(), "{answer}");
    // A rule without a specifier is its own tool's: `update_file` alone.
    let answer = call(
        &s,
        "update_file",
        json!({"path": "notes.txt", "content": "y", "overwrite": true}),
    )
    .await;
    assert_eq!(answer["rule"], "deny: update_file", "{answer}");
    let answer = call(
        &s,
        "edit_lines",
        json!({"path": "notes.txt", "operation": "insert", "start_line": 1, "content": "z"}),
    )
    .await;
    assert!(answer["error_type"].is_null(), "{answer}");
}
