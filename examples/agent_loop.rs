//! A whole agent loop against a scripted model that speaks OpenAI's Chat Completions format:
//! the model's `tool_calls` are imported, run, and answered with `role: "tool"` messages; its
//! first call is bad, and it corrects itself from the error it reads.
//!
//! ```text
//! cargo run --example agent_loop
//! ```

use serde_json::{Value, json};
use toolsmith::provider::{Format, Importer, dispatch, export_all, rejected_import, result};
use toolsmith::{
    Action, Registry, Render, ResourcesTracker, Runtime, SessionConfig, ToolResult, ToolSelection,
    tool,
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

/// The scripted model: what it answers given the conversation so far. A real loop sends
/// `messages` and `tools` to the provider here.
fn model(messages: &[Value]) -> Value {
    let last = messages.last().cloned().unwrap_or(Value::Null);
    if last["role"] == "user" {
        // First try: a unit the tool does not know.
        return json!({"role": "assistant", "content": null, "tool_calls": [{
            "id": "call_1", "type": "function",
            "function": {"name": "to_metres", "arguments": "{\"value\": 10, \"unit\": \"yards\"}"}}]});
    }
    let text = last["content"].as_str().unwrap_or_default();
    if let Ok(error) = serde_json::from_str::<Value>(text)
        && error["type"] == "error"
    {
        // It reads the allowed values from the error and picks one.
        let unit = error["allowed_units"][1].as_str().unwrap_or("metres");
        return json!({"role": "assistant", "content": null, "tool_calls": [{
            "id": "call_2", "type": "function",
            "function": {"name": "to_metres", "arguments": json!({"value": 10, "unit": unit}).to_string()}}]});
    }
    json!({"role": "assistant", "content": format!("10 feet is {text}")})
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
    let mut tracker = ResourcesTracker::new();
    let mut messages = vec![json!({"role": "user", "content": "How long is 10 feet in metres?"})];
    // A bounded loop: a model that never stops calling tools is cut off.
    for _ in 0..8 {
        let reply = model(&messages);
        messages.push(reply.clone());
        let Some(calls) = reply.get("tool_calls") else {
            break;
        };
        let importer = Importer::new(session.runtime().registry());
        for imported in importer.openai_tool_calls(calls) {
            let outcome = match imported {
                Ok(call) => dispatch(&session, call).await,
                Err(e) => rejected_import(&e),
            };
            messages.push(result::openai_message(&outcome, &mut tracker));
        }
    }
    for m in &messages {
        println!("{m}");
    }
    let answer = messages
        .last()
        .and_then(|m| m["content"].as_str())
        .ok_or("no answer")?;
    assert!(answer.contains("3.048"), "{answer}");
    assert!(messages.iter().any(|m| {
        m["role"] == "tool"
            && m["content"]
                .as_str()
                .is_some_and(|c| c.contains("allowed_units"))
    }));
    Ok(())
}
