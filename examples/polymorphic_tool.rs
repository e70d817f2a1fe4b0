//! A polymorphic tool: one tool, one `action` parameter, one stable schema; a new capability
//! is a new method, never a new tool. A bad action is answered with the allowed ones.
//!
//! ```text
//! cargo run --example polymorphic_tool
//! ```

use std::sync::Mutex;

use serde_json::json;
use toolsmith::{ApproveAll, Registry, Render, Runtime, ToolCall, ToolError, ToolResult, tool};

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Listing {
    /// The items, in order.
    items: Vec<String>,
}
impl Render for Listing {}

/// A shopping list.
#[derive(Default)]
struct Shopping {
    items: Mutex<Vec<String>>,
}

impl Shopping {
    fn listing(&self) -> ToolResult<Listing> {
        let items = self
            .items
            .lock()
            .map_err(|_| ToolError::system("list poisoned"))?;
        Ok(Listing {
            items: items.clone(),
        })
    }
}

/// Keep a shopping list.
#[tool(name = "shopping", register = false)]
impl Shopping {
    /// Add an item (at most 100 items).
    #[action]
    async fn add(
        &self,
        /// The item.
        item: String,
    ) -> ToolResult<Listing> {
        {
            let mut items = self
                .items
                .lock()
                .map_err(|_| ToolError::system("list poisoned"))?;
            if items.len() >= 100 {
                return Err(ToolError::user("the list is full").with_suggestion("Clear it first."));
            }
            items.push(item);
        }
        self.listing()
    }

    /// Show the list.
    #[action(read_only)]
    async fn show(&self) -> ToolResult<Listing> {
        self.listing()
    }

    /// Empty the list (needs approval).
    #[action(requires_approval)]
    async fn clear(&self) -> ToolResult<Listing> {
        self.items
            .lock()
            .map_err(|_| ToolError::system("list poisoned"))?
            .clear();
        self.listing()
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::builder().register(Shopping::default()).build()?;
    let schema = registry
        .get("shopping")
        .ok_or("no tool")?
        .spec()
        .input_schema
        .clone();
    assert_eq!(
        schema["properties"]["action"]["enum"],
        json!(["add", "show", "clear"])
    );
    let session = Runtime::builder(registry)
        .approver(ApproveAll)
        .build()
        .session();
    let calls = [
        json!({"action": "add", "item": "milk"}),
        json!({"action": "add", "item": "bread"}),
        json!({"action": "show"}),
        json!({"action": "buy"}),
        json!({"action": "clear"}),
    ];
    for (i, args) in calls.into_iter().enumerate() {
        let out = session
            .call(ToolCall::new(i.to_string(), "shopping", args.clone()))
            .await;
        println!("shopping({args}) -> {}", out.to_json());
        if args["action"] == "buy" {
            assert_eq!(
                out.to_json()["allowed_actions"],
                json!(["add", "show", "clear"])
            );
        }
    }
    Ok(())
}
