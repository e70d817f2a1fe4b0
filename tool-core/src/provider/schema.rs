//! Schema walking shared by the provider views: `$ref` lookup and inlining with a recursion
//! guard, JSON pointers, type sets.

use std::borrow::Cow;
use std::cell::Cell;

use serde_json::{Map, Value};

use super::Format;
use super::error::ExportError;

/// The deepest a schema is walked; deeper schemas are refused (no provider takes them).
pub(crate) const MAX_SCHEMA_DEPTH: usize = 64;
/// The most schema nodes inlining may produce (a schema that shares one definition in many
/// places grows when inlined).
pub(crate) const MAX_INLINED_NODES: usize = 100_000;

/// Keywords that only annotate: a schema with nothing else accepts any value.
pub(crate) const ANNOTATIONS: &[&str] = &[
    "description",
    "title",
    "default",
    "examples",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$schema",
    "$id",
    "$defs",
    "definitions",
];

/// What an export is working on: the tool, the format, the whole schema.
pub(crate) struct Ctx<'a> {
    pub(crate) tool: &'a str,
    pub(crate) format: Format,
    pub(crate) root: &'a Value,
    nodes: Cell<usize>,
}

impl<'a> Ctx<'a> {
    pub(crate) fn new(tool: &'a str, format: Format, root: &'a Value) -> Self {
        Ctx {
            tool,
            format,
            root,
            nodes: Cell::new(0),
        }
    }

    pub(crate) fn unsupported(
        &self,
        path: &str,
        construct: impl Into<String>,
        reason: impl Into<String>,
    ) -> ExportError {
        ExportError::Unsupported {
            tool: self.tool.to_owned(),
            format: self.format,
            path: path.to_owned(),
            construct: construct.into(),
            reason: reason.into(),
        }
    }

    pub(crate) fn limit(&self, limit: &'static str, value: usize, max: usize) -> ExportError {
        ExportError::LimitExceeded {
            tool: self.tool.to_owned(),
            format: self.format,
            limit,
            value,
            max,
        }
    }
}

/// Escapes a JSON pointer segment (`~` and `/`).
pub(crate) fn escape(segment: &str) -> Cow<'_, str> {
    if segment.contains(['~', '/']) {
        Cow::Owned(segment.replace('~', "~0").replace('/', "~1"))
    } else {
        Cow::Borrowed(segment)
    }
}

/// `path` + `/segment`, escaped.
pub(crate) fn child(path: &str, segment: &str) -> String {
    let mut p = String::with_capacity(path.len() + segment.len() + 1);
    p.push_str(path);
    p.push('/');
    p.push_str(&escape(segment));
    p
}

fn percent_decode(s: &str) -> Cow<'_, str> {
    if !s.contains('%') {
        return Cow::Borrowed(s);
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(h) = s
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(h);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Cow::Owned(String::from_utf8_lossy(&out).into_owned())
}

/// The schema a local reference (`#`, `#/$defs/Name`, any `#/json/pointer`) names.
pub(crate) fn lookup<'v>(root: &'v Value, reference: &str) -> Option<&'v Value> {
    let fragment = reference.strip_prefix('#')?;
    if fragment.is_empty() {
        return Some(root);
    }
    root.pointer(&percent_decode(fragment))
}

/// Follows `$ref`s from `node` until a schema without one (at most a few hops).
pub(crate) fn resolve<'v>(root: &'v Value, mut node: &'v Value) -> &'v Value {
    for _ in 0..16 {
        match node.get("$ref").and_then(Value::as_str) {
            Some(r) => match lookup(root, r) {
                Some(target) => node = target,
                None => return node,
            },
            None => return node,
        }
    }
    node
}

/// A copy of `node` with every `$ref` replaced by the schema it names and `$defs` dropped.
/// A reference that leads back into itself is an [`ExportError::Recursive`].
pub(crate) fn inline(ctx: &Ctx<'_>, node: &Value, path: &str) -> Result<Value, ExportError> {
    let mut stack = Vec::new();
    inline_node(ctx, node, path, &mut stack, 0)
}

fn inline_node(
    ctx: &Ctx<'_>,
    node: &Value,
    path: &str,
    stack: &mut Vec<String>,
    depth: usize,
) -> Result<Value, ExportError> {
    if depth > MAX_SCHEMA_DEPTH {
        return Err(ctx.limit("levels of schema nesting", depth, MAX_SCHEMA_DEPTH));
    }
    let count = ctx.nodes.get() + 1;
    ctx.nodes.set(count);
    if count > MAX_INLINED_NODES {
        return Err(ctx.limit(
            "schema nodes once references are inlined",
            count,
            MAX_INLINED_NODES,
        ));
    }
    let Value::Object(map) = node else {
        return Ok(node.clone());
    };
    if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
        if stack.iter().any(|r| r == reference) {
            return Err(ExportError::Recursive {
                tool: ctx.tool.to_owned(),
                format: ctx.format,
                path: path.to_owned(),
                reference: reference.to_owned(),
            });
        }
        let Some(target) = lookup(ctx.root, reference) else {
            return Err(ExportError::UnresolvedRef {
                tool: ctx.tool.to_owned(),
                format: ctx.format,
                path: path.to_owned(),
                reference: reference.to_owned(),
            });
        };
        stack.push(reference.to_owned());
        let resolved = inline_node(ctx, target, path, stack, depth + 1);
        stack.pop();
        let resolved = resolved?;
        let mut out = match resolved {
            Value::Object(m) => m,
            Value::Bool(true) => Map::new(),
            other => {
                if map.len() == 1 {
                    return Ok(other);
                }
                return Err(ctx.unsupported(
                    path,
                    "a `$ref` to a schema that accepts nothing, with siblings",
                    "use a schema that accepts some value",
                ));
            }
        };
        // Siblings of `$ref` (a description, say) refine the target and win over it; a
        // closed set of values keeps its own description too, as it documents the values.
        let target_doc = out
            .get("description")
            .and_then(Value::as_str)
            .filter(|_| is_value_set(&out))
            .map(str::to_owned);
        for (k, v) in map {
            if k == "$ref" {
                continue;
            }
            let v = inline_member(ctx, k, v, path, stack, depth)?;
            out.insert(k.clone(), v);
        }
        if let (Some(target), Some(Value::String(outer))) = (target_doc, out.get_mut("description"))
            && !outer.contains(target.as_str())
        {
            outer.push_str("\n\n");
            outer.push_str(&target);
        }
        out.remove("$defs");
        out.remove("definitions");
        return Ok(Value::Object(out));
    }
    let mut out = Map::with_capacity(map.len());
    for (k, v) in map {
        if k == "$defs" || k == "definitions" {
            continue;
        }
        let v = inline_member(ctx, k, v, path, stack, depth)?;
        out.insert(k.clone(), v);
    }
    Ok(Value::Object(out))
}

fn inline_member(
    ctx: &Ctx<'_>,
    key: &str,
    value: &Value,
    path: &str,
    stack: &mut Vec<String>,
    depth: usize,
) -> Result<Value, ExportError> {
    match key {
        "properties" | "patternProperties" | "dependentSchemas" => match value {
            Value::Object(m) => {
                let here = child(path, key);
                let mut out = Map::with_capacity(m.len());
                for (name, sub) in m {
                    let p = child(&here, name);
                    out.insert(name.clone(), inline_node(ctx, sub, &p, stack, depth + 1)?);
                }
                Ok(Value::Object(out))
            }
            other => Ok(other.clone()),
        },
        "items"
        | "additionalProperties"
        | "not"
        | "if"
        | "then"
        | "else"
        | "contains"
        | "propertyNames"
        | "unevaluatedItems"
        | "unevaluatedProperties"
        | "additionalItems" => inline_node(ctx, value, &child(path, key), stack, depth + 1),
        "anyOf" | "oneOf" | "allOf" | "prefixItems" => match value {
            Value::Array(items) => {
                let here = child(path, key);
                let mut out = Vec::with_capacity(items.len());
                for (i, sub) in items.iter().enumerate() {
                    let p = child(&here, &i.to_string());
                    out.push(inline_node(ctx, sub, &p, stack, depth + 1)?);
                }
                Ok(Value::Array(out))
            }
            other => Ok(other.clone()),
        },
        _ => Ok(value.clone()),
    }
}

/// Whether a schema is a closed set of values: an `enum`, a `const`, or a union of those.
pub(crate) fn is_value_set(m: &Map<String, Value>) -> bool {
    if m.contains_key("enum") || m.contains_key("const") {
        return true;
    }
    ["oneOf", "anyOf"].iter().any(|k| {
        m.get(*k).and_then(Value::as_array).is_some_and(|bs| {
            !bs.is_empty()
                && bs.iter().all(|b| {
                    b.as_object()
                        .is_some_and(|b| b.contains_key("const") || b.contains_key("enum"))
                })
        })
    })
}

/// The names in a schema's `type` (a string or an array of strings).
pub(crate) fn type_list(node: &Value) -> Vec<&str> {
    node.as_object().map(types_in).unwrap_or_default()
}

/// [`type_list`] of a schema object.
pub(crate) fn types_in(m: &Map<String, Value>) -> Vec<&str> {
    match m.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Whether a schema accepts `null` (a `null` type, a `null` branch, `null` in its enum).
pub(crate) fn accepts_null(root: &Value, node: &Value) -> bool {
    accepts_null_at(root, node, 0)
}

fn accepts_null_at(root: &Value, node: &Value, depth: usize) -> bool {
    if depth > 16 {
        return false;
    }
    let node = resolve(root, node);
    match node {
        Value::Bool(b) => *b,
        Value::Object(m) => {
            if is_any(node) {
                return true;
            }
            if let Some(values) = m.get("enum").and_then(Value::as_array) {
                return values.iter().any(Value::is_null);
            }
            if let Some(c) = m.get("const") {
                return c.is_null();
            }
            if m.contains_key("type") {
                return type_list(node).contains(&"null");
            }
            for key in ["anyOf", "oneOf"] {
                if let Some(branches) = m.get(key).and_then(Value::as_array) {
                    return branches.iter().any(|b| accepts_null_at(root, b, depth + 1));
                }
            }
            false
        }
        _ => false,
    }
}

/// Whether a schema puts no constraint on a value: `true` or an object with annotations only.
pub(crate) fn is_any(node: &Value) -> bool {
    match node {
        Value::Bool(b) => *b,
        Value::Object(m) => is_any_in(m),
        _ => false,
    }
}

/// [`is_any`] of a schema object.
pub(crate) fn is_any_in(m: &Map<String, Value>) -> bool {
    m.keys().all(|k| ANNOTATIONS.contains(&k.as_str()))
}

/// The member names a schema's `required` lists.
pub(crate) fn required_list(node: &Value) -> Vec<&str> {
    node.as_object().map(required_in).unwrap_or_default()
}

/// [`required_list`] of a schema object.
pub(crate) fn required_in(m: &Map<String, Value>) -> Vec<&str> {
    m.get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// A copy of the schema without `$schema` (for providers that refuse the keyword) and
/// without schemars' Rust-type formats ([`strip_custom_formats`]).
pub(crate) fn without_dialect(schema: &Value) -> Value {
    let mut out = match schema {
        Value::Object(m) if m.contains_key("$schema") => {
            let mut m = m.clone();
            m.remove("$schema");
            Value::Object(m)
        }
        other => other.clone(),
    };
    strip_custom_formats(&mut out);
    out
}

/// The `format` values JSON Schema 2020-12 defines; clients that validate (the MCP
/// Inspector compiles output schemas with Ajv) complain about any other.
pub(crate) const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Drops schemars' Rust-type formats (`uint32`, `double`, `int64`, ...) from a schema going
/// out (MCP, Anthropic, OpenAI's non-strict form; they are no JSON Schema formats); the ranges they imply are kept as `minimum` / `maximum`. The walk is
/// iterative, so a deep schema cannot exhaust the stack.
pub(crate) fn strip_custom_formats(schema: &mut Value) {
    let mut stack = vec![schema];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(map) => {
                if map
                    .get("format")
                    .and_then(Value::as_str)
                    .is_some_and(|f| !STANDARD_FORMATS.contains(&f))
                    && map.get("type").is_some_and(|t| t != "object")
                {
                    map.shift_remove("format");
                }
                stack.extend(map.values_mut());
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn inlines_and_detects_recursion() {
        let root = json!({
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A", "description": "outer"}},
            "$defs": {"A": {"type": "string", "description": "inner"}}
        });
        let ctx = Ctx::new("t", Format::OpenaiStrict, &root);
        let out = inline(&ctx, &root, "").unwrap();
        assert_eq!(
            out,
            json!({"type": "object", "properties": {"a": {"type": "string", "description": "outer"}}})
        );

        let rec = json!({"type": "object", "properties": {"t": {"$ref": "#"}}});
        let ctx = Ctx::new("t", Format::Gemini, &rec);
        assert!(matches!(
            inline(&ctx, &rec, ""),
            Err(ExportError::Recursive { .. })
        ));
    }

    #[test]
    fn nulls() {
        let root = json!({});
        assert!(accepts_null(&root, &json!({"type": ["string", "null"]})));
        assert!(accepts_null(
            &root,
            &json!({"anyOf": [{"type": "string"}, {"type": "null"}]})
        ));
        assert!(!accepts_null(&root, &json!({"type": "string"})));
        assert!(accepts_null(&root, &json!({"enum": ["a", null]})));
    }

    #[test]
    fn pointers() {
        assert_eq!(child("", "a/b~"), "/a~1b~0");
        assert_eq!(percent_decode("/a%20b"), "/a b");
    }
}
