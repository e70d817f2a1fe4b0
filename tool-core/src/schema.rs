//! Canonical schemas derived from Rust types with schemars (JSON Schema draft 2020-12).
//!
//! A tool's input schema is computed once, when the tool is registered, and kept in its
//! [`ToolSpec`](crate::ToolSpec). The canonical form is a root object; every object with
//! declared properties is closed (`additionalProperties: false`), so an unknown parameter is
//! reported instead of silently dropped. Provider views are derived from it.

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
/// let s = tool_core::schema::input_schema_for::<Args>();
/// assert_eq!(s["type"], "object");
/// assert_eq!(s["required"], serde_json::json!(["pattern"]));
/// assert_eq!(s["additionalProperties"], false);
/// ```
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

/// Makes a schema canonical for tool input: a root object and closed objects.
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
    close_objects(&mut schema);
    schema
}

fn close_objects(v: &mut Value) {
    match v {
        Value::Object(obj) => {
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
                // `properties` and `$defs` hold maps of schemas; `enum`/`const`/`default`/
                // `examples` hold data, which must not be touched.
                match key.as_str() {
                    "enum" | "const" | "default" | "examples" => {}
                    _ => close_objects(child),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(close_objects),
        _ => {}
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
