//! OpenAI: Chat Completions `tools` entries (plain and `strict: true`), Responses API function
//! tools, and the tool calls both APIs send.
//!
//! Plain mode takes the canonical schema as it is (without `$schema`). Strict mode (Structured
//! Outputs) accepts a subset, which [`strict_schema`] derives:
//!
//! - every `$ref` inlined (a recursive type is an [`ExportError::Recursive`]);
//! - every object closed (`additionalProperties: false`) with every property in `required`;
//!   a property that was optional becomes nullable (`["string", "null"]`, `null` added to an
//!   `enum`, or an `anyOf` with `{"type": "null"}`), and the importer drops the `null` the
//!   model then sends for it ([`RepairKind::NullDropped`](super::RepairKind::NullDropped));
//! - `oneOf` rewritten to `anyOf`, a one-branch `allOf` merged;
//! - keywords outside the supported set removed (`default`, `minLength`, integer `format`s,
//!   ...); they only loosen the schema, and the runtime still validates every call against
//!   the canonical schema;
//! - constructs strict mode cannot state refused: maps (`additionalProperties` with a schema),
//!   free-form objects, tuples, values of any type;
//! - the documented limits: 10 levels of object nesting, 5,000 properties, 1,000 enum values,
//!   120,000 characters of names and values.

use serde_json::{Value, json};

use super::Format;
use super::error::ExportError;
use super::object;
use super::schema::without_dialect;
use crate::call::ToolCall;
use crate::spec::ToolSpec;

/// The most levels of object nesting strict mode accepts.
pub const STRICT_MAX_NESTING: usize = 10;
/// The most object properties one strict schema may have in total.
pub const STRICT_MAX_PROPERTIES: usize = 5_000;
/// The most enum values one strict schema may have in total.
pub const STRICT_MAX_ENUM_VALUES: usize = 1_000;
/// The most characters of property names, enum and const values in one strict schema.
pub const STRICT_MAX_CHARS: usize = 120_000;

/// Keywords strict mode accepts; every other keyword is removed.
pub const STRICT_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "description",
    "pattern",
    "format",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "minItems",
    "maxItems",
];

/// String formats strict mode accepts; other `format`s are removed.
pub const STRICT_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// A Chat Completions `tools` entry: `{"type": "function", "function": {name, description,
/// parameters}}` with the canonical schema.
pub fn chat_tool(spec: &ToolSpec) -> Result<Value, ExportError> {
    Ok(object([
        ("type", "function".into()),
        (
            "function",
            object([
                ("name", spec.name.as_ref().into()),
                ("description", spec.description.as_ref().into()),
                ("parameters", without_dialect(&spec.input_schema)),
            ]),
        ),
    ]))
}

/// A Chat Completions `tools` entry in strict mode: `"strict": true` and [`strict_schema`].
pub fn chat_tool_strict(spec: &ToolSpec) -> Result<Value, ExportError> {
    let parameters = strict_schema_as(spec, Format::OpenaiStrict)?;
    Ok(object([
        ("type", "function".into()),
        (
            "function",
            object([
                ("name", spec.name.as_ref().into()),
                ("description", spec.description.as_ref().into()),
                ("strict", Value::Bool(true)),
                ("parameters", parameters),
            ]),
        ),
    ]))
}

/// A Responses API function tool: `{"type": "function", name, description, parameters,
/// strict}`; with `strict` the parameters are [`strict_schema`], else the canonical schema.
pub fn responses_tool(spec: &ToolSpec, strict: bool) -> Result<Value, ExportError> {
    let parameters = if strict {
        strict_schema_as(spec, Format::OpenaiResponses)?
    } else {
        without_dialect(&spec.input_schema)
    };
    Ok(object([
        ("type", "function".into()),
        ("name", spec.name.as_ref().into()),
        ("description", spec.description.as_ref().into()),
        ("parameters", parameters),
        ("strict", Value::Bool(strict)),
    ]))
}

/// The Responses API function tool [`Format::OpenaiResponses`] exports: strict when the
/// schema can be stated in strict mode, else `"strict": false` with the canonical schema.
pub fn responses_tool_auto(spec: &ToolSpec) -> Result<Value, ExportError> {
    responses_tool(spec, true).or_else(|_| responses_tool(spec, false))
}

/// The input schema in the subset strict mode accepts; see the module docs.
pub fn strict_schema(spec: &ToolSpec) -> Result<Value, ExportError> {
    strict_schema_as(spec, Format::OpenaiStrict)
}

/// A Chat Completions assistant `tool_calls` entry for a call:
/// `{"id", "type": "function", "function": {"name", "arguments": "<JSON text>"}}`.
pub fn tool_call(call: &ToolCall) -> Value {
    json!({
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": call.arguments.to_json_text()},
    })
}

/// A Responses API `function_call` output item for a call:
/// `{"type": "function_call", "call_id", "name", "arguments": "<JSON text>"}`.
pub fn responses_function_call(call: &ToolCall) -> Value {
    json!({
        "type": "function_call",
        "call_id": call.id,
        "name": call.name,
        "arguments": call.arguments.to_json_text(),
    })
}

fn strict_schema_as(spec: &ToolSpec, format: Format) -> Result<Value, ExportError> {
    super::strict::schema(spec, format, &super::strict::OPENAI)
}
