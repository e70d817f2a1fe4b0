//! What the `provider_import_*` tests share: the fixture registry and a session over it, the
//! one call an import yields, its arguments, the answer to it, and the paths of its problems.
#![allow(dead_code, unreachable_pub)]

use serde_json::{Value, json};
use tool_core::provider::{self, ImportError, Imported};
use tool_core::{Registry, Runtime, Session, ToolCall};

use crate::fixtures;

pub fn args(call: &ToolCall) -> Value {
    call.arguments.to_value().expect("valid JSON arguments")
}

pub fn one(results: Vec<Result<Imported, ImportError>>) -> Imported {
    assert_eq!(results.len(), 1, "{results:?}");
    results.into_iter().next().unwrap().expect("imports")
}

pub fn registry() -> Registry {
    fixtures::fixture_registry()
}

pub fn session(registry: Registry) -> Session {
    Runtime::builder(registry).build().session()
}

pub async fn answer(imported: Imported) -> Value {
    let session = session(registry());
    provider::dispatch(&session, imported).await.to_json()
}

pub fn openai_call(name: &str, arguments: Value) -> Value {
    json!({"id": "call_x", "type": "function", "function": {"name": name, "arguments": arguments}})
}

pub fn problem_paths(answer: &Value) -> Vec<String> {
    answer["problems"]
        .as_array()
        .map(|ps| {
            ps.iter()
                .map(|p| p["path"].as_str().unwrap_or("").to_owned())
                .collect()
        })
        .unwrap_or_default()
}
