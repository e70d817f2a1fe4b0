//! Point 1: `Tool` with typed input and output, its erasure `DynTool`, and the schemas
//! `DynTool::spec` fills in from the types.

use std::sync::Arc;

use serde_json::json;
use tool_core::{Arguments, DynTool, ErrorKind, Registry, Services, Tool, ToolContext};

use crate::support::*;

#[test]
fn spec_fills_input_and_output_schemas_from_the_types() {
    // The tool's own spec leaves the schemas at their defaults ...
    let own = Tool::spec(&Add);
    assert_eq!(
        *own.input_schema,
        json!({"type": "object", "properties": {}})
    );
    assert_eq!(own.output_schema, None);

    // ... and the erased spec carries the types' schemas.
    let spec = DynTool::spec(&Add);
    assert_eq!(
        *spec.input_schema,
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "a": {"type": "integer", "format": "int64", "description": "The first number."},
                "b": {"type": "integer", "format": "int64", "description": "The second number."}
            },
            "required": ["a", "b"],
            "description": "Arguments of `add`.",
            "additionalProperties": false
        })
    );
    let out = spec
        .output_schema
        .as_deref()
        .expect("an object output has a schema");
    assert_eq!(out["type"], "object");
    assert_eq!(out["properties"]["sum"]["type"], "integer");
    assert_eq!(out["required"], json!(["sum"]));
    assert!(
        out.get("title").is_none(),
        "the root title is removed: {out}"
    );
    assert_eq!(spec.parameter_names(), vec!["a", "b"]);
}

#[test]
fn a_non_object_output_has_no_output_schema() {
    // `Value` is not an object schema, so the spec says nothing about the output.
    assert_eq!(DynTool::spec(&Panicky).output_schema, None);
    // `NoArgs` is an empty closed object.
    assert_eq!(
        *DynTool::spec(&Panicky).input_schema,
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {},
            "additionalProperties": false
        })
    );
}

/// A tagged enum output: a `oneOf` of objects (one of them by `$ref`).
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Looked {
    Found { value: String },
    Missing(Sum),
}
impl tool_core::Render for Looked {}

/// A tagged enum with a non-object variant (`#[serde(untagged)]` string).
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
#[serde(untagged)]
enum Either {
    Object(Sum),
    Text(String),
}
impl tool_core::Render for Either {}

struct Lookup;
impl Tool for Lookup {
    type Input = AddArgs;
    type Output = Looked;
    fn spec(&self) -> tool_core::ToolSpec {
        tool_core::ToolSpec::new("lookup", "Look a value up.")
    }
    async fn call(&self, _: &ToolContext, a: AddArgs) -> Result<Looked, tool_core::ToolError> {
        Ok(if a.a > 0 {
            Looked::Found {
                value: a.b.to_string(),
            }
        } else {
            Looked::Missing(Sum { sum: 0 })
        })
    }
}

struct Loose;
impl Tool for Loose {
    type Input = AddArgs;
    type Output = Either;
    fn spec(&self) -> tool_core::ToolSpec {
        tool_core::ToolSpec::new("loose", "Anything.")
    }
    async fn call(&self, _: &ToolContext, a: AddArgs) -> Result<Either, tool_core::ToolError> {
        Ok(if a.a > 0 {
            Either::Object(Sum { sum: a.a })
        } else {
            Either::Text("x".into())
        })
    }
}

#[test]
fn a_union_of_objects_is_an_object_output_schema() {
    let out = DynTool::spec(&Lookup)
        .output_schema
        .expect("every branch is an object");
    assert_eq!(out["type"], "object", "{out}");
    let branches = out["oneOf"].as_array().expect("a oneOf of the variants");
    assert_eq!(branches.len(), 2, "{out}");
    assert_eq!(branches[0]["properties"]["type"]["const"], "found", "{out}");
    // The newtype variant's object is a `$ref` to `$defs`, resolved to check it.
    assert_eq!(out["$defs"]["Sum"]["type"], "object", "{out}");
    // A union with a non-object branch still has no output schema.
    assert_eq!(DynTool::spec(&Loose).output_schema, None);
    // And the MCP export carries it.
    let entry = tool_core::provider::mcp::tool(&DynTool::spec(&Lookup)).expect("exports");
    assert_eq!(entry["outputSchema"]["type"], "object");
}

#[tokio::test]
async fn the_typed_tool_runs_directly() {
    let ctx = ToolContext::detached("add", Services::new());
    let sum = Tool::call(&Add, &ctx, AddArgs { a: 2, b: 40 })
        .await
        .unwrap();
    assert_eq!(sum, Sum { sum: 42 });
    let err = Tool::call(&Add, &ctx, AddArgs { a: i64::MAX, b: 1 })
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::UserError);
    assert_eq!(err.message(), "the sum overflows a 64-bit integer");
}

#[tokio::test]
async fn the_erased_tool_starts_runs_and_downcasts() {
    let registry = Registry::builder().register(Add).build().unwrap();
    let entry = registry.get("add").unwrap();
    let tool: &Arc<dyn DynTool> = entry.tool();
    let ctx = ToolContext::detached("add", Services::new());

    let call = tool
        .start(
            &ctx,
            &Arguments::from(r#"{"a": 1, "b": 2}"#),
            entry.schema(),
        )
        .expect("valid input");
    let output = call.await.expect("runs");
    assert_eq!(output.to_value().unwrap(), json!({"sum": 3}));
    assert_eq!(output.to_json_string().unwrap(), r#"{"sum":3}"#);
    assert_eq!(output.downcast_ref::<Sum>(), Some(&Sum { sum: 3 }));
    assert_eq!(output.downcast_ref::<u8>(), None);
    assert!(output.is_success());
    assert_eq!(output.status(), None);
    let mut tracker = tool_core::ResourcesTracker::new();
    assert_eq!(output.model_text(&mut tracker), r#"{"sum":3}"#);

    // Invalid arguments are refused before any future is made.
    let err = tool
        .start(&ctx, &Arguments::from(r#"{"a": 1}"#), entry.schema())
        .err()
        .expect("invalid input");
    assert_eq!(err.kind(), ErrorKind::ValidationError);
}

#[tokio::test]
async fn a_session_calls_the_typed_tool_through_its_erasure() {
    let session = session_of(|b| b.register(Add).register(Echo));
    let ok = session
        .call(call_text("1", "add", r#"{"a": 2, "b": 3}"#))
        .await;
    assert_eq!(ok.to_json(), json!({"sum": 5}));
    assert_eq!(ok.tool, "add");
    assert_eq!(ok.call_id, "1");
    let echoed = session.call(call("2", "echo", json!({"text": "hi"}))).await;
    assert_eq!(echoed.to_json(), json!({"type": "echoed", "text": "hi"}));
    assert_eq!(echoed.status(), "Echoed 2 byte(s)");
}

/// A tool with unit input and output.
struct Unit;

impl Tool for Unit {
    type Input = ();
    type Output = ();
    fn spec(&self) -> tool_core::ToolSpec {
        tool_core::ToolSpec::new("unit", "Takes and gives nothing.")
    }
    async fn call(&self, _: &ToolContext, _: ()) -> Result<(), tool_core::ToolError> {
        Ok(())
    }
}

#[tokio::test]
async fn a_unit_input_takes_an_empty_object() {
    let spec = DynTool::spec(&Unit);
    assert_eq!(spec.input_schema["type"], "object");
    assert_eq!(spec.input_schema["properties"], json!({}));
    let session = session_of(|b| b.register(Unit));
    for args in [json!({}), json!(null)] {
        let out = session.call(call("u", "unit", args.clone())).await;
        if args.is_null() {
            assert_eq!(
                out.error().map(|e| e.kind()),
                Some(ErrorKind::ValidationError)
            );
        } else {
            assert!(out.is_success(), "{}", out.to_json());
            assert_eq!(out.to_json(), serde_json::Value::Null);
        }
    }
    let out = session.call(call_text("t", "unit", "")).await;
    assert!(out.is_success(), "{}", out.to_json());
    let out = session.call(call("x", "unit", json!({"x": 1}))).await;
    assert_eq!(
        out.error().map(|e| e.kind()),
        Some(ErrorKind::ValidationError)
    );
}
