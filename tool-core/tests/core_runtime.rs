//! Point 6: the runtime: mode and permission checks, validation before approval, the
//! redundancy check, the approval gate, deadlines, cancellation, panics and concurrency.

mod common;

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use tool_core::events::EventFilter;
use tool_core::{
    ActionSet, ActionSpec, ActivityStatus, Annotations, ApprovalDecision, ApprovalRequest,
    ApproveAll, ErrorKind, EventKind, FnApprover, Mode, Permission, PermissionSet, Registry,
    Runtime, SessionConfig, Tool, ToolContext, ToolError, ToolSpec,
};

/// `counted` with approval required by its spec.
#[derive(Clone, Default)]
struct Risky {
    inner: Counted,
}

#[async_trait::async_trait]
impl Tool for Risky {
    type Input = CountedArgs;
    type Output = CountedOut;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("risky", "Needs approval.").requires_approval(true)
    }
    async fn call(&self, ctx: &ToolContext, a: CountedArgs) -> Result<CountedOut, ToolError> {
        Tool::call(&self.inner, ctx, a).await
    }
}

#[tokio::test]
async fn permissions_of_the_tool_and_of_the_action() {
    let pm = PromptManager::default();
    let runtime = Runtime::builder(registry(|b| b.register(pm.clone()))).build();
    let view = json!({"action": "view", "prompt_type": "system"});
    let update = json!({"action": "update", "prompt_type": "system", "content": "Be brief."});

    // No permission at all: the tool's own permission is missing.
    let nobody = runtime.session_with(SessionConfig::default().permissions(PermissionSet::EMPTY));
    let out = nobody
        .call(call("c1", "prompt_manager", view.clone()))
        .await;
    assert_eq!(
        expect_err(&out).to_json(),
        json!({
            "type": "error",
            "error_type": "permission_error",
            "error": r#"prompt_manager(action="view", prompt_type="system"): this session's role lacks the permission(s) view_prompts that this tool needs"#,
            "missing_permissions": ["view_prompts"]
        })
    );

    // The tool's permission but not the action's.
    let viewer = runtime.session_with(
        SessionConfig::default().permissions(PermissionSet::EMPTY.with(Permission::ViewPrompts)),
    );
    let out = viewer
        .call(call("c2", "prompt_manager", view.clone()))
        .await;
    assert_eq!(
        out.to_json(),
        json!({"type": "view_result", "content": "You are helpful."})
    );
    let out = viewer
        .call(call("c3", "prompt_manager", update.clone()))
        .await;
    let err = expect_err(&out);
    assert_kind(err, ErrorKind::PermissionError);
    assert_eq!(
        err.message(),
        "this session's role lacks the permission(s) manage_prompts that action `update` needs"
    );
    assert_eq!(
        err.fields()["missing_permissions"],
        json!(["manage_prompts"])
    );
    assert_eq!(
        pm.runs.load(Ordering::SeqCst),
        1,
        "the refused call did not run"
    );

    // Both.
    let manager = runtime.session_with(
        SessionConfig::default().permissions(
            PermissionSet::EMPTY
                .with(Permission::ViewPrompts)
                .with(Permission::ManagePrompts),
        ),
    );
    let out = manager.call(call("c4", "prompt_manager", update)).await;
    assert_eq!(
        out.to_json(),
        json!({"type": "update_result", "content": "Be brief."})
    );

    // A plain tool without an action names the tool.
    let runtime = Runtime::builder(registry(|b| {
        b.register(Named(
            ToolSpec::new("net", "N.").permission(Permission::Network),
        ))
    }))
    .build();
    let s = runtime.session_with(SessionConfig::default().permissions(PermissionSet::EMPTY));
    let out = s.call(call("c5", "net", json!({}))).await;
    assert_eq!(
        expect_err(&out).message(),
        "this session's role lacks the permission(s) network that this tool needs"
    );
}

/// A no-op tool whose spec the test chooses.
#[derive(Clone)]
struct Named(ToolSpec);

#[async_trait::async_trait]
impl Tool for Named {
    type Input = tool_core::NoArgs;
    type Output = Value;
    fn spec(&self) -> ToolSpec {
        self.0.clone()
    }
    async fn call(&self, _: &ToolContext, _: tool_core::NoArgs) -> Result<Value, ToolError> {
        Ok(json!({"ran": true}))
    }
}

#[tokio::test]
async fn mode_check() {
    let runtime = Runtime::builder(registry(|b| {
        b.register(Named(ToolSpec::new("cli_only", "C.").modes([Mode::Cli])))
    }))
    .build();
    let out = runtime
        .session()
        .call(call("c1", "cli_only", json!({})))
        .await;
    assert_kind(expect_err(&out), ErrorKind::PermissionError);
    let cli = runtime.session_with(SessionConfig::default().mode(Mode::Cli));
    assert_eq!(cli.mode(), Mode::Cli);
    let out = cli.call(call("c2", "cli_only", json!({}))).await;
    assert_eq!(out.to_json(), json!({"ran": true}));
}

fn approvals() -> Arc<Mutex<Vec<ApprovalRequest>>> {
    Arc::new(Mutex::new(Vec::new()))
}

#[tokio::test]
async fn validation_comes_before_approval() {
    let seen = approvals();
    let log = seen.clone();
    let runtime = Runtime::builder(registry(|b| b.register(Risky::default())))
        .approver(FnApprover(move |r: &ApprovalRequest| {
            log.lock().unwrap().push(r.clone());
            ApprovalDecision::Approve
        }))
        .build();
    let out = runtime
        .session()
        .call(call("c1", "risky", json!({"key": 5})))
        .await;
    assert_kind(expect_err(&out), ErrorKind::ValidationError);
    assert!(
        seen.lock().unwrap().is_empty(),
        "an invalid call is never put to the approver"
    );
}

#[tokio::test]
async fn deny_all_is_the_default() {
    let risky = Risky::default();
    let session = session_of(|b| b.register(risky.clone()));
    let out = session.call(call("c1", "risky", json!({"key": "k"}))).await;
    assert_eq!(
        expect_err(&out).to_json(),
        json!({
            "type": "error",
            "error_type": "approval_denied",
            "error": r#"risky(key="k"): the call was not approved: no approver is configured; the host must approve calls of this tool"#,
            "suggestion": "Do not retry the same call; ask the user or take another approach."
        })
    );
    assert_eq!(risky.inner.runs.load(Ordering::SeqCst), 0);
    let record = session
        .runtime()
        .activities()
        .get(&out.activity_id)
        .await
        .unwrap();
    assert_eq!(record.status, ActivityStatus::Failure);
}

#[tokio::test]
async fn approve_all_runs_the_call() {
    let risky = Risky::default();
    let runtime = Runtime::builder(registry(|b| b.register(risky.clone())))
        .approver(ApproveAll)
        .build();
    let out = runtime
        .session()
        .call(call("c1", "risky", json!({"key": "k"})))
        .await;
    assert_eq!(out.to_json(), json!({"key": "k", "run": 1}));
}

#[tokio::test]
async fn fn_approver_sees_the_request_and_decides() {
    let seen = approvals();
    let log = seen.clone();
    let pm = PromptManager::default();
    let runtime = Runtime::builder(registry(|b| b.register(pm.clone()).register(Add)))
        .approver(FnApprover(move |r: &ApprovalRequest| {
            log.lock().unwrap().push(r.clone());
            if r.arguments["content"] == "ok" {
                ApprovalDecision::Approve
            } else {
                ApprovalDecision::Deny {
                    reason: Some("the user said no".into()),
                }
            }
        }))
        .require_approval("prompt_manager", Some("update"))
        .build();
    let session = runtime.session();

    // `view` is not gated.
    let out = session
        .call(call(
            "v",
            "prompt_manager",
            json!({"action": "view", "prompt_type": "name"}),
        ))
        .await;
    assert!(out.is_success());
    assert!(seen.lock().unwrap().is_empty());

    // `update` is, by the host's override.
    let out = session
        .call(call(
            "u1",
            "prompt_manager",
            json!({"action": "update", "prompt_type": "name", "content": "no"}),
        ))
        .await;
    let err = expect_err(&out);
    assert_kind(err, ErrorKind::ApprovalDenied);
    assert_eq!(err.message(), "the call was not approved: the user said no");
    {
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 1);
        let r = &seen[0];
        assert_eq!(r.call_id, "u1");
        assert_eq!(r.tool, "prompt_manager");
        assert_eq!(r.action.as_deref(), Some("update"));
        assert_eq!(
            r.arguments,
            json!({"action": "update", "prompt_type": "name", "content": "no"})
        );
        assert_eq!(
            r.signature,
            r#"prompt_manager(action="update", prompt_type="name", content="no")"#
        );
    }
    let out = session
        .call(call(
            "u2",
            "prompt_manager",
            json!({"action": "update", "prompt_type": "name", "content": "ok"}),
        ))
        .await;
    assert_eq!(
        out.to_json(),
        json!({"type": "update_result", "content": "ok"})
    );
    assert_eq!(pm.runs.load(Ordering::SeqCst), 2);
    // `add` is never gated.
    let out = session
        .call(call("a", "add", json!({"a": 1, "b": 1})))
        .await;
    assert!(out.is_success());
    assert_eq!(seen.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn require_approval_for_a_whole_tool() {
    let counted = Counted::default();
    let runtime = Runtime::builder(registry(|b| b.register(counted.clone())))
        .require_approval("counted", None)
        .build();
    let out = runtime
        .session()
        .call(call("c", "counted", json!({"key": "k"})))
        .await;
    assert_kind(expect_err(&out), ErrorKind::ApprovalDenied);
    assert_eq!(counted.runs.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn the_same_call_twice_in_a_turn_runs_once() {
    let counted = Counted::default();
    let session = session_of(|b| b.register(counted.clone()));
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
    let other_session = session.runtime().session();
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

// Regression: the redundancy cache was a tokio `OnceCell` that an identical call initialised
// with a placeholder error when it got there before the first call had started its own
// `get_or_init`; then no call ran and all answered "the first identical call did not finish"
// (a few rounds in ten thousand on 8 threads). Many short rounds give the race its chances;
// a 20 000-round run of this loop was clean after the fix.
#[tokio::test(flavor = "multi_thread", worker_threads = 8)]
async fn concurrent_identical_calls_run_once() {
    for round in 0..500 {
        let counted = Counted::default();
        let session = session_of(|b| b.register(counted.clone()));
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

#[async_trait::async_trait]
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

#[async_trait::async_trait]
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
    let session = session_of(|b| b.register(counter.clone()));
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
    let session = runtime.session();
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
    let approving = Runtime::builder(session.runtime().registry().clone())
        .approver(ApproveAll)
        .build()
        .session();
    approving.call(call("r1", "reader", json!({}))).await;
    let w = approving.call(call("w1", "writer", json!({}))).await;
    assert_eq!(w.to_json(), json!({"value": 1}));
    let r = approving.call(call("r2", "reader", json!({}))).await;
    assert_eq!(
        (r.duplicate_of.clone(), r.to_json()),
        (None, json!({"value": 1}))
    );
}

/// `counted` that echoes `key` into its errors and needs `read_files`.
#[derive(Clone, Default)]
struct Keyed {
    inner: Counted,
    context: Option<&'static str>,
}

#[async_trait::async_trait]
impl Tool for Keyed {
    type Input = CountedArgs;
    type Output = CountedOut;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("keyed", "Count, echoing the key into errors.")
            .permission(Permission::ReadFiles)
            .error_context(self.context.unwrap_or("key"))
    }
    async fn call(&self, ctx: &ToolContext, a: CountedArgs) -> Result<CountedOut, ToolError> {
        Tool::call(&self.inner, ctx, a).await
    }
}

#[tokio::test]
async fn error_context_is_echoed_into_every_error_of_the_tool() {
    let session = session_of(|b| b.register(Keyed::default()));
    // The tool's own error, from value and from text arguments.
    let out = session
        .call(call("c1", "keyed", json!({"key": "k1", "fail": true})))
        .await;
    assert_eq!(expect_err(&out).fields()["key"], "k1");
    let out = session
        .call(call_text("c2", "keyed", r#"{"key": "k2", "fail": true}"#))
        .await;
    assert_eq!(expect_err(&out).fields()["key"], "k2");
    // A validation error (text arguments too) and a permission error.
    let out = session
        .call(call_text(
            "c3",
            "keyed",
            r#"{"key": "k3", "delay_ms": "soon"}"#,
        ))
        .await;
    assert_kind(expect_err(&out), ErrorKind::ValidationError);
    assert_eq!(out.to_json()["key"], "k3");
    let limited = session
        .runtime()
        .session_with(SessionConfig::default().permissions(PermissionSet::EMPTY));
    let out = limited
        .call(call("c4", "keyed", json!({"key": "k4"})))
        .await;
    assert_kind(expect_err(&out), ErrorKind::PermissionError);
    assert_eq!(out.to_json()["key"], "k4");
    // Not given (or null, or unreadable), not echoed; a success is left alone.
    let out = session
        .call(call("c5", "keyed", json!({"key": null})))
        .await;
    assert!(out.to_json().get("key").is_none(), "{}", out.to_json());
    let out = session.call(call_text("c6", "keyed", r#"{"key": "#)).await;
    assert!(out.to_json().get("key").is_none(), "{}", out.to_json());
    let out = session
        .call(call("c7", "keyed", json!({"key": "ok"})))
        .await;
    assert_eq!(out.to_json(), json!({"key": "ok", "run": 3}));

    // A name that is not a parameter is refused at registration.
    let err = Registry::builder()
        .register(Keyed {
            context: Some("kee"),
            ..Keyed::default()
        })
        .build()
        .unwrap_err();
    assert!(
        matches!(err, tool_core::RegistryError::Spec { .. }),
        "{err:?}"
    );
    assert!(
        err.to_string().contains(
            "error_context names `kee`, which is not a parameter of the tool; its parameters \
             are: key, delay_ms, fail"
        ),
        "{err}"
    );
}

// Regression: on a tokio runtime built without the time driver (`new_current_thread()` with
// no `enable_all()`), the deadline's timer panicked inside the tool's task and every call
// answered "the tool panicked".
#[test]
fn a_runtime_without_the_time_driver_is_told_to_enable_it() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let session = session_of(|b| b.register(Add));
    let out = rt.block_on(session.call(call("c1", "add", json!({"a": 1, "b": 2}))));
    let err = expect_err(&out);
    assert_kind(err, ErrorKind::SystemError);
    assert!(err.message().contains("enable_all()"), "{}", err.to_json());
    assert!(!err.message().contains("panicked"), "{}", err.to_json());
    assert_eq!(err.signature(), Some("add(a=1, b=2)"));
    let record = rt
        .block_on(session.runtime().activities().get(&out.activity_id))
        .unwrap();
    assert_eq!(record.status, ActivityStatus::Failure);
}

#[tokio::test]
async fn a_call_past_its_deadline_times_out_and_is_cancelled() {
    let sleepy = Sleepy {
        timeout: Some(Duration::from_millis(50)),
        ..Sleepy::default()
    };
    let session = session_of(|b| b.register(sleepy.clone()));
    let out = session
        .call(call("c1", "sleepy", json!({"ms": 10_000})))
        .await;
    assert_eq!(
        expect_err(&out).to_json(),
        json!({
            "type": "error",
            "error_type": "timeout",
            "error": "sleepy(ms=10000): the call did not finish within 50 ms",
            "suggestion": "Try a smaller request, or raise the tool's timeout if it allows one."
        })
    );
    let token = sleepy
        .token
        .lock()
        .unwrap()
        .clone()
        .expect("the tool started");
    assert!(
        token.is_cancelled(),
        "the tool's token is cancelled at the deadline"
    );
    assert!(out.elapsed < Duration::from_secs(5));

    // A call within its deadline is fine (a roomy deadline, so a loaded machine passes).
    let roomy = Sleepy {
        timeout: Some(Duration::from_secs(30)),
        ..Sleepy::default()
    };
    let session = session_of(|b| b.register(roomy.clone()));
    let out = session.call(call("c2", "sleepy", json!({"ms": 1}))).await;
    assert_eq!(out.to_json(), json!({"slept_ms": 1}));
}

#[tokio::test]
async fn runtime_default_and_max_timeouts() {
    let sleepy = Sleepy::default();
    let runtime = Runtime::builder(registry(|b| b.register(sleepy.clone())))
        .default_timeout(Duration::from_millis(60))
        .build();
    let out = runtime
        .session()
        .call(call("c1", "sleepy", json!({"ms": 10_000})))
        .await;
    assert_eq!(
        expect_err(&out).message(),
        "the call did not finish within 60 ms"
    );

    let long = Sleepy {
        timeout: Some(Duration::from_secs(3600)),
        ..Sleepy::default()
    };
    let runtime = Runtime::builder(registry(|b| b.register(long.clone())))
        .max_timeout(Duration::from_millis(70))
        .build();
    let out = runtime
        .session()
        .call(call("c1", "sleepy", json!({"ms": 10_000})))
        .await;
    assert_eq!(
        expect_err(&out).message(),
        "the call did not finish within 70 ms"
    );

    // A huge timeout does not overflow the deadline.
    let huge = Sleepy {
        timeout: Some(Duration::MAX),
        ..Sleepy::default()
    };
    let runtime = Runtime::builder(registry(|b| b.register(huge.clone())))
        .max_timeout(Duration::MAX)
        .build();
    let out = runtime
        .session()
        .call(call("c1", "sleepy", json!({"ms": 1})))
        .await;
    assert!(out.is_success(), "{}", out.to_json());
}

#[tokio::test]
async fn cancelling_the_session_cancels_running_and_later_calls() {
    let sleepy = Sleepy::default();
    let session = session_of(|b| b.register(sleepy.clone()).register(Add));
    let running = {
        let s = session.clone();
        tokio::spawn(async move { s.call(call("c1", "sleepy", json!({"ms": 10_000}))).await })
    };
    sleepy.started.notified().await;
    session.cancel();
    let out = running.await.unwrap();
    assert_eq!(
        expect_err(&out).to_json(),
        json!({
            "type": "error",
            "error_type": "cancelled",
            "error": "sleepy(ms=10000): the call was cancelled"
        })
    );
    assert!(
        sleepy
            .token
            .lock()
            .unwrap()
            .as_ref()
            .unwrap()
            .is_cancelled()
    );
    let record = session
        .runtime()
        .activities()
        .get(&out.activity_id)
        .await
        .unwrap();
    assert_eq!(record.status, ActivityStatus::Failure);

    let later = session
        .call(call("c2", "add", json!({"a": 1, "b": 2})))
        .await;
    assert_eq!(
        expect_err(&later).to_json(),
        json!({
            "type": "error",
            "error_type": "cancelled",
            "error": "add(a=1, b=2): the call was cancelled"
        })
    );
    // Other sessions are unaffected.
    let other = session.runtime().session();
    assert!(
        other
            .call(call("c3", "add", json!({"a": 1, "b": 2})))
            .await
            .is_success()
    );
}

#[tokio::test]
async fn a_panicking_tool_is_a_system_error() {
    let session = session_of(|b| b.register(Panicky));
    let out = session.call(call("c1", "panicky", json!({}))).await;
    assert_eq!(
        expect_err(&out).to_json(),
        json!({
            "type": "error",
            "error_type": "system_error",
            "error": "panicky(): the tool panicked; this is a bug in the tool, not in the call"
        })
    );
    let record = session
        .runtime()
        .activities()
        .get(&out.activity_id)
        .await
        .unwrap();
    assert_eq!(record.status, ActivityStatus::Failure);
    assert_eq!(
        record.error.as_deref(),
        Some("panicky(): the tool panicked; this is a bug in the tool, not in the call")
    );
}

/// Tracks how many calls run at once.
#[derive(Clone, Default)]
struct Gauge {
    now: Arc<AtomicUsize>,
    max: Arc<AtomicUsize>,
}

#[async_trait::async_trait]
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
    #[async_trait::async_trait]
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
    let first = {
        let s = s.clone();
        tokio::spawn(async move { s.call(call("c1", "sleepy", json!({"ms": 1500}))).await })
    };
    slow.started.notified().await;
    let second = s.call(call("c2", "quick", json!({"ms": 5}))).await;
    assert!(second.is_success(), "{}", second.to_json());
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
            .get(&o.activity_id)
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_abandoned_call_stops_its_tool_and_frees_its_duplicates() {
    // The deadline is long enough that a loaded machine cannot hit it before the test
    // abandons the first call, and short enough for the last call to time out quickly.
    let sleepy = Sleepy {
        timeout: Some(Duration::from_secs(2)),
        ..Sleepy::default()
    };
    let session = session_of(|b| b.register(sleepy.clone()));
    let args = json!({"ms": 60_000});
    let (drop_tx, drop_rx) = tokio::sync::oneshot::channel::<()>();
    let first = {
        let (s, args) = (session.clone(), args.clone());
        tokio::spawn(async move {
            tokio::select! {
                _ = s.call(call("c1", "sleepy", args)) => panic!("the first call cannot finish"),
                _ = drop_rx => {}
            }
        })
    };
    sleepy.started.notified().await;
    let duplicate = {
        let (s, args) = (session.clone(), args.clone());
        tokio::spawn(async move { s.call(call("c2", "sleepy", args)).await })
    };
    // Wait until the duplicate is waiting (its record exists), then abandon the first call.
    while session.runtime().activities().list().await.len() < 2 {
        tokio::task::yield_now().await;
    }
    drop_tx.send(()).unwrap();
    first.await.unwrap();
    let token = sleepy.token.lock().unwrap().take().unwrap();
    assert!(
        token.is_cancelled(),
        "the abandoned call's tool was told to stop"
    );

    let dup = duplicate.await.unwrap();
    assert_eq!(dup.duplicate_of.as_deref(), Some("c1"));
    assert_eq!(
        expect_err(&dup).to_json(),
        json!({
            "type": "error",
            "error_type": "system_error",
            "error": "sleepy(ms=60000): the identical call `c1` was abandoned before it finished; call again"
        })
    );
    // The same call again runs afresh (and times out at 2 s here).
    let again = session.call(call("c3", "sleepy", args)).await;
    assert_eq!(again.duplicate_of, None);
    assert_kind(expect_err(&again), ErrorKind::Timeout);
}
