//! Serving what the agent needs, on the command line: `--toolset`, `--tools` and
//! `--exclude-tools` on `list`, `call` and `serve`; an agent's enabled tools narrowing what it
//! is offered and may call; `toolsmith agents` showing and editing them.

use std::path::Path;
use std::process::Output;

use serde_json::{Value, json};

use crate::support::cli::{code, json, toolsmith_in};

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The tool names of a `list` in `format` (JSON formats).
fn listed(out: &Output, format: &str) -> Vec<String> {
    assert_eq!(code(out), 0, "{format}: {}", stderr(out));
    let list = json(out);
    list.as_array()
        .expect("array")
        .iter()
        .map(|t| {
            let name = match format {
                "openai" | "openai-strict" => &t["function"]["name"],
                _ => &t["name"],
            };
            name.as_str().expect("name").to_owned()
        })
        .collect()
}

/// The names of the standard tools in toolset `file`, from the canonical listing.
fn file_tools(dir: &Path) -> Vec<String> {
    let out = toolsmith_in(dir, &["list"]);
    let all = json(&out);
    let names: Vec<String> = all
        .as_array()
        .expect("array")
        .iter()
        .filter(|t| t["toolsets"].as_array().unwrap().contains(&json!("file")))
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    assert!(names.len() >= 9, "{names:?}");
    assert!(names.contains(&"delete_file".to_owned()));
    names
}

#[test]
fn list_offers_a_toolset_without_the_excluded_tools() {
    let dir = tempfile::tempdir().expect("dir");
    let mut expected = file_tools(dir.path());
    expected.retain(|n| n != "delete_file");
    for args in [
        &[
            "list",
            "--toolset",
            "file",
            "--exclude-tools",
            "delete_file",
        ][..],
        // By alias, and with both spellings of a list.
        &["list", "--toolset=file", "--exclude-tools=delete_files"][..],
        &[
            "list",
            "--toolset",
            "file,file",
            "--exclude-tools",
            "bash,delete_file",
        ][..],
    ] {
        let out = toolsmith_in(dir.path(), args);
        assert_eq!(listed(&out, "json"), expected, "{args:?}");
    }
    // Toolsets and tools add up; repeated flags too.
    let out = toolsmith_in(
        dir.path(),
        &[
            "list",
            "--toolset",
            "shell",
            "--toolset",
            "web",
            "--tools",
            "read,ls",
        ],
    );
    assert_eq!(
        listed(&out, "json"),
        ["bash", "list_directory", "read_file", "web"]
    );
    // Exclusions alone start from every tool.
    let out = toolsmith_in(dir.path(), &["list", "--exclude-tools", "bash,web"]);
    let names = listed(&out, "json");
    assert!(!names.contains(&"bash".to_owned()) && !names.contains(&"web".to_owned()));
    assert!(names.contains(&"grep".to_owned()), "{names:?}");
}

#[test]
fn list_tools_in_every_format_holds_only_those_tools() {
    let dir = tempfile::tempdir().expect("dir");
    for format in [
        "json",
        "openai",
        "openai-strict",
        "openai-responses",
        "anthropic",
        "gemini",
        "mcp",
    ] {
        let out = toolsmith_in(
            dir.path(),
            &["list", "--tools", "read,grep", "--format", format],
        );
        assert_eq!(listed(&out, format), ["grep", "read_file"], "{format}");
    }
    let out = toolsmith_in(
        dir.path(),
        &["list", "--tools", "read_file", "--format", "xml"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("### read_file\n"), "{text}");
    assert!(!text.contains("### bash\n"), "{text}");
}

#[test]
fn unknown_names_and_toolsets_are_usage_errors_listing_the_valid_ones() {
    let dir = tempfile::tempdir().expect("dir");
    for command in [
        &["list"][..],
        &["call", "read_file", "{}"][..],
        &["serve"][..],
    ] {
        let mut args = command.to_vec();
        args.extend(["--tools", "raed_file", "--toolset", "files"]);
        let out = toolsmith_in(dir.path(), &args);
        assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = stderr(&out);
        assert!(
            err.contains("no tool is called `raed_file` (did you mean `read_file`?)"),
            "{err}"
        );
        assert!(
            err.contains("no tool belongs to a toolset `files`"),
            "{err}"
        );
        assert!(
            err.contains("the toolsets: file, prompt, search, shell, web"),
            "{err}"
        );
        assert!(err.contains("delete_file, edit_lines, glob"), "{err}");
    }
    // An exclusion that leaves nothing to serve is refused too.
    let out = toolsmith_in(
        dir.path(),
        &["serve", "--tools", "bash", "--exclude-tools", "bash"],
    );
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("no tool is left to offer"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn call_refuses_a_tool_outside_the_selection_naming_the_offered_tools() {
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("a.txt"), "hello\n").expect("write");
    let out = toolsmith_in(
        dir.path(),
        &[
            "call",
            "bash",
            r#"{"command": "true"}"#,
            "--toolset",
            "file",
            "--exclude-tools",
            "delete_file",
        ],
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let err = json(&out);
    assert_eq!(err["error_type"], "permission_error");
    let mut offered = file_tools(dir.path());
    offered.retain(|n| n != "delete_file");
    assert_eq!(err["available_tools"], json!(offered));
    let msg = err["error"].as_str().unwrap();
    assert!(
        msg.contains("tool `bash` is not among the tools offered"),
        "{msg}"
    );
    // A selected tool runs, by its alias too.
    let out = toolsmith_in(
        dir.path(),
        &[
            "call",
            "read",
            r#"{"paths": ["a.txt"]}"#,
            "--toolset",
            "file",
        ],
    );
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stdout));
}

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
    assert_eq!(tools.len(), 15, "{sage}");

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
    assert_eq!(listed(&out, "json").len(), 16);
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

#[test]
fn list_defers_tools_and_groups_namespaces_in_the_formats_with_a_tool_search() {
    use crate::support::fixtures::tool_search::check_tool_search_list;
    use toolsmith::provider::Format;

    let dir = tempfile::tempdir().expect("dir");
    let out = toolsmith_in(
        dir.path(),
        &[
            "list",
            "--format",
            "anthropic",
            "--toolset",
            "file,search",
            "--defer-toolsets",
            "search",
            "--defer-tools",
            "read",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let list = json(&out);
    assert_eq!(
        check_tool_search_list(Format::Anthropic, &list),
        Vec::<String>::new()
    );
    let deferred: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t.get("defer_loading") == Some(&json!(true)))
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(deferred, ["glob", "grep", "read_file", "search"]);
    assert_eq!(
        list.as_array().unwrap().last().unwrap()["name"],
        "tool_search_tool_regex"
    );

    let out = toolsmith_in(
        dir.path(),
        &[
            "list",
            "--format",
            "openai-responses",
            "--namespace-by-toolset",
            "--defer-all",
            "--tool-search",
            "bm25",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let list = json(&out);
    assert_eq!(
        check_tool_search_list(Format::OpenaiResponses, &list),
        Vec::<String>::new()
    );
    assert_eq!(
        list.as_array().unwrap().last().unwrap(),
        &json!({"type": "tool_search"})
    );

    // Unknown names are usage errors; other formats are unchanged by the flags.
    let out = toolsmith_in(dir.path(), &["list", "--defer-tools", "gerp"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("did you mean `grep`?"),
        "{}",
        stderr(&out)
    );
    let plain = toolsmith_in(dir.path(), &["list", "--format", "gemini"]);
    let deferred = toolsmith_in(dir.path(), &["list", "--format", "gemini", "--defer-all"]);
    assert_eq!(plain.stdout, deferred.stdout);
}
