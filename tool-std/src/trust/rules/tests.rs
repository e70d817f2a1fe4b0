//! A `bash` call through the runtime with rules lexes its command line once.

use std::sync::Arc;

use tool_core::Effect;
use tool_core::{ApproveAll, Registry, Runtime, ToolCall};

use super::StandardPolicy;
use crate::shell::{SandboxMode, ShellConfig};
use crate::trust::command::lexed_on_this_thread;
use crate::workspace::Workspace;

/// Runs one `bash` call through a runtime with rules on a runtime of this thread alone,
/// and counts the command lines this thread lexed for it.
fn lexes_for_one_call(sandbox: SandboxMode) -> (usize, serde_json::Value) {
    let dir = tempfile::tempdir().expect("dir");
    let ws = Arc::new(
        Workspace::builder()
            .root("app", dir.path())
            .build()
            .expect("workspace"),
    );
    let mut config = ShellConfig::default();
    config.sandbox.mode = sandbox;
    config.sandbox.network_for = vec!["echo *".to_owned()];
    let config = Arc::new(config);
    let registry = Registry::builder()
        .with_inventory()
        .build()
        .expect("registry");
    let policy = StandardPolicy::builder(&registry, ws.clone())
        .rules(Effect::Allow, ["bash(echo *)"])
        .rules(Effect::Deny, ["bash(rm *)"])
        .shell(config.clone())
        .build()
        .expect("policy");
    let runtime = Runtime::builder(registry)
        .service(ws)
        .service(config)
        .policy(Arc::new(policy))
        .approver(ApproveAll)
        .build();
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio");
    let before = lexed_on_this_thread();
    let out = tokio.block_on(async {
        runtime
            .session()
            .call(ToolCall::new(
                "1",
                "bash",
                r#"{"command": "echo one && echo \"$(echo two)\""}"#,
            ))
            .await
            .to_json()
    });
    (lexed_on_this_thread() - before, out)
}

#[test]
fn a_bash_call_through_the_rules_lexes_its_command_line_once() {
    let (lexed, out) = lexes_for_one_call(SandboxMode::Off);
    assert_eq!(out["output"], "one\ntwo\n", "{out}");
    assert_eq!(
        lexed, 1,
        "the refused list, the rules and the tool share one parse"
    );
}

#[test]
fn a_sandboxed_bash_call_lexes_its_command_line_once() {
    let config = ShellConfig::default();
    let status = config.sandbox.status();
    if !status.available {
        eprintln!(
            "skipped: the sandbox is unavailable here ({})",
            status.reason.unwrap_or_default()
        );
        return;
    }
    let (lexed, out) = lexes_for_one_call(SandboxMode::On);
    assert_eq!(out["output"], "one\ntwo\n", "{out}");
    assert_eq!(lexed, 1, "the sandbox's network check reads the same parse");
}
