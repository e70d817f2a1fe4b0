//! The scripted model and the agent loop (`testing::ScriptedModel`, `AgentLoop`) in every
//! dialect: arguments a model writes as text with a number in quotes are repaired and run, an
//! unknown tool is answered with the nearest name, a misspelled parameter with the one meant,
//! and the model corrects itself from what it reads; each dialect's result messages.

use serde_json::{Value, json};
use tool_core::ErrorKind;
use tool_core::testing::{AgentLoop, Dialect, ScriptedCall, ScriptedModel, Turn};

use crate::support::*;

/// The text of the last tool result in `conversation`, in any dialect.
fn last_result(conversation: &[Value]) -> String {
    let last = conversation.last().cloned().unwrap_or_default();
    let text = last["content"]
        .as_str()
        .or_else(|| last["output"].as_str())
        .or_else(|| last["content"][0]["content"].as_str());
    text.unwrap_or_default().to_owned()
}

#[tokio::test]
async fn a_scripted_model_runs_repairs_and_corrects_itself_in_every_dialect() {
    for &dialect in Dialect::ALL {
        let session = tool_core::Runtime::builder(registry(|b| b.register(Add)))
            .build()
            .session();
        let mut model = ScriptedModel::new(dialect)
            .call_raw("add", r#"{"a": "2", "b": 3}"#)
            .call("ad", json!({"a": 1, "b": 1}))
            .then(|conversation| {
                // It reads the nearest name from the error and calls it, misspelling `b`.
                let error = last_result(conversation);
                let name = if error.contains("add") { "add" } else { "ad" };
                Turn::Calls(vec![ScriptedCall::new(name, json!({"a": 1, "bb": 1}))])
            })
            .then(|conversation| {
                let error = last_result(conversation);
                let field = if error.contains("\"b\"") || error.contains("`b`") {
                    "b"
                } else {
                    "bb"
                };
                Turn::Calls(vec![ScriptedCall::new("add", json!({"a": 1, field: 1}))])
            })
            .text("done");
        let transcript = AgentLoop::new(&session).run(&mut model, "add things").await;
        let label = format!("{dialect:?}");
        assert_eq!(
            transcript.answer.as_deref(),
            Some("done"),
            "{label}: {transcript:?}"
        );
        let outcomes = &transcript.outcomes;
        assert_eq!(outcomes.len(), 4, "{label}");
        assert_eq!(
            outcomes[0].to_json(),
            json!({"sum": 5}),
            "{label}: repaired"
        );
        assert_eq!(
            outcomes[1].error().map(|e| e.kind()),
            Some(ErrorKind::NotFound),
            "{label}"
        );
        assert_eq!(
            outcomes[2].error().map(|e| e.kind()),
            Some(ErrorKind::ValidationError),
            "{label}"
        );
        assert_eq!(
            outcomes[3].to_json(),
            json!({"sum": 2}),
            "{label}: corrected"
        );
        assert_eq!(transcript.errors().len(), 2);
        // Each dialect's result messages.
        let results = transcript.messages.iter().filter(|m| match dialect {
            Dialect::OpenaiChat => m["role"] == "tool",
            Dialect::OpenaiResponses => m["type"] == "function_call_output",
            Dialect::Anthropic => m["role"] == "user" && m["content"][0]["type"] == "tool_result",
            _ => false,
        });
        assert_eq!(results.count(), 4, "{label}: {:#?}", transcript.messages);
    }
}
