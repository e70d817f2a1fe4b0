//! Stopping well, with real signals on a real `toolsmith serve`: on `SIGTERM` a call in
//! progress is ended and answered ("the server is stopping; call again"), its record closed as
//! `failure`, no process of its command left, and the server exits 0 within its bound (over
//! streamable HTTP under 2025-11-25 and 2026-07-28, and over stdio). Killed with `SIGKILL`,
//! its command's processes end all the same (the guardian), and the next server started on
//! the same store closes the record it left open. Loopback only.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::cli::{code, toolsmith_in};
use crate::support::http::*;
use crate::support::mcp::{ServeProcess, meta_2026};
use crate::support::stdio::{StdioServe, Version, text_of};
use crate::support::{processes_gone, signal, wait_for_exit as wait_exit};

/// A command that writes its shell's pid and its child's, then waits far longer than the
/// tests do.
const SLOW: &str = "echo $$ > shell.pid; sleep 45 & echo $! > child.pid; wait";

/// How long a stopping server may take (the command line's bound is 10 s).
const STOP_BOUND: Duration = Duration::from_secs(10);

/// The pids the command of [`SLOW`] wrote under `dir`, once both are there.
fn pids(dir: &Path) -> Vec<u32> {
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let read = |name: &str| -> Option<u32> {
            std::fs::read_to_string(dir.join(name))
                .ok()?
                .trim()
                .parse()
                .ok()
        };
        if let (Some(shell), Some(child)) = (read("shell.pid"), read("child.pid")) {
            return vec![shell, child];
        }
        assert!(Instant::now() < until, "the command never started");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The records `toolsmith activity --json` shows for the root `dir`, newest first.
fn records(dir: &Path) -> Vec<Value> {
    let root = dir.to_str().expect("utf-8");
    let out = toolsmith_in(
        dir,
        &["--root", root, "activity", "--json", "--limit", "500"],
    );
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// The one record of the `bash` call of [`SLOW`].
fn slow_record(dir: &Path) -> Value {
    let all = records(dir);
    let found: Vec<&Value> = all
        .iter()
        .filter(|r| r["name"] == "bash" && r["input"]["command"] == SLOW)
        .collect();
    assert_eq!(found.len(), 1, "{all:#?}");
    found[0].clone()
}

/// Checks a `tools/call` answer says the server stopped and the call may be made again.
fn says_stopping(answer: &Value) {
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("the server is stopping"), "{answer}");
    assert!(text.contains("\"retryable\":true"), "{answer}");
}

/// `serve --http`, a slow `bash` call made with `version`'s request, then the signal `name`.
fn a_signal_ends_an_http_call(version: &str, name: &str) {
    let dir = tempfile::tempdir().expect("dir");
    let mut server = ServeProcess::http(dir.path(), &["--approve"]);
    let addr = addr_of(&server);
    let call = |meta: Option<Value>| {
        let mut params = json!({"name": "bash", "arguments": {"command": SLOW, "timeout": 60}});
        if let Some(meta) = meta {
            params["_meta"] = meta;
        }
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}).to_string()
    };
    let connection = if version == "2026-07-28" {
        let mut headers = mcp_headers(version, None);
        headers.extend([("Mcp-Method", "tools/call"), ("Mcp-Name", "bash")]);
        send(
            &addr,
            "POST",
            "/mcp",
            &headers,
            &call(Some(meta_2026("stop"))),
        )
    } else {
        let session = initialize(&addr, "stop", version);
        send(
            &addr,
            "POST",
            "/mcp",
            &mcp_headers(version, Some(&session)),
            &call(None),
        )
    };
    let command = pids(dir.path());

    let stopped = Instant::now();
    signal(server.child.id(), name);
    let answer = Http::read(connection);
    assert_eq!(answer.status, 200, "{}", answer.body);
    let answer: Value = serde_json::from_str(message(&answer.body)).expect("JSON-RPC");
    assert_eq!(answer["id"], 7, "{answer}");
    says_stopping(&answer);
    let status = wait_exit(&mut server.child, STOP_BOUND).expect("exited within the bound");
    assert!(
        status.success(),
        "{status:?}: {}",
        server.stderr.lock().expect("stderr")
    );
    assert!(stopped.elapsed() < STOP_BOUND);
    assert!(
        processes_gone(&command, Duration::from_secs(2)),
        "no process of the command is left"
    );
    let record = slow_record(dir.path());
    assert_eq!(record["status"], "failure", "{record:#}");
    assert!(
        record["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{record:#}"
    );
}

#[test]
fn sigterm_answers_a_running_http_call_under_2026_07_28_and_exits_0() {
    a_signal_ends_an_http_call("2026-07-28", "TERM");
}

#[test]
fn sigterm_answers_a_running_http_call_under_2025_11_25_and_exits_0() {
    a_signal_ends_an_http_call("2025-11-25", "TERM");
}

// Ctrl-C in a terminal: the same stop, and an answer the client can read (it was a bare
// `500 Internal Server Error`).
#[test]
fn sigint_answers_a_running_http_call_as_sigterm_does() {
    a_signal_ends_an_http_call("2026-07-28", "INT");
}

/// `serve` on stdio with `--approve`, a slow `bash` call sent with `version`'s request.
fn stdio_with_a_slow_call(dir: &Path, version: Version) -> StdioServe {
    let root = dir.to_str().expect("utf-8");
    let mut server = StdioServe::start_serving(dir, &["--root", root], &["--approve"]);
    let mut frames = version.prelude();
    frames.push(
        version
            .request(
                &json!(7),
                "tools/call",
                json!({"name": "bash", "arguments": {"command": SLOW, "timeout": 60}}),
            )
            .to_string()
            .into_bytes(),
    );
    server.send(frames);
    server
}

#[test]
fn sigterm_answers_a_running_stdio_call_and_exits_0() {
    for version in [Version::V2025, Version::V2026] {
        let dir = tempfile::tempdir().expect("dir");
        let mut server = stdio_with_a_slow_call(dir.path(), version);
        let command = pids(dir.path());
        let stopped = Instant::now();
        server.signal("TERM");
        let want = version.prelude_answers() + 1;
        assert!(
            server.read_until(want, STOP_BOUND),
            "{version:?}: the call is answered; stderr: {}",
            server.stderr()
        );
        let answer = server.answers_to(&json!(7))[0].clone();
        says_stopping(&answer);
        assert!(text_of(&answer).contains("call again"), "{answer}");
        let status = server
            .wait_exit(STOP_BOUND)
            .expect("exited within the bound");
        assert!(
            status.success(),
            "{version:?} {status:?}: {}",
            server.stderr()
        );
        assert!(stopped.elapsed() < STOP_BOUND);
        assert!(
            server
                .stderr()
                .contains("stopping: ending the calls in progress"),
            "{}",
            server.stderr()
        );
        assert!(
            processes_gone(&command, Duration::from_secs(2)),
            "{version:?}"
        );
        let record = slow_record(dir.path());
        assert_eq!(record["status"], "failure", "{version:?} {record:#}");
    }
}

#[test]
fn sigkill_leaves_no_process_and_the_next_start_closes_the_record() {
    let dir = tempfile::tempdir().expect("dir");
    let mut server = stdio_with_a_slow_call(dir.path(), Version::V2026);
    let command = pids(dir.path());
    server.signal("KILL");
    assert!(server.wait_exit(Duration::from_secs(5)).is_some(), "killed");
    // The guardian acts when its stdin pipe ends, at the server's death; the bound leaves
    // room for a machine loaded with other builds, and still fails a guardian that does
    // nothing.
    assert!(
        processes_gone(&command, Duration::from_secs(10)),
        "the guardian ends the command's processes within 10 s"
    );

    // The next server on the same store closes the record the killed one left open; a
    // server still running (here: the next one's own calls) keeps its records.
    let root = dir.path().to_str().expect("utf-8");
    let next = StdioServe::start(dir.path(), &["--root", root]);
    let until = Instant::now() + Duration::from_secs(20);
    while !next.stderr().contains("serving MCP on stdio") {
        assert!(Instant::now() < until, "{}", next.stderr());
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        next.stderr()
            .contains("closed 1 activity record(s) a stopped server left in progress"),
        "{}",
        next.stderr()
    );
    assert!(next.close(Duration::from_secs(10)));
    let record = slow_record(dir.path());
    assert_eq!(record["status"], "failure", "{record:#}");
    assert_eq!(
        record["error"], "the server running this call stopped before it finished",
        "{record:#}"
    );
}

// A call waiting for the user's answer (MCP elicitation) when the server stops: the question is
// withdrawn, the call answered as stopped, and the stop keeps its bound.
#[test]
fn sigterm_ends_a_call_waiting_for_the_users_answer() {
    let dir = tempfile::tempdir().expect("dir");
    let root = dir.path().to_str().expect("utf-8");
    let mut server = StdioServe::start_serving(dir.path(), &["--root", root], &[]);
    // The answer to `initialize`, then the question to the user.
    server.ask_about_bash_2025("touch ran.txt");
    let asked = server
        .lines
        .iter()
        .any(|l| l.contains("elicitation/create"));
    assert!(asked, "{:?}", server.lines);

    let stopped = Instant::now();
    server.signal("TERM");
    let until = Instant::now() + STOP_BOUND;
    while server.answers_to(&json!(7)).is_empty() {
        let left = until.saturating_duration_since(Instant::now());
        assert!(
            server.read_until(server.answered() + 1, left),
            "the call is answered; got {:?}; stderr: {}",
            server.lines,
            server.stderr()
        );
    }
    says_stopping(&server.answers_to(&json!(7))[0].clone());
    let status = server
        .wait_exit(STOP_BOUND)
        .expect("exited within the bound");
    assert!(status.success(), "{status:?}: {}", server.stderr());
    assert!(
        stopped.elapsed() < Duration::from_secs(5),
        "{:?}",
        stopped.elapsed()
    );
    assert!(!dir.path().join("ran.txt").exists(), "nothing ran");
}

/// The pid of the guardian process `server` started (its child named `toolsmith-guardian`).
fn guardian_of(server: u32) -> Option<u32> {
    std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .find_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            let parent: u32 = stat
                .rsplit_once(')')?
                .1
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            (parent == server && cmdline.starts_with(b"toolsmith-guardian\0")).then_some(pid)
        })
}

// A command can kill the guardian: the server starts another, with the whole list, so a
// command started before still ends when the server is killed.
#[test]
fn a_killed_guardian_is_replaced_with_the_whole_list() {
    let dir = tempfile::tempdir().expect("dir");
    let mut server = stdio_with_a_slow_call(dir.path(), Version::V2026);
    let command = pids(dir.path());
    let first = guardian_of(server.pid()).expect("a guardian beside the server");
    signal(first, "KILL");
    let until = Instant::now() + Duration::from_secs(5);
    let second = loop {
        match guardian_of(server.pid()) {
            Some(g) if g != first => break g,
            _ => {
                assert!(Instant::now() < until, "no new guardian");
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    };
    assert_ne!(second, first);
    server.signal("KILL");
    assert!(server.wait_exit(Duration::from_secs(5)).is_some(), "killed");
    assert!(
        processes_gone(&command, Duration::from_secs(2)),
        "the new guardian ends the command started before it"
    );
}
