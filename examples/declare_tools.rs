//! The three ways to declare a tool with the macros, registered side by side with a
//! hand-written one, and called the way a model would call them.
//!
//! ```text
//! cargo run --example declare_tools
//! ```

use std::sync::Mutex;

use serde_json::json;
use toolsmith::{
    Action, ApproveAll, NoArgs, Registry, Render, Runtime, Tool, ToolCall, ToolContext, ToolError,
    ToolResult, ToolSpec, tool,
};

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Text {
    text: String,
}
impl Render for Text {
    fn render(&self, _: &mut toolsmith::ResourcesTracker) -> Option<String> {
        Some(self.text.clone())
    }
}

// 1. A function: parameters become the input schema, doc comments the descriptions.

/// Repeat a word.
#[tool(category = "text", read_only)]
async fn repeat(
    /// The word to repeat.
    word: String,
    /// How many times; 2 when left out.
    #[param(default = 2u32)]
    times: u32,
) -> ToolResult<Text> {
    Ok(Text {
        text: vec![word; times as usize].join(" "),
    })
}

// 2. An enum of actions as a function's input.

/// What the calculator does.
#[derive(Action)]
enum CalcAction {
    /// Add two numbers.
    Add { a: f64, b: f64 },
    /// Negate a number.
    Negate { x: f64 },
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Number {
    value: f64,
}
impl Render for Number {}

/// A two-operation calculator.
#[tool(name = "calc")]
async fn calc(args: CalcAction) -> ToolResult<Number> {
    let value = match args {
        CalcAction::Add { a, b } => a + b,
        CalcAction::Negate { x } => -x,
    };
    Ok(Number { value })
}

// 3. An impl holding state, with one method per action.

#[derive(Default)]
struct Notes {
    notes: Mutex<Vec<String>>,
}

/// Keep short notes for the conversation.
#[tool(name = "notes")]
impl Notes {
    /// Add a note.
    #[action(requires_approval)]
    async fn add(
        &self,
        /// The note.
        text: String,
    ) -> ToolResult<Text> {
        let mut notes = self
            .notes
            .lock()
            .map_err(|_| ToolError::system("notes poisoned"))?;
        notes.push(text);
        Ok(Text {
            text: format!("{} note(s)", notes.len()),
        })
    }

    /// List the notes.
    #[action(read_only)]
    async fn list(&self, _ctx: &ToolContext) -> ToolResult<Text> {
        let notes = self
            .notes
            .lock()
            .map_err(|_| ToolError::system("notes poisoned"))?;
        Ok(Text {
            text: notes.join("\n"),
        })
    }
}

// And one written against the trait by hand.

struct Clock;

impl Tool for Clock {
    type Input = NoArgs;
    type Output = String;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("clock", "Tell the time.")
    }
    async fn call(&self, _: &ToolContext, _: NoArgs) -> Result<String, ToolError> {
        Ok("noon".to_owned())
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The macro tools registered themselves; the hand-written one is registered explicitly.
    let registry = Registry::builder()
        .register(Clock)
        .with_inventory()
        .build()?;
    for entry in registry
        .iter()
        .filter(|e| ["repeat", "calc", "notes", "clock"].contains(&e.name()))
    {
        println!(
            "{}: {}",
            entry.name(),
            serde_json::to_string(&*entry.spec().input_schema)?
        );
    }
    let session = Runtime::builder(registry)
        .approver(ApproveAll)
        .build()
        .session();
    let calls = [
        ("repeat", json!({"word": "hi"})),
        ("calc", json!({"action": "add", "a": 1.5, "b": 2})),
        ("calc", json!({"action": "divide", "a": 1})),
        ("notes", json!({"action": "add", "text": "buy milk"})),
        ("notes", json!({"action": "list"})),
        ("clock", json!({})),
    ];
    for (i, (name, args)) in calls.into_iter().enumerate() {
        let outcome = session
            .call(ToolCall::new(i.to_string(), name, args.to_string()))
            .await;
        println!(
            "{name}({args}) -> {}",
            outcome.model_text(&mut Default::default())
        );
    }
    Ok(())
}
