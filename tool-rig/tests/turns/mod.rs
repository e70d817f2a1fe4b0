//! Turns: a session answers a call from an identical earlier one only within rig's model
//! turn (the hook marks it), and a session told of no turns never does.

use std::path::PathBuf;

use rig_agent::AgentBuilder;
use rig_agent::agent::{AgentHook, CompletionCallAction, CompletionCallEvent, HookContext};
use rig_core::completion::AssistantContent;
use rig_core::message::ToolName;
use rig_core::test_utils::MockTurn;
use serde_json::{Value, json};
use tool_core::SessionConfig;
use tool_core::testing::ScriptedApprover;
use tool_std::testing::TestWorkspace;

use crate::support::{self, MAX_TURNS, model, records, results_sent, run, text};

/// A hook that writes `content` to `path` before the model call `turn` (from 1): the file
/// changes between two model turns, behind the tools' back.
struct ChangeFileBefore {
    turn: usize,
    path: PathBuf,
    content: &'static str,
}

impl AgentHook for ChangeFileBefore {
    async fn on_completion_call(
        &self,
        _ctx: &HookContext,
        event: CompletionCallEvent<'_>,
    ) -> CompletionCallAction {
        if event.turn == self.turn
            && let Err(e) = std::fs::write(&self.path, self.content)
        {
            return CompletionCallAction::Stop(format!("cannot write the file: {e}"));
        }
        CompletionCallAction::Continue
    }
}

/// One model turn calling `read_file` on `path` under each of `ids`.
fn reads(path: &str, ids: &[&str]) -> MockTurn {
    let calls = ids.iter().map(|id| {
        let name = ToolName::new("read_file").unwrap_or_else(|e| panic!("{e}"));
        AssistantContent::tool_call(*id, name, json!({"paths": [path]}))
    });
    MockTurn::from_contents(calls)
}

#[tokio::test]
async fn the_same_read_in_two_model_turns_runs_twice_and_sees_the_change() {
    let ws = TestWorkspace::with_files([("notes.txt", "first version\n")]);
    let (harness, tools) = support::tools(&ws, ScriptedApprover::never());
    let model = model([
        reads("notes.txt", &["c1"]),
        reads("notes.txt", &["c2"]),
        MockTurn::text("done"),
    ]);
    let agent = tools
        .attach(AgentBuilder::new(model.clone()))
        .add_hook(ChangeFileBefore {
            turn: 2,
            path: ws.root().join("notes.txt"),
            content: "second version\n",
        })
        .build();

    let response = agent.prompt("Read it twice").max_turns(MAX_TURNS).await;

    assert!(response.is_ok(), "{response:?}");
    let first = text(&results_sent(&model, 1)[0]);
    let second = text(&results_sent(&model, 2)[1]);
    assert!(first.contains("first version"), "{first}");
    assert!(second.contains("second version"), "{second}");
    assert!(!second.contains("The same call"), "{second}");
    let records = records(&harness).await;
    assert_eq!(records.len(), 2, "{records:?}");
    assert!(records.iter().all(|r| !r.data.contains_key("duplicate_of")));
}

#[tokio::test]
async fn the_same_read_twice_in_one_model_turn_is_answered_once() {
    let ws = TestWorkspace::with_files([("notes.txt", "only version\n")]);
    let (harness, tools) = support::tools(&ws, ScriptedApprover::never());
    let model = model([reads("notes.txt", &["c1", "c2"]), MockTurn::text("done")]);

    run(&tools, &model, "Read it twice at once").await;

    let results = results_sent(&model, 1);
    assert_eq!(results.len(), 2, "{results:?}");
    let (first, second) = (text(&results[0]), text(&results[1]));
    assert!(first.contains("only version"), "{first}");
    assert!(!first.contains("The same call"), "{first}");
    // The second is answered from the first, and says so, naming the model's own call id.
    assert!(second.contains("The same call as `c1`"), "{second}");
    assert!(second.contains("only version"), "{second}");
    let records = records(&harness).await;
    let duplicates: Vec<&Value> = records
        .iter()
        .filter_map(|r| r.data.get("duplicate_of"))
        .collect();
    assert_eq!(duplicates, [&json!("c1")], "{records:?}");
}

#[tokio::test]
async fn a_session_told_of_no_turns_runs_every_call() {
    let ws = TestWorkspace::with_files([("notes.txt", "only version\n")]);
    let (harness, tools) =
        support::tools_with(&ws, ScriptedApprover::never(), SessionConfig::default());
    let model = model([reads("notes.txt", &["c1", "c2"]), MockTurn::text("done")]);

    run(&tools, &model, "Read it twice at once").await;

    let results = results_sent(&model, 1);
    assert_eq!(results.len(), 2, "{results:?}");
    for result in &results {
        let read = text(result);
        assert!(read.contains("only version"), "{read}");
        assert!(!read.contains("The same call"), "{read}");
    }
    let records = records(&harness).await;
    assert_eq!(records.len(), 2, "{records:?}");
    assert!(records.iter().all(|r| !r.data.contains_key("duplicate_of")));
}
