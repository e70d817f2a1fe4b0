//! What the `macros_seed000_*` tests share: a call through a session, answered as JSON.
#![allow(dead_code, unreachable_pub)]

use serde_json::Value;
use toolsmith::{Session, ToolCall};

pub async fn call(session: &Session, name: &str, args: Value) -> Value {
    session.clear_current_turn();
    session
        .call(ToolCall::new("c", name, args.to_string()))
        .await
        .to_json()
}
