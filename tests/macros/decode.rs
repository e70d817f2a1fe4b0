//! The one decode path of the input types the macros generate: they refuse an unknown
//! parameter themselves (no wrapper deserializer watches for it), so these tests attack the
//! places an unknown or ill-typed member could slip through a decode that trusts them: at the
//! root, inside a parameter that is a struct, in a tree-form call, after the JSON object,
//! and through a hand-written tool taking the same derived enum.

use std::cell::Cell;

use serde_json::{Value, json};
use toolsmith::{
    Action, Arguments, Registry, Render, Runtime, Session, Tool, ToolCall, ToolContext, ToolError,
    ToolResult, ToolSpec, tool,
};

thread_local! {
    /// How many times a tool body ran on this thread (each test's runtime has one thread):
    /// a call refused by validation must not run it.
    static RUNS: Cell<usize> = const { Cell::new(0) };
}

fn ran() {
    RUNS.set(RUNS.get() + 1);
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Echo {
    text: String,
}
impl Render for Echo {}

/// Repeat a word.
#[tool(register = false)]
async fn repeat(
    /// The word.
    word: String,
    /// How many times.
    #[param(default = 1u32)]
    times: u32,
) -> ToolResult<Echo> {
    ran();
    Ok(Echo {
        text: word.repeat(times as usize),
    })
}

/// A filter that does not deny unknown fields itself.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Filter {
    /// The name to look for.
    name: String,
}

/// Look something up.
#[tool(register = false)]
async fn lookup(
    /// What to match.
    filter: Filter,
) -> ToolResult<Echo> {
    ran();
    Ok(Echo { text: filter.name })
}

/// Label a text.
#[tool(register = false)]
async fn label(
    /// The text.
    text: String,
    /// A prefix.
    prefix: Option<String>,
    /// Upper-case it.
    #[param(default)]
    upper: bool,
    /// Anything, `null` included in its schema.
    extra: Option<Value>,
    /// A note kept as given.
    note: Value,
) -> ToolResult<Echo> {
    ran();
    let text = format!("{}{text}", prefix.unwrap_or_default());
    let text = if upper { text.to_uppercase() } else { text };
    Ok(Echo {
        text: format!("{text} {extra:?} {note}"),
    })
}

/// What to do with a counter.
#[derive(Action, Debug, PartialEq)]
enum CounterAction {
    /// Read it.
    Get { key: String },
    /// Reset it.
    Reset { key: String },
}

/// A counter.
#[tool(register = false)]
async fn counter(args: CounterAction) -> ToolResult<Echo> {
    ran();
    let text = match args {
        CounterAction::Get { key } => format!("get {key}"),
        CounterAction::Reset { key } => format!("reset {key}"),
    };
    Ok(Echo { text })
}

/// The same counter, written by hand on the same derived input.
struct HandCounter;

impl Tool for HandCounter {
    type Input = CounterAction;
    type Output = Echo;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("hand_counter", "A counter.")
    }
    async fn call(&self, _: &ToolContext, args: CounterAction) -> Result<Echo, ToolError> {
        ran();
        Ok(Echo {
            text: format!("{args:?}"),
        })
    }
}

fn session() -> Session {
    let registry = Registry::builder()
        .register(RepeatTool)
        .register(LookupTool)
        .register(CounterTool)
        .register(HandCounter)
        .register(LabelTool)
        .build()
        .unwrap();
    Runtime::builder(registry).dedupe(false).build().session()
}

async fn call(s: &Session, name: &str, args: impl Into<Arguments>) -> Value {
    s.call(ToolCall::new("1", name, args)).await.to_json()
}

/// Calls that must be refused: the error is a validation error whose problems name `path`,
/// and the tool did not run.
async fn refused(s: &Session, name: &str, args: impl Into<Arguments>, path: &str) -> Value {
    let before = RUNS.get();
    let out = call(s, name, args).await;
    assert_eq!(out["error_type"], "validation_error", "{out}");
    let paths: Vec<&str> = out["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["path"].as_str())
        .collect();
    assert!(paths.contains(&path), "no problem at {path}: {out}");
    assert_eq!(RUNS.get(), before, "the tool ran: {out}");
    out
}

#[tokio::test]
async fn an_unknown_parameter_is_refused_with_the_known_ones_and_the_nearest() {
    let s = session();
    assert_eq!(
        call(&s, "repeat", r#"{"word":"ab","times":2}"#).await,
        json!({"text": "abab"})
    );
    for args in [
        json!({"word": "ab", "tiems": 2}).to_string(),
        r#"{"tiems":2,"word":"ab"}"#.to_owned(),
    ] {
        let out = refused(&s, "repeat", args, "/tiems").await;
        let problem = &out["problems"][0];
        assert_eq!(
            problem["message"],
            "unknown parameter `tiems`; known parameters: word, times"
        );
        assert_eq!(problem["did_you_mean"], "times");
    }
    // As a tree (an imported call), too.
    refused(&s, "repeat", json!({"word": "ab", "extra": null}), "/extra").await;
}

#[tokio::test]
async fn an_unknown_member_inside_a_struct_parameter_is_refused() {
    let s = session();
    assert_eq!(
        call(&s, "lookup", json!({"filter": {"name": "x"}}).to_string()).await,
        json!({"text": "x"})
    );
    // `Filter` itself ignores unknown fields: the schema's validation must still see it.
    refused(
        &s,
        "lookup",
        json!({"filter": {"name": "x", "nmae": "y"}}).to_string(),
        "/filter/nmae",
    )
    .await;
    refused(
        &s,
        "lookup",
        json!({"filter": {"name": "x", "nmae": "y"}}),
        "/filter/nmae",
    )
    .await;
}

#[tokio::test]
async fn a_derived_action_enum_refuses_unknown_members_through_either_tool() {
    let s = session();
    assert_eq!(
        call(&s, "counter", r#"{"action":"get","key":"k"}"#).await,
        json!({"text": "get k"})
    );
    assert_eq!(
        call(&s, "hand_counter", r#"{"action":"reset","key":"k"}"#).await,
        json!({"text": "Reset { key: \"k\" }"})
    );
    for tool in ["counter", "hand_counter"] {
        let out = refused(&s, tool, r#"{"action":"get","key":"k","kye":"j"}"#, "/kye").await;
        assert_eq!(out["allowed_actions"], json!(["get", "reset"]), "{out}");
    }
}

#[tokio::test]
async fn text_after_the_object_and_non_objects_are_refused() {
    let s = session();
    let out = call(&s, "repeat", r#"{"word":"ab"} {"word":"cd"}"#).await;
    assert_eq!(out["error_type"], "validation_error", "{out}");
    assert!(
        out["error"].as_str().unwrap().contains("Invalid JSON"),
        "{out}"
    );
    refused(&s, "repeat", r#"[{"word":"ab"}]"#, "").await;
    refused(&s, "repeat", json!(["ab", 2]), "").await;
}

#[tokio::test]
async fn a_whole_float_still_reads_as_an_integer() {
    let s = session();
    assert_eq!(
        call(&s, "repeat", r#"{"word":"ab","times":3.0}"#).await,
        json!({"text": "ababab"})
    );
    let out = refused(&s, "repeat", r#"{"word":"ab","times":2.5}"#, "/times").await;
    assert_eq!(out["error_type"], "validation_error");
}

/// `null` is an absent member for every parameter, whether the value is read as the type
/// itself (a `String` or an `Option` without a default) or as absent-or-value (one with a
/// default, or a type that may accept `null`): as text (the fast path) and as a tree.
#[tokio::test]
async fn null_members_read_as_absent_whatever_the_parameter_type() {
    let s = session();
    let both = |v: Value| [Arguments::from(v.to_string()), Arguments::from(v)];
    for args in both(json!({"text": "a", "prefix": null, "upper": null, "extra": null, "note": 1}))
    {
        assert_eq!(call(&s, "label", args).await, json!({"text": "a None 1"}));
    }
    for args in both(json!({"text": "a", "prefix": "p-", "upper": true, "extra": [1], "note": "n"}))
    {
        assert_eq!(
            call(&s, "label", args).await,
            json!({"text": "P-A Some(Array [Number(1)]) \"n\""})
        );
    }
    // A required `String` given `null`: refused as a string would be, the tool not run.
    for args in both(json!({"text": null, "note": 1})) {
        let out = refused(&s, "label", args, "/text").await;
        assert_eq!(
            out["problems"][0]["message"], "`text` must be string, got null",
            "{out}"
        );
    }
    // A required `Value` given `null` is absent too: a missing parameter, not a `null` note.
    for args in both(json!({"text": "a", "note": null})) {
        let before = RUNS.get();
        let out = call(&s, "label", args).await;
        assert!(out["error_type"].is_string(), "{out}");
        assert_eq!(RUNS.get(), before, "the tool ran: {out}");
    }
}
