//! Every START has its END: a call dropped while its tool runs (or while it waits for a slot
//! or for an identical call) ends its record `failure` with its ERROR event and fires its
//! tool's token; a tool that never waits still meets its deadline; and under a thousand
//! concurrent calls, a third of them dropped at random points, no record stays
//! `in_progress` and every START is paired.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::support::*;
use serde_json::{Value, json};
use tokio::sync::Semaphore;
use tool_core::{
    ActivityStatus, ErrorKind, EventFilter, EventKind, Runtime, Tool, ToolContext, ToolError,
    ToolSpec,
};

/// Waits (bounded) for the next event of `kind`.
async fn next_of(sub: &mut tool_core::Subscription, kind: EventKind) -> tool_core::Event {
    tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let e = sub.recv().await.expect("the stream is open");
            if e.kind == kind {
                return e;
            }
        }
    })
    .await
    .expect("the event arrives")
}

#[tokio::test]
async fn a_call_dropped_while_its_tool_runs_ends_failure_with_its_error_event() {
    let sleepy = Sleepy::default();
    let session = session_of(|b| b.register(sleepy.clone()));
    let mut events = session
        .runtime()
        .events()
        .subscribe(EventFilter::All)
        .unwrap();

    let call = session.call(call("c1", "sleepy", json!({"ms": 60_000})));
    // Poll the call until its tool runs, then drop it, as a client that went away does.
    tokio::select! {
        _ = call => panic!("the tool sleeps for a minute"),
        () = sleepy.started.notified() => {}
    }
    let start = next_of(&mut events, EventKind::ToolCallStart).await;
    let error = next_of(&mut events, EventKind::Error).await;
    assert_eq!(error.call_id, start.call_id);
    assert_eq!(error.tool, "sleepy");
    let tool_core::EventData::Error { error: body } = &error.data else {
        panic!("{error:?}")
    };
    assert_eq!(body["error_type"], "cancelled", "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("abandoned before it finished"),
        "{body}"
    );

    let record = session.runtime().activities().get(&start.call_id).await;
    let record = record.expect("the record is kept");
    assert_eq!(record.status, ActivityStatus::Failure);
    assert!(record.finished_at_ms.is_some());
    let message = record.error.unwrap_or_default();
    assert!(
        message.contains("abandoned before it finished"),
        "{message}"
    );

    let token = sleepy.token.lock().unwrap().clone().expect("the tool ran");
    assert!(
        token.is_cancelled(),
        "the tool's token fires on that path too"
    );
}

#[tokio::test]
async fn a_call_dropped_while_it_waits_for_a_slot_or_a_duplicate_ends_too() {
    let waiter = Waiter::default();
    let session = with_turns(
        &Runtime::builder(registry(|b| b.register(waiter.clone())))
            .max_concurrent(1)
            .build(),
    );
    let first = tokio::spawn({
        let session = session.clone();
        async move { session.call(call("first", "waiter", json!({}))).await }
    });
    waiter.started.notified().await;
    let store = session.runtime().activities().clone();

    // The same call again in the turn waits for the first's result; another session's
    // identical call waits for the only slot. Both are dropped while they wait.
    let other = with_turns(session.runtime());
    for (session, id) in [(&session, "duplicate"), (&other, "queued")] {
        let waiting = session.call(call(id, "waiter", json!({})));
        let gave_up = tokio::time::timeout(Duration::from_millis(100), waiting).await;
        assert!(gave_up.is_err(), "{id} was still waiting");
    }
    let records = store.list().await;
    assert_eq!(records.len(), 3, "{records:#?}");
    for r in &records[1..] {
        assert_eq!(r.status, ActivityStatus::Failure, "{r:?}");
        assert!(r.error.as_deref().unwrap().contains("abandoned"), "{r:?}");
    }
    assert_eq!(records[1].data["duplicate_of"], "first");

    waiter.release.notify_one();
    assert!(first.await.unwrap().is_success());
}

/// Acquires and releases a semaphore's permit for ever: every acquire is ready at once, so
/// the tool never waits but uses up its task's cooperative budget.
struct Spinner(Arc<Semaphore>);

impl Tool for Spinner {
    type Input = tool_core::NoArgs;
    type Output = Value;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("spinner", "Spin.").timeout(Duration::from_millis(200))
    }
    async fn call(&self, _: &ToolContext, _: tool_core::NoArgs) -> Result<Value, ToolError> {
        loop {
            drop(self.0.acquire().await);
        }
    }
}

// Regression: the deadline's timer was polled after the tool under the same cooperative
// budget, which a tool that is always ready had used up: the timer never fired.
#[tokio::test]
async fn a_tool_that_is_always_ready_still_hits_its_deadline() {
    let session = session_of(|b| b.register(Spinner(Arc::new(Semaphore::new(1)))));
    let call = session.call(call("c1", "spinner", json!({})));
    let out = tokio::time::timeout(Duration::from_secs(30), call)
        .await
        .expect("the call is answered by its deadline");
    assert_kind(expect_err(&out), ErrorKind::Timeout);
}

/// A tool that answers at once, or after a while, or fails, by its argument.
struct Mixed(Arc<AtomicBool>);

impl Tool for Mixed {
    type Input = SleepArgs;
    type Output = Value;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("mixed", "Answer, wait or fail.")
            .annotations(tool_core::Annotations::new().read_only(true))
    }
    async fn call(&self, ctx: &ToolContext, args: SleepArgs) -> Result<Value, ToolError> {
        if args.ms.is_multiple_of(7) {
            return Err(ToolError::user("seven"));
        }
        if args.ms.is_multiple_of(2) {
            ctx.progress("waiting");
            tokio::time::sleep(Duration::from_millis(args.ms)).await;
        }
        self.0.store(true, Ordering::Relaxed);
        Ok(json!({"ms": args.ms}))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_concurrent_calls_a_third_dropped_leave_nothing_in_progress() {
    let ran = Arc::new(AtomicBool::new(false));
    let runtime = Runtime::builder(registry(|b| b.register(Mixed(ran.clone()))))
        .max_concurrent(32)
        .build();
    let mut events = runtime
        .events()
        .subscribe_with_capacity(EventFilter::All, 100_000)
        .unwrap();
    // A fixed seed: the same points every run.
    let mut seed: u64 = 0x5eed;
    let mut next = move |n: u64| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) % n
    };
    let mut tasks = Vec::new();
    for i in 0..1000u64 {
        // Several sessions, so that identical calls also meet the redundancy check.
        let session = runtime.session();
        let ms = next(40);
        let drop_after = (i % 3 == 0).then(|| Duration::from_millis(next(30)));
        tasks.push(tokio::spawn(async move {
            let call = session.call(call(&format!("c{i}"), "mixed", json!({"ms": ms})));
            match drop_after {
                Some(after) => tokio::time::timeout(after, call).await.ok(),
                None => Some(call.await),
            }
        }));
    }
    let mut answered = 0;
    for t in tasks {
        answered += usize::from(t.await.expect("no panic").is_some());
    }
    assert!(answered >= 667, "{answered}");
    assert!(ran.load(Ordering::Relaxed));

    let records = runtime.activities().list().await;
    let open: Vec<_> = records.iter().filter(|r| !r.status.is_terminal()).collect();
    assert!(
        open.is_empty(),
        "{} records in progress: {open:#?}",
        open.len()
    );
    let abandoned = records
        .iter()
        .filter(|r| r.error.as_deref().is_some_and(|e| e.contains("abandoned")))
        .count();
    assert!(abandoned > 0, "some calls were dropped after their START");

    // Every START has exactly one END or ERROR, after it.
    let mut ends: HashMap<String, (usize, usize)> = HashMap::new();
    while let Some(e) = events.try_recv() {
        let entry = ends.entry(e.call_id.clone()).or_default();
        match e.kind {
            EventKind::ToolCallStart => {
                assert_eq!(*entry, (0, 0), "START first, once: {}", e.call_id);
                entry.0 += 1;
            }
            EventKind::ToolCallEnd | EventKind::Error => {
                assert_eq!(*entry, (1, 0), "one end, after START: {}", e.call_id);
                entry.1 += 1;
            }
            _ => {}
        }
    }
    assert_eq!(events.dropped(), 0);
    assert_eq!(ends.len(), records.len());
    assert!(ends.values().all(|&pair| pair == (1, 1)), "{ends:?}");
}
