//! Anthropic Messages API: `tools` entries and the `tool_use` blocks a model sends.
//!
//! Anthropic takes JSON Schema (draft 2020-12) as `input_schema`, `$ref`, `$defs` and
//! recursive types included, so the canonical schema goes out as it is, without `$schema`.
//!
//! An entry carries `input_examples` when the tool's parameters declare examples
//! ([`input_examples`]). In strict tool use ([`strict_tool`], `anthropic-strict`) the entry
//! has `"strict": true` and the schema is in the subset Anthropic's grammar takes: every
//! object closed, `$ref`s inlined (a recursive type refused), no numeric or length
//! constraints (a range is said in the description instead; the runtime still enforces it),
//! `minItems` only 0 or 1, [`ANTHROPIC_STRICT_FORMATS`](super::ANTHROPIC_STRICT_FORMATS)
//! only. A request takes at most [`STRICT_MAX_TOOLS`] strict tools, with
//! [`STRICT_MAX_OPTIONAL`] optional and [`STRICT_MAX_UNIONS`] union-typed properties among
//! them all; [`strict_tools`] refuses a list past those limits.

use serde_json::Value;

use super::Format;
use super::error::ExportError;
use super::object;
use super::schema::{Ctx, without_dialect};
use super::strict;
use crate::call::ToolCall;
use crate::spec::ToolSpec;
use crate::validate::input_examples;

/// A `tools` entry: `{"name", "description", "input_schema", "input_examples"?}`, with
/// `input_examples` when the tool's parameters declare examples
/// ([`input_examples`]).
pub fn tool(spec: &ToolSpec) -> Result<Value, ExportError> {
    let mut entry = object([
        ("name", spec.name.as_ref().into()),
        ("description", spec.description.as_ref().into()),
        ("input_schema", without_dialect(&spec.input_schema)),
    ]);
    with_examples(&mut entry, spec);
    Ok(entry)
}

/// The most tools with `"strict": true` one request may carry.
pub const STRICT_MAX_TOOLS: usize = 20;
/// The most optional properties all strict schemas of one request may have together.
pub const STRICT_MAX_OPTIONAL: usize = 24;
/// The most union-typed properties (`anyOf`, or a type array) all strict schemas of one
/// request may have together.
pub const STRICT_MAX_UNIONS: usize = 16;

/// A `tools` entry in strict tool use: `{"name", "description", "input_schema", "strict":
/// true, "input_examples"?}` with [`strict_schema`]. A tool whose schema cannot be said in
/// the subset, or that alone passes a request's limits, is an [`ExportError`].
pub fn strict_tool(spec: &ToolSpec) -> Result<Value, ExportError> {
    strict_entry(spec).map(|(entry, _)| entry)
}

/// The input schema in the subset strict tool use accepts; see the module docs.
pub fn strict_schema(spec: &ToolSpec) -> Result<Value, ExportError> {
    strict::schema(spec, Format::AnthropicStrict, &strict::ANTHROPIC)
}

/// A list of strict entries, within one request's limits (tools, optional and union-typed
/// properties, counted over the whole list).
pub fn strict_tools<'a, I>(specs: I) -> Result<Value, ExportError>
where
    I: IntoIterator<Item = &'a ToolSpec>,
{
    let mut out = Vec::new();
    let (mut optional, mut unions) = (0, 0);
    for spec in specs {
        let (entry, stats) = strict_entry(spec)?;
        let ctx = Ctx::new(&spec.name, Format::AnthropicStrict, &spec.input_schema);
        optional += stats.optional;
        unions += stats.unions;
        if out.len() == STRICT_MAX_TOOLS {
            return Err(ctx.limit(
                "strict tools in one request",
                out.len() + 1,
                STRICT_MAX_TOOLS,
            ));
        }
        check_limits(&ctx, optional, unions)?;
        out.push(entry);
    }
    Ok(Value::Array(out))
}

fn strict_entry(spec: &ToolSpec) -> Result<(Value, strict::Stats), ExportError> {
    let (schema, stats) =
        strict::schema_with_stats(spec, Format::AnthropicStrict, &strict::ANTHROPIC)?;
    let ctx = Ctx::new(&spec.name, Format::AnthropicStrict, &spec.input_schema);
    check_limits(&ctx, stats.optional, stats.unions)?;
    let mut entry = object([
        ("name", spec.name.as_ref().into()),
        ("description", spec.description.as_ref().into()),
        ("input_schema", schema),
        ("strict", Value::Bool(true)),
    ]);
    with_examples(&mut entry, spec);
    Ok((entry, stats))
}

fn check_limits(ctx: &Ctx<'_>, optional: usize, unions: usize) -> Result<(), ExportError> {
    if optional > STRICT_MAX_OPTIONAL {
        return Err(ctx.limit(
            "optional properties in strict schemas",
            optional,
            STRICT_MAX_OPTIONAL,
        ));
    }
    if unions > STRICT_MAX_UNIONS {
        return Err(ctx.limit(
            "union-typed properties in strict schemas",
            unions,
            STRICT_MAX_UNIONS,
        ));
    }
    Ok(())
}

/// Adds `input_examples` to an entry when the tool has some.
fn with_examples(entry: &mut Value, spec: &ToolSpec) {
    let examples = input_examples(spec);
    if let (Value::Object(m), false) = (entry, examples.is_empty()) {
        m.insert("input_examples".into(), Value::Array(examples));
    }
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
