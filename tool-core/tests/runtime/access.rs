//! The runtime's checks before a tool runs: mode and permission checks (the tool's and the
//! chosen action's), validation before approval, and the approval gate (deny by default,
//! approve all, a function that decides, approval for a whole tool).

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use serde_json::json;
use tool_core::{
    ActivityStatus, ApprovalDecision, ApprovalRequest, ApproveAll, ErrorKind, FnApprover, Mode,
    Permission, PermissionSet, Runtime, SessionConfig, ToolSpec,
};

use crate::support::*;

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
            "error": r#"risky(key="k"): the call was not approved: `risky`'s declaration (requires_approval) asks for approval and this host has no one to ask"#,
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
