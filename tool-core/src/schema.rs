use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

/// The canonical input schema of `T`: draft 2020-12, root an object, objects closed, no
/// root `title`.
///
/// ```
/// #[derive(schemars::JsonSchema, serde::Deserialize)]
/// struct Args { /// The pattern.
///     pattern: String, max_results: Option<u32> }
/// let s = tool_core::input_schema_for::<Args>();
/// assert_eq!(s["type"], "object");
/// assert_eq!(s["required"], serde_json::json!(["pattern"]));
/// assert_eq!(s["additionalProperties"], false);
/// ```
///
/// Canonical schemas derived from Rust types with schemars (JSON Schema draft 2020-12).
///
/// A tool's input schema is computed once, when the tool is registered, and kept in its
/// [`ToolSpec`](crate::ToolSpec). The canonical form is a root object; every object with
/// declared properties is closed (`additionalProperties: false`), so an unknown parameter is
/// reported instead of silently dropped. Provider views are derived from it.
pub fn input_schema_for<T: JsonSchema>() -> Value {
    let schema = SchemaSettings::draft2020_12()
        .for_deserialize()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    canonicalize_input(schema)
}

/// The output schema of `T` (for serialization); root `title` removed.
pub fn output_schema_for<T: JsonSchema>() -> Value {
    let mut schema = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    if let Some(obj) = schema.as_object_mut() {
        obj.remove("title");
    }
    schema
}

/// The output schema as an object schema, when every value it allows is an object: a root
/// `type: object`, or a root `oneOf`/`anyOf` whose branches (local `$ref`s resolved, nested
/// `oneOf`/`anyOf` followed) are all object schemas, which gets `"type": "object"` added at
/// the root (a tagged enum's schema). `None` otherwise: MCP's `outputSchema` must be an object.
///
/// ```
/// use serde_json::json;
/// let tagged = json!({"oneOf": [
///     {"type": "object", "properties": {"kind": {"const": "a"}}},
///     {"$ref": "#/$defs/B"}
/// ], "$defs": {"B": {"type": "object"}}});
/// let out = tool_core::object_output_schema(tagged).unwrap();
/// assert_eq!(out["type"], "object");
/// assert_eq!(tool_core::object_output_schema(json!({"type": "string"})), None);
/// ```
pub fn object_output_schema(mut schema: Value) -> Option<Value> {
    if is_type_object(&schema) {
        return Some(schema);
    }
    let union = ["oneOf", "anyOf"]
        .iter()
        .any(|k| schema.get(*k).is_some_and(|b| all_objects(&schema, b, 0)));
    let obj = schema.as_object_mut()?;
    if !union || obj.contains_key("type") {
        return None;
    }
    obj.insert("type".into(), "object".into());
    Some(schema)
}

fn is_type_object(node: &Value) -> bool {
    node.get("type").and_then(Value::as_str) == Some("object")
}

/// Whether `branches` is a non-empty array of object schemas (see [`object_output_schema`]).
fn all_objects(root: &Value, branches: &Value, depth: usize) -> bool {
    let Some(list) = branches.as_array() else {
        return false;
    };
    !list.is_empty() && list.iter().all(|b| is_object_schema(root, b, depth + 1))
}

fn is_object_schema(root: &Value, node: &Value, depth: usize) -> bool {
    // Deep enough to follow any real nesting, shallow enough to stop a `$ref` cycle.
    if depth > 16 {
        return false;
    }
    if let Some(target) = node.get("$ref").and_then(Value::as_str) {
        let resolved = target
            .strip_prefix('#')
            .and_then(|pointer| root.pointer(pointer));
        return match resolved {
            Some(r) => is_object_schema(root, r, depth + 1),
            None => false,
        };
    }
    if let Some(t) = node.get("type") {
        return t.as_str() == Some("object");
    }
    ["oneOf", "anyOf"]
        .iter()
        .any(|k| node.get(*k).is_some_and(|b| all_objects(root, b, depth)))
}

/// Makes a schema canonical for tool input: a root object, closed objects, and closed sets of
/// strings as a flat `enum`.
///
/// schemars describes a unit enum whose variants carry doc comments as a `oneOf` of `const`
/// branches; providers, `allowed_<field>s` and "did you mean" need the flat
/// `{"type": "string", "enum": [...]}`, so such a `oneOf` is flattened and the per-value docs
/// move into the description as a list.
///
/// ```
/// use serde_json::json;
/// let s = tool_core::canonicalize_input(json!({
///     "type": "object",
///     "properties": {"kind": {"description": "Which.", "oneOf": [
///         {"type": "string", "const": "a", "description": "The first."},
///         {"type": "string", "enum": ["b"]}
///     ]}}
/// }));
/// assert_eq!(s["properties"]["kind"], json!({
///     "type": "string", "enum": ["a", "b"], "description": "Which.\n\n- `a`: The first."
/// }));
/// assert_eq!(s["additionalProperties"], false);
/// ```
pub fn canonicalize_input(mut schema: Value) -> Value {
    if let Some(obj) = schema.as_object_mut() {
        obj.remove("title");
        let is_object = obj.get("type").and_then(Value::as_str) == Some("object");
        let is_null = obj.get("type").and_then(Value::as_str) == Some("null");
        if is_null || obj.is_empty() || (obj.len() == 1 && obj.contains_key("$schema")) {
            obj.insert("type".into(), "object".into());
            obj.insert("properties".into(), Value::Object(Map::new()));
        } else if !is_object && !obj.contains_key("type") && obj.contains_key("properties") {
            obj.insert("type".into(), "object".into());
        }
    }
    walk_schema(&mut schema);
    schema
}

/// Keywords whose value is a map from names to schemas.
const SCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];
/// Keywords whose value is one schema.
const SCHEMA_ONE: &[&str] = &[
    "items",
    "additionalProperties",
    "unevaluatedProperties",
    "additionalItems",
    "unevaluatedItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
];
/// Keywords whose value is a list of schemas.
const SCHEMA_LISTS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];

/// Visits every subschema, by keyword: the members of `properties` or `$defs` are schemas
/// whatever they are called (a parameter may well be named `default` or `properties`), while
/// `enum`, `const`, `default` and `examples` hold data, which is never touched.
fn walk_schema(v: &mut Value) {
    let Value::Object(obj) = v else {
        return;
    };
    flatten_const_one_of(obj);
    let has_props = obj.contains_key("properties");
    let is_object = match obj.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
        None => has_props,
        _ => false,
    };
    if is_object
        && has_props
        && !obj.contains_key("additionalProperties")
        && !obj.contains_key("patternProperties")
        && !obj.contains_key("unevaluatedProperties")
    {
        obj.insert("additionalProperties".into(), Value::Bool(false));
    }
    for (key, child) in obj.iter_mut() {
        let key = key.as_str();
        if SCHEMA_MAPS.contains(&key) {
            if let Value::Object(members) = child {
                members.values_mut().for_each(walk_schema);
            }
        } else if SCHEMA_ONE.contains(&key) {
            walk_schema(child);
        } else if SCHEMA_LISTS.contains(&key)
            && let Value::Array(items) = child
        {
            items.iter_mut().for_each(walk_schema);
        }
    }
}

/// Turns `{"oneOf": [{"type": "string", "const": "a", "description": "..."}, {"type":
/// "string", "enum": ["b"]}]}` into `{"type": "string", "enum": ["a", "b"]}`, moving the
/// branches' descriptions into the node's. Anything else is left alone.
fn flatten_const_one_of(obj: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = obj.get("oneOf") else {
        return;
    };
    if branches.is_empty() || obj.contains_key("type") || obj.contains_key("enum") {
        return;
    }
    let mut values = Vec::new();
    let mut docs = Vec::new();
    for b in branches {
        let Some(b) = b.as_object() else {
            return;
        };
        if b.keys().any(|k| {
            !matches!(
                k.as_str(),
                "type" | "const" | "enum" | "description" | "title"
            )
        }) || b.get("type").is_some_and(|t| t != "string")
        {
            return;
        }
        let here: Vec<&Value> = match (b.get("const"), b.get("enum")) {
            (Some(c), None) => vec![c],
            (None, Some(Value::Array(e))) => e.iter().collect(),
            _ => return,
        };
        if !here.iter().all(|v| v.is_string()) {
            return;
        }
        if let Some(doc) = b.get("description").and_then(Value::as_str) {
            for v in &here {
                docs.push(format!("- `{}`: {doc}", v.as_str().unwrap_or_default()));
            }
        }
        values.extend(here.into_iter().cloned());
    }
    obj.remove("oneOf");
    obj.insert("type".into(), "string".into());
    obj.insert("enum".into(), Value::Array(values));
    if !docs.is_empty() {
        let list = docs.join("\n");
        let description = match obj.get("description").and_then(Value::as_str) {
            Some(d) if !d.is_empty() => format!("{d}\n\n{list}"),
            _ => list,
        };
        obj.insert("description".into(), description.into());
    }
}

/// Input for a tool that takes no arguments: accepts `{}` (and ignores nothing else: an
/// unknown member is still reported by validation).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NoArgs {}

impl JsonSchema for NoArgs {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "NoArgs".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "object", "properties": {}})
    }
}
