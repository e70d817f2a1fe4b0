//! An agent's enabled tools on the command line: what `--agent NAME` is offered and may call
//! (`list`, `call`; `serve` in `mcp::selection`), and `toolsmith agents` showing and editing
//! them.

use std::path::Path;
use std::process::Output;

use serde_json::{Value, json};

use super::tools::{listed, stderr};
use crate::support::cli::{code, json, toolsmith_in};

fn agents(dir: &Path, args: &[&str]) -> Output {
    toolsmith_in(dir, args)
}

fn agents_json(dir: &Path, agent: Option<&str>) -> Value {
    let mut args = Vec::new();
    if let Some(a) = agent {
        args.extend(["--agent", a]);
    }
    args.extend(["agents", "--json"]);
    let out = agents(dir, &args);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    json(&out)
}

#[test]
fn agents_shows_and_edits_enabled_tools() {
    let dir = tempfile::tempdir().expect("dir");
    let d = dir.path();
    // Nothing stored yet.
    let out = agents(d, &["agents"]);
    assert_eq!(code(&out), 0);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "no agents are stored yet"
    );
    let out = agents(d, &["--agent", "Sage", "agents"]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("no agent is called `Sage`"),
        "{}",
        stderr(&out)
    );

    // --set-tools stores the tools' names (an alias as the tool it names), once each.
    let out = agents(
        d,
        &[
            "--agent",
            "Sage",
            "agents",
            "--set-tools",
            "read,grep,read_file",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "Sage (account default, id 1): read_file, grep"
    );
    // --enable-tools adds, --disable-tools removes, both at once.
    let out = agents(
        d,
        &[
            "--agent",
            "Sage",
            "agents",
            "--enable-tools",
            "glob,ls",
            "--disable-tools",
            "grep",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let sage = &agents_json(d, Some("Sage"))[0];
    assert_eq!(
        sage["enabled_tools"],
        json!(["read_file", "glob", "list_directory"])
    );
    assert_eq!(
        sage["tools"],
        json!(["glob", "list_directory", "read_file"])
    );
    assert_eq!(sage["all_tools"], false);

    // Removing the last tools is refused: an empty list means every tool.
    let out = agents(
        d,
        &[
            "--agent",
            "Sage",
            "agents",
            "--disable-tools",
            "read_file,glob,list_directory",
        ],
    );
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("an empty list means every tool"),
        "{}",
        stderr(&out)
    );
    // Unknown names are refused, naming the valid ones; nothing changes.
    let out = agents(d, &["--agent", "Sage", "agents", "--enable-tools", "gerp"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("did you mean `grep`?"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        agents_json(d, Some("Sage"))[0]["enabled_tools"],
        json!(["read_file", "glob", "list_directory"])
    );

    // --all-tools empties the list: every tool.
    let out = agents(d, &["--agent", "Sage", "agents", "--all-tools"]);
    assert_eq!(code(&out), 0);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "Sage (account default, id 1): every tool"
    );
    // Disabling from every tool keeps every other tool.
    let out = agents(d, &["--agent", "Sage", "agents", "--disable-tools", "bash"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let sage = &agents_json(d, Some("Sage"))[0];
    let tools = sage["enabled_tools"].as_array().unwrap();
    assert!(
        !tools.contains(&json!("bash")) && tools.contains(&json!("grep")),
        "{sage}"
    );
    assert_eq!(tools.len(), 18, "{sage}");

    // A second agent, created by its first edit; the list shows both.
    let out = agents(d, &["--agent", "Oracle", "agents", "--set-tools", "web"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let all = agents_json(d, None);
    let names: Vec<&str> = all
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Sage", "Oracle"]);

    // Editing needs --agent; flags that contradict each other are usage errors.
    let out = agents(d, &["agents", "--set-tools", "grep"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("--agent NAME"), "{}", stderr(&out));
    let out = agents(
        d,
        &[
            "--agent",
            "Sage",
            "agents",
            "--all-tools",
            "--enable-tools",
            "grep",
        ],
    );
    assert_eq!(code(&out), 2);
}

/// An agent store in `dir` with agent `name` enabling `tools`.
fn store_agent(dir: &Path, name: &str, tools: &[&str]) {
    use tool_std::prompt::{AgentStore, NewAgent, SqliteAgentStore};
    let db = dir.join(".toolsmith").join("agents.db");
    std::fs::create_dir_all(db.parent().unwrap()).expect("dir");
    let rt = tokio::runtime::Runtime::new().expect("tokio");
    rt.block_on(async {
        let store = SqliteAgentStore::open(&db).await.expect("store");
        store
            .create(NewAgent::new("default", name).with_enabled_tools(tools.iter().copied()))
            .await
            .expect("agent");
    });
}

#[test]
fn an_agent_is_offered_and_may_call_only_its_enabled_tools() {
    let dir = tempfile::tempdir().expect("dir");
    let d = dir.path();
    std::fs::write(d.join("a.txt"), "hello\n").expect("write");
    store_agent(d, "Reader", &["read_file"]);

    let out = toolsmith_in(d, &["--agent", "Reader", "list", "--format", "anthropic"]);
    assert_eq!(listed(&out, "anthropic"), ["read_file"]);
    let out = toolsmith_in(
        d,
        &[
            "--agent",
            "Reader",
            "call",
            "read_file",
            r#"{"paths": ["a.txt"]}"#,
        ],
    );
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stdout));
    let out = toolsmith_in(
        d,
        &[
            "--agent",
            "Reader",
            "call",
            "bash",
            r#"{"command": "true"}"#,
        ],
    );
    assert_eq!(code(&out), 1);
    let err = json(&out);
    assert_eq!(err["error_type"], "permission_error");
    assert_eq!(err["available_tools"], json!(["read_file"]));
    // The prompt tools, which open the store themselves, are refused the same way.
    let out = toolsmith_in(
        d,
        &[
            "--agent",
            "Reader",
            "call",
            "prompt_manager",
            r#"{"action": "view", "prompt_type": "name"}"#,
        ],
    );
    assert_eq!(code(&out), 1);
    assert_eq!(json(&out)["available_tools"], json!(["read_file"]));

    // The flags narrow the agent's tools further; with nothing in common, nothing is served.
    let out = toolsmith_in(d, &["--agent", "Reader", "list", "--toolset", "file"]);
    assert_eq!(listed(&out, "json"), ["read_file"]);
    let out = toolsmith_in(d, &["--agent", "Reader", "list", "--toolset", "shell"]);
    assert_eq!(listed(&out, "json"), Vec::<String>::new());
    let out = toolsmith_in(d, &["--agent", "Reader", "serve", "--toolset", "shell"]);
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    assert!(
        err.contains("agent `Reader`'s enabled tools (read_file) have no tool in common"),
        "{err}"
    );

    // An agent without a list has every tool; without --agent, no agent narrows anything.
    let out = toolsmith_in(d, &["--agent", "Nobody", "list"]);
    assert_eq!(listed(&out, "json").len(), 19);
    let out = toolsmith_in(
        d,
        &[
            "call",
            "bash",
            r#"{"command": "true"}"#,
            "--bash-sandbox",
            "off",
        ],
    );
    assert_ne!(
        json(&out)["error_type"],
        "permission_error",
        "{}",
        json(&out)
    );
}

#[test]
fn an_agent_enabling_a_tool_that_is_not_here_is_refused_with_the_fix() {
    let dir = tempfile::tempdir().expect("dir");
    let d = dir.path();
    // Old names still resolve through the tools' aliases.
    store_agent(d, "Legacy", &["WebSearchTool", "read"]);
    let out = toolsmith_in(d, &["--agent", "Legacy", "list"]);
    assert_eq!(listed(&out, "json"), ["read_file", "web"]);
    // A name no tool answers to stops the command rather than being ignored.
    store_agent(d, "Stale", &["read_file", "calculator"]);
    for args in [
        &["--agent", "Stale", "list"][..],
        &["--agent", "Stale", "call", "read_file", "{}"][..],
        &["--agent", "Stale", "serve"][..],
    ] {
        let out = toolsmith_in(d, args);
        assert_eq!(code(&out), 2, "{args:?}");
        let err = stderr(&out);
        assert!(err.contains("no tool is called `calculator`"), "{err}");
        assert!(
            err.contains("toolsmith agents --agent Stale --disable-tools calculator"),
            "{err}"
        );
    }
    // The fix works, and `agents` points out the stale name until then.
    let out = toolsmith_in(d, &["--agent", "Stale", "agents"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("(no tool here is called calculator)"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = toolsmith_in(
        d,
        &[
            "--agent",
            "Stale",
            "agents",
            "--disable-tools",
            "calculator",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = toolsmith_in(d, &["--agent", "Stale", "list"]);
    assert_eq!(listed(&out, "json"), ["read_file"]);
}
