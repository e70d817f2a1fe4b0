//! On its timeout, on a cancellation, or when it exits leaving children behind, a command's
//! whole process group is ended, and no process of it is left (looked up by pid in /proc).

use std::time::{Duration, Instant};

use serde_json::json;
use tokio_util::sync::CancellationToken;
use tool_core::{ApproveAll, CallOptions, EventKind, Services, ToolContext};
use tool_std::shell::{BashRequest, ShellConfig};
use tool_std::workspace::Workspace;

use crate::support::shell::{Fixture, dead, eventually, group_gone, group_members, numbers};

/// Time allowed after a deadline for everything of the group to be gone.
const AFTER_DEADLINE: Duration = Duration::from_secs(2);

#[tokio::test]
async fn sleep_30_with_a_1_s_timeout_ends_in_time_and_leaves_no_process() {
    let f = Fixture::new();
    let started = Instant::now();
    let (out, text) = f
        .call_text(json!({"command": "echo $$; echo started; sleep 30", "timeout": 1}))
        .await;
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(1) + AFTER_DEADLINE,
        "took {took:?}"
    );
    assert!(took >= Duration::from_secs(1), "took {took:?}");
    assert_eq!(out["status"], "timeout", "{out}");
    assert_eq!(out["success"], false);
    assert!(out["return_code"].is_null());
    assert!(
        out["output"].as_str().unwrap().ends_with("started\n"),
        "the output so far: {out}"
    );
    assert!(text.starts_with("Timed out after"), "{text}");
    assert!(out["note"].as_str().unwrap().contains("timeout of 1 s"));
    let pgid = numbers(out["output"].as_str().unwrap())[0];
    assert!(group_gone(pgid), "{:?}", group_members(pgid));
    assert!(dead(pgid));
}

#[tokio::test]
async fn a_command_that_ignores_term_is_killed_after_the_grace() {
    let mut config = ShellConfig::default();
    config.kill_grace = Duration::from_millis(300);
    let f = Fixture::with_config(config);
    let started = Instant::now();
    let out = f
        .call(json!({"command": "trap '' TERM; echo $$; sleep 30 & echo $!; wait", "timeout": 1}))
        .await;
    assert!(started.elapsed() < Duration::from_secs(1) + AFTER_DEADLINE);
    assert_eq!(out["status"], "timeout", "{out}");
    let pids = numbers(out["output"].as_str().unwrap());
    assert_eq!(pids.len(), 2, "{out}");
    assert!(group_gone(pids[0]), "{:?}", group_members(pids[0]));
    assert!(dead(pids[1]), "the background sleep is gone");
}

#[tokio::test]
async fn background_children_are_cleaned_up_when_the_command_exits() {
    let f = Fixture::new();
    // One child holds the output pipes open, the other does not.
    let started = Instant::now();
    let out = f
        .call(json!({"command": "echo $$; sleep 30 & echo $!; sleep 31 >/dev/null 2>&1 & echo $!; echo done"}))
        .await;
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "it did not wait for the children"
    );
    assert_eq!(out["status"], "exited", "{out}");
    assert_eq!(out["return_code"], 0);
    let pids = numbers(out["output"].as_str().unwrap());
    assert_eq!(pids.len(), 3, "{out}");
    assert!(out["output"].as_str().unwrap().ends_with("done\n"));
    assert!(
        out["note"]
            .as_str()
            .unwrap()
            .contains("background processes"),
        "{out}"
    );
    assert!(group_gone(pids[0]), "{:?}", group_members(pids[0]));
    assert!(dead(pids[1]) && dead(pids[2]));
}

#[tokio::test]
async fn cancelling_the_call_mid_run_ends_the_group() {
    let f = Fixture::new();
    let token = CancellationToken::new();
    let trigger = token.clone();
    let canceller = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(600)).await;
        trigger.cancel();
    });
    let started = Instant::now();
    let (out, seen, _) = f
        .call_watched(
            json!({"command": "echo $$; sleep 30 & echo $!; sleep 30", "timeout": 60}),
            CallOptions::new().cancel(token),
        )
        .await;
    canceller.await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(5));
    let err = out.error().expect("cancelled");
    assert_eq!(err.kind(), tool_core::ErrorKind::Cancelled);
    // The pids were printed, and streamed, before the cancellation.
    let printed: String = seen
        .iter()
        .filter(|s| s.kind == EventKind::ToolOutputChunk)
        .map(|s| s.text.as_str())
        .collect();
    let pids = numbers(&printed);
    assert_eq!(pids.len(), 2, "{printed:?}");
    // The runtime dropped the call; the group guard ends the group in the background.
    assert!(
        eventually(Duration::from_secs(2), || group_members(pids[0]).is_empty()),
        "{:?}",
        group_members(pids[0])
    );
    for pid in pids {
        assert!(dead(pid));
    }
}

#[tokio::test]
async fn a_cancelled_run_answers_cancelled_with_the_output_so_far() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = Workspace::builder()
        .root("main", tmp.path())
        .build()
        .unwrap();
    let ctx = ToolContext::detached("bash", Services::new().with(ws));
    let cancel = ctx.cancellation().clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(500)).await;
        cancel.cancel();
    });
    let started = Instant::now();
    let out = tool_std::shell::bash::run(
        &ctx,
        BashRequest::new("echo $$; echo first; sleep 30; echo never").timeout(30),
    )
    .await
    .expect("a result");
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(out.status, "cancelled");
    assert!(out.output.ends_with("first\n"), "{:?}", out.output);
    let pgid = numbers(&out.output)[0];
    assert!(group_gone(pgid), "{:?}", group_members(pgid));
}

#[tokio::test]
async fn the_runtime_deadline_still_gets_a_timeout_result() {
    // The runtime allows 2 s; the call asks for 30. The tool ends the command before the
    // runtime's deadline so the answer still carries the output.
    let f = Fixture::with(ShellConfig::default(), |b| {
        b.approver(ApproveAll).max_timeout(Duration::from_secs(2))
    });
    let started = Instant::now();
    let out = f
        .call(json!({"command": "echo $$; sleep 30", "timeout": 30}))
        .await;
    assert!(started.elapsed() < Duration::from_secs(3), "{out}");
    assert_eq!(out["status"], "timeout", "{out}");
    let pgid = numbers(out["output"].as_str().unwrap())[0];
    assert!(group_gone(pgid), "{:?}", group_members(pgid));
}
