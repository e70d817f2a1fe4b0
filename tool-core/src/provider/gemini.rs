//! Gemini: `functionDeclarations` entries in the OpenAPI 3.0 subset Gemini reads, and the
//! `functionCall` parts a model sends.
//!
//! [`parameters_schema`] derives the subset from the canonical schema:
//!
//! - every `$ref` inlined, `$defs` and `$schema` dropped (a recursive type is an
//!   [`ExportError::Recursive`]);
//! - no type arrays: `["string", "null"]` becomes `"type": "string", "nullable": true`;
//!   an `anyOf`/`oneOf` with a `null` branch collapses the same way, and one whose branches
//!   are all string constants (a Rust unit enum with doc comments) becomes one string `enum`,
//!   the values' docs moved into the description;
//! - `const` becomes a one-value string `enum`; only string enums;
//! - `additionalProperties` dropped where it is `false`; a map or a free-form object is
//!   refused, as are tuples, values of any type and arrays without an item schema;
//! - only the keywords and formats Gemini documents are kept ([`GEMINI_KEYWORDS`],
//!   [`GEMINI_FORMATS`]);
//! - a tool without parameters has no `parameters` (Gemini refuses an object schema with no
//!   properties).

use serde_json::{Map, Value};

use super::Format;
use super::error::ExportError;
use super::schema::{Ctx, child, inline, is_any_in, type_list, types_in};
use crate::call::ToolCall;
use crate::spec::ToolSpec;

/// The schema keywords Gemini's `Schema` object has; every other keyword is removed.
pub const GEMINI_KEYWORDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "anyOf",
    "items",
    "minimum",
    "maximum",
];

/// The `format`s Gemini accepts, per type; other formats are removed.
pub const GEMINI_FORMATS: &[(&str, &[&str])] = &[
    ("string", &["date-time", "enum"]),
    ("number", &["float", "double"]),
    ("integer", &["int32", "int64"]),
];

/// A `functionDeclarations` entry: `{"name", "description", "parameters"?}`.
pub fn function_declaration(spec: &ToolSpec) -> Result<Value, ExportError> {
    if let Some(first) = spec.name.chars().next()
        && !(first.is_ascii_alphabetic() || first == '_')
    {
        return Err(ExportError::Unsupported {
            tool: spec.name.to_string(),
            format: Format::Gemini,
            path: String::new(),
            construct: format!("a tool name starting with `{first}`"),
            reason: "Gemini function names start with a letter or an underscore".to_owned(),
        });
    }
    let mut decl = Map::new();
    decl.insert("name".into(), Value::String(spec.name.to_string()));
    decl.insert(
        "description".into(),
        Value::String(spec.description.to_string()),
    );
    if let Some(parameters) = parameters_schema(spec)? {
        decl.insert("parameters".into(), parameters);
    }
    Ok(Value::Object(decl))
}

/// The input schema in Gemini's OpenAPI subset, or `None` for a tool without parameters.
pub fn parameters_schema(spec: &ToolSpec) -> Result<Option<Value>, ExportError> {
    let ctx = Ctx::new(&spec.name, Format::Gemini, &spec.input_schema);
    let has_props = spec
        .input_schema
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty());
    if !has_props {
        return Ok(None);
    }
    let inlined = inline(&ctx, &spec.input_schema, "")?;
    gemini_node(&ctx, inlined, "").map(Some)
}

/// A model `functionCall` part for a call: `{"functionCall": {"name", "args", "id"?}}`; the
/// id is left out when the importer generated it.
pub fn function_call(call: &ToolCall) -> Value {
    let args = call
        .arguments
        .to_value()
        .unwrap_or_else(|_| Value::String(call.arguments.to_json_text()));
    let mut fc = Map::new();
    if !super::is_generated_id(&call.id) {
        fc.insert("id".into(), Value::String(call.id.clone()));
    }
    fc.insert("name".into(), Value::String(call.name.clone()));
    fc.insert("args".into(), args);
    super::object([("functionCall", Value::Object(fc))])
}

const ANY: &str = "Gemini needs a type for every value; give the field a concrete type";

fn is_null_branch(b: &Value) -> bool {
    type_list(b) == ["null"] || b.get("const").is_some_and(Value::is_null)
}

/// The string values of a branch that is a closed set of strings, with its description.
fn string_literals(b: &Value) -> Option<Vec<String>> {
    let types = type_list(b);
    if !(types.is_empty() || types == ["string"]) {
        return None;
    }
    if b.get("properties").is_some() || b.get("anyOf").is_some() || b.get("oneOf").is_some() {
        return None;
    }
    if let Some(c) = b.get("const") {
        return c.as_str().map(|s| vec![s.to_owned()]);
    }
    let values = b.get("enum")?.as_array()?;
    values
        .iter()
        .map(|v| v.as_str().map(str::to_owned))
        .collect()
}

fn gemini_node(ctx: &Ctx<'_>, node: Value, path: &str) -> Result<Value, ExportError> {
    let mut m = match node {
        Value::Object(m) => m,
        Value::Bool(true) => {
            return Err(ctx.unsupported(path, "a value of any type (`true`)", ANY));
        }
        _ => {
            return Err(ctx.unsupported(
                path,
                "a schema that accepts nothing (`false`)",
                "remove the field",
            ));
        }
    };
    if is_any_in(&m) {
        return Err(ctx.unsupported(path, "a value of any type (`{}`)", ANY));
    }
    if m.contains_key("patternProperties") {
        return Err(ctx.unsupported(
            path,
            "a map with pattern keys (`patternProperties`)",
            "Gemini needs every object key listed; use a list of {key, value} objects",
        ));
    }
    if m.contains_key("prefixItems") {
        return Err(ctx.unsupported(
            path,
            "a tuple (`prefixItems`)",
            "Gemini has no tuples; use an object with named fields",
        ));
    }
    if let Some(all_of) = m.remove("allOf") {
        match all_of {
            Value::Array(mut items) if items.len() == 1 => {
                if let Value::Object(branch) = items.remove(0) {
                    for (k, v) in branch {
                        m.entry(k).or_insert(v);
                    }
                }
            }
            _ => {
                return Err(ctx.unsupported(
                    path,
                    "an intersection of schemas (`allOf`)",
                    "Gemini has no `allOf`; merge the schemas into one object",
                ));
            }
        }
    }
    let mut nullable = m.remove("nullable").and_then(|v| v.as_bool()) == Some(true);

    // Unions: `anyOf`/`oneOf` together, `null` branches become `nullable`.
    let mut branches: Vec<Value> = Vec::new();
    let mut union_key = None;
    for key in ["anyOf", "oneOf"] {
        if let Some(v) = m.remove(key) {
            union_key.get_or_insert(key);
            match v {
                Value::Array(items) => branches.extend(items),
                _ => {
                    return Err(ctx.unsupported(path, format!("`{key}` that is not an array"), ""));
                }
            }
        }
    }
    if let Some(key) = union_key {
        let (nulls, rest): (Vec<Value>, Vec<Value>) =
            branches.into_iter().partition(is_null_branch);
        nullable |= !nulls.is_empty();
        if rest.is_empty() {
            return Err(ctx.unsupported(
                path,
                "a value that can only be `null`",
                "remove the field",
            ));
        }
        let merged = if rest.len() == 1 {
            let mut base = match rest.into_iter().next() {
                Some(Value::Object(b)) => b,
                _ => Map::new(),
            };
            for (k, v) in m {
                base.insert(k, v);
            }
            base
        } else if let Some(sets) = rest
            .iter()
            .map(string_literals)
            .collect::<Option<Vec<Vec<String>>>>()
        {
            let mut values: Vec<Value> = Vec::new();
            let mut docs: Vec<String> = Vec::new();
            for (b, set) in rest.iter().zip(&sets) {
                for v in set {
                    if !values.iter().any(|x| x == v.as_str()) {
                        values.push(Value::String(v.clone()));
                    }
                }
                if let (Some(d), [one]) = (b.get("description").and_then(Value::as_str), &set[..]) {
                    docs.push(format!("- `{one}`: {d}"));
                }
            }
            let mut out = m;
            out.insert("type".into(), "string".into());
            out.insert("enum".into(), Value::Array(values));
            if !docs.is_empty() {
                let mut text = out
                    .get("description")
                    .and_then(Value::as_str)
                    .map(|d| format!("{d}\n\n"))
                    .unwrap_or_default();
                text.push_str(&docs.join("\n"));
                out.insert("description".into(), Value::String(text));
            }
            out
        } else {
            let here = child(path, key);
            let mut conv = Vec::with_capacity(rest.len());
            for (i, b) in rest.into_iter().enumerate() {
                conv.push(gemini_node(ctx, b, &child(&here, &i.to_string()))?);
            }
            let mut out = Map::new();
            for (k, v) in m {
                if matches!(k.as_str(), "description" | "title") {
                    out.insert(k, v);
                }
            }
            out.insert("anyOf".into(), Value::Array(conv));
            if nullable {
                out.insert("nullable".into(), Value::Bool(true));
            }
            return Ok(Value::Object(out));
        };
        let mut out = gemini_node(ctx, Value::Object(merged), path)?;
        if nullable && let Value::Object(o) = &mut out {
            o.insert("nullable".into(), Value::Bool(true));
        }
        return Ok(out);
    }

    // Types: one type, `null` as `nullable`.
    let mut types: Vec<String> = types_in(&m).into_iter().map(str::to_owned).collect();
    if types.iter().any(|t| t == "null") {
        nullable = true;
        types.retain(|t| t != "null");
    }
    if types.len() > 1 {
        return Err(ctx.unsupported(
            path,
            format!("a union of types [{}]", types.join(", ")),
            "Gemini takes one type per value (plus `nullable`)",
        ));
    }
    if let Some(c) = m.remove("const") {
        match c {
            Value::String(_) => {
                m.insert("enum".into(), Value::Array(vec![c]));
            }
            Value::Null => nullable = true,
            other => {
                return Err(ctx.unsupported(
                    path,
                    format!("a constant that is not a string ({other})"),
                    "Gemini enums are strings only",
                ));
            }
        }
    }
    if let Some(Value::Array(values)) = m.get_mut("enum") {
        if values.iter().any(Value::is_null) {
            nullable = true;
            values.retain(|v| !v.is_null());
        }
        if let Some(bad) = values.iter().find(|v| !v.is_string()) {
            return Err(ctx.unsupported(
                path,
                format!("an enum with a value that is not a string ({bad})"),
                "Gemini enums are strings only",
            ));
        }
        if types.is_empty() {
            types.push("string".into());
        } else if types[0] != "string" {
            return Err(ctx.unsupported(
                path,
                format!("an enum of type {}", types[0]),
                "Gemini enums are strings only",
            ));
        }
    }
    if types.is_empty() && m.contains_key("properties") {
        types.push("object".into());
    }
    let Some(ty) = types.first().cloned() else {
        return Err(ctx.unsupported(path, "a value without a type", ANY));
    };

    let props = m.remove("properties");
    let extra = m.remove("additionalProperties");
    let required = m.remove("required");
    let items = m.remove("items");
    let mut out = Map::with_capacity(m.len() + 1);
    out.insert("type".into(), Value::String(ty.clone()));
    for (k, v) in m {
        match k.as_str() {
            "type" => {}
            "format" => {
                let allowed = GEMINI_FORMATS
                    .iter()
                    .find(|(t, _)| *t == ty)
                    .is_some_and(|(_, fs)| v.as_str().is_some_and(|f| fs.contains(&f)));
                if allowed {
                    out.insert(k, v);
                }
            }
            _ if GEMINI_KEYWORDS.contains(&k.as_str()) => {
                out.insert(k, v);
            }
            _ => {}
        }
    }
    match ty.as_str() {
        "object" => gemini_object(ctx, props, extra, required, &mut out, path)?,
        "array" => {
            let Some(items) = items else {
                return Err(ctx.unsupported(
                    path,
                    "an array without an item schema",
                    "Gemini needs `items`; give the elements a type",
                ));
            };
            let items = gemini_node(ctx, items, &child(path, "items"))?;
            out.insert("items".into(), items);
        }
        _ => {}
    }
    if nullable {
        out.insert("nullable".into(), Value::Bool(true));
    }
    Ok(Value::Object(out))
}

fn gemini_object(
    ctx: &Ctx<'_>,
    props: Option<Value>,
    extra: Option<Value>,
    required: Option<Value>,
    out: &mut Map<String, Value>,
    path: &str,
) -> Result<(), ExportError> {
    match extra {
        None | Some(Value::Bool(false)) => {}
        Some(Value::Bool(true)) => {
            return Err(ctx.unsupported(
                path,
                "an object with arbitrary keys (`additionalProperties: true`)",
                "Gemini needs every object key listed; declare the fields",
            ));
        }
        Some(_) => {
            return Err(ctx.unsupported(
                path,
                "a map (`additionalProperties` with a schema)",
                "Gemini needs every object key listed; use a list of {key, value} objects",
            ));
        }
    }
    let props = match props {
        Some(Value::Object(p)) if !p.is_empty() => p,
        _ => {
            return Err(ctx.unsupported(
                path,
                "an object without properties",
                "Gemini refuses an object schema with no properties; declare the fields",
            ));
        }
    };
    let here = child(path, "properties");
    let mut conv = Map::with_capacity(props.len());
    for (name, sub) in props {
        let node = gemini_node(ctx, sub, &child(&here, &name))?;
        conv.insert(name, node);
    }
    let required: Vec<Value> = match required {
        Some(Value::Array(r)) => r
            .into_iter()
            .filter(|v| v.as_str().is_some_and(|r| conv.contains_key(r)))
            .collect(),
        _ => Vec::new(),
    };
    out.insert("properties".into(), Value::Object(conv));
    if !required.is_empty() {
        out.insert("required".into(), Value::Array(required));
    }
    Ok(())
}
