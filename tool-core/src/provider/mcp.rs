//! MCP: `tools/list` entries and `tools/call` parameters.
//!
//! MCP takes JSON Schema 2020-12 as `inputSchema`, so the canonical schema goes out as it is.
//! `outputSchema` is given only when the tool's output schema is an object (MCP requires an
//! object there, and `structuredContent` is an object); a
//! [`text_output`](field@crate::ToolSpec::text_output) tool has none, and its results no
//! `structuredContent`. The annotations carry every hint of
//! the spec explicitly, so a client never falls back to MCP's defaults (which assume a
//! destructive, open-world tool).

use serde_json::{Map, Value};

use super::error::ExportError;
use crate::call::ToolCall;
use crate::spec::ToolSpec;

/// A `tools/list` entry: `{"name", "title"?, "description", "inputSchema", "outputSchema"?,
/// "annotations"}`.
pub fn tool(spec: &ToolSpec) -> Result<Value, ExportError> {
    let mut out = Map::new();
    out.insert("name".into(), Value::String(spec.name.to_string()));
    if let Some(title) = &spec.title {
        out.insert("title".into(), Value::String(title.to_string()));
    }
    out.insert(
        "description".into(),
        Value::String(spec.description.to_string()),
    );
    out.insert("inputSchema".into(), (*spec.input_schema).clone());
    if let Some(output) = &spec.output_schema
        && output.get("type").and_then(Value::as_str) == Some("object")
    {
        out.insert("outputSchema".into(), (**output).clone());
    }
    out.insert("annotations".into(), annotations(spec));
    Ok(Value::Object(out))
}

/// The tool's `annotations`: `title` (when the spec has one), `readOnlyHint`,
/// `destructiveHint`, `idempotentHint`, `openWorldHint`.
pub fn annotations(spec: &ToolSpec) -> Value {
    let a = &spec.annotations;
    let mut out = Map::new();
    if let Some(title) = &spec.title {
        out.insert("title".into(), Value::String(title.to_string()));
    }
    out.insert("readOnlyHint".into(), Value::Bool(a.read_only));
    out.insert("destructiveHint".into(), Value::Bool(a.destructive));
    out.insert("idempotentHint".into(), Value::Bool(a.idempotent));
    out.insert("openWorldHint".into(), Value::Bool(a.open_world));
    Value::Object(out)
}

/// The `params` of a `tools/call` request for a call: `{"name", "arguments"}`.
pub fn call_params(call: &ToolCall) -> Value {
    let arguments = call
        .arguments
        .to_value()
        .unwrap_or_else(|_| Value::String(call.arguments.to_json_text()));
    super::object([
        ("name", call.name.as_str().into()),
        ("arguments", arguments),
    ])
}
