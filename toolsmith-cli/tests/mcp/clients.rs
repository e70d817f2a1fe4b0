//! Real MCP clients against the server: the Python `mcp` package's client over stdio and
//! streamable HTTP, and the MCP Inspector CLI. They skip, saying why, only where Python's
//! `mcp` or the Inspector is not installed (`.ci/run` installs both).
//!
//! The tool set is a parameter: [`std_cases`] holds the checks of the standard tools the
//! `toolsmith` binary serves, [`custom_cases`] those of tools a test registers by hand; each
//! runs over every transport. A new standard tool is a few more entries in [`std_cases`].

use std::path::Path;
use std::sync::atomic::Ordering;

use serde_json::{Value, json};
use toolsmith::mcp::ServeOptions;

use crate::support::mcp::*;

/// One step for the client and the check of its answer.
struct Case {
    step: Value,
    check: Box<dyn Fn(&Value) + Send>,
}

fn case(step: Value, check: impl Fn(&Value) + Send + 'static) -> Case {
    Case {
        step,
        check: Box::new(check),
    }
}

fn error_json(answer: &Value) -> Value {
    assert_eq!(answer["isError"], true, "{answer}");
    assert!(
        answer.get("structured").is_none_or(Value::is_null),
        "{answer}"
    );
    serde_json::from_str(answer["text"].as_str().expect("text")).expect("error text is JSON")
}

/// Every tool listed has an object input schema and explicit annotations.
fn lists(names: &'static [&'static str]) -> Case {
    case(json!({"op": "list"}), move |a| {
        let tools = a["tools"].as_array().expect("tools");
        for name in names {
            let t = tools
                .iter()
                .find(|t| t["name"] == *name)
                .unwrap_or_else(|| panic!("{name} listed: {a}"));
            assert_eq!(t["inputSchema"]["type"], "object", "{t}");
            for hint in [
                "readOnlyHint",
                "destructiveHint",
                "idempotentHint",
                "openWorldHint",
            ] {
                assert!(t["annotations"][hint].is_boolean(), "{name} {hint}: {t}");
            }
        }
    })
}

/// The standard tools the `toolsmith` binary serves, checked in `dir` (its root).
fn std_cases(dir: &Path) -> Vec<Case> {
    std::fs::write(dir.join("a.txt"), "alpha\nbeta\n").expect("write a.txt");
    vec![
        lists(&[
            "web",
            "prompt_manager",
            "read_file",
            "list_projects",
            "grep",
            "glob",
            "search",
            "bash",
        ]),
        // A text_output tool (bash) declares no outputSchema; grep's says its fields.
        case(json!({"op": "list"}), |a| {
            let tools = a["tools"].as_array().expect("tools");
            let tool = |name: &str| tools.iter().find(|t| t["name"] == name).expect(name);
            assert!(tool("bash")["outputSchema"].is_null(), "{a}");
            let grep = &tool("grep")["outputSchema"];
            assert_eq!(grep["type"], "object", "{a}");
            assert!(grep["properties"]["total_matches"].is_object(), "{a}");
            assert!(grep["properties"]["summary"].is_null(), "{a}");
        }),
        // A bad enum value: the same JSON error the CLI prints, with the allowed values.
        case(
            json!({"op": "call", "name": "web", "arguments": {"action": "crawl", "query_or_url": "x"}}),
            |a| {
                let e = error_json(a);
                assert_eq!(e["error_type"], "validation_error", "{e}");
                assert_eq!(e["allowed_actions"], json!(["search", "fetch"]), "{e}");
            },
        ),
        // A call that succeeds: text plus structuredContent (the client checks it against
        // the output schema).
        case(
            json!({"op": "call", "name": "prompt_manager", "arguments": {"action": "update", "prompt_type": "name", "content": "Ada"}}),
            |a| {
                assert_eq!(a["isError"], false, "{a}");
                assert_eq!(a["structured"]["type"], "update_result", "{a}");
            },
        ),
        case(
            json!({"op": "call", "name": "prompt_manager", "arguments": {"action": "view", "prompt_type": "name"}}),
            |a| {
                assert_eq!(a["isError"], false, "{a}");
                assert_eq!(a["structured"]["value"], "Ada", "{a}");
            },
        ),
        // An unknown tool: an isError result naming the tools there are.
        case(json!({"op": "call", "name": "wbe", "arguments": {}}), |a| {
            let e = error_json(a);
            assert_eq!(e["did_you_mean"], "web", "{e}");
        }),
        // read_file: the lines (numbered in the text, bare in the structured content), and
        // one failing path that does not sink the other.
        case(
            json!({"op": "call", "name": "read_file", "arguments": {"paths": ["a.txt", "missing.txt"]}}),
            |a| {
                assert_eq!(a["isError"], false, "{a}");
                let s = &a["structured"];
                assert_eq!(s["type"], "files_read", "{a}");
                assert_eq!(s["files"][0]["content"], "alpha\nbeta\n", "{a}");
                assert!(
                    a["text"]
                        .as_str()
                        .unwrap()
                        .contains("     1\talpha\n     2\tbeta\n"),
                    "{a}"
                );
                assert_eq!(s["failed"][0]["path"], "missing.txt", "{a}");
            },
        ),
        // grep: ripgrep's semantics in-process, case-insensitive by default; the summary
        // ends the text, the structured content says it in numbers.
        case(
            json!({"op": "call", "name": "grep", "arguments": {"pattern": "BETA"}}),
            |a| {
                assert_eq!(a["isError"], false, "{a}");
                let s = &a["structured"];
                assert_eq!(s["type"], "grep_results", "{a}");
                assert_eq!(s["matches"], json!({"a.txt": ["2:beta"]}), "{a}");
                assert_eq!(
                    (&s["total_matches"], &s["exact"]),
                    (&json!(1), &json!(true)),
                    "{a}"
                );
                assert_eq!(
                    a["text"], "a.txt\n2:beta\n\nFound 1 match in 1 file.\n",
                    "{a}"
                );
            },
        ),
        // An invalid regex: a validation error quoting the regex error.
        case(
            json!({"op": "call", "name": "grep", "arguments": {"pattern": "(unclosed"}}),
            |a| {
                let e = error_json(a);
                assert_eq!(e["error_type"], "validation_error", "{e}");
            },
        ),
        // bash with a progress token: its lines arrive as progress notifications, in order.
        case(
            json!({"op": "call", "name": "bash", "progress": true, "arguments": {
                "command": "for i in 1 2 3; do echo tick $i; sleep 0.1; done",
                "description": "Print three ticks slowly", "timeout": 30}}),
            |a| {
                // bash's result is text alone: no structuredContent.
                assert_eq!(a["isError"], false, "{a}");
                assert!(a["structured"].is_null(), "{a}");
                let text = a["text"].as_str().expect("text");
                assert!(text.starts_with("Exit code 0\ntick 1\n"), "{a}");
                let p = a["progress"].as_array().expect("progress");
                let text: String = p.iter().filter_map(|x| x["message"].as_str()).collect();
                let at = |t: &str| text.find(t).unwrap_or_else(|| panic!("{t} in {a}"));
                assert!(
                    at("tick 1") < at("tick 2") && at("tick 2") < at("tick 3"),
                    "{a}"
                );
            },
        ),
        // A bash call cancelled after its first line: its process group is ended while the
        // session goes on (the next step asks, through bash, whether the sleep still lives).
        case(
            json!({"op": "cancel", "name": "bash", "after": "started", "arguments": {
                "command": "sleep 30 & echo $! > sleep.pid; echo started; wait",
                "description": "Sleep until cancelled", "timeout": 60}}),
            |a| assert_eq!(a["cancelled"], true, "{a}"),
        ),
        case(
            json!({"op": "call", "name": "bash", "arguments": {
                // The state letter of /proc/PID/stat: a zombie (Z) is gone too, as `kill -0`
                // would not tell (a container's PID 1 may never reap it).
                "command": "p=$(cat sleep.pid) && test -n \"$p\" || exit 3; s=$(sed 's/.*) //' /proc/$p/stat 2>/dev/null | cut -c1); case \"$s\" in ''|Z|X) echo gone $p;; *) echo alive $p $s;; esac",
                "description": "Check the cancelled sleep is gone"}}),
            |a| {
                assert_eq!(a["isError"], false, "{a}");
                let out = a["text"].as_str().expect("text");
                assert!(
                    out.starts_with("Exit code 0\ngone "),
                    "the cancelled call's process was ended: {a}"
                );
            },
        ),
        // A path outside the root: a security error naming the roots.
        case(
            json!({"op": "call", "name": "read_file", "arguments": {"paths": ["../outside.txt"]}}),
            |a| {
                let e = error_json(a);
                assert_eq!(e["error_type"], "security_error", "{e}");
                assert!(
                    e["error"]
                        .as_str()
                        .is_some_and(|m| m.contains("list_projects")),
                    "{e}"
                );
            },
        ),
    ]
}

/// The tools of `support::mcp::test_runtime` (no approver: `forget` is denied).
fn custom_cases() -> Vec<Case> {
    vec![
        lists(&["slow", "echo", "forget"]),
        case(
            json!({"op": "call", "name": "echo", "arguments": {"n": 7, "colour": "blue"}}),
            |a| {
                assert_eq!(a["isError"], false, "{a}");
                assert_eq!(a["structured"], json!({"n": 7, "colour": "blue"}), "{a}");
            },
        ),
        case(
            json!({"op": "call", "name": "echo", "arguments": {"n": 7, "colour": "mauve"}}),
            |a| {
                let e = error_json(a);
                assert_eq!(e["allowed_colours"], json!(["red", "green", "blue"]), "{e}");
                assert!(
                    e["error"].as_str().is_some_and(|m| m.starts_with("echo(")),
                    "{e}"
                );
            },
        ),
        case(
            json!({"op": "call", "name": "forget", "arguments": {"what": "x"}}),
            |a| {
                let e = error_json(a);
                assert_eq!(e["error_type"], "approval_denied", "{e}");
            },
        ),
        // Chunks and progress messages come as progress notifications, counting up.
        case(
            json!({"op": "call", "name": "slow", "arguments": {"ticks": 3, "ms": 5}, "progress": true}),
            |a| {
                assert_eq!(a["isError"], false, "{a}");
                let p = a["progress"].as_array().expect("progress");
                let messages: Vec<&str> = p.iter().filter_map(|x| x["message"].as_str()).collect();
                for i in 0..3 {
                    assert!(messages.contains(&format!("chunk {i}\n").as_str()), "{a}");
                    assert!(messages.contains(&format!("tick {i}").as_str()), "{a}");
                }
                let counts: Vec<f64> = p
                    .iter()
                    .map(|x| x["progress"].as_f64().expect("n"))
                    .collect();
                assert!(counts.windows(2).all(|w| w[0] < w[1]), "{counts:?}");
            },
        ),
        // Cancelled after its first progress notification.
        case(
            json!({"op": "cancel", "name": "slow", "arguments": {"ticks": 400, "ms": 50}}),
            |a| assert_eq!(a["cancelled"], true, "{a}"),
        ),
    ]
}

fn run(py: &Path, transport: &[&str], cases: &[Case], dir: &Path) -> String {
    let steps: Vec<&Value> = cases.iter().map(|c| &c.step).collect();
    let (answers, stderr) = run_python(py, transport, &json!(steps), dir);
    assert_eq!(
        answers.len(),
        cases.len(),
        "one answer per step; stderr: {stderr}"
    );
    for (c, a) in cases.iter().zip(&answers) {
        (c.check)(a);
    }
    stderr
}

#[test]
fn python_client_over_stdio_std_tools() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().expect("dir");
    let bin = env!("CARGO_BIN_EXE_toolsmith");
    let root = dir.path().to_str().expect("utf-8");
    run(
        &py,
        &[
            "stdio",
            bin,
            "--root",
            root,
            "--agent",
            "ada",
            "--approve",
            "serve",
        ],
        &std_cases(dir.path()),
        dir.path(),
    );
}

#[test]
fn python_client_over_stdio_custom_registry_example() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().expect("dir");
    let server = example("mcp_server");
    let cases = vec![
        lists(&["convert", "countdown"]),
        case(
            json!({"op": "call", "name": "convert", "arguments": {"value": 100, "from": "celsius", "to": "fahrenheit"}}),
            |a| {
                assert_eq!(a["structured"]["value"], 212.0, "{a}");
            },
        ),
        case(
            json!({"op": "call", "name": "convert", "arguments": {"value": 1, "from": "rankine", "to": "kelvin"}}),
            |a| {
                assert_eq!(
                    error_json(a)["allowed_froms"],
                    json!(["celsius", "fahrenheit", "kelvin"])
                );
            },
        ),
        case(
            json!({"op": "call", "name": "countdown", "arguments": {"from": 3, "tick_ms": 1}, "progress": true}),
            |a| {
                assert_eq!(a["progress"].as_array().map(Vec::len), Some(3), "{a}");
            },
        ),
        case(
            json!({"op": "cancel", "name": "countdown", "arguments": {"from": 500, "tick_ms": 50}}),
            |_| {},
        ),
    ];
    let stderr = run(
        &py,
        &["stdio", server.to_str().expect("utf-8")],
        &cases,
        dir.path(),
    );
    // The server saw the cancellation: its tool's token fired and it stopped early.
    assert!(stderr.contains("countdown: cancelled with"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_client_over_http_custom_tools() {
    let Some(py) = python() else { return };
    let _turn = CANCELLATIONS.lock().await;
    let runtime = test_runtime();
    let activities = runtime.activities().clone();
    let url = start_http(runtime, ServeOptions::new("test").token("tok-123")).await;
    let before = seen().cancelled.load(Ordering::SeqCst);
    let dir = tempfile::tempdir().expect("dir");
    let cases = custom_cases();
    let py2 = py.clone();
    let dir2 = dir.path().to_path_buf();
    let stderr =
        tokio::task::spawn_blocking(move || run(&py2, &["http", &url, "tok-123"], &cases, &dir2))
            .await
            .expect("client");
    ended_its_session(&stderr);
    // The cancelled call: its token fired, and its activity ended `failure`.
    assert!(
        seen().cancelled.load(Ordering::SeqCst) > before,
        "the slow tool saw its cancellation"
    );
    let records = activities.list().await;
    let cancelled: Vec<_> = records
        .iter()
        .filter(|r| r.name == "slow" && r.error.as_deref().is_some_and(|e| e.contains("cancelled")))
        .collect();
    assert_eq!(cancelled.len(), 1, "{records:?}");
    assert_eq!(cancelled[0].status, toolsmith::ActivityStatus::Failure);
}

#[test]
fn python_client_over_http_std_tools() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().expect("dir");
    let server = ServeProcess::http(
        dir.path(),
        &["--token", "s3cret", "--agent", "ada", "--approve"],
    );
    let stderr = run(
        &py,
        &["http", &server.url, "s3cret"],
        &std_cases(dir.path()),
        dir.path(),
    );
    ended_its_session(&stderr);
}

/// The Python client's `DELETE` of its session on the way out was answered as a session
/// ended (200 or 204): it warns "Session termination failed: 202" otherwise.
fn ended_its_session(stderr: &str) {
    assert!(
        !stderr.contains("Session termination failed"),
        "the client could not end its session: {stderr}"
    );
}

#[test]
fn inspector_lists_every_tool_and_calls_one() {
    let Some(inspector) = inspector() else { return };
    let dir = tempfile::tempdir().expect("dir");
    let bin = env!("CARGO_BIN_EXE_toolsmith");
    let root = dir.path().to_str().expect("utf-8");
    let list = std::process::Command::new(&inspector)
        .args([
            "--cli",
            bin,
            "--root",
            root,
            "--agent",
            "ada",
            "serve",
            "--method",
            "tools/list",
        ])
        .current_dir(dir.path())
        .output()
        .expect("inspector");
    let stderr = String::from_utf8_lossy(&list.stderr);
    assert!(list.status.success(), "{stderr}");
    for complaint in ["unknown format", "schema", "warn", "error"] {
        assert!(
            !stderr.to_lowercase().contains(complaint),
            "the Inspector complained: {stderr}"
        );
    }
    let tools: Value = serde_json::from_slice(&list.stdout).expect("JSON");
    let names: Vec<&str> = tools["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    // The tools `inventory` holds in this test binary are tool-std's, as the command has them:
    // no test here registers one of its own.
    let registry = toolsmith::Registry::from_inventory().expect("registry");
    let mut expected = registry.names_in_mode(toolsmith::Mode::Mcp);
    expected.sort_unstable();
    let mut got = names.clone();
    got.sort_unstable();
    assert_eq!(got, expected, "every tool of mode mcp is listed");

    let call = std::process::Command::new(&inspector)
        .args([
            "--cli",
            bin,
            "--root",
            root,
            "--agent",
            "ada",
            "serve",
            "--method",
            "tools/call",
            "--tool-name",
            "prompt_manager",
            "--tool-arg",
            "action=view",
            "--tool-arg",
            "prompt_type=name",
        ])
        .current_dir(dir.path())
        .output()
        .expect("inspector");
    let stderr = String::from_utf8_lossy(&call.stderr);
    assert!(call.status.success(), "{stderr}");
    assert!(!stderr.to_lowercase().contains("schema"), "{stderr}");
    let result: Value = serde_json::from_slice(&call.stdout).expect("JSON");
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(
        result["structuredContent"]["type"], "view_result",
        "{result}"
    );
}
