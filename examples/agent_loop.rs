//! A whole agent loop against a scripted model that speaks OpenAI's Chat Completions format
//! (the testing kit's `ScriptedModel` and `AgentLoop`): the model's `tool_calls` are imported,
//! run, and answered with `role: "tool"` messages; its first call is bad, and it corrects
//! itself from the error it reads.
//!
//! ```text
//! cargo run --example agent_loop --features testing
//! ```

use serde_json::{Value, json};
use toolsmith::provider::{Format, export_all};
use toolsmith::testing::{AgentLoop, Dialect, ScriptedCall, ScriptedModel, Turn};
use toolsmith::{
    Action, Registry, Render, Runtime, SessionConfig, ToolResult, ToolSelection, tool,
};

/// A unit of length.
#[derive(Action, Clone, Copy)]
enum Unit {
    /// Metres.
    Metres,
    /// Feet.
    Feet,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Length {
    /// The length in metres.
    metres: f64,
}
impl Render for Length {}

/// Convert a length to metres.
#[tool(read_only, register = false)]
async fn to_metres(
    /// The length.
    value: f64,
    /// Its unit.
    unit: Unit,
) -> ToolResult<Length> {
    let metres = match unit {
        Unit::Metres => value,
        Unit::Feet => value * 0.3048,
    };
    Ok(Length { metres })
}

/// The last tool result the model read (Chat Completions: a `role: "tool"` message).
fn last_result(conversation: &[Value]) -> String {
    let last = conversation.last().cloned().unwrap_or(Value::Null);
    last["content"].as_str().unwrap_or_default().to_owned()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::builder().register(ToMetresTool).build()?;
    // The agent is offered, and may call, only the tools it needs (by name, alias or toolset);
    // the model is sent exactly those.
    let selected = ToolSelection::all().tool("to_metres").resolve(&registry)?;
    let session = Runtime::builder(registry)
        .build()
        .session_with(SessionConfig::default().tools(selected));
    let tools = export_all(session.offered().map(|e| &**e.spec()), Format::Openai)?;
    println!("tools: {}", tools.to_pretty());

    // The model, scripted (a real loop sends `messages` and `tools` to the provider instead):
    // first a unit the tool does not know; then the unit it reads from the error's allowed
    // values; then its answer from the result.
    let mut model = ScriptedModel::new(Dialect::OpenaiChat)
        .call("to_metres", json!({"value": 10, "unit": "yards"}))
        .then(|conversation| {
            let error: Value = serde_json::from_str(&last_result(conversation)).unwrap_or_default();
            let unit = error["allowed_units"][1]
                .as_str()
                .unwrap_or("metres")
                .to_owned();
            Turn::Calls(vec![ScriptedCall::new(
                "to_metres",
                json!({"value": 10, "unit": unit}),
            )])
        })
        .then(|conversation| Turn::Text(format!("10 feet is {}", last_result(conversation))));
    // The host's loop: import the model's calls (repairing what models get wrong), run them,
    // answer with `role: "tool"` messages, until the model answers with text.
    let transcript = AgentLoop::new(&session)
        .run(&mut model, "How long is 10 feet in metres?")
        .await;
    for m in &transcript.messages {
        println!("{m}");
    }
    let answer = transcript.answer.as_deref().ok_or("no answer")?;
    assert!(answer.contains("3.048"), "{answer}");
    assert!(transcript.messages.iter().any(|m| {
        m["role"] == "tool"
            && m["content"]
                .as_str()
                .is_some_and(|c| c.contains("allowed_units"))
    }));
    Ok(())
}
