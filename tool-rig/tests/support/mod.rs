//! What the tests share: a session over the standard tools in a temporary workspace, an
//! agent over it with a scripted model, and readers of what the model was sent.

use std::sync::Arc;

use rig_agent::AgentBuilder;
use rig_agent::agent::PromptResponse;
use rig_core::completion::CompletionRequest;
use rig_core::message::{Message, ToolResult, UserContent};
use rig_core::test_utils::{MockCompletionModel, MockTurn};
use tool_core::testing::{Harness, ScriptedApprover};
use tool_core::{ActivityRecord, SessionConfig};
use tool_rig::RigTools;
use tool_std::testing::TestWorkspace;

/// The most model calls a test's run may make.
pub(crate) const MAX_TURNS: usize = 8;

/// A harness over the standard tools working in `ws`, its session built with turns (as an
/// agent's is), approval answered by `approver`; and the session's tools for rig.
pub(crate) fn tools(ws: &TestWorkspace, approver: Arc<ScriptedApprover>) -> (Harness, RigTools) {
    tools_with(ws, approver, SessionConfig::default().turns(true))
}

/// [`tools`] with the session built from `config`.
pub(crate) fn tools_with(
    ws: &TestWorkspace,
    approver: Arc<ScriptedApprover>,
    config: SessionConfig,
) -> (Harness, RigTools) {
    let harness = ws.harness().approver(approver).session(config).build();
    let tools = RigTools::new(harness.session().clone());
    (harness, tools)
}

/// A scripted model answering with `turns`, one per model call.
pub(crate) fn model(turns: impl IntoIterator<Item = MockTurn>) -> MockCompletionModel {
    MockCompletionModel::from_turns(turns)
}

/// Runs an agent over `model` with `tools` attached (tools and turn hook) on `prompt`.
///
/// # Panics
///
/// When the run fails: a tool's error is a tool result, never a failed run.
pub(crate) async fn run(
    tools: &RigTools,
    model: &MockCompletionModel,
    prompt: &str,
) -> PromptResponse {
    let agent = tools.attach(AgentBuilder::new(model.clone())).build();
    match agent.prompt(prompt).max_turns(MAX_TURNS).await {
        Ok(response) => response,
        Err(e) => panic!("the run failed: {e:?}"),
    }
}

/// The tool results `request` carries (those of the turn before it), in order.
pub(crate) fn tool_results(request: &CompletionRequest) -> Vec<ToolResult> {
    let mut results = Vec::new();
    for message in &request.chat_history {
        if let Message::User { content } = message {
            for item in content {
                if let UserContent::ToolResult(result) = item {
                    results.push(result.clone());
                }
            }
        }
    }
    results
}

/// The tool results of the `n`-th request to `model` (from 0), for the model turns before it.
pub(crate) fn results_sent(model: &MockCompletionModel, n: usize) -> Vec<ToolResult> {
    let requests = model.requests();
    match requests.get(n) {
        Some(request) => tool_results(request),
        None => panic!("the model got {} requests, not {}", requests.len(), n + 1),
    }
}

/// The text of a tool result (its text blocks, joined).
pub(crate) fn text(result: &ToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The activity records of the harness's runtime, oldest first.
pub(crate) async fn records(harness: &Harness) -> Vec<ActivityRecord> {
    let mut records = harness.runtime().activities().list().await;
    records.sort_by_key(|r| r.started_at_ms);
    records
}
