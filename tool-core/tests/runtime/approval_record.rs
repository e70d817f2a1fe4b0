//! Approval in the record: a call waiting for its approver is `awaiting_approval` (with its
//! START and AWAITING_APPROVAL) until it is allowed (APPROVED, then it runs) or denied; each
//! allowed call's record says who allowed it and how long it waited, and its duration holds
//! the wait; a deferred question (MCP 2026-07-28's round) leaves the record waiting for the
//! call that continues it, or ends it when the question expires or the runtime goes.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::json;
use tokio::sync::{Mutex as AsyncMutex, oneshot};
use tool_core::EventFilter;
use tool_core::{
    ActivityRecord, ActivityStatus, ApprovalDecision, ApprovalRequest, ApproveAll, ApprovedBy,
    Approver, CallOptions, Continues, ErrorKind, Event, EventKind, Runtime,
};
use tool_core::{CallPolicy, PolicyCall, PolicyDecision};

use crate::support::*;

/// Answers with what the test sends it, after the call has asked.
struct Person {
    answer: AsyncMutex<Option<oneshot::Receiver<ApprovalDecision>>>,
}

impl Person {
    fn new() -> (Person, oneshot::Sender<ApprovalDecision>) {
        let (tx, rx) = oneshot::channel();
        let person = Person {
            answer: AsyncMutex::new(Some(rx)),
        };
        (person, tx)
    }
}

#[async_trait]
impl Approver for Person {
    async fn approve(&self, _: &ApprovalRequest) -> ApprovalDecision {
        let rx = self.answer.lock().await.take().expect("asked once");
        rx.await.unwrap_or(ApprovalDecision::Deny { reason: None })
    }
}

/// The record `id`, once `pred` holds of it (within 10 s).
async fn record_when(
    runtime: &Runtime,
    id: impl Fn() -> Option<String>,
    pred: impl Fn(&ActivityRecord) -> bool,
) -> ActivityRecord {
    for _ in 0..1000 {
        let records = runtime.activities().list().await;
        let found = match id() {
            Some(id) => records.into_iter().find(|r| r.id == id),
            None => records.into_iter().last(),
        };
        if let Some(r) = found.filter(|r| pred(r)) {
            return r;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("no record came to the state looked for");
}

fn kinds(events: &[Event], id: &str) -> Vec<EventKind> {
    events
        .iter()
        .filter(|e| e.call_id == id)
        .map(|e| e.kind)
        .collect()
}

fn drain(sub: &mut tool_core::Subscription) -> Vec<Event> {
    std::iter::from_fn(|| sub.try_recv()).collect()
}

#[tokio::test]
async fn a_call_waiting_for_someone_is_awaiting_approval_then_says_who_allowed_it() {
    let (person, answer) = Person::new();
    let risky = Risky::default();
    let runtime = Runtime::builder(registry(|b| b.register(risky.clone())))
        .approver(person)
        .build();
    let mut events = runtime.events().subscribe(EventFilter::All).unwrap();
    let session = runtime.session();
    let call =
        tokio::spawn(async move { session.call(call("c1", "risky", json!({"key": "k"}))).await });

    let waiting = record_when(
        &runtime,
        || None,
        |r| r.status == ActivityStatus::AwaitingApproval,
    )
    .await;
    assert_eq!(waiting.allowed, None);
    assert!(!waiting.status.is_terminal());
    assert_eq!(
        risky.inner.runs.load(std::sync::atomic::Ordering::SeqCst),
        0
    );
    let seen = drain(&mut events);
    assert_eq!(
        kinds(&seen, &waiting.id),
        [EventKind::ToolCallStart, EventKind::AwaitingApproval]
    );
    let asked = seen
        .iter()
        .find(|e| e.kind == EventKind::AwaitingApproval)
        .unwrap();
    assert_eq!(
        serde_json::to_value(asked).unwrap()["data"]["asked_by"],
        "`risky`'s declaration (requires_approval)"
    );

    tokio::time::sleep(Duration::from_millis(300)).await;
    answer
        .send(ApprovalDecision::ApproveAs(ApprovedBy::UserOnce))
        .unwrap();
    let out = call.await.unwrap();
    assert_eq!(out.to_json(), json!({"key": "k", "run": 1}));
    assert_eq!(&*out.activity_id, waiting.id);

    let record = runtime.activities().get(&waiting.id).await.unwrap();
    assert_eq!(record.status, ActivityStatus::Success);
    let allowed = record.allowed.clone().expect("how it was allowed");
    assert_eq!(allowed.by, ApprovedBy::UserOnce);
    assert!(allowed.waited_ms >= 300, "{allowed:?}");
    assert!(
        record.duration_ms().unwrap() >= allowed.waited_ms,
        "{record:?}"
    );
    assert_eq!(
        allowed.describe(),
        format!(
            "allowed by the user (once) after {:.1} s",
            allowed.waited_ms as f64 / 1000.0
        )
    );
    let json = serde_json::to_value(&record).unwrap();
    assert_eq!(json["allowed"]["by"], "user_once");
    let seen = drain(&mut events);
    assert_eq!(
        kinds(&seen, &waiting.id),
        [EventKind::Approved, EventKind::ToolCallEnd]
    );
}

#[tokio::test]
async fn a_call_denied_while_waiting_ends_failure_and_never_runs() {
    let (person, answer) = Person::new();
    let risky = Risky::default();
    let runtime = Runtime::builder(registry(|b| b.register(risky.clone())))
        .approver(person)
        .build();
    let mut events = runtime.events().subscribe(EventFilter::All).unwrap();
    let session = runtime.session();
    let call =
        tokio::spawn(async move { session.call(call("c1", "risky", json!({"key": "k"}))).await });
    let waiting = record_when(
        &runtime,
        || None,
        |r| r.status == ActivityStatus::AwaitingApproval,
    )
    .await;
    answer
        .send(ApprovalDecision::Deny {
            reason: Some("no".into()),
        })
        .unwrap();
    let out = call.await.unwrap();
    assert_kind(expect_err(&out), ErrorKind::ApprovalDenied);
    let record = runtime.activities().get(&waiting.id).await.unwrap();
    assert_eq!(record.status, ActivityStatus::Failure);
    assert_eq!(record.allowed, None);
    assert!(record.error.unwrap().contains("not approved: no"));
    assert_eq!(
        risky.inner.runs.load(std::sync::atomic::Ordering::SeqCst),
        0
    );
    assert_eq!(
        kinds(&drain(&mut events), &waiting.id),
        [
            EventKind::ToolCallStart,
            EventKind::AwaitingApproval,
            EventKind::Error
        ]
    );
}

/// Allows `risky` by the rule `allow: risky`.
struct AllowRisky;

impl CallPolicy for AllowRisky {
    fn decide(&self, call: &PolicyCall<'_>) -> PolicyDecision {
        match call.tool {
            "risky" => PolicyDecision::Allow {
                rule: Some("allow: risky".into()),
            },
            _ => PolicyDecision::Declared,
        }
    }
}

#[tokio::test]
async fn a_rule_or_approve_all_allows_without_a_wait() {
    // A rule: the record names it.
    let runtime = Runtime::builder(registry(|b| b.register(Risky::default()).register(Add)))
        .policy(Arc::new(AllowRisky))
        .build();
    let mut events = runtime.events().subscribe(EventFilter::All).unwrap();
    let out = runtime
        .session()
        .call(call("c1", "risky", json!({"key": "k"})))
        .await;
    let record = runtime.activities().get(&out.activity_id).await.unwrap();
    let allowed = record.allowed.expect("allowed");
    assert_eq!(
        (allowed.by, allowed.rule.as_deref(), allowed.waited_ms),
        (ApprovedBy::Rule, Some("allow: risky"), 0)
    );
    assert_eq!(allowed.describe(), "allowed by the rule `allow: risky`");
    assert_eq!(
        kinds(&drain(&mut events), &out.activity_id),
        [EventKind::ToolCallStart, EventKind::ToolCallEnd]
    );
    // A call nothing asked about says nothing of it.
    let out = runtime
        .session()
        .call(call("c2", "add", json!({"a": 1, "b": 2})))
        .await;
    let record = runtime.activities().get(&out.activity_id).await.unwrap();
    assert_eq!(record.allowed, None);
    assert!(
        serde_json::to_value(&record)
            .unwrap()
            .get("allowed")
            .is_none()
    );

    // --approve: allowed at once, never awaiting.
    let runtime = Runtime::builder(registry(|b| b.register(Risky::default())))
        .approver(ApproveAll)
        .build();
    let mut events = runtime.events().subscribe(EventFilter::All).unwrap();
    let out = runtime
        .session()
        .call(call("c1", "risky", json!({"key": "k"})))
        .await;
    let record = runtime.activities().get(&out.activity_id).await.unwrap();
    assert_eq!(
        record.allowed.map(|a| (a.by, a.waited_ms)),
        Some((ApprovedBy::ApproveAll, 0))
    );
    assert_eq!(
        kinds(&drain(&mut events), &out.activity_id),
        [EventKind::ToolCallStart, EventKind::ToolCallEnd]
    );
}

/// Defers every question (its answer to come with a later call), expiring after `ttl`.
struct Later {
    ttl: Duration,
}

#[async_trait]
impl Approver for Later {
    async fn approve(&self, _: &ApprovalRequest) -> ApprovalDecision {
        ApprovalDecision::Defer {
            reason: "asked through the client".into(),
            expires_at_ms: now_ms() + self.ttl.as_millis() as u64,
        }
    }
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

#[tokio::test]
async fn a_deferred_question_is_one_record_that_ends_as_the_answer_decides() {
    let risky = Risky::default();
    let runtime = Runtime::builder(registry(|b| b.register(risky.clone()))).build();
    let mut events = runtime.events().subscribe(EventFilter::All).unwrap();
    let session = runtime.session();
    let ask = CallOptions::new().approver(Arc::new(Later {
        ttl: Duration::from_secs(60),
    }));
    let asked_at = now_ms();
    let first = session
        .call_with(call("c1", "risky", json!({"key": "k"})), ask)
        .await;
    assert_kind(expect_err(&first), ErrorKind::ApprovalDenied);
    let id = first.activity_id.to_string();
    let record = runtime.activities().get(&id).await.unwrap();
    // The record began when the question was asked (within the first call).
    let began = record.started_at_ms;
    assert!(began >= asked_at, "{began} < {asked_at}");
    assert_eq!(
        record.status,
        ActivityStatus::AwaitingApproval,
        "not a failure: {record:?}"
    );
    assert_eq!(
        kinds(&drain(&mut events), &id),
        [EventKind::ToolCallStart, EventKind::AwaitingApproval]
    );

    tokio::time::sleep(Duration::from_millis(200)).await;
    let answer = CallOptions::new()
        .approver(Arc::new(tool_core::FnApprover(|_: &ApprovalRequest| {
            ApprovalDecision::ApproveAs(ApprovedBy::UserOnce)
        })))
        .continues(Continues::new(id.as_str(), asked_at));
    let second = session
        .call_with(call("c1", "risky", json!({"key": "k"})), answer)
        .await;
    assert_eq!(second.to_json(), json!({"key": "k", "run": 1}));
    assert_eq!(&*second.activity_id, id, "the same record goes on");
    let records = runtime.activities().list().await;
    assert_eq!(records.len(), 1, "one record for the round: {records:?}");
    let record = &records[0];
    assert_eq!(record.status, ActivityStatus::Success);
    assert_eq!(
        record.started_at_ms, began,
        "the round's one record began when it asked"
    );
    let allowed = record.allowed.clone().unwrap();
    assert_eq!(allowed.by, ApprovedBy::UserOnce);
    assert!(allowed.waited_ms >= 200, "{allowed:?}");
    // One START for the round (asked here), then its answer.
    assert_eq!(
        kinds(&drain(&mut events), &id),
        [EventKind::Approved, EventKind::ToolCallEnd]
    );

    // A round the user denies ends the one record `failure`.
    let first = session
        .call_with(
            call("c2", "risky", json!({"key": "no"})),
            CallOptions::new().approver(Arc::new(Later {
                ttl: Duration::from_secs(60),
            })),
        )
        .await;
    let id = first.activity_id.to_string();
    let denied = CallOptions::new()
        .approver(Arc::new(tool_core::FnApprover(|_: &ApprovalRequest| {
            ApprovalDecision::Deny {
                reason: Some("the user denied the call".into()),
            }
        })))
        .continues(Continues::new(id.as_str(), now_ms()));
    let second = session
        .call_with(call("c2", "risky", json!({"key": "no"})), denied)
        .await;
    assert_kind(expect_err(&second), ErrorKind::ApprovalDenied);
    let record = runtime.activities().get(&id).await.unwrap();
    assert_eq!(record.status, ActivityStatus::Failure);
    assert!(record.error.unwrap().contains("the user denied the call"));
    assert_eq!(runtime.activities().list().await.len(), 2);
    assert_eq!(
        risky.inner.runs.load(std::sync::atomic::Ordering::SeqCst),
        1
    );
}

#[tokio::test]
async fn a_question_nobody_answers_ends_when_it_expires_or_the_runtime_goes() {
    let runtime = Runtime::builder(registry(|b| b.register(Risky::default()))).build();
    let mut events = runtime.events().subscribe(EventFilter::All).unwrap();
    let later = |ms| {
        CallOptions::new().approver(Arc::new(Later {
            ttl: Duration::from_millis(ms),
        }))
    };
    let out = runtime
        .session()
        .call_with(call("c1", "risky", json!({"key": "k"})), later(200))
        .await;
    let id = out.activity_id.to_string();
    let record = record_when(&runtime, || Some(id.clone()), |r| r.status.is_terminal()).await;
    assert_eq!(record.status, ActivityStatus::Failure);
    assert!(
        record
            .error
            .unwrap()
            .contains("did not answer before the question expired"),
        "{id}"
    );
    assert_eq!(
        kinds(&drain(&mut events), &id),
        [
            EventKind::ToolCallStart,
            EventKind::AwaitingApproval,
            EventKind::Error
        ]
    );

    // The runtime goes while a question waits: its record ends.
    let store = runtime.activities().clone();
    let out = runtime
        .session()
        .call_with(call("c2", "risky", json!({"key": "k"})), later(60_000))
        .await;
    assert_eq!(
        store.get(&out.activity_id).await.unwrap().status,
        ActivityStatus::AwaitingApproval
    );
    drop(runtime);
    let record = store.get(&out.activity_id).await.unwrap();
    assert_eq!(record.status, ActivityStatus::Failure);
    assert!(
        record
            .error
            .unwrap()
            .contains("the server stopped before the user answered")
    );
}
