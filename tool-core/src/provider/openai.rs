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

use serde_json::{Map, Value, json};

use super::Format;
use super::error::ExportError;
use super::object;
use super::schema::{Ctx, child, inline, is_any_in, types_in, without_dialect};
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

#[derive(Default)]
struct Stats {
    properties: usize,
    enum_values: usize,
    chars: usize,
}

fn strict_schema_as(spec: &ToolSpec, format: Format) -> Result<Value, ExportError> {
    let ctx = Ctx::new(&spec.name, format, &spec.input_schema);
    let inlined = inline(&ctx, &spec.input_schema, "")?;
    let mut stats = Stats::default();
    let out = strict_node(&ctx, inlined, "", 0, &mut stats)?;
    if stats.properties > STRICT_MAX_PROPERTIES {
        return Err(ctx.limit("object properties", stats.properties, STRICT_MAX_PROPERTIES));
    }
    if stats.enum_values > STRICT_MAX_ENUM_VALUES {
        return Err(ctx.limit("enum values", stats.enum_values, STRICT_MAX_ENUM_VALUES));
    }
    if stats.chars > STRICT_MAX_CHARS {
        return Err(ctx.limit(
            "characters of property names, enum and const values",
            stats.chars,
            STRICT_MAX_CHARS,
        ));
    }
    Ok(out)
}

fn value_chars(v: &Value) -> usize {
    match v {
        Value::String(s) => s.len(),
        other => other.to_string().len(),
    }
}

fn strict_node(
    ctx: &Ctx<'_>,
    node: Value,
    path: &str,
    level: usize,
    stats: &mut Stats,
) -> Result<Value, ExportError> {
    const ANY: &str = "strict mode needs a concrete type for every value; give the field a \
                       concrete type or use plain mode (`openai`)";
    let mut m = match node {
        Value::Object(m) => m,
        Value::Bool(true) => {
            return Err(ctx.unsupported(path, "a value of any type (`true`)", ANY));
        }
        Value::Bool(false) => {
            return Err(ctx.unsupported(
                path,
                "a schema that accepts nothing (`false`)",
                "remove the field",
            ));
        }
        _ => {
            return Err(ctx.unsupported(
                path,
                "a schema that is not an object",
                "a schema must be a JSON object",
            ));
        }
    };
    if is_any_in(&m) {
        return Err(ctx.unsupported(path, "a value of any type (`{}`)", ANY));
    }
    refuse_structural(ctx, &m, path)?;
    merge_single_all_of(ctx, &mut m, path)?;
    if let Some(one_of) = m.remove("oneOf") {
        if m.contains_key("anyOf") {
            return Err(ctx.unsupported(
                path,
                "`oneOf` beside `anyOf`",
                "strict mode has `anyOf` only; use one of the two",
            ));
        }
        m.insert("anyOf".into(), one_of);
    }

    if !m.contains_key("type")
        && !m.contains_key("anyOf")
        && let Some(inferred) = type_of_values(&m)
    {
        m.insert("type".into(), inferred);
    }
    let types = types_in(&m)
        .into_iter()
        .map(str::to_owned)
        .collect::<Vec<_>>();
    let is_object =
        types.iter().any(|t| t == "object") || (types.is_empty() && m.contains_key("properties"));
    let is_array = types.iter().any(|t| t == "array");

    if is_array && !m.contains_key("items") {
        return Err(ctx.unsupported(
            path,
            "an array without an item schema",
            "strict mode needs `items`; give the elements a type",
        ));
    }
    let props = m.remove("properties");
    let extra = m.remove("additionalProperties");
    let required = m.remove("required");
    let mut out = Map::with_capacity(m.len() + 3);
    for (k, v) in m {
        match k.as_str() {
            "anyOf" => {
                let Value::Array(branches) = v else {
                    return Err(ctx.unsupported(path, "`anyOf` that is not an array", ""));
                };
                let here = child(path, "anyOf");
                let mut conv = Vec::with_capacity(branches.len());
                for (i, b) in branches.into_iter().enumerate() {
                    conv.push(strict_node(
                        ctx,
                        b,
                        &child(&here, &i.to_string()),
                        level,
                        stats,
                    )?);
                }
                out.insert(k, Value::Array(conv));
            }
            "items" => {
                let items = strict_node(ctx, v, &child(path, "items"), level, stats)?;
                out.insert(k, items);
            }
            "enum" => {
                if let Some(values) = v.as_array() {
                    stats.enum_values += values.len();
                    stats.chars += values.iter().map(value_chars).sum::<usize>();
                }
                out.insert(k, v);
            }
            "const" => {
                stats.chars += value_chars(&v);
                out.insert(k, v);
            }
            "format" => {
                let ok = types.iter().any(|t| t == "string")
                    && v.as_str().is_some_and(|f| STRICT_FORMATS.contains(&f));
                if ok {
                    out.insert(k, v);
                }
            }
            _ if STRICT_KEYWORDS.contains(&k.as_str()) => {
                out.insert(k, v);
            }
            _ => {}
        }
    }
    if is_object {
        let object = ObjectParts {
            props,
            extra,
            required,
        };
        strict_object(ctx, object, &mut out, path, level, stats)?;
    }
    Ok(Value::Object(out))
}

/// The members of an object schema that strict mode rewrites.
struct ObjectParts {
    props: Option<Value>,
    extra: Option<Value>,
    required: Option<Value>,
}

/// The `type` of an `enum`/`const` without one, from its values (strict mode wants a type
/// on every schema).
fn type_of_values(m: &Map<String, Value>) -> Option<Value> {
    let values: Vec<&Value> = match (m.get("enum"), m.get("const")) {
        (Some(Value::Array(vs)), _) => vs.iter().collect(),
        (_, Some(c)) => vec![c],
        _ => return None,
    };
    let mut types: Vec<&str> = Vec::new();
    for v in values {
        let t = match v {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(n) if n.is_f64() => "number",
            Value::Number(_) => "integer",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => return None,
        };
        if !types.contains(&t) {
            types.push(t);
        }
    }
    if types.contains(&"number") {
        types.retain(|t| *t != "integer");
    }
    match types.as_slice() {
        [] => None,
        [one] => Some(Value::String((*one).to_owned())),
        many => Some(Value::Array(
            many.iter()
                .map(|t| Value::String((*t).to_owned()))
                .collect(),
        )),
    }
}

fn refuse_structural(ctx: &Ctx<'_>, m: &Map<String, Value>, path: &str) -> Result<(), ExportError> {
    if m.contains_key("patternProperties") {
        return Err(ctx.unsupported(
            path,
            "a map with pattern keys (`patternProperties`)",
            "strict mode needs every object key listed; use a list of {key, value} objects",
        ));
    }
    if m.contains_key("prefixItems") {
        return Err(ctx.unsupported(
            path,
            "a tuple (`prefixItems`)",
            "strict mode has no tuples; use an object with named fields",
        ));
    }
    Ok(())
}

fn merge_single_all_of(
    ctx: &Ctx<'_>,
    m: &mut Map<String, Value>,
    path: &str,
) -> Result<(), ExportError> {
    let Some(all_of) = m.remove("allOf") else {
        return Ok(());
    };
    match all_of {
        Value::Array(mut items) if items.len() == 1 => {
            if let Value::Object(branch) = items.remove(0) {
                for (k, v) in branch {
                    m.entry(k).or_insert(v);
                }
            }
            Ok(())
        }
        _ => Err(ctx.unsupported(
            path,
            "an intersection of schemas (`allOf`)",
            "strict mode has no `allOf`; merge the schemas into one object",
        )),
    }
}

fn strict_object(
    ctx: &Ctx<'_>,
    object: ObjectParts,
    out: &mut Map<String, Value>,
    path: &str,
    level: usize,
    stats: &mut Stats,
) -> Result<(), ExportError> {
    let level = level + 1;
    if level > STRICT_MAX_NESTING {
        return Err(ctx.limit("levels of object nesting", level, STRICT_MAX_NESTING));
    }
    let props = match object.props {
        Some(Value::Object(p)) => Some(p),
        _ => None,
    };
    let has_props = props.as_ref().is_some_and(|p| !p.is_empty());
    match &object.extra {
        None | Some(Value::Bool(false)) => {}
        Some(_) if has_props => {
            return Err(ctx.unsupported(
                path,
                "an object that takes extra keys beside its properties",
                "strict mode closes every object (`additionalProperties: false`)",
            ));
        }
        Some(Value::Bool(true)) => {
            return Err(ctx.unsupported(
                path,
                "an object with arbitrary keys (`additionalProperties: true`)",
                "strict mode needs every object key listed; declare the fields",
            ));
        }
        Some(_) => {
            return Err(ctx.unsupported(
                path,
                "a map (`additionalProperties` with a schema)",
                "strict mode needs every object key listed; use a list of {key, value} objects \
                 or export in plain mode (`openai`)",
            ));
        }
    }
    if props.is_none() && object.extra.is_none() {
        return Err(ctx.unsupported(
            path,
            "an object with arbitrary keys (no `properties`)",
            "strict mode needs every object key listed; declare the fields",
        ));
    }
    let required: Vec<String> = match object.required {
        Some(Value::Array(r)) => r
            .into_iter()
            .filter_map(|v| match v {
                Value::String(s) => Some(s),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    let here = child(path, "properties");
    let mut conv = Map::new();
    let mut names = Vec::new();
    for (name, sub) in props.into_iter().flatten() {
        stats.properties += 1;
        stats.chars += name.len();
        let mut s = strict_node(ctx, sub, &child(&here, &name), level, stats)?;
        if !required.contains(&name) {
            s = make_nullable(s);
        }
        names.push(Value::String(name.clone()));
        conv.insert(name, s);
    }
    if !out.contains_key("type") {
        out.insert("type".into(), "object".into());
    }
    out.insert("properties".into(), Value::Object(conv));
    out.insert("required".into(), Value::Array(names));
    out.insert("additionalProperties".into(), Value::Bool(false));
    Ok(())
}

/// A schema that also accepts `null`, in the form strict mode reads best.
fn make_nullable(node: Value) -> Value {
    if super::schema::accepts_null(&node, &node) {
        return node;
    }
    let Value::Object(mut m) = node else {
        return node;
    };
    if let Some(Value::Array(branches)) = m.get_mut("anyOf") {
        branches.push(json!({"type": "null"}));
        return Value::Object(m);
    }
    let types: Vec<String> = types_in(&m).into_iter().map(str::to_owned).collect();
    let add_null_type = |m: &mut Map<String, Value>| {
        if !types.is_empty() {
            let mut ts: Vec<Value> = types.iter().map(|t| Value::String(t.clone())).collect();
            ts.push("null".into());
            m.insert("type".into(), Value::Array(ts));
        }
    };
    if let Some(Value::Array(values)) = m.get_mut("enum") {
        values.push(Value::Null);
        add_null_type(&mut m);
        return Value::Object(m);
    }
    if let Some(c) = m.remove("const") {
        m.insert("enum".into(), Value::Array(vec![c, Value::Null]));
        add_null_type(&mut m);
        return Value::Object(m);
    }
    if types.is_empty() || types.iter().any(|t| t == "object") {
        let mut wrapper = Map::new();
        if let Some(d) = m.remove("description") {
            wrapper.insert("description".into(), d);
        }
        wrapper.insert("anyOf".into(), json!([Value::Object(m), {"type": "null"}]));
        return Value::Object(wrapper);
    }
    add_null_type(&mut m);
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nullable_forms() {
        assert_eq!(
            make_nullable(json!({"type": "string"})),
            json!({"type": ["string", "null"]})
        );
        assert_eq!(
            make_nullable(json!({"type": "string", "enum": ["a"]})),
            json!({"type": ["string", "null"], "enum": ["a", null]})
        );
        assert_eq!(
            make_nullable(json!({"type": "string", "const": "a"})),
            json!({"type": ["string", "null"], "enum": ["a", null]})
        );
        assert_eq!(
            make_nullable(json!({"anyOf": [{"type": "string"}]})),
            json!({"anyOf": [{"type": "string"}, {"type": "null"}]})
        );
        assert_eq!(
            make_nullable(json!({"type": ["integer", "null"]})),
            json!({"type": ["integer", "null"]})
        );
    }
}
