//! What the macro tests share: a session over a registry, and a call through it in a turn of
//! its own, answered as JSON.

use serde_json::Value;
use toolsmith::{Registry, Runtime, Session, ToolCall};

pub fn session(registry: Registry) -> Session {
    Runtime::builder(registry).build().session()
}

pub async fn call(session: &Session, name: &str, args: Value) -> Value {
    session.clear_current_turn();
    session
        .call(ToolCall::new("c", name, args.to_string()))
        .await
        .to_json()
}
