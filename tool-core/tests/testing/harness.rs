//! The harness (`testing::Harness`): a call through the runtime's whole path gives back its
//! typed result, the model's text, its record and events; an error is asserted by kind and
//! carries its fields; the scripted approver answers in order and records what it was asked;
//! a wrong expectation fails with the call's own text.

use serde_json::json;
use tool_core::testing::{Harness, ScriptedApprover};
use tool_core::{ActivityStatus, ApprovalDecision, ApprovedBy, ErrorKind, EventKind};

use crate::support::*;

#[tokio::test]
async fn a_call_gives_back_its_result_text_record_and_events() {
    let harness = Harness::builder(registry(|b| b.register(Add))).build();
    let called = harness.call("add", json!({"a": 2, "b": 3})).await;
    assert_eq!(called.output::<Sum>(), &Sum { sum: 5 });
    assert_eq!(called.json(), json!({"sum": 5}));
    assert!(called.text.contains('5'), "{}", called.text);
    assert_eq!(called.record().status, ActivityStatus::Success);
    let kinds: Vec<EventKind> = called.events.iter().map(|e| e.kind).collect();
    assert_eq!(kinds, [EventKind::ToolCallStart, EventKind::ToolCallEnd]);

    // A validation error, asserted by kind, with the problems it names.
    let bad = harness.call("add", json!({"a": "two", "b": 3})).await;
    let error = bad.expect_err(ErrorKind::ValidationError);
    assert_eq!(error.problems()[0].field().as_deref(), Some("a"));
    assert_eq!(bad.record().status, ActivityStatus::Failure);
    // A misspelled tool: not found, naming the nearest.
    let missing = harness.call("ad", json!({})).await;
    missing.expect_err(ErrorKind::NotFound);
    assert!(
        missing.json().to_string().contains("add"),
        "{}",
        missing.json()
    );
}

#[tokio::test]
async fn wrong_expectations_fail_with_the_calls_text() {
    let harness = Harness::builder(registry(|b| b.register(Add))).build();
    let bad = harness.call("add", json!({"a": "two", "b": 3})).await;
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        bad.output::<Sum>();
    }))
    .unwrap_err();
    let text = panic.downcast_ref::<String>().unwrap();
    assert!(
        text.starts_with("`add` failed: ") && text.contains("`a`"),
        "{text}"
    );
    let good = harness.call("add", json!({"a": 1, "b": 1})).await;
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        good.expect_err(ErrorKind::ValidationError);
    }))
    .unwrap_err();
    let text = panic.downcast_ref::<String>().unwrap();
    assert!(
        text.contains("succeeded where a validation_error error was expected"),
        "{text}"
    );
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        bad.expect_err(ErrorKind::NotFound);
    }))
    .unwrap_err();
    let text = panic.downcast_ref::<String>().unwrap();
    assert!(
        text.contains("failed with validation_error where not_found was expected"),
        "{text}"
    );
}

#[tokio::test]
async fn the_scripted_approver_answers_in_order_and_records_what_it_was_asked() {
    let risky = Risky::default();
    let harness = Harness::builder(registry(|b| b.register(risky.clone())))
        .approver(ScriptedApprover::answers([
            ApprovalDecision::ApproveAs(ApprovedBy::UserOnce),
            ApprovalDecision::Deny {
                reason: Some("no".into()),
            },
        ]))
        .build();
    let first = harness.call("risky", json!({"key": "a"})).await;
    first.expect_ok();
    assert_eq!(
        first.record().allowed.as_ref().map(|a| a.by),
        Some(ApprovedBy::UserOnce)
    );
    let second = harness.call("risky", json!({"key": "b"})).await;
    assert!(
        second
            .expect_err(ErrorKind::ApprovalDenied)
            .message()
            .contains("not approved: no")
    );
    // Past the script: denied.
    let third = harness.call("risky", json!({"key": "c"})).await;
    third.expect_err(ErrorKind::ApprovalDenied);
    let asked: Vec<String> = harness
        .asked()
        .iter()
        .map(|r| r.arguments["key"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(asked, ["a", "b", "c"]);
    assert_eq!(
        risky.inner.runs.load(std::sync::atomic::Ordering::SeqCst),
        1
    );

    // Never: nothing runs.
    let harness = Harness::builder(registry(|b| b.register(Risky::default())))
        .approver(ScriptedApprover::never())
        .build();
    harness
        .call("risky", json!({"key": "a"}))
        .await
        .expect_err(ErrorKind::ApprovalDenied);
}
