//! The `toolsmith` command line, driven as a user or script would: the built binary, its
//! stdout, and its exit codes (0 success, 1 tool error, 2 usage error).

use std::process::Output;

use serde_json::Value;

use crate::support::cli::{code, json, toolsmith_in};

fn toolsmith(args: &[&str]) -> Output {
    let dir = tempfile::tempdir().expect("temp dir");
    toolsmith_in(dir.path(), args)
}

#[test]
fn list_prints_every_tool_as_json() {
    let out = toolsmith(&["list"]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let tools = json(&out);
    let names: Vec<&str> = tools
        .as_array()
        .expect("array")
        .iter()
        .map(|t| t["name"].as_str().expect("name"))
        .collect();
    assert!(names.contains(&"web"), "{names:?}");
    assert!(names.contains(&"prompt_manager"), "{names:?}");
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted, "tools are listed in a deterministic order");
    let web = tools
        .as_array()
        .and_then(|a| a.iter().find(|t| t["name"] == "web"))
        .expect("web");
    assert_eq!(web["input_schema"]["type"], "object");
    assert_eq!(
        web["input_schema"]["properties"]["action"]["enum"],
        serde_json::json!(["search", "fetch"])
    );
}

#[test]
fn list_filters_by_toolset_and_mode() {
    // An unknown toolset is a usage error naming the toolsets (`cli::tools` has the rest).
    let out = toolsmith(&["list", "--toolset", "no-such-toolset"]);
    assert_eq!(code(&out), 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no tool belongs to a toolset `no-such-toolset`"),
        "{err}"
    );
    assert!(
        err.contains("the toolsets: code, file, plan, prompt, search, shell, web"),
        "{err}"
    );
    let out = toolsmith(&["list", "--mode", "mcp"]);
    assert_eq!(code(&out), 0);
}

#[test]
fn schema_prints_one_tool() {
    let out = toolsmith(&["schema", "web"]);
    assert_eq!(code(&out), 0);
    let v = json(&out);
    assert_eq!(v[0]["name"], "web");
    assert_eq!(v.as_array().map(Vec::len), Some(1));
    // Aliases resolve to the tool they name.
    let out = toolsmith(&["schema", "view_system_prompt"]);
    assert_eq!(code(&out), 0);
    assert_eq!(json(&out)[0]["name"], "prompt_manager");
}

#[test]
fn schema_of_an_unknown_tool_is_a_usage_error() {
    let out = toolsmith(&["schema", "no_such_tool"]);
    assert_eq!(code(&out), 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no tool named `no_such_tool`"), "{err}");
}

#[test]
fn every_format_lists_every_tool() {
    for format in [
        "openai",
        "openai-strict",
        "openai-responses",
        "anthropic",
        "gemini",
        "mcp",
    ] {
        let out = toolsmith(&["list", "--format", format]);
        assert_eq!(
            code(&out),
            0,
            "{format}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let list = json(&out);
        assert!(
            list.as_array().is_some_and(|a| a.len() >= 2),
            "{format}: {list}"
        );
    }
    let out = toolsmith(&["list", "--format", "xml"]);
    assert_eq!(code(&out), 0);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("<tool:TOOL_NAME>"), "{text}");
    assert!(text.contains("### web"), "{text}");
    let out = toolsmith(&["schema", "web", "--format", "anthropic"]);
    assert_eq!(json(&out)[0]["input_schema"]["type"], "object");
}

#[test]
fn call_success_exits_zero_with_the_result() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = toolsmith_in(
        dir.path(),
        &[
            "--agent",
            "Sage",
            "call",
            "prompt_manager",
            r#"{"action":"update","prompt_type":"system","content":"Be brief."}"#,
        ],
    );
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stdout));
    assert_eq!(
        json(&out),
        serde_json::json!({"type": "update_result", "prompt_type": "system", "success": true,
                           "new_value": "Be brief.", "agent_name": "Sage"})
    );
    // The store is a SQLite file under the first root: a second process sees the update.
    assert!(dir.path().join(".toolsmith/agents.db").is_file());
    let out = toolsmith_in(
        dir.path(),
        &[
            "--agent",
            "Sage",
            "call",
            "view_system_prompt",
            r#"{"action":"view","prompt_type":"system"}"#,
        ],
    );
    assert_eq!(code(&out), 0);
    assert_eq!(json(&out)["value"], "Be brief.");
}

#[test]
fn call_without_an_agent_answers_the_seed_error() {
    let out = toolsmith(&[
        "call",
        "prompt_manager",
        r#"{"action":"view","prompt_type":"name"}"#,
    ]);
    assert_eq!(code(&out), 1);
    let err = json(&out);
    assert_eq!(err["type"], "error");
    assert!(
        err["error"]
            .as_str()
            .expect("message")
            .contains("No current agent context"),
        "{err}"
    );
}

#[test]
fn call_with_invalid_arguments_exits_one_with_the_error() {
    let out = toolsmith(&[
        "--agent",
        "Sage",
        "call",
        "prompt_manager",
        r#"{"action":"view","prompt_type":"sytem","txt":1}"#,
    ]);
    assert_eq!(code(&out), 1);
    let err = json(&out);
    assert_eq!(err["type"], "error");
    assert_eq!(err["error_type"], "validation_error");
    assert_eq!(
        err["allowed_prompt_types"],
        serde_json::json!([
            "system",
            "conversation_consolidation",
            "memory_management",
            "name"
        ])
    );
    assert_eq!(
        err["allowed_actions"],
        serde_json::json!(["view", "update"])
    );
    let mut paths: Vec<&str> = err["problems"]
        .as_array()
        .expect("problems")
        .iter()
        .map(|p| p["path"].as_str().expect("path"))
        .collect();
    paths.sort_unstable();
    assert_eq!(paths, ["/prompt_type", "/txt"]);
    assert!(
        err["error"]
            .as_str()
            .expect("message")
            .starts_with("prompt_manager(action=\"view\", prompt_type=\"sytem\", txt=1): ")
    );
}

#[test]
fn call_with_malformed_json_is_a_validation_error() {
    let out = toolsmith(&["call", "web", r#"{"action": "fetch""#]);
    assert_eq!(code(&out), 1);
    let err = json(&out);
    assert_eq!(err["error_type"], "validation_error");
    assert!(
        err["error"]
            .as_str()
            .expect("message")
            .contains("Invalid JSON arguments"),
        "{err}"
    );
}

#[test]
fn call_of_an_unknown_tool_lists_the_tools_and_the_nearest() {
    let out = toolsmith(&["call", "wbe", "{}"]);
    assert_eq!(code(&out), 1);
    let err = json(&out);
    assert_eq!(err["error_type"], "not_found");
    assert_eq!(err["did_you_mean"], "web");
    assert!(
        err["available_tools"]
            .as_array()
            .expect("list")
            .contains(&Value::from("prompt_manager"))
    );
}

#[test]
fn web_refuses_loopback_unless_allowed() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let server = std::thread::spawn(move || {
        use std::io::{Read, Write};
        // Answers exactly one request, then stops.
        if let Ok((mut stream, _)) = listener.accept() {
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let body = "<html><body><main><h1>Hello World</h1></main></body></html>";
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    let url = format!("http://127.0.0.1:{port}/");
    let args = format!(r#"{{"action":"fetch","query_or_url":"{url}"}}"#);
    let out = toolsmith(&["call", "web", &args]);
    assert_eq!(code(&out), 1);
    assert_eq!(json(&out)["error_type"], "security_error");
    let out = toolsmith(&["--allow-host", "127.0.0.1", "call", "web", &args]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stdout));
    let page = json(&out);
    assert_eq!(page["type"], "fetched_page");
    assert!(
        page["content"]
            .as_str()
            .expect("content")
            .contains("Hello World")
    );
    server.join().expect("server");
}

#[test]
fn migrate_tools_rewrites_old_names_and_rolls_back() {
    use tool_std::prompt::{AgentStore, NewAgent, SqliteAgentStore};
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("agents.db");
    let rt = tokio::runtime::Runtime::new().expect("tokio");
    rt.block_on(async {
        let store = SqliteAgentStore::open(&db).await.expect("store");
        store
            .create(NewAgent::new("default", "Sage").with_enabled_tools([
                "ViewSystemPromptTool",
                "UpdateSystemPromptTool",
                "WebSearchTool",
                "grep",
            ]))
            .await
            .expect("agent");
    });
    let db_arg = db.to_str().expect("utf-8 path");
    let out = toolsmith(&["--store", db_arg, "migrate-tools", "--json"]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let report = json(&out);
    assert_eq!(
        report["changes"][0]["after"],
        serde_json::json!(["prompt_manager", "web", "grep"])
    );
    // Idempotent: a second run changes nothing.
    let out = toolsmith(&["--store", db_arg, "migrate-tools", "--json"]);
    assert_eq!(json(&out)["changes"], serde_json::json!([]));
    let out = toolsmith(&["--store", db_arg, "migrate-tools", "--rollback", "--json"]);
    assert_eq!(code(&out), 0);
    assert_eq!(
        json(&out)["changes"][0]["after"],
        serde_json::json!([
            "view_system_prompt",
            "update_system_prompt",
            "web_search",
            "web_fetch",
            "grep"
        ])
    );
}

#[test]
fn usage_errors_exit_two() {
    for args in [
        &["bogus"][..],
        &["list", "--no-such-option"][..],
        &["list", "--format", "yaml"][..],
        &["list", "--mode", "batch"][..],
        &["call"][..],
        &[][..],
    ] {
        let out = toolsmith(args);
        assert_eq!(code(&out), 2, "toolsmith {args:?}");
        assert!(
            out.stdout.is_empty(),
            "toolsmith {args:?} printed to stdout"
        );
    }
}
