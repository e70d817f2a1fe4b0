//! Background processes within their bounds: the processes running per principal, the
//! lifetime (the group ended at it), and the output kept and read (the oldest dropped, a read
//! cut at its limit and continued by the next).

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tool_core::{ApproveAll, ToolCall};
use tool_std::shell::{Processes, ShellConfig};

use crate::support::shell::{Fixture, group_gone};

fn fixture(config: ShellConfig) -> Fixture {
    Fixture::with(config, |b| {
        b.approver(ApproveAll).service(Arc::new(Processes::new()))
    })
}

async fn call(f: &Fixture, tool: &str, args: Value) -> Value {
    f.session
        .call(ToolCall::new("b", tool, args.to_string()))
        .await
        .to_json()
}

async fn start(f: &Fixture, command: &str) -> Value {
    call(
        f,
        "bash",
        json!({"command": command, "run_in_background": true}),
    )
    .await
}

/// Reads `id`'s state until `done` holds of it (at most 10 s).
async fn until(f: &Fixture, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    let end = Instant::now() + Duration::from_secs(10);
    loop {
        let out = call(
            f,
            "process",
            json!({"action": "output", "id": id, "offset": 0}),
        )
        .await;
        if done(&out) {
            return out;
        }
        assert!(Instant::now() < end, "never: {out}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn processes_are_bounded_in_number_lifetime_and_output() {
    let mut config = ShellConfig::default();
    config.background.max_running = 1;
    config.background.max_lifetime = Duration::from_secs(1);
    config.background.output_bytes = 64;
    config.background.read_bytes = 20;
    let f = fixture(config);

    let first = start(&f, "seq 1 100; sleep 30").await;
    assert_eq!(first["status"], "background", "{first}");
    let id = first["process_id"].as_str().expect("an id").to_owned();
    let pid = i32::try_from(first["pid"].as_u64().expect("a pid")).expect("pid");

    let refused = start(&f, "sleep 30").await;
    assert_eq!(refused["error_type"], "user_error", "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .expect("a message")
            .contains("the most this server allows (1)"),
        "{refused}"
    );

    // 292 bytes printed, the last 64 or so kept; a read gives at most 20 and says there is
    // more, and the next read goes on from there.
    let out = until(&f, &id, |o| {
        o["output"]["dropped"].as_u64().is_some_and(|d| d > 200)
    })
    .await;
    let read = &out["output"];
    assert!(read["dropped"].as_u64().expect("dropped") > 200, "{out}");
    assert_eq!(read["more"], true, "{out}");
    assert!(read["text"].as_str().expect("text").len() <= 20, "{out}");
    let from = read["next_offset"].as_u64().expect("next");
    let next = call(&f, "process", json!({"action": "output", "id": id})).await;
    assert_eq!(next["output"]["from"], from, "{next}");

    // At its lifetime the group is ended, and a new process may start.
    let ended = until(&f, &id, |o| o["processes"][0]["status"] == "lifetime").await;
    assert_eq!(ended["processes"][0]["status"], "lifetime", "{ended}");
    assert!(group_gone(pid));
    let again = start(&f, "true").await;
    assert_eq!(again["status"], "background", "{again}");
}
