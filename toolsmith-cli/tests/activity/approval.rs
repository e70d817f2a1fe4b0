//! Approval in the record, through `toolsmith serve` over stdio and `toolsmith activity`: a
//! call waiting for the client's user is `awaiting_approval` in the store while the user
//! decides (2025-11-25's `elicitation/create`), then says who allowed it and how long it
//! waited; under 2026-07-28 the asking round (`input_required`, then the retry with the
//! answer) is one record that ends as the user decided, never a failure followed by a success.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::cli::{code, toolsmith_in};
use crate::support::http::asking_call_2026;
use crate::support::stdio::StdioServe;

/// The records of `dir`'s store, as `toolsmith activity --json` prints them.
fn records(dir: &Path) -> Vec<Value> {
    let out = toolsmith_in(
        dir,
        &["--root", dir.to_str().unwrap(), "activity", "--json"],
    );
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// `toolsmith activity`'s table.
fn table(dir: &Path) -> String {
    let out = toolsmith_in(dir, &["--root", dir.to_str().unwrap(), "activity"]);
    assert_eq!(code(&out), 0);
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The bash records, once `pred` holds of them (within 20 s).
fn bash_records_when(dir: &Path, what: &str, pred: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let bash: Vec<Value> = records(dir)
            .into_iter()
            .filter(|r| r["name"] == "bash")
            .collect();
        if pred(&bash) {
            return bash;
        }
        assert!(Instant::now() < until, "never {what}: {bash:#?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn ran(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("ran")).map_or(0, |t| t.lines().count())
}

#[test]
fn a_call_waiting_for_the_user_is_awaiting_approval_then_says_who_allowed_it_2025_11_25() {
    let dir = tempfile::tempdir().expect("dir");
    let root = dir.path().to_str().expect("utf-8");
    let mut server = StdioServe::start_serving(dir.path(), &["--root", root], &[]);
    // The answer to `initialize`, then the question to the user.
    server.ask_about_bash_2025("echo x >> ran");
    let question: Value = server
        .lines
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|m| m["method"] == "elicitation/create")
        .expect("the user is asked");

    // While the user decides: awaiting approval in the store and in the table.
    let waiting = bash_records_when(dir.path(), "awaiting approval", |r| {
        r.len() == 1 && r[0]["status"] == "awaiting_approval"
    });
    assert!(waiting[0].get("allowed").is_none(), "{waiting:?}");
    let shown = table(dir.path());
    let line = shown
        .lines()
        .find(|l| l.contains(" bash "))
        .expect("a bash row");
    assert!(
        line.contains("awaiting_approval") && line.contains("waiting for approval"),
        "{shown}"
    );
    assert_eq!(ran(dir.path()), 0);

    std::thread::sleep(Duration::from_secs(2));
    let answer = json!({"jsonrpc": "2.0", "id": question["id"], "result": {
        "action": "accept", "content": {"decision": "allow_once"},
    }});
    server.send(vec![answer.to_string().into_bytes()]);
    while server.answers_to(&json!(7)).is_empty() {
        assert!(
            server.read_until(server.answered() + 1, Duration::from_secs(20)),
            "{}",
            server.stderr()
        );
    }
    let result = &server.answers_to(&json!(7))[0];
    assert_eq!(result["result"]["isError"], false, "{result}");
    assert_eq!(ran(dir.path()), 1);

    let done = bash_records_when(dir.path(), "finished", |r| {
        r.len() == 1 && r[0]["status"] == "success"
    });
    let record = &done[0];
    assert_eq!(record["id"], waiting[0]["id"], "the same record went on");
    assert_eq!(record["allowed"]["by"], "user_once", "{record}");
    let waited = record["allowed"]["waited_ms"].as_u64().expect("waited_ms");
    assert!(waited >= 2000, "{record}");
    let took =
        record["finished_at_ms"].as_u64().unwrap() - record["started_at_ms"].as_u64().unwrap();
    assert!(took >= waited, "the duration holds the wait: {record}");
    let shown = table(dir.path());
    let said = format!(
        "(allowed by the user (once) after {:.1} s)",
        waited as f64 / 1000.0
    );
    assert!(shown.contains(&said), "{said}: {shown}");
    assert!(
        server.close(Duration::from_secs(10)),
        "the server ends cleanly"
    );
}

/// A 2026-07-28 `tools/call` of `bash` from a client that can ask its user.
fn call_2026(id: u64, command: &str, retry: Option<(&str, &str)>) -> Value {
    asking_call_2026(id, "bash", json!({"command": command}), retry)
}

#[test]
fn the_asking_round_is_one_record_under_2026_07_28() {
    let dir = tempfile::tempdir().expect("dir");
    let root = dir.path().to_str().expect("utf-8");
    let mut server = StdioServe::start_serving(dir.path(), &["--root", root], &[]);

    // Asked: the call is answered with the question; its record waits.
    let first = server.ask(call_2026(1, "echo x >> ran", None));
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let state = first["result"]["requestState"]
        .as_str()
        .expect("a request state")
        .to_owned();
    let waiting = bash_records_when(dir.path(), "awaiting approval", |r| {
        r.len() == 1 && r[0]["status"] == "awaiting_approval"
    });
    assert!(waiting[0]["error"].is_null(), "not a failure: {waiting:?}");

    // The user answers a second later: the same record runs and ends.
    std::thread::sleep(Duration::from_secs(1));
    let second = server.ask(call_2026(2, "echo x >> ran", Some((&state, "allow_once"))));
    assert_eq!(second["result"]["isError"], false, "{second}");
    assert_eq!(ran(dir.path()), 1);
    let done = bash_records_when(dir.path(), "the round's end", |r| {
        r.iter().all(|r| r["status"] == "success")
    });
    assert_eq!(done.len(), 1, "one record for the round: {done:#?}");
    let record = &done[0];
    assert_eq!(record["id"], waiting[0]["id"]);
    assert_eq!(record["started_at_ms"], waiting[0]["started_at_ms"]);
    assert_eq!(record["allowed"]["by"], "user_once", "{record}");
    assert!(
        record["allowed"]["waited_ms"].as_u64().unwrap() >= 1000,
        "{record}"
    );

    // A round the user denies: one record, ending `failure` as the user decided.
    let first = server.ask(call_2026(3, "echo y >> ran", None));
    let state = first["result"]["requestState"]
        .as_str()
        .expect("state")
        .to_owned();
    let denied = server.ask(call_2026(4, "echo y >> ran", Some((&state, "deny"))));
    assert_eq!(denied["result"]["isError"], true, "{denied}");
    let all = bash_records_when(dir.path(), "the denied round's end", |r| {
        r.len() == 2 && r.iter().all(|r| r["status"] != "awaiting_approval")
    });
    let failed: Vec<&Value> = all.iter().filter(|r| r["status"] == "failure").collect();
    assert_eq!(failed.len(), 1, "{all:#?}");
    assert!(
        failed[0]["error"]
            .as_str()
            .unwrap_or("")
            .contains("the user denied the call"),
        "{all:#?}"
    );
    assert_eq!(ran(dir.path()), 1);

    // The same state again is refused, and leaves the records as they were.
    let replay = server.ask(call_2026(5, "echo x >> ran", Some((&state, "allow_once"))));
    assert_eq!(replay["result"]["isError"], true, "{replay}");
    assert_eq!(ran(dir.path()), 1);
    let after = bash_records_when(dir.path(), "the replay's record", |r| r.len() == 3);
    assert_eq!(
        after.iter().filter(|r| r["status"] == "success").count(),
        1,
        "{after:#?}"
    );
    assert!(server.close(Duration::from_secs(10)));
}
