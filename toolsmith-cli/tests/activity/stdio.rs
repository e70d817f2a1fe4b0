//! The durable, grouped activity of `toolsmith serve` on every transport: records in the
//! SQLite store by default (`.toolsmith/activity.db`), the page on a side address for stdio
//! (`--activity-addr`), `toolsmith activity` in a terminal, one history for several
//! processes sharing one file grouped by conversation, and a store that cannot be used
//! refused at start with what to do. Loopback only.

use std::path::Path;
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Value, json};

use crate::support::cli::{code, toolsmith_in};
use crate::support::http::*;
use crate::support::mcp::*;
use crate::support::stdio::{StdioServe, Version};

/// Waits for a line of a stdio server's stderr that starts with `prefix`; its rest.
fn stderr_after(server: &StdioServe, prefix: &str) -> String {
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let text = server.stderr();
        if let Some(rest) = text.lines().find_map(|l| l.strip_prefix(prefix)) {
            return rest.trim().to_owned();
        }
        assert!(Instant::now() < until, "no `{prefix}` line: {text}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A stdio server's `tools/call` of `name`, numbered `id`, with `_meta` extra fields.
fn call(version: Version, id: u64, name: &str, args: Value, meta: Option<(&str, &str)>) -> Value {
    let mut request = version.request(
        &json!(id),
        "tools/call",
        json!({"name": name, "arguments": args}),
    );
    if let Some((k, v)) = meta {
        let params = &mut request["params"];
        if params.get("_meta").is_none() {
            params["_meta"] = json!({});
        }
        params["_meta"][k] = json!(v);
    }
    request
}

/// The records `/activity/records` lists at `addr` (newest first).
fn page_records(addr: &str) -> Value {
    let page = get(addr, "/activity/records?limit=500", &[]);
    assert_eq!(page.status, 200, "{}", page.body);
    serde_json::from_str(&page.body).expect("records JSON")
}

/// `toolsmith --root DIR --activity-store STORE serve`, its stderr in a directory of its own
/// (`cwd`), so that several may run over one root.
fn start_stdio(dir: &Path, store: &Path, cwd: &Path) -> StdioServe {
    let args = [
        "--root",
        dir.to_str().expect("utf-8"),
        "--activity-store",
        store.to_str().expect("utf-8"),
    ];
    StdioServe::start(cwd, &args)
}

// Restart: 50 calls, the server stopped, started again: the page and `toolsmith activity`
// show all 50 with their inputs, results and durations.
#[test]
fn fifty_calls_survive_a_restart_on_the_page_and_in_the_terminal() {
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("a.txt"), "alpha\n").expect("write");
    // The default store: `.toolsmith/activity.db` under the first root.
    let mut server = StdioServe::start(dir.path(), &["--root", dir.path().to_str().unwrap()]);
    let v = Version::V2025;
    server.send(v.prelude());
    assert!(server.read_until(v.prelude_answers(), Duration::from_secs(30)));
    for i in 0..50 {
        let answer = server.ask(call(
            v,
            i,
            "glob",
            json!({"pattern": format!("*{i}*.txt")}),
            None,
        ));
        assert!(answer["result"].is_object(), "{answer}");
    }
    assert!(
        server.close(Duration::from_secs(10)),
        "the server exits when stdin closes"
    );
    let store = dir.path().join(".toolsmith").join("activity.db");
    assert!(store.exists());

    // The terminal: `--json`, one record a line.
    let out = toolsmith_in(
        dir.path(),
        &[
            "--root",
            dir.path().to_str().unwrap(),
            "activity",
            "--json",
            "--limit",
            "100",
        ],
    );
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 50);
    for (i, r) in lines.iter().enumerate() {
        assert_eq!(r["name"], "glob");
        assert_eq!(r["status"], "success", "{r}");
        assert_eq!(r["input"]["pattern"], format!("*{i}*.txt"));
        assert!(r["data"].is_object() && !r["data"].as_object().unwrap().is_empty());
        assert!(r["finished_at_ms"].as_u64() >= r["started_at_ms"].as_u64());
        assert_eq!(r["conversation"]["client_name"], "toolsmith-tests");
    }
    // The table.
    let out = toolsmith_in(
        dir.path(),
        &["--root", dir.path().to_str().unwrap(), "activity"],
    );
    assert_eq!(code(&out), 0);
    let table = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(table.starts_with("STARTED (UTC)"), "{table}");
    assert_eq!(
        table.lines().filter(|l| l.contains(" glob ")).count(),
        50,
        "{table}"
    );
    assert!(table.contains("toolsmith-tests 1"), "{table}");

    // Started again with the page on a side address: all 50 are there.
    let mut server = StdioServe::start_serving(
        dir.path(),
        &["--root", dir.path().to_str().unwrap()],
        &["--activity-addr", "127.0.0.1:0"],
    );
    let url = stderr_after(&server, "toolsmith: activity page on ");
    let addr = url
        .strip_prefix("http://")
        .and_then(|r| r.strip_suffix("/activity"))
        .expect("http://ADDR/activity")
        .to_owned();
    let page = get(&addr, "/activity", &[]);
    assert_eq!(page.status, 200);
    let records = page_records(&addr);
    assert_eq!(records["total"], 50, "{records:#}");
    let first = &records["records"][49];
    assert_eq!(first["input"]["pattern"], "*0*.txt");
    assert!(first["finished_at_ms"].as_u64().is_some());
    // A new call shows up beside them.
    server.send(v.prelude());
    assert!(server.read_until(v.prelude_answers(), Duration::from_secs(30)));
    server.ask(call(v, 99, "glob", json!({"pattern": "a*"}), None));
    let records = page_records(&addr);
    assert_eq!(records["total"], 51);
    assert_eq!(records["records"][0]["input"]["pattern"], "a*");
    assert!(server.close(Duration::from_secs(10)));
}

// Two stdio clients (two processes) and one HTTP client (a third) write one store file; the
// HTTP server's page shows three groups with the right calls in each: the 2025-11-25 stdio
// client's connection, the 2026-07-28 stdio client's conversation key from `_meta`, and the
// HTTP client's MCP session.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_stdio_clients_and_an_http_client_are_three_groups_on_one_page() {
    init_tls();
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("a.txt"), "alpha\n").expect("write");
    let store = dir.path().join("shared.db");
    // Global options may follow the subcommand.
    let http = ServeProcess::http(dir.path(), &["--activity-store", store.to_str().unwrap()]);
    let addr = addr_of(&http);

    let (logs_old, logs_new) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut old = start_stdio(dir.path(), &store, logs_old.path());
    let mut new = start_stdio(dir.path(), &store, logs_new.path());
    old.send(Version::V2025.prelude());
    assert!(old.read_until(1, Duration::from_secs(30)));
    let client =
        ().serve(StreamableHttpClientTransport::from_uri(http.url.as_str()))
            .await
            .expect("initialize");
    for i in 0..3 {
        old.ask(call(
            Version::V2025,
            i,
            "glob",
            json!({"pattern": "old*"}),
            None,
        ));
        new.ask(call(
            Version::V2026,
            i,
            "glob",
            json!({"pattern": "new*"}),
            Some(("io.toolsmith/conversation", "chat-42")),
        ));
        let r = client
            .call_tool(
                CallToolRequestParams::new("glob")
                    .with_arguments(args(json!({"pattern": "http*"}))),
            )
            .await
            .expect("call");
        assert_ne!(r.is_error, Some(true), "{r:?}");
    }
    assert!(old.close(Duration::from_secs(10)));
    assert!(new.close(Duration::from_secs(10)));

    let records = tokio::task::spawn_blocking(move || page_records(&addr))
        .await
        .expect("records");
    let list = records["records"].as_array().expect("records");
    assert_eq!(list.len(), 9, "{records:#}");
    let mut groups: std::collections::BTreeMap<String, Vec<&Value>> = Default::default();
    for r in list {
        let key = r["conversation"]["key"].as_str().expect("a key").to_owned();
        groups.entry(key).or_default().push(r);
    }
    assert_eq!(groups.len(), 3, "{:?}", groups.keys());
    for (key, calls) in &groups {
        let patterns: Vec<&str> = calls
            .iter()
            .map(|r| r["input"]["pattern"].as_str().unwrap())
            .collect();
        let c = &calls[0]["conversation"];
        match patterns[0] {
            "old*" => {
                assert_eq!(c["transport"], "stdio");
                assert_eq!(c["client_name"], "toolsmith-tests");
            }
            "new*" => {
                assert_eq!(key, "chat-42");
                assert_eq!(c["transport"], "stdio");
            }
            "http*" => {
                assert_eq!(c["transport"], "http");
                assert!(
                    c["session_id"].as_str().is_some_and(|s| !s.is_empty()),
                    "{c}"
                );
                assert!(key.starts_with("mcp-session:"), "{key}");
            }
            other => panic!("unexpected call {other}"),
        }
        assert!(
            patterns.iter().all(|p| *p == patterns[0]),
            "{key}: {patterns:?}"
        );
        assert_eq!(patterns.len(), 3);
    }
    let _ = client.cancel().await;
}

// `--follow` prints records as they begin and finish, whichever process writes them.
#[test]
fn activity_follow_prints_calls_as_they_happen() {
    let dir = tempfile::tempdir().expect("dir");
    let store = dir.path().join("a.db");
    let mut server = start_stdio(dir.path(), &store, dir.path());
    let v = Version::V2026;
    server.ask(call(v, 1, "glob", json!({"pattern": "first*"}), None));
    let mut follow = std::process::Command::new(env!("CARGO_BIN_EXE_toolsmith"))
        .args([
            "--activity-store",
            store.to_str().unwrap(),
            "activity",
            "--follow",
            "--json",
        ])
        .current_dir(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn activity --follow");
    let stdout = follow.stdout.take().expect("stdout");
    let (tx, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    let first: Value =
        serde_json::from_str(&lines.recv_timeout(Duration::from_secs(10)).expect("a line"))
            .expect("JSON");
    assert_eq!(first["input"]["pattern"], "first*");
    // Idle, nothing more is printed (it reprinted the whole store three times a second).
    assert!(
        lines.recv_timeout(Duration::from_millis(1500)).is_err(),
        "an idle store prints nothing new"
    );
    server.ask(call(v, 2, "glob", json!({"pattern": "second*"}), None));
    let until = Instant::now() + Duration::from_secs(10);
    let mut seen = Vec::new();
    let mut done_at = None;
    while Instant::now() < until
        && done_at.is_none_or(|t: Instant| t.elapsed() < Duration::from_secs(1))
    {
        let Ok(line) = lines.recv_timeout(Duration::from_millis(200)) else {
            continue;
        };
        let r: Value = serde_json::from_str(&line).expect("JSON");
        if r["status"] == "success" && r["input"]["pattern"] == "second*" {
            done_at = Some(Instant::now());
        }
        seen.push(r);
    }
    // The new call, once as it begins (when the follower saw it running) and once as it
    // ends; nothing else.
    assert!(
        seen.iter().all(|r| r["input"]["pattern"] == "second*"),
        "{seen:?}"
    );
    let statuses: Vec<&str> = seen
        .iter()
        .map(|r| r["status"].as_str().unwrap_or(""))
        .collect();
    assert!(
        statuses == ["success"] || statuses == ["in_progress", "success"],
        "{statuses:?}"
    );
    assert!(
        seen.iter()
            .any(|r| r["status"] == "success" && r["input"]["pattern"] == "second*"),
        "{seen:?}"
    );
    // A 2026-07-28 client on stdio without a conversation key: its connection is the group.
    let second = seen.last().expect("the second call");
    assert_eq!(second["conversation"]["key"], first["conversation"]["key"]);
    assert_eq!(second["conversation"]["transport"], "stdio");
    assert_eq!(second["conversation"]["client_name"], "toolsmith-tests");
    let _ = follow.kill();
    let _ = follow.wait();
    assert!(server.close(Duration::from_secs(10)));
}

// A store that cannot be used is a clear error at start (exit 2), never a server that loses
// its records without a word.
#[test]
fn a_store_that_cannot_be_used_stops_serve_with_what_to_do() {
    let dir = tempfile::tempdir().expect("dir");
    let notes = dir.path().join("notes.db");
    std::fs::write(&notes, "not a database\n".repeat(300)).expect("write");
    let out = toolsmith_in(
        dir.path(),
        &["--activity-store", notes.to_str().unwrap(), "serve"],
    );
    assert_eq!(code(&out), 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is not an SQLite database"), "{err}");
    assert!(err.contains("--activity-store memory"), "{err}");

    let out = toolsmith_in(
        dir.path(),
        &[
            "--activity-store",
            notes.to_str().unwrap(),
            "--activity-max-mib",
            "0",
            "activity",
        ],
    );
    assert_ne!(code(&out), 0);

    // `memory` keeps today's behaviour: no file.
    let mut server = StdioServe::start(
        dir.path(),
        &[
            "--root",
            dir.path().to_str().unwrap(),
            "--activity-store",
            "memory",
        ],
    );
    server.ask(call(
        Version::V2026,
        1,
        "glob",
        json!({"pattern": "*"}),
        None,
    ));
    assert!(server.close(Duration::from_secs(10)));
    assert!(!dir.path().join(".toolsmith").join("activity.db").exists());
    let out = toolsmith_in(dir.path(), &["--activity-store", "memory", "activity"]);
    assert_eq!(code(&out), 2);
}

/// A `tools/call` of `glob` over raw HTTP: 2026-07-28 (`_meta` on the request, `extra` added
/// to it) or a 2025-11-25 `session`.
fn http_glob(addr: &str, pattern: &str, session: Option<&str>, extra: Option<(&str, &str)>) {
    let version = if session.is_some() {
        "2025-11-25"
    } else {
        "2026-07-28"
    };
    let mut params = json!({"name": "glob", "arguments": {"pattern": pattern}});
    if session.is_none() {
        params["_meta"] = meta_2026("alpha");
    }
    if let Some((k, v)) = extra {
        params["_meta"][k] = json!(v);
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    let mut headers = mcp_headers(version, session);
    headers.extend([("Mcp-Method", "tools/call"), ("Mcp-Name", "glob")]);
    let answer = Http::read(send(addr, "POST", "/mcp", &headers, &body.to_string()));
    assert_eq!(answer.status, 200, "{}", answer.body);
}

// Over streamable HTTP: 2026-07-28 requests without a session are one group per client (its
// name and version), unless `_meta` names the conversation; a 2025-11-25 session is a group
// of its own. The stdio cases are above (one group per connection, or the `_meta` key).
#[test]
fn http_conversations_under_2025_11_25_and_2026_07_28() {
    let dir = tempfile::tempdir().expect("dir");
    let server = ServeProcess::http(dir.path(), &["--activity-store", "memory"]);
    let addr = addr_of(&server);
    http_glob(&addr, "one*", None, None);
    http_glob(&addr, "two*", None, None);
    http_glob(
        &addr,
        "named*",
        None,
        Some(("io.toolsmith/conversation", "c-7")),
    );
    let session = initialize_2025(&addr, "beta");
    http_glob(&addr, "session*", Some(&session), None);
    http_glob(&addr, "session*", Some(&session), None);

    let records = page_records(&addr);
    let keys: Vec<(String, String)> = records["records"]
        .as_array()
        .expect("records")
        .iter()
        .rev()
        .map(|r| {
            (
                r["input"]["pattern"].as_str().unwrap().to_owned(),
                r["conversation"]["key"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let session_key = format!("mcp-session:{session}");
    let want = [
        ("one*", "client:alpha/1"),
        ("two*", "client:alpha/1"),
        ("named*", "c-7"),
        ("session*", session_key.as_str()),
        ("session*", session_key.as_str()),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(p, k)| ((*p).to_owned(), (*k).to_owned()))
        .collect();
    assert_eq!(keys, want);
    let last = &records["records"][0]["conversation"];
    assert_eq!(last["client_name"], "beta");
    assert_eq!(last["session_id"], session.as_str());
    assert_eq!(last["transport"], "http");
}

// Seed 002: a call that fails carries `error`: a command exiting 3 is recorded `failure` with
// its exit code and the end of its stderr, in the store and in `toolsmith activity`.
#[test]
fn a_failed_command_is_recorded_with_its_exit_code_and_stderr() {
    let dir = tempfile::tempdir().expect("dir");
    let root = dir.path().to_str().expect("utf-8");
    let mut server = StdioServe::start_serving(dir.path(), &["--root", root], &["--approve"]);
    let v = Version::V2026;
    let command = "echo fine; for i in 1 2 3 4 5 6 7; do echo line $i >&2; done; exit 3";
    let answer = server.ask(call(v, 1, "bash", json!({"command": command}), None));
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert!(server.close(Duration::from_secs(10)));
    let out = toolsmith_in(dir.path(), &["--root", root, "activity", "--json"]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let record: Value = serde_json::from_str(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .expect("a record"),
    )
    .expect("JSON");
    assert_eq!(record["status"], "failure", "{record:#}");
    let error = record["error"].as_str().expect("an error");
    assert!(error.starts_with("Exit code 3"), "{error}");
    // The last five lines of stderr, not the first ones.
    assert!(
        error.ends_with("line 3\nline 4\nline 5\nline 6\nline 7"),
        "{error}"
    );
    assert!(!error.contains("line 2"), "{error}");
}

// The server's own stores sit in `.toolsmith/` under the first root; that directory ignores
// itself, so a project's `git status` never lists the stores or their write-ahead logs.
#[test]
fn the_servers_own_directory_is_ignored_by_git() {
    let dir = tempfile::tempdir().expect("dir");
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(dir.path())
            .output()
            .expect("git")
    };
    if git(&["init", "-q"]).status.code() != Some(0) {
        eprintln!("skipped: git is not installed (apt-get install git)");
        return;
    }
    let root = dir.path().to_str().expect("utf-8");
    let mut server = StdioServe::start(dir.path(), &["--root", root]);
    let v = Version::V2026;
    let answer = server.ask(call(v, 1, "list_projects", json!({}), None));
    assert!(answer["result"].is_object(), "{answer}");
    assert!(server.close(Duration::from_secs(10)));
    let ignore = dir.path().join(".toolsmith").join(".gitignore");
    assert_eq!(
        std::fs::read_to_string(&ignore).expect("a .gitignore"),
        "# toolsmith's own stores\n*\n"
    );
    let status =
        String::from_utf8_lossy(&git(&["status", "--porcelain", "--untracked-files=all"]).stdout)
            .into_owned();
    assert!(!status.contains(".toolsmith"), "{status}");
    assert!(
        status.contains("serve.stderr"),
        "git sees the other files: {status}"
    );
}
