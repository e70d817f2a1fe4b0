//! Deadlines and cancellation in the runtime: the time driver a deadline needs, a call past
//! its deadline, the default and maximum timeouts, cancelling a session, and an abandoned
//! call that stops its tool and frees its duplicates.

use std::time::Duration;

use serde_json::json;
use tool_core::{ActivityStatus, ErrorKind, Runtime};

use crate::support::*;

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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_abandoned_call_stops_its_tool_and_frees_its_duplicates() {
    // The deadline is long enough that a loaded machine cannot hit it before the test
    // abandons the first call, and short enough for the last call to time out quickly.
    let sleepy = Sleepy {
        timeout: Some(Duration::from_secs(2)),
        ..Sleepy::default()
    };
    let session = turn_session_of(|b| b.register(sleepy.clone()));
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

/// Clones its context before anything asked for the call's token (the runtime makes the
/// token only when first asked for), hands the clone to a task of its own, then sleeps.
#[derive(Clone, Default)]
struct Handoff {
    /// Set by the task once the clone's token fired.
    seen: std::sync::Arc<tokio::sync::Notify>,
}

impl tool_core::Tool for Handoff {
    type Input = tool_core::NoArgs;
    type Output = serde_json::Value;
    fn spec(&self) -> tool_core::ToolSpec {
        tool_core::ToolSpec::new("handoff", "Hand the context to a task.")
            .timeout(Duration::from_millis(50))
    }
    async fn call(
        &self,
        ctx: &tool_core::ToolContext,
        _: tool_core::NoArgs,
    ) -> Result<serde_json::Value, tool_core::ToolError> {
        assert!(!ctx.is_cancelled());
        let clone = ctx.clone();
        let seen = self.seen.clone();
        tokio::spawn(async move {
            clone.cancellation().cancelled().await;
            seen.notify_one();
        });
        tokio::time::sleep(Duration::from_secs(30)).await;
        Ok(json!({}))
    }
}

#[tokio::test]
async fn a_context_cloned_before_its_token_was_made_sees_the_deadline() {
    let tool = Handoff::default();
    let session = session_of(|b| b.register(tool.clone()));
    let out = session.call(call("c1", "handoff", json!({}))).await;
    assert_kind(expect_err(&out), ErrorKind::Timeout);
    tokio::time::timeout(Duration::from_secs(10), tool.seen.notified())
        .await
        .expect("the clone's token fired at the deadline");
}

/// Answers whether its call is cancelled, never asking for the token itself.
struct Cancelled;

impl tool_core::Tool for Cancelled {
    type Input = tool_core::NoArgs;
    type Output = serde_json::Value;
    fn spec(&self) -> tool_core::ToolSpec {
        tool_core::ToolSpec::new("cancelled", "Whether the call is cancelled.")
    }
    async fn call(
        &self,
        ctx: &tool_core::ToolContext,
        _: tool_core::NoArgs,
    ) -> Result<serde_json::Value, tool_core::ToolError> {
        Ok(json!({"cancelled": ctx.is_cancelled()}))
    }
}

#[tokio::test]
async fn a_call_that_never_made_its_token_is_not_cancelled() {
    let session = session_of(|b| b.register(Cancelled));
    let out = session.call(call("c1", "cancelled", json!({}))).await;
    assert_eq!(out.to_json(), json!({"cancelled": false}));
}

/// Sleeps with a guard that records, when the tool's future is dropped, whether its token
/// had fired by then.
#[derive(Clone, Default)]
struct Guarded {
    started: std::sync::Arc<tokio::sync::Notify>,
    cancelled_at_drop: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

struct DropGuard(
    tokio_util::sync::CancellationToken,
    std::sync::Arc<std::sync::atomic::AtomicBool>,
);

impl Drop for DropGuard {
    fn drop(&mut self) {
        self.1
            .store(self.0.is_cancelled(), std::sync::atomic::Ordering::SeqCst);
    }
}

impl tool_core::Tool for Guarded {
    type Input = tool_core::NoArgs;
    type Output = serde_json::Value;
    fn spec(&self) -> tool_core::ToolSpec {
        tool_core::ToolSpec::new("guarded", "Sleep with a guard.")
    }
    async fn call(
        &self,
        ctx: &tool_core::ToolContext,
        _: tool_core::NoArgs,
    ) -> Result<serde_json::Value, tool_core::ToolError> {
        let _guard = DropGuard(ctx.cancellation().clone(), self.cancelled_at_drop.clone());
        self.started.notify_one();
        tokio::time::sleep(Duration::from_secs(30)).await;
        Ok(json!({}))
    }
}

#[tokio::test]
async fn a_call_cancelled_by_its_own_token_fires_the_tools_token_before_dropping_it() {
    let tool = Guarded::default();
    let session = session_of(|b| b.register(tool.clone()).register(Add));
    let token = tokio_util::sync::CancellationToken::new();
    let started = tool.started.notified();
    let call_token = token.clone();
    let running = session.call_with(
        call("c1", "guarded", json!({})),
        tool_core::CallOptions::new().cancel(call_token),
    );
    let (out, ()) = tokio::join!(running, async {
        started.await;
        token.cancel();
    });
    assert_kind(expect_err(&out), ErrorKind::Cancelled);
    assert!(
        tool.cancelled_at_drop
            .load(std::sync::atomic::Ordering::SeqCst),
        "the tool's guard saw its token cancelled"
    );
    let record = session
        .runtime()
        .activities()
        .get(&out.activity_id)
        .await
        .expect("record");
    assert_eq!(record.status, ActivityStatus::Failure);

    // The call's token was the call's alone: the session goes on.
    let out = session
        .call(call("c2", "add", json!({"a": 1, "b": 2})))
        .await;
    assert!(out.result.is_ok(), "{}", out.to_json());
}
