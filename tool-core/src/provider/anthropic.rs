//! Anthropic Messages API: `tools` entries and the `tool_use` blocks a model sends.
//!
//! Anthropic takes JSON Schema (draft 2020-12) as `input_schema`, `$ref`, `$defs` and
//! recursive types included, so the canonical schema goes out as it is, without `$schema`.

use serde_json::Value;

use super::error::ExportError;
use super::object;
use super::schema::without_dialect;
use crate::call::ToolCall;
use crate::spec::ToolSpec;

/// A `tools` entry: `{"name", "description", "input_schema"}`.
pub fn tool(spec: &ToolSpec) -> Result<Value, ExportError> {
    Ok(object([
        ("name", spec.name.as_ref().into()),
        ("description", spec.description.as_ref().into()),
        ("input_schema", without_dialect(&spec.input_schema)),
    ]))
}

/// An assistant `tool_use` content block for a call:
/// `{"type": "tool_use", "id", "name", "input"}`. Arguments that are not valid JSON text go
/// out as a string (Anthropic never sends those; this keeps the function total).
pub fn tool_use(call: &ToolCall) -> Value {
    let input = call
        .arguments
        .to_value()
        .unwrap_or_else(|_| Value::String(call.arguments.to_json_text()));
    object([
        ("type", "tool_use".into()),
        ("id", call.id.as_str().into()),
        ("name", call.name.as_str().into()),
        ("input", input),
    ])
}
