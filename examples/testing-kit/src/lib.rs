//! A crate author's tools: `greet`, a function, and `counter`, a polymorphic tool with two
//! actions. `tests/kit.rs` tests them, and the standard `read_file`, with the testing kit.

use std::sync::atomic::{AtomicI64, Ordering};

use toolsmith::{Render, ToolResult, tool};

/// A greeting.
#[derive(serde::Serialize, schemars::JsonSchema, Debug, PartialEq)]
pub struct Greeting {
    /// The greeting.
    pub text: String,
}
impl Render for Greeting {}

/// Greet someone by name.
#[tool(read_only)]
pub async fn greet(
    /// Who to greet.
    name: String,
) -> ToolResult<Greeting> {
    Ok(Greeting {
        text: format!("Hello, {name}!"),
    })
}

/// A count.
#[derive(serde::Serialize, schemars::JsonSchema, Debug, PartialEq)]
pub struct Count {
    /// The count now.
    pub value: i64,
}
impl Render for Count {}

/// A counter shared by every call.
#[derive(Default)]
pub struct Counter {
    value: AtomicI64,
}

/// Count things.
#[tool(name = "counter")]
impl Counter {
    /// Add `by` to the count.
    #[action]
    async fn add(
        &self,
        /// How much to add.
        by: i64,
    ) -> ToolResult<Count> {
        let value = self.value.fetch_add(by, Ordering::SeqCst) + by;
        Ok(Count { value })
    }

    /// Show the count.
    #[action(read_only)]
    async fn show(&self) -> ToolResult<Count> {
        Ok(Count {
            value: self.value.load(Ordering::SeqCst),
        })
    }
}
