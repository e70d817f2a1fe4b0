//! A plain tool from an async function: the parameters become the input schema, the doc
//! comments its descriptions; a good call, and a bad one answered with every problem.
//!
//! ```text
//! cargo run --example plain_tool
//! ```

use serde_json::json;
use toolsmith::{Registry, Render, Runtime, ToolCall, ToolError, ToolResult, tool};

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Word {
    /// The word, repeated.
    text: String,
}
impl Render for Word {}

/// Repeat a word a few times.
#[tool(read_only, register = false)]
async fn repeat(
    /// The word.
    word: String,
    /// How many times (1 to 10); 2 when left out.
    #[param(default = 2u32)]
    times: u32,
) -> ToolResult<Word> {
    if !(1..=10).contains(&times) {
        return Err(ToolError::validation("`times` is 1 to 10").with_suggestion("Try times=3."));
    }
    Ok(Word {
        text: vec![word; times as usize].join(" "),
    })
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::builder().register(RepeatTool).build()?;
    println!(
        "schema: {}",
        registry.get("repeat").ok_or("no tool")?.spec().input_schema
    );
    let session = Runtime::builder(registry).build().session();

    let ok = session
        .call(ToolCall::new(
            "1",
            "repeat",
            json!({"word": "hi", "times": 3}),
        ))
        .await;
    assert_eq!(ok.to_json()["text"], "hi hi hi");
    println!("repeat(word=hi, times=3) -> {}", ok.to_json());

    let bad = session
        .call(ToolCall::new("2", "repeat", json!({"times": "x"})))
        .await;
    let err = bad.error().ok_or("the bad call succeeded")?;
    assert_eq!(err.problems().len(), 2); // `word` missing, `times` not a number
    println!("repeat(times=\"x\") -> {}", bad.to_json());
    Ok(())
}
