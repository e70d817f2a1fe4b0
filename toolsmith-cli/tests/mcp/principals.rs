//! Tokens that mean someone: each `[[principal]]` of `toolsmith.toml` is served with its own
//! roots, agent and rules. Principal A's token cannot reach principal B's root (every probe
//! below, through the file, search and bash tools, finds nothing of it) and acts on A's agent;
//! B's token reaches B's root. Under 2025-11-25 and 2026-07-28, through the Python client.

use serde_json::{Value, json};

use crate::support::mcp::{ServeProcess, python, run_python_as};

const ALICE: &str = "alice-token-0123456789abcdef0123456789";
const BOB: &str = "bob-token-0123456789abcdef0123456789ab";
const SECRET: &str = "BOB-SECRET-7d1f";

/// `base/a` (Alice's root, with `tob -> ../b`) and `base/b` (Bob's, with the secret), and the
/// configuration naming both.
fn layout(base: &std::path::Path) {
    std::fs::create_dir_all(base.join("a")).expect("mkdir");
    std::fs::create_dir_all(base.join("b")).expect("mkdir");
    std::fs::write(base.join("a/notes.txt"), "alice notes\n").expect("write");
    std::fs::write(base.join("b/secret.txt"), format!("{SECRET}\n")).expect("write");
    std::os::unix::fs::symlink("../b", base.join("a/tob")).expect("link");
    let bob_hash = sha256_hex(BOB);
    std::fs::write(
        base.join("toolsmith.toml"),
        format!(
            "roots = [\"a=a\", \"b=b\"]\n\
             [rules]\nallow = [\"bash\"]\n\
             [[principal]]\nname = \"alice\"\ntoken = \"{ALICE}\"\nroots = [\"a\"]\nagent = \"Alice\"\n\
             [[principal]]\nname = \"bob\"\ntoken_sha256 = \"{bob_hash}\"\nroots = [\"b\"]\nagent = \"Bob\"\n\
             toolsets = [\"file\", \"prompt\"]\n"
        ),
    )
    .expect("write config");
}

fn sha256_hex(text: &str) -> String {
    hex::encode(toolsmith::mcp::token_sha256(text))
}

/// The calls Alice makes at Bob's root: every way the file, search and bash tools name a path.
fn probes(base: &std::path::Path) -> Vec<Value> {
    let b = base.join("b");
    let b = b.to_str().expect("utf-8");
    let secret = format!("{b}/secret.txt");
    let mut calls = Vec::new();
    for path in [
        "b:secret.txt".to_owned(),
        secret.clone(),
        "../b/secret.txt".to_owned(),
        "tob/secret.txt".to_owned(),
        "a:../b/secret.txt".to_owned(),
        format!("{}/a/../b/secret.txt", base.display()),
        "a:tob/secret.txt".to_owned(),
        format!("{}/a/tob/secret.txt", base.display()),
    ] {
        calls.push(json!({"name": "read_file", "arguments": {"paths": [path]}}));
    }
    // Patterns that find the secret without spelling it (an error may echo them).
    let pattern = format!(
        "{}[{}]",
        &SECRET[..SECRET.len() - 1],
        &SECRET[SECRET.len() - 1..]
    );
    for path in [
        b.to_owned(),
        "b:".to_owned(),
        "tob".to_owned(),
        "../b".to_owned(),
    ] {
        calls.push(json!({"name": "grep", "arguments": {"pattern": pattern, "path": path}}));
        calls.push(json!({"name": "glob", "arguments": {"pattern": "**/*", "path": path}}));
        calls.push(json!({"name": "list_directory", "arguments": {"path": path}}));
        calls.push(json!({"name": "search", "arguments": {"query": "BOB", "path": path}}));
    }
    for command in [
        format!("cat {secret}"),
        "cat ../b/secret.txt".to_owned(),
        "cat tob/secret.txt".to_owned(),
        format!("grep -r '{pattern}' {b}"),
        format!("cp {secret} copied.txt && cat copied.txt"),
    ] {
        calls.push(json!({"name": "bash", "arguments": {"command": command}}));
    }
    calls
}

fn principals_are_kept_apart(discover: bool) {
    let Some(py) = python() else {
        return;
    };
    let dir = tempfile::tempdir().expect("dir");
    let base = dir.path();
    layout(base);
    let server = ServeProcess::start(base, &["serve", "--http", "127.0.0.1:0"], &[]);
    let url = server.url.clone();
    let call = |c: &Value| json!({"op": "call", "name": c["name"], "arguments": c["arguments"]});

    // Alice: her own file reads; every probe at Bob's root finds nothing; she sets her
    // agent's prompt.
    let probes = probes(base);
    let mut steps =
        vec![json!({"op": "call", "name": "read_file", "arguments": {"paths": ["notes.txt"]}})];
    steps.extend(probes.iter().map(call));
    steps.push(json!({"op": "call", "name": "prompt_manager",
        "arguments": {"action": "update", "prompt_type": "system", "content": "Alice's own prompt."}}));
    let (_, answers, stderr) = run_python_as(
        &py,
        discover,
        &["http", &url, ALICE],
        &Value::Array(steps),
        base,
    );
    assert!(
        answers[0]["text"]
            .as_str()
            .unwrap_or_default()
            .contains("alice notes"),
        "{}",
        answers[0]
    );
    let leaks: Vec<String> = probes
        .iter()
        .zip(&answers[1..])
        .filter(|(_, a)| a.to_string().contains(SECRET))
        .map(|(p, a)| format!("{p} -> {a}"))
        .collect();
    assert!(
        leaks.is_empty(),
        "{} of {} probes leaked:\n{}\n{stderr}",
        leaks.len(),
        probes.len(),
        leaks.join("\n")
    );
    assert!(
        !base.join("a/copied.txt").exists()
            || !std::fs::read_to_string(base.join("a/copied.txt"))
                .unwrap_or_default()
                .contains(SECRET)
    );
    assert_eq!(
        answers.last().expect("answer")["isError"],
        false,
        "{answers:?}"
    );

    // Bob: his root is his (the probe could have succeeded), his agent is not Alice's, and
    // he is offered his toolsets only.
    let steps = json!([
        {"op": "call", "name": "read_file", "arguments": {"paths": ["secret.txt"]}},
        {"op": "call", "name": "prompt_manager", "arguments": {"action": "view", "prompt_type": "system"}},
        {"op": "call", "name": "read_file", "arguments": {"paths": ["a:notes.txt"]}},
        {"op": "list"},
        {"op": "call", "name": "bash", "arguments": {"command": "echo hi"}},
    ]);
    let (_, answers, _) = run_python_as(&py, discover, &["http", &url, BOB], &steps, base);
    assert!(answers[0].to_string().contains(SECRET), "{}", answers[0]);
    assert!(
        !answers[1].to_string().contains("Alice's own prompt."),
        "{}",
        answers[1]
    );
    assert_eq!(answers[2]["isError"], true, "{}", answers[2]);
    let listed: Vec<&str> = answers[3]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(
        listed.contains(&"read_file") && listed.contains(&"prompt_manager"),
        "{listed:?}"
    );
    for other in ["bash", "grep", "glob", "search", "web"] {
        assert!(
            !listed.contains(&other),
            "bob is offered {other}: {listed:?}"
        );
    }
    assert_eq!(answers[4]["isError"], true, "{}", answers[4]);
    let refused = answers[4]["text"].as_str().unwrap_or_default();
    assert!(refused.contains("not among the tools offered"), "{refused}");

    // Alice again, on a new connection: her agent kept her prompt, and she has every tool.
    let steps = json!([
        {"op": "call", "name": "prompt_manager", "arguments": {"action": "view", "prompt_type": "system"}},
        {"op": "list"},
    ]);
    let (_, answers, _) = run_python_as(&py, discover, &["http", &url, ALICE], &steps, base);
    assert!(
        answers[0].to_string().contains("Alice's own prompt."),
        "{}",
        answers[0]
    );
    let tools = answers[1]["tools"].as_array().expect("tools");
    assert!(tools.iter().any(|t| t["name"] == "bash"), "{tools:?}");

    // The activity records name each call's principal and agent (the store is written a
    // moment after each call: read until every call is there).
    let read = || {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolsmith"))
            .args(["activity", "--json", "--limit", "500"])
            .current_dir(base)
            .output()
            .expect("toolsmith activity");
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .collect::<Vec<_>>()
    };
    let who = |records: &[Value], principal: &str| {
        records
            .iter()
            .filter(|r| r["conversation"]["principal"] == principal)
            .map(|r| {
                r["conversation"]["agent"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned()
            })
            .collect::<Vec<_>>()
    };
    // Her own file, the probes, the prompt set, and the prompt viewed again.
    let alice_calls = probes.len() + 3;
    let mut records = read();
    for _ in 0..50 {
        if who(&records, "alice").len() >= alice_calls && who(&records, "bob").len() >= 4 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
        records = read();
    }
    let (alice, bob) = (who(&records, "alice"), who(&records, "bob"));
    assert_eq!(
        alice.len(),
        alice_calls,
        "alice's records of {}",
        records.len()
    );
    assert_eq!(bob.len(), 4, "bob's records: {bob:?}");
    assert!(alice.iter().all(|a| a == "Alice") && bob.iter().all(|a| a == "Bob"));
    drop(server);
}

#[test]
fn principals_are_kept_apart_under_2025_11_25() {
    principals_are_kept_apart(false);
}

#[test]
fn principals_are_kept_apart_under_2026_07_28() {
    principals_are_kept_apart(true);
}

#[test]
fn an_unknown_token_is_turned_away() {
    use crate::support::http::{addr_of, request};
    let dir = tempfile::tempdir().expect("dir");
    layout(dir.path());
    let server = ServeProcess::start(dir.path(), &["serve", "--http", "127.0.0.1:0"], &[]);
    let addr = addr_of(&server);
    let status = |token: &str| {
        let bearer = format!("Bearer {token}");
        request(&addr, "POST", "/mcp", &[("Authorization", &bearer)]).status
    };
    // A wrong token, and a principal's hash presented as if it were the token.
    assert_eq!(status("wrong-token-0123456789abcdef0123456789"), 401);
    assert_eq!(status(&sha256_hex(BOB)), 401);
    assert_ne!(status(ALICE), 401);
    assert_ne!(status(BOB), 401);
}
