//! Rules on a call's path: an allowed command runs without asking, an asked one reaches the
//! approver (once) with its rule, a denied one and a refused command never do.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use tool_core::Effect;
use tool_core::{ApprovalDecision, ApprovalRequest, FnApprover, Runtime, Session, ToolCall};
use tool_std::shell::ShellConfig;
use tool_std::trust::rules::StandardPolicy;

use crate::support::inventory_registry;
use crate::support::shell::helper;

/// What [`session`] makes: the temp dir (kept alive), the main root, the session, how many
/// times the approver was asked, and the rule each request named.
type Rig = (
    tempfile::TempDir,
    std::path::PathBuf,
    Session,
    Arc<AtomicUsize>,
    Arc<std::sync::Mutex<Vec<Option<String>>>>,
);

/// A session over the rules' workspace with `rules`, whose approver counts what it is asked
/// and answers `approve`; the rule each request named is kept.
fn session(rules: &[(Effect, &str)], approve: bool) -> Rig {
    let (tmp, ws) = super::workspace();
    let main = ws.roots()[0].path().to_path_buf();
    let mut shell = ShellConfig::default();
    shell.sandbox.helper = Some(helper());
    let shell = Arc::new(shell);
    let registry = inventory_registry();
    let mut builder = StandardPolicy::builder(&registry, ws.clone()).shell(shell.clone());
    for (effect, rule) in rules {
        builder = builder.rules(*effect, [*rule]);
    }
    let policy = builder.build().expect("policy");
    let asked = Arc::new(AtomicUsize::new(0));
    let rules_seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let (count, seen) = (asked.clone(), rules_seen.clone());
    let approver = FnApprover(move |r: &ApprovalRequest| {
        count.fetch_add(1, Ordering::SeqCst);
        seen.lock().unwrap().push(r.rule.clone());
        if approve {
            ApprovalDecision::Approve
        } else {
            ApprovalDecision::Deny {
                reason: Some("the user declined".into()),
            }
        }
    });
    let runtime = Runtime::builder(registry)
        .service(Arc::new((*ws).clone()))
        .service(shell)
        .policy(Arc::new(policy))
        .approver(approver)
        .dedupe(false)
        .build();
    (tmp, main, runtime.session(), asked, rules_seen)
}

async fn run(session: &Session, command: &str) -> Value {
    let args = json!({"command": command}).to_string();
    session
        .call(ToolCall::new("t", "bash", args))
        .await
        .to_json()
}

fn kind(answer: &Value) -> &str {
    answer["error_type"].as_str().unwrap_or("ok")
}

#[tokio::test]
async fn an_allowed_command_runs_without_asking() {
    let (_tmp, main, s, asked, _) = session(&[(Effect::Allow, "bash(touch ran*)")], false);
    let answer = run(&s, "touch ran").await;
    assert_eq!(kind(&answer), "ok", "{answer}");
    assert!(main.join("ran").exists());
    assert_eq!(asked.load(Ordering::SeqCst), 0);
    // Not allowed by the prefix: the declaration asks, and this approver declines.
    let answer = run(&s, "touch ran; touch other").await;
    assert_eq!(kind(&answer), "approval_denied", "{answer}");
    assert!(!main.join("other").exists());
    assert_eq!(asked.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn an_asked_command_reaches_the_approver_once_with_its_rule() {
    let (_tmp, main, s, asked, seen) = session(
        &[(Effect::Allow, "bash"), (Effect::Ask, "bash(touch *)")],
        true,
    );
    let answer = run(&s, "touch asked").await;
    assert_eq!(kind(&answer), "ok", "{answer}");
    assert!(main.join("asked").exists());
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    assert_eq!(
        *seen.lock().unwrap(),
        vec![Some("ask: bash(touch *)".to_owned())]
    );
    // `allow: bash` lets the rest run unasked.
    assert_eq!(kind(&run(&s, "true").await), "ok");
    assert_eq!(asked.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_declined_ask_names_the_rule_and_runs_nothing() {
    let (_tmp, main, s, asked, _) = session(&[(Effect::Ask, "bash(touch *)")], false);
    let answer = run(&s, "touch declined").await;
    assert_eq!(kind(&answer), "approval_denied", "{answer}");
    let message = answer["error"].as_str().unwrap_or_default();
    assert!(message.contains("the user declined"), "{message}");
    assert!(!main.join("declined").exists());
    assert_eq!(asked.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn denied_and_refused_commands_never_reach_the_approver() {
    let (_tmp, main, s, asked, _) = session(
        &[(Effect::Ask, "bash"), (Effect::Deny, "bash(touch *)")],
        true,
    );
    let answer = run(&s, "touch denied").await;
    assert_eq!(kind(&answer), "approval_denied", "{answer}");
    assert_eq!(answer["rule"], "deny: bash(touch *)", "{answer}");
    assert!(!main.join("denied").exists());
    // The refused list answers with bash's own error, before the approver is asked.
    let answer = run(&s, "rm -rf ~").await;
    assert_eq!(kind(&answer), "security_error", "{answer}");
    assert_eq!(answer["rule"], "recursive_delete_of_root_or_home");
    assert_eq!(asked.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn rules_hold_for_every_tool_not_only_those_that_ask() {
    // read_file needs no approval; a deny rule refuses it all the same, through a link too.
    let (_tmp, _main, s, asked, _) = session(&[(Effect::Deny, "read_file(secrets/**)")], true);
    for path in ["secrets/key", "src/inner/key", "main:secrets/key"] {
        let args = json!({"paths": [path]}).to_string();
        let answer = s
            .call(ToolCall::new("t", "read_file", args))
            .await
            .to_json();
        assert_eq!(kind(&answer), "approval_denied", "{path}: {answer}");
    }
    let args = json!({"paths": ["src/lib.rs"]}).to_string();
    let answer = s
        .call(ToolCall::new("t", "read_file", args))
        .await
        .to_json();
    assert_eq!(kind(&answer), "ok", "{answer}");
    assert_eq!(asked.load(Ordering::SeqCst), 0);
}
