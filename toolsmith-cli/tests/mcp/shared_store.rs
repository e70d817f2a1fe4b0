//! Two `toolsmith serve --http` replicas in separate directories (standing for two machines)
//! that share only a Postgres URL (`--store`: one through `[store] url` in its
//! `toolsmith.toml`, the other through `TOOLSMITH_STORE`), on a throwaway cluster or a fresh
//! database of the server `TOOLSMITH_TEST_POSTGRES` names:
//!
//! - a prompt updated through one is what the other answers; 8 clients × 200 calls through a
//!   round-robin proxy are all recorded, on one page either replica serves, and one
//!   replica's live page shows every call of both as it ends;
//! - a replica killed with SIGKILL during a slow `bash` call: its record ends `failure`
//!   within the lease, seen through the other replica;
//! - an approval replayed on the other replica is refused, and the 11th search within the
//!   window is refused wherever it lands.

use std::collections::HashSet;
use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::{CallToolResponse, ProtocolVersion};
use serde_json::{Value, json};
use tempfile::TempDir;
use tool_core::testing::postgres::TestDatabase;

use super::approval_replicas::{accepted, bash, completed, connect, runs, user};
use super::replicas::{Proxy, call, ok, text};
use crate::support::http::{addr_of, get};
use crate::support::mcp::{ServeProcess, init_tls, searxng};

const CLIENTS: usize = 8;
const CALLS: usize = 200;
/// The replicas' lease: short, so a killed replica's calls close soon.
const LEASE_SECS: u64 = 2;

/// A fresh database, or `None` (printed) where no Postgres server can be had.
pub(crate) fn database(test: &str) -> Option<TestDatabase> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    match rt.block_on(TestDatabase::create()) {
        Ok(db) => Some(db),
        Err(why) => {
            eprintln!("skipping {test}: {why}");
            None
        }
    }
}

/// A replica in a directory of its own (holding `a.txt` and the shared approval key),
/// on the database `url`: through its `toolsmith.toml` when `in_file`, else through
/// `TOOLSMITH_STORE`.
pub(crate) fn replica(url: &str, in_file: bool, extra: &[&str]) -> (TempDir, ServeProcess) {
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("a.txt"), "one\n").expect("a.txt");
    let mut config =
        "[serve]\napproval_key = \"replicas-share-this-key-0123456789abcdef\"\n".to_owned();
    if in_file {
        config.push_str(&format!(
            "\n[store]\nurl = \"{url}\"\nlease = {LEASE_SECS}\n"
        ));
    }
    std::fs::write(dir.path().join("toolsmith.toml"), config).expect("config");
    let lease = LEASE_SECS.to_string();
    let mut args = vec!["--agent", "Sage"];
    if !in_file {
        args.extend(["--store-lease", lease.as_str()]);
    }
    args.extend_from_slice(extra);
    let env: Vec<(&str, &str)> = if in_file {
        Vec::new()
    } else {
        vec![("TOOLSMITH_STORE", url)]
    };
    let server = ServeProcess::http_with_env(dir.path(), &args, &env);
    (dir, server)
}

/// The records `addr`'s page lists, every page of them, newest first.
fn all_records(addr: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut path = "/activity/records?limit=500".to_owned();
    loop {
        let page = get(addr, &path, &[]);
        assert_eq!(page.status, 200, "{}", page.body);
        let page: Value = serde_json::from_str(&page.body).expect("records JSON");
        out.extend(page["records"].as_array().expect("records").iter().cloned());
        match page["next_cursor"].as_str() {
            Some(cursor) => path = format!("/activity/records?limit=500&cursor={cursor}"),
            None => return out,
        }
    }
}

/// The ids of the calls `addr`'s live page has seen end, from its event stream: its own
/// calls' `TOOL_CALL_END` / `ERROR`, the other replica's finished `ACTIVITY_RECORD`s.
fn watch_page(addr: &str) -> Arc<Mutex<HashSet<String>>> {
    let seen = Arc::new(Mutex::new(HashSet::new()));
    let sink = seen.clone();
    let mut stream = std::net::TcpStream::connect(addr).expect("connect");
    // HTTP/1.0: the stream comes unchunked, a line at a time.
    write!(
        stream,
        "GET /activity/events HTTP/1.0\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\r\n"
    )
    .expect("request");
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stream).lines() {
            let Ok(line) = line else { return };
            let Some(data) = line.strip_prefix("data: ") else {
                continue;
            };
            let Ok(event) = serde_json::from_str::<Value>(data) else {
                continue;
            };
            let ended = match event["type"].as_str() {
                Some("TOOL_CALL_END" | "ERROR") => event["call_id"].as_str(),
                Some("ACTIVITY_RECORD")
                    if matches!(
                        event["record"]["status"].as_str(),
                        Some("success" | "failure")
                    ) =>
                {
                    event["record"]["id"].as_str()
                }
                _ => None,
            };
            if let Some(id) = ended {
                sink.lock().expect("lock").insert(id.to_owned());
            }
        }
    });
    seen
}

#[test]
fn replicas_on_one_database_are_one_truth() {
    let Some(db) = database("replicas_on_one_database_are_one_truth") else {
        return;
    };
    let (_dir_a, a) = replica(db.url(), true, &["--approve"]);
    let (_dir_b, b) = replica(db.url(), false, &["--approve"]);
    let (a, b) = (addr_of(&a), addr_of(&b));
    let page = watch_page(&a);

    // A prompt updated through one replica is what the other answers.
    let update =
        json!({"action": "update", "prompt_type": "system", "content": "You are Sage, shared."});
    ok(&call(&a, "prompt_manager", update));
    let viewed = call(
        &b,
        "prompt_manager",
        json!({"action": "view", "prompt_type": "system"}),
    );
    assert!(text(&viewed).contains("You are Sage, shared."), "{viewed}");

    // 8 clients × 200 calls through the round-robin proxy.
    let proxy = Proxy::start([a.clone(), b.clone()]);
    let workers: Vec<_> = (0..CLIENTS)
        .map(|_| {
            let addr = proxy.addr.clone();
            std::thread::spawn(move || {
                for _ in 0..CALLS {
                    ok(&call(&addr, "read_file", json!({"paths": ["a.txt"]})));
                }
            })
        })
        .collect();
    for w in workers {
        w.join().expect("a client failed");
    }
    let served = [
        proxy.served[0].load(std::sync::atomic::Ordering::SeqCst),
        proxy.served[1].load(std::sync::atomic::Ordering::SeqCst),
    ];
    assert!(served[0] >= 790 && served[1] >= 790, "{served:?}");

    // Every call recorded, none lost, on one page that either replica serves.
    let total = CLIENTS * CALLS + 2;
    let until = Instant::now() + Duration::from_secs(30);
    let (from_a, from_b) = loop {
        let (x, y) = (all_records(&a), all_records(&b));
        let done = |r: &Vec<Value>| {
            r.len() >= total
                && r.iter()
                    .all(|r| r["status"] == "success" || r["status"] == "failure")
        };
        if (done(&x) && done(&y)) || Instant::now() > until {
            break (x, y);
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let ids = |records: &[Value]| -> HashSet<String> {
        records
            .iter()
            .map(|r| r["id"].as_str().expect("id").to_owned())
            .collect()
    };
    let reads = from_b
        .iter()
        .filter(|r| r["name"] == "read_file" && r["status"] == "success")
        .count();
    assert_eq!(reads, CLIENTS * CALLS, "read_file records through b");
    assert_eq!(from_a.len(), total, "records through a");
    assert_eq!(ids(&from_a), ids(&from_b));
    // Both replicas' records, told apart by their ids' process tags.
    let tags: HashSet<&str> = from_a
        .iter()
        .filter_map(|r| r["id"].as_str()?.split('_').nth(1))
        .collect();
    assert_eq!(tags.len(), 2, "{tags:?}");

    // A's live page saw every call end, its own and b's.
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let seen = page.lock().expect("lock").len();
        if seen >= total {
            break;
        }
        assert!(
            Instant::now() < until,
            "a's page saw {seen} of {total} calls end"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(*page.lock().expect("lock"), ids(&from_a));
}

#[test]
fn a_killed_replicas_call_is_closed_by_the_other_within_the_lease() {
    let Some(db) = database("a_killed_replicas_call_is_closed") else {
        return;
    };
    let (_dir_a, mut a) = replica(db.url(), true, &["--approve"]);
    let (_dir_b, b) = replica(db.url(), false, &["--approve"]);
    let (a_addr, b_addr) = (addr_of(&a), addr_of(&b));
    // A slow call on a; the client waits on a thread (its connection dies with a).
    std::thread::spawn(move || {
        let _ = std::panic::catch_unwind(|| {
            call(
                &a_addr,
                "bash",
                json!({"command": "sleep 60", "timeout": 60}),
            )
        });
    });
    let running = |records: Vec<Value>| {
        records
            .into_iter()
            .find(|r| r["name"] == "bash" && r["input"]["command"] == "sleep 60")
    };
    let until = Instant::now() + Duration::from_secs(10);
    let record = loop {
        if let Some(r) = running(all_records(&b_addr))
            && r["status"] == "in_progress"
        {
            break r;
        }
        assert!(Instant::now() < until, "b never saw a's call running");
        std::thread::sleep(Duration::from_millis(50));
    };
    a.child.kill().expect("SIGKILL");
    let killed = Instant::now();
    a.child.wait().expect("reaped");
    let id = record["id"].as_str().expect("id").to_owned();
    let closed = loop {
        let r = all_records(&b_addr)
            .into_iter()
            .find(|r| r["id"] == id.as_str())
            .expect("the record is kept");
        if r["status"] != "in_progress" {
            break r;
        }
        assert!(
            killed.elapsed() < Duration::from_secs(LEASE_SECS * 4),
            "still open {:?} after the kill",
            killed.elapsed()
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(closed["status"], "failure", "{closed}");
    assert_eq!(closed["error"], tool_core::ABANDONED, "{closed}");
    // The lease, and a third of it for the other replica's round, with a second of slack.
    assert!(
        killed.elapsed() < Duration::from_millis(LEASE_SECS * 1000 * 4 / 3 + 1000),
        "closed after {:?}",
        killed.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approval_and_the_search_window_hold_across_replicas() {
    init_tls();
    let Some(db) = tokio::task::spawn_blocking(|| database("an_approval_and_the_search_window"))
        .await
        .expect("join")
    else {
        return;
    };
    let (searx, asked) = searxng();
    let web = [
        "--searxng-url",
        searx.as_str(),
        "--allow-host",
        "127.0.0.1",
        "--search-limit",
        "10",
        "--search-window",
        "60",
    ];
    let (dir_a, a) = replica(db.url(), true, &web);
    let (dir_b, b) = replica(db.url(), false, &web);
    let v = ProtocolVersion::V_2026_07_28;
    let on_a = connect(&a.url, v.clone(), user("allow_once")).await;
    let on_b = connect(&b.url, v, user("allow_once")).await;

    // Replica a asks; the answer goes to b, which runs the command once.
    let first = on_a
        .call_tool_once(bash("echo x >> ran"))
        .await
        .expect("call");
    let CallToolResponse::InputRequired(question) = first else {
        panic!("not asked: {first:?}");
    };
    let state = question.request_state.clone().expect("a request state");
    let retry = bash("echo x >> ran")
        .with_request_state(state)
        .with_input_responses(accepted());
    let (is_error, out) = completed(on_b.call_tool_once(retry.clone()).await.expect("call"));
    assert!(!is_error, "{out}");
    assert_eq!(runs(dir_b.path(), "ran"), 1);
    // Replayed on a, which has its own directory and never saw it used: refused.
    let (is_error, out) = completed(on_a.call_tool_once(retry).await.expect("call"));
    assert!(
        is_error && out.contains("request state is not valid"),
        "{out}"
    );
    assert_eq!(runs(dir_a.path(), "ran"), 0);
    for c in [on_a, on_b] {
        let _ = c.cancel().await;
    }

    // Ten searches across both replicas; the 11th is refused wherever it lands.
    let (a, b) = (addr_of(&a), addr_of(&b));
    tokio::task::spawn_blocking(move || {
        let search = |addr: &str, n: usize| {
            call(
                addr,
                "web",
                json!({"action": "search", "query_or_url": format!("query {n}")}),
            )
        };
        for n in 0..10 {
            let addr = if n % 2 == 0 { &a } else { &b };
            ok(&search(addr, n));
        }
        for addr in [&a, &b] {
            let refused = search(addr, 11);
            assert_eq!(refused["isError"], true, "{refused}");
            assert!(text(&refused).contains("Search limit reached"), "{refused}");
        }
    })
    .await
    .expect("searches");
    assert_eq!(asked.load(std::sync::atomic::Ordering::SeqCst), 10);
}

#[test]
fn calls_go_on_while_the_database_is_stopped_and_their_records_catch_up() {
    let test = "calls_go_on_while_the_database_is_stopped";
    // A cluster of its own, to stop.
    let mut cluster = match tool_core::testing::postgres::TestCluster::start() {
        Ok(c) => c,
        Err(why) => return eprintln!("skipping {test}: {why}"),
    };
    let url = cluster.url("postgres");
    let (_dir, server) = replica(&url, false, &["--approve"]);
    let addr = addr_of(&server);
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let load: Vec<_> = (0..2)
        .map(|_| {
            let (addr, stop) = (addr.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut n = 0;
                while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                    let began = Instant::now();
                    ok(&call(&addr, "read_file", json!({"paths": ["a.txt"]})));
                    assert!(
                        began.elapsed() < Duration::from_secs(2),
                        "a call took {:?}",
                        began.elapsed()
                    );
                    n += 1;
                }
                n
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs(1));
    cluster.stop().expect("the server stops");
    std::thread::sleep(Duration::from_secs(10));
    cluster.start_again().expect("the server starts again");
    std::thread::sleep(Duration::from_secs(1));
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let made: usize = load
        .into_iter()
        .map(|t| t.join().expect("no call failed"))
        .sum();
    assert!(made > 20, "only {made} calls");
    // Every call's record reaches the database (none was dropped: the queue holds more).
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        let kept = all_records(&addr)
            .into_iter()
            .filter(|r| r["name"] == "read_file" && r["status"] == "success")
            .count();
        if kept == made {
            break;
        }
        assert!(
            Instant::now() < until,
            "{kept} of {made} records after the database came back"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let said = server.stderr.lock().expect("lock").clone();
    assert_eq!(
        said.matches("cannot be written").count(),
        1,
        "the outage is said once: {said}"
    );
    assert!(said.contains("is back"), "{said}");
}

/// `toolsmith activity` and `toolsmith agents` on the shared store, from a directory of their
/// own: the records of a replica elsewhere, and with `--follow` each call as it ends.
#[test]
fn the_command_reads_the_shared_store_and_follows_it() {
    use std::process::{Command, Stdio};
    let Some(db) = database("the_command_reads_the_shared_store") else {
        return;
    };
    let (_dir, server) = replica(db.url(), true, &["--approve"]);
    let addr = addr_of(&server);
    ok(&call(&addr, "read_file", json!({"paths": ["a.txt"]})));
    let elsewhere = tempfile::tempdir().expect("dir");
    let toolsmith = |args: &[&str]| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_toolsmith"));
        c.args(["--root", elsewhere.path().to_str().expect("utf-8")])
            .args(args)
            .current_dir(elsewhere.path())
            .env("TOOLSMITH_STORE", db.url())
            .stdin(Stdio::null());
        c
    };
    let out = toolsmith(&["activity", "--json"])
        .output()
        .expect("activity");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["name"], "read_file");
    let out = toolsmith(&["agents"]).output().expect("agents");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("Sage"));

    // Following: three more calls, each printed as it ends.
    let mut follow = toolsmith(&["activity", "--json", "--follow", "--limit", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("follow");
    let seen = Arc::new(Mutex::new(Vec::<Value>::new()));
    let sink = seen.clone();
    let stdout = follow.stdout.take().expect("stdout");
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            if let Ok(v) = serde_json::from_str::<Value>(&line) {
                sink.lock().expect("lock").push(v);
            }
        }
    });
    std::thread::sleep(Duration::from_millis(500));
    for _ in 0..3 {
        ok(&call(&addr, "read_file", json!({"paths": ["a.txt"]})));
    }
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let ended = seen
            .lock()
            .expect("lock")
            .iter()
            .filter(|r| r["status"] == "success")
            .count();
        // The newest record printed at start, then the three calls.
        if ended >= 4 {
            break;
        }
        assert!(Instant::now() < until, "follow printed {ended} ended calls");
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = follow.kill();
    let _ = follow.wait();
}
