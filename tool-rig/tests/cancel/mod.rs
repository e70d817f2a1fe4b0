//! Cancellation: rig drops a tool call's future when its run is dropped; the session's call
//! is abandoned and its activity record ends `failure`.

use std::time::Duration;

use rig_agent::AgentBuilder;
use rig_core::test_utils::MockTurn;
use serde_json::json;
use tool_core::{
    ActivityRecord, ActivityStatus, NoArgs, Registry, Render, Runtime, SessionConfig, Tool,
    ToolContext, ToolError, ToolSpec,
};
use tool_rig::RigTools;

use crate::support::{MAX_TURNS, model};

/// A tool that waits an hour (the runtime ends it when its call is cancelled or dropped).
struct Wait;

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Waited {}
impl Render for Waited {}

impl Tool for Wait {
    type Input = NoArgs;
    type Output = Waited;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("wait", "Wait for a long time.")
    }
    async fn call(&self, _: &ToolContext, _: NoArgs) -> Result<Waited, ToolError> {
        tokio::time::sleep(Duration::from_secs(3600)).await;
        Ok(Waited {})
    }
}

/// Polls the runtime's records until `done` holds for them (at most 10 s).
async fn records_until(
    runtime: &Runtime,
    done: impl Fn(&[ActivityRecord]) -> bool,
) -> Vec<ActivityRecord> {
    for _ in 0..1000 {
        let records = runtime.activities().list().await;
        if done(&records) {
            return records;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    runtime.activities().list().await
}

#[tokio::test]
async fn dropping_the_run_abandons_the_call_and_ends_its_record() {
    let registry = Registry::builder()
        .register(Wait)
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let runtime = Runtime::builder(registry).build();
    let tools = RigTools::new(runtime.session_with(SessionConfig::default().turns(true)));
    let model = model([
        MockTurn::tool_call("c1", "wait", json!({})),
        MockTurn::text("done"),
    ]);
    let agent = tools.attach(AgentBuilder::new(model.clone())).build();
    let runner = agent.prompt("Wait").max_turns(MAX_TURNS);
    let run = tokio::spawn(async move { runner.await });

    let running = records_until(&runtime, |r| {
        r.iter().any(|r| r.status == ActivityStatus::InProgress)
    })
    .await;
    assert_eq!(running.len(), 1, "{running:?}");
    run.abort();
    assert!(run.await.is_err_and(|e| e.is_cancelled()));

    // The agent itself is still here: dropping the run alone ended the call.
    let ended = records_until(&runtime, |r| r.iter().all(|r| r.status.is_terminal())).await;
    assert_eq!(ended.len(), 1, "{ended:?}");
    assert_eq!(ended[0].status, ActivityStatus::Failure, "{ended:?}");
    let error = ended[0].error.as_deref().unwrap_or_default();
    assert!(error.contains("abandoned"), "{error}");
    assert_eq!(model.request_count(), 1);
    drop(agent);
}

#[tokio::test]
async fn a_cancelled_session_answers_rig_with_cancelled() {
    let registry = Registry::builder()
        .register(Wait)
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let runtime = Runtime::builder(registry).build();
    let tools = RigTools::new(runtime.session());
    let Some(wait) = tools.tools().into_iter().next() else {
        panic!("no tool");
    };
    let session = tools.session().clone();
    let call = tokio::spawn(async move { wait.execute(json!({})).await });
    records_until(&runtime, |r| {
        r.iter().any(|r| r.status == ActivityStatus::InProgress)
    })
    .await;

    session.cancel();

    let answered = call.await.unwrap_or_else(|e| panic!("{e}"));
    let error = answered
        .err()
        .unwrap_or_else(|| panic!("a cancelled call succeeded"));
    assert_eq!(error.kind(), rig_core::tool::ToolErrorKind::Cancelled);
    assert_eq!(error.code(), Some("cancelled"));
}
