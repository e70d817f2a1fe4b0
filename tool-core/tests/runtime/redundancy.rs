//! The runtime's redundancy check: the same call twice in a turn runs once (also when the two
//! run concurrently) unless turned off or the session has no turns, and a call that may write
//! makes the turn's earlier answers stale.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};

use serde_json::{Value, json};
use tool_core::{
    ActionSet, ActionSpec, ActivityStatus, Annotations, ApproveAll, ErrorKind, Runtime, Tool,
    ToolContext, ToolError, ToolSpec,
};

use crate::support::*;

#[tokio::test]
async fn the_same_call_twice_in_a_turn_runs_once() {
    let counted = Counted::default();
    let session = turn_session_of(|b| b.register(counted.clone()));
    let first = session
        .call(call("c1", "counted", json!({"key": "k"})))
        .await;
    let second = session
        .call(call("c2", "counted", json!({"key": "k"})))
        .await;
    assert_eq!(counted.runs.load(Ordering::SeqCst), 1);
    assert_eq!(first.duplicate_of, None);
    assert_eq!(second.duplicate_of.as_deref(), Some("c1"));
    assert_eq!(second.to_json(), first.to_json());
    assert_ne!(second.activity_id, first.activity_id);

    // The duplicate has its own finished activity saying whose result it carries.
    let record = session
        .runtime()
        .activities()
        .get(&second.activity_id)
        .await
        .unwrap();
    assert_eq!(record.status, ActivityStatus::Success);
    assert_eq!(record.data["duplicate_of"], "c1");
    assert_eq!(record.data["run"], 1);
    assert_eq!(record.input, json!({"key": "k"}));

    // Different arguments run.
    let other = session
        .call(call("c3", "counted", json!({"key": "other"})))
        .await;
    assert_eq!(other.duplicate_of, None);
    assert_eq!(counted.runs.load(Ordering::SeqCst), 2);

    // A new turn runs it again.
    session.clear_current_turn();
    let again = session
        .call(call("c4", "counted", json!({"key": "k"})))
        .await;
    assert_eq!(again.duplicate_of, None);
    assert_eq!(again.to_json(), json!({"key": "k", "run": 3}));

    // Failures are remembered too: the model gets the same error without a second run.
    let f1 = session
        .call(call("c5", "counted", json!({"key": "f", "fail": true})))
        .await;
    let f2 = session
        .call(call("c6", "counted", json!({"key": "f", "fail": true})))
        .await;
    assert_eq!(counted.runs.load(Ordering::SeqCst), 4);
    assert_eq!(f2.duplicate_of.as_deref(), Some("c5"));
    assert_eq!(expect_err(&f2).to_json(), expect_err(&f1).to_json());

    // Sessions do not share turns.
    let other_session = with_turns(session.runtime());
    other_session
        .call(call("c7", "counted", json!({"key": "k"})))
        .await;
    assert_eq!(counted.runs.load(Ordering::SeqCst), 5);
}

#[tokio::test]
async fn dedupe_can_be_turned_off() {
    let counted = Counted::default();
    let runtime = Runtime::builder(registry(|b| b.register(counted.clone())))
        .dedupe(false)
        .build();
    let s = runtime.session();
    s.call(call("c1", "counted", json!({"key": "k"}))).await;
    let second = s.call(call("c2", "counted", json!({"key": "k"}))).await;
    assert_eq!(second.duplicate_of, None);
    assert_eq!(counted.runs.load(Ordering::SeqCst), 2);
}

/// A session whose host does not mark turns (an MCP server, a command line) never answers a
/// call from another: over stdio, a read after the file changed once answered the old content
/// for the whole connection.
#[tokio::test]
async fn a_session_without_turns_runs_every_call() {
    let counted = Counted::default();
    let runtime = Runtime::builder(registry(|b| b.register(counted.clone()))).build();
    // A session never told of its turns (the default).
    let s = runtime.session();
    s.call(call("c1", "counted", json!({"key": "k"}))).await;
    let second = s.call(call("c2", "counted", json!({"key": "k"}))).await;
    assert_eq!(second.duplicate_of, None);
    assert_eq!(second.to_json(), json!({"key": "k", "run": 2}));
    assert_eq!(counted.runs.load(Ordering::SeqCst), 2);
    // A session of the same runtime with turns answers duplicates, and says so.
    let t = with_turns(&runtime);
    t.call(call("c3", "counted", json!({"key": "k"}))).await;
    let dup = t.call(call("c4", "counted", json!({"key": "k"}))).await;
    assert_eq!(dup.duplicate_of.as_deref(), Some("c3"));
}

// Regression: the redundancy cache was a tokio `OnceCell` that an identical call initialised
// with a placeholder error when it got there before the first call had started its own
// `get_or_init`; then no call ran and all answered "the first identical call did not finish"
// (a few rounds in ten thousand on 8 threads). Many short rounds give the race its chances;
// a 20 000-round run of this loop was clean after the fix.
#[tokio::test(flavor = "multi_thread", worker_threads = 8)]
async fn concurrent_identical_calls_run_once() {
    for round in 0..500 {
        let counted = Counted::default();
        let session = turn_session_of(|b| b.register(counted.clone()));
        let delay = if round % 250 == 0 { 20 } else { 0 };
        let calls = (0..8)
            .map(|i| {
                call(
                    &format!("c{i}"),
                    "counted",
                    json!({"key": "same", "delay_ms": delay}),
                )
            })
            .collect();
        let outs = session.call_all(calls).await;
        assert_eq!(outs.len(), 8);
        assert_eq!(counted.runs.load(Ordering::SeqCst), 1, "round {round}");
        let originals: Vec<_> = outs.iter().filter(|o| o.duplicate_of.is_none()).collect();
        assert_eq!(originals.len(), 1, "round {round}");
        let first = originals[0].call_id.clone();
        for o in &outs {
            assert_eq!(
                o.to_json(),
                json!({"key": "same", "run": 1}),
                "round {round}"
            );
            if o.call_id != first {
                assert_eq!(o.duplicate_of.as_deref(), Some(first.as_str()));
            }
        }
    }
}

/// A number a model can read and set: `read` is a read-only action, `set` writes.
#[derive(Clone, Default)]
struct Counter {
    value: Arc<AtomicI64>,
    reads: Arc<AtomicUsize>,
    sets: Arc<AtomicUsize>,
}

/// Arguments of `counter`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct CounterArgs {
    /// `read` or `set`.
    action: String,
    /// The new value (`set`).
    value: Option<i64>,
}

impl Tool for Counter {
    type Input = CounterArgs;
    type Output = Value;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("counter", "Read or set a number.").actions(ActionSet::new(
            "action",
            vec![
                ActionSpec::new("read", "Read the number.").read_only(true),
                ActionSpec::new("set", "Set the number.").required("value"),
            ],
        ))
    }
    async fn call(&self, _: &ToolContext, a: CounterArgs) -> Result<Value, ToolError> {
        if a.action == "read" {
            self.reads.fetch_add(1, Ordering::SeqCst);
        } else {
            self.sets.fetch_add(1, Ordering::SeqCst);
            self.value
                .store(a.value.unwrap_or_default(), Ordering::SeqCst);
        }
        Ok(json!({"value": self.value.load(Ordering::SeqCst)}))
    }
}

/// `reader` (annotated read-only) and `writer` (not) over one shared number.
#[derive(Clone, Default)]
struct Plain {
    counter: Counter,
    read_only: bool,
}

impl Tool for Plain {
    type Input = tool_core::NoArgs;
    type Output = Value;
    fn spec(&self) -> ToolSpec {
        if self.read_only {
            ToolSpec::new("reader", "Read the number.")
                .annotations(Annotations::new().read_only(true))
        } else {
            ToolSpec::new("writer", "Add one to the number.")
        }
    }
    async fn call(&self, _: &ToolContext, _: tool_core::NoArgs) -> Result<Value, ToolError> {
        let c = &self.counter;
        if self.read_only {
            c.reads.fetch_add(1, Ordering::SeqCst);
        } else {
            c.sets.fetch_add(1, Ordering::SeqCst);
            c.value.fetch_add(1, Ordering::SeqCst);
        }
        Ok(json!({"value": c.value.load(Ordering::SeqCst)}))
    }
}

// Regression: in one turn, `prompt_manager` view, update, view answered the second view from
// the redundancy cache with the value from before the update.
#[tokio::test]
async fn a_write_makes_the_turns_earlier_answers_stale() {
    let counter = Counter::default();
    let session = turn_session_of(|b| b.register(counter.clone()));
    let read = || json!({"action": "read"});
    let set = |v: i64| json!({"action": "set", "value": v});

    let first = session.call(call("r1", "counter", read())).await;
    assert_eq!(first.to_json(), json!({"value": 0}));
    let write = session.call(call("w1", "counter", set(5))).await;
    assert_eq!(write.to_json(), json!({"value": 5}));
    let after = session.call(call("r2", "counter", read())).await;
    assert_eq!(
        after.duplicate_of, None,
        "the read after a write runs again"
    );
    assert_eq!(after.to_json(), json!({"value": 5}));
    assert_eq!(counter.reads.load(Ordering::SeqCst), 2);

    // Reads with no write between them are still answered once.
    let again = session.call(call("r3", "counter", read())).await;
    assert_eq!(again.duplicate_of.as_deref(), Some("r2"));
    assert_eq!(again.to_json(), json!({"value": 5}));
    assert_eq!(counter.reads.load(Ordering::SeqCst), 2);

    // The same write again, with no other write between, is answered from the first...
    let same = session.call(call("w2", "counter", set(5))).await;
    assert_eq!(same.duplicate_of.as_deref(), Some("w1"));
    assert_eq!(counter.sets.load(Ordering::SeqCst), 1);
    // ...and, once another write has ended, runs again.
    session.call(call("w3", "counter", set(7))).await;
    let back = session.call(call("w4", "counter", set(5))).await;
    assert_eq!(back.duplicate_of, None);
    assert_eq!(counter.sets.load(Ordering::SeqCst), 3);
    let last = session.call(call("r4", "counter", read())).await;
    assert_eq!(
        (last.duplicate_of.clone(), last.to_json()),
        (None, json!({"value": 5}))
    );
}

#[tokio::test]
async fn only_calls_that_ran_and_are_not_read_only_invalidate_the_turn() {
    let counter = Counter::default();
    let reader = Plain {
        counter: counter.clone(),
        read_only: true,
    };
    let writer = Plain {
        counter: counter.clone(),
        read_only: false,
    };
    let runtime = Runtime::builder(registry(|b| {
        b.register(reader).register(writer).register(Add)
    }))
    .require_approval("writer", None)
    .build();
    let session = with_turns(&runtime);
    let reads = || counter.reads.load(Ordering::SeqCst);

    session.call(call("r1", "reader", json!({}))).await;
    // A write refused before it ran (approval denied, invalid arguments) changes nothing.
    let denied = session.call(call("w1", "writer", json!({}))).await;
    assert_kind(expect_err(&denied), ErrorKind::ApprovalDenied);
    let invalid = session.call(call("w2", "writer", json!({"x": 1}))).await;
    assert_kind(expect_err(&invalid), ErrorKind::ValidationError);
    let r2 = session.call(call("r2", "reader", json!({}))).await;
    assert_eq!(r2.duplicate_of.as_deref(), Some("r1"));
    assert_eq!(reads(), 1);

    // `add` is not marked read-only: once it has run, the reader runs again.
    session
        .call(call("a2", "add", json!({"a": 2, "b": 2})))
        .await;
    let r3 = session.call(call("r3", "reader", json!({}))).await;
    assert_eq!(r3.duplicate_of, None);
    assert_eq!(reads(), 2);

    // An approved write runs and invalidates.
    let approving = with_turns(
        &Runtime::builder(session.runtime().registry().clone())
            .approver(ApproveAll)
            .build(),
    );
    approving.call(call("r1", "reader", json!({}))).await;
    let w = approving.call(call("w1", "writer", json!({}))).await;
    assert_eq!(w.to_json(), json!({"value": 1}));
    let r = approving.call(call("r2", "reader", json!({}))).await;
    assert_eq!(
        (r.duplicate_of.clone(), r.to_json()),
        (None, json!({"value": 1}))
    );
}

/// Reads a value that the test changes between calls, as a file changes on disk.
#[derive(Clone, Default)]
struct Changing(Arc<AtomicI64>);

impl Tool for Changing {
    type Input = tool_core::NoArgs;
    type Output = Value;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("changing", "Read the value.")
            .annotations(Annotations::default().read_only(true))
    }
    async fn call(&self, _: &ToolContext, _: tool_core::NoArgs) -> Result<Value, ToolError> {
        Ok(json!({"value": self.0.load(Ordering::SeqCst)}))
    }
}

#[tokio::test]
async fn a_session_never_told_of_a_turn_reads_again_and_a_turns_duplicate_says_so() {
    let value = Changing::default();
    let runtime = Runtime::builder(registry(|b| b.register(value.clone()))).build();
    // A library's session, never told of a turn: the re-read sees the change.
    let library = runtime.session();
    let first = library.call(call("r1", "changing", json!({}))).await;
    value.0.store(7, Ordering::SeqCst);
    let again = library.call(call("r2", "changing", json!({}))).await;
    assert_eq!(
        (first.to_json(), again.to_json()),
        (json!({"value": 0}), json!({"value": 7}))
    );
    assert_eq!(again.duplicate_of, None);
    // Within a turn its host delimits: answered from the first, and the model is told.
    let agent = with_turns(&runtime);
    agent.call(call("a1", "changing", json!({}))).await;
    value.0.store(8, Ordering::SeqCst);
    let dup = agent.call(call("a2", "changing", json!({}))).await;
    assert_eq!(dup.to_json(), json!({"value": 7}));
    let text = dup.model_text(&mut tool_core::ResourcesTracker::new());
    assert!(
        text.starts_with("(The same call as `a1` earlier in this turn: answered with its result; nothing ran again.)"),
        "{text}"
    );
    // The next turn reads again.
    agent.clear_current_turn();
    let next = agent.call(call("a3", "changing", json!({}))).await;
    assert_eq!(next.to_json(), json!({"value": 8}));
}
