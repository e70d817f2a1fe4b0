//! Concurrency in the runtime: concurrent calls answer in order and respect the limit, a
//! queued call does not spend its deadline waiting, a queued call cancelled is answered at
//! once, and a thousand concurrent calls all finish with paired events.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tool_core::EventFilter;
use tool_core::{
    ActivityStatus, CallOptions, ErrorKind, EventKind, Registry, Runtime, Session, Tool,
    ToolContext, ToolError, ToolSpec,
};

use crate::support::*;

/// Tracks how many calls run at once.
#[derive(Clone, Default)]
struct Gauge {
    now: Arc<AtomicUsize>,
    max: Arc<AtomicUsize>,
}

impl Tool for Gauge {
    type Input = CountedArgs;
    type Output = Value;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("gauge", "Measure concurrency.")
    }
    async fn call(&self, _: &ToolContext, a: CountedArgs) -> Result<Value, ToolError> {
        let n = self.now.fetch_add(1, Ordering::SeqCst) + 1;
        self.max.fetch_max(n, Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(a.delay_ms.unwrap_or(0))).await;
        self.now.fetch_sub(1, Ordering::SeqCst);
        Ok(json!({"key": a.key}))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_calls_answer_in_order_and_respect_the_limit() {
    let gauge = Gauge::default();
    let runtime = Runtime::builder(registry(|b| b.register(gauge.clone()).register(Add)))
        .max_concurrent(2)
        .build();
    let session = runtime.session();
    let calls: Vec<_> = (0..10)
        .map(|i| {
            call(
                &format!("c{i}"),
                "gauge",
                json!({"key": format!("k{i}"), "delay_ms": 10}),
            )
        })
        .chain([call("bad", "add", json!({"a": 1}))])
        .collect();
    let outs = session.call_all(calls).await;
    assert_eq!(outs.len(), 11);
    for (i, o) in outs.iter().take(10).enumerate() {
        assert_eq!(o.call_id, format!("c{i}"));
        assert_eq!(o.to_json(), json!({"key": format!("k{i}")}));
    }
    assert_kind(expect_err(&outs[10]), ErrorKind::ValidationError);
    assert!(
        gauge.max.load(Ordering::SeqCst) <= 2,
        "{}",
        gauge.max.load(Ordering::SeqCst)
    );
}

/// Starts a `sleepy` call of `ms` on its own task and returns once it runs (holding a slot).
async fn hold_the_slot(
    s: &Session,
    slow: &Sleepy,
    ms: u64,
) -> tokio::task::JoinHandle<tool_core::CallOutcome> {
    let s = s.clone();
    let first = tokio::spawn(async move { s.call(call("c1", "sleepy", json!({"ms": ms}))).await });
    slow.started.notified().await;
    first
}

#[tokio::test]
async fn a_queued_call_does_not_spend_its_deadline_waiting() {
    // One slot; the first call holds it for 1.5 s, the second has a 1 s deadline but needs
    // only a few milliseconds once it runs.
    let slow = Sleepy::default();
    let quick = Sleepy {
        timeout: Some(Duration::from_secs(1)),
        ..Sleepy::default()
    };
    struct Quick(Sleepy);
    impl Tool for Quick {
        type Input = SleepArgs;
        type Output = Value;
        fn spec(&self) -> ToolSpec {
            ToolSpec::new("quick", "Q.").timeout(Duration::from_secs(1))
        }
        async fn call(&self, ctx: &ToolContext, a: SleepArgs) -> Result<Value, ToolError> {
            Tool::call(&self.0, ctx, a).await
        }
    }
    let runtime = Runtime::builder(registry(|b| {
        b.register(slow.clone()).register(Quick(quick))
    }))
    .max_concurrent(1)
    .build();
    let s = runtime.session();
    let first = hold_the_slot(&s, &slow, 1500).await;
    let second = s.call(call("c2", "quick", json!({"ms": 5}))).await;
    assert!(second.is_success(), "{}", second.to_json());
    assert!(first.await.unwrap().is_success());
}

#[tokio::test]
async fn a_call_cancelled_while_it_waits_for_a_slot_is_answered_and_never_runs() {
    // One slot, held for 600 ms; the queued call is cancelled 50 ms in.
    let slow = Sleepy::default();
    let gauge = Gauge::default();
    let runtime = Runtime::builder(registry(|b| {
        b.register(slow.clone()).register(gauge.clone())
    }))
    .max_concurrent(1)
    .build();
    let s = runtime.session();
    let first = hold_the_slot(&s, &slow, 600).await;
    let token = tokio_util::sync::CancellationToken::new();
    let queued = {
        let (s, token) = (s.clone(), token.clone());
        tokio::spawn(async move {
            let options = CallOptions::new().cancel(token);
            s.call_with(call("c2", "gauge", json!({"key": "k"})), options)
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    token.cancel();
    // Answered at once, not when the slot frees.
    let out = tokio::time::timeout(Duration::from_millis(300), queued)
        .await
        .expect("answered while still queued")
        .unwrap();
    assert_kind(expect_err(&out), ErrorKind::Cancelled);
    assert_eq!(gauge.max.load(Ordering::SeqCst), 0, "the queued tool ran");
    let record = runtime
        .activities()
        .get(&out.activity_id)
        .await
        .expect("record");
    assert_eq!(record.status, ActivityStatus::Failure);
    // The session goes on: the call holding the slot finishes.
    assert!(first.await.unwrap().is_success());
}

/// Counts events per call id and kind.
fn tally(events: &[tool_core::Event]) -> HashMap<String, HashMap<EventKind, usize>> {
    let mut m: HashMap<String, HashMap<EventKind, usize>> = HashMap::new();
    for e in events {
        *m.entry(e.call_id.clone())
            .or_default()
            .entry(e.kind)
            .or_default() += 1;
    }
    m
}

#[tokio::test(flavor = "multi_thread", worker_threads = 8)]
async fn a_thousand_concurrent_calls_all_finish_with_paired_events() {
    let counted = Counted::default();
    let registry = Registry::builder()
        .register(counted.clone())
        .register(Add)
        .register(Panicky)
        .register(Risky::default())
        .build()
        .unwrap();
    let runtime = Runtime::builder(registry).build();
    let mut sub = runtime
        .events()
        .subscribe_with_capacity(EventFilter::All, 100_000)
        .unwrap();
    let session = runtime.session();

    let calls: Vec<_> = (0..1000)
        .map(|i| {
            let id = format!("call{i}");
            match i % 10 {
                0..=3 => call(
                    &id,
                    "counted",
                    json!({"key": format!("k{i}"), "delay_ms": i % 7}),
                ),
                4 => call(
                    &id,
                    "counted",
                    json!({"key": format!("f{i}"), "fail": true}),
                ),
                5 => call(&id, "counted", json!({"key": "shared"})),
                6 => call(&id, "add", json!({"a": "x"})),
                7 => call_text(&id, "add", r#"{"a": 1,"#),
                8 => call(&id, if i % 20 == 8 { "panicky" } else { "nope" }, json!({})),
                _ => call(&id, "risky", json!({"key": format!("r{i}")})),
            }
        })
        .collect();
    let outs = session.call_all(calls).await;
    assert_eq!(outs.len(), 1000);

    let mut events = Vec::new();
    while let Some(e) = sub.try_recv() {
        events.push(e);
    }
    assert_eq!(sub.dropped(), 0);
    let tally = tally(&events);

    let store = runtime.activities();
    let mut ok = 0;
    for (i, o) in outs.iter().enumerate() {
        assert_eq!(o.call_id, format!("call{i}"));
        let record = store
            .get(&o.activity_id)
            .await
            .expect("every call has an activity");
        assert!(record.status.is_terminal(), "{i}: {:?}", record.status);
        assert_eq!(
            record.status == ActivityStatus::Success,
            o.is_success(),
            "{i}"
        );
        let kinds = tally
            .get(&*o.activity_id)
            .unwrap_or_else(|| panic!("{i}: no events"));
        let start = kinds.get(&EventKind::ToolCallStart).copied().unwrap_or(0);
        let end = kinds.get(&EventKind::ToolCallEnd).copied().unwrap_or(0);
        let error = kinds.get(&EventKind::Error).copied().unwrap_or(0);
        assert_eq!((start, end + error), (1, 1), "{i}: {kinds:?}");
        assert_eq!(end == 1, o.is_success(), "{i}");
        if o.is_success() {
            ok += 1;
        }
        let want = match i % 10 {
            0..=3 | 5 => None,
            4 => Some(ErrorKind::UserError),
            6 | 7 => Some(ErrorKind::ValidationError),
            8 if i % 20 == 8 => Some(ErrorKind::SystemError),
            8 => Some(ErrorKind::NotFound),
            _ => Some(ErrorKind::ApprovalDenied),
        };
        assert_eq!(o.error().map(|e| e.kind()), want, "{i}: {}", o.to_json());
    }
    assert_eq!(ok, 500);
    assert_eq!(tally.len(), 1000, "one event stream per call");
    // 400 distinct + 100 failing + the shared call, which runs once unless a write (every
    // `counted` and `panicky` call is one) ends between two of its copies: the copy after it
    // runs again (the redundancy rule of the runtime's docs). A copy that did not run names
    // one that did.
    let shared: Vec<_> = outs.iter().skip(5).step_by(10).collect();
    let ran: Vec<&str> = shared
        .iter()
        .filter(|o| o.duplicate_of.is_none())
        .map(|o| o.call_id.as_str())
        .collect();
    assert!(!ran.is_empty());
    for o in &shared {
        if let Some(first) = &o.duplicate_of {
            assert!(ran.contains(&first.as_str()), "{first} did not run");
        }
    }
    assert_eq!(counted.runs.load(Ordering::SeqCst), 500 + ran.len());
}
