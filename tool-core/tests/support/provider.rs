//! What the provider tests share: the fixture registry and a session over it, the one call an
//! import yields, its arguments, the answer to it, and the paths of its problems.

use serde_json::{Value, json};
use tool_core::provider::{self, Imported};
use tool_core::{Registry, Runtime, Session};

use crate::support::fixtures;
pub use crate::support::fixtures::checks::{args, one};

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
