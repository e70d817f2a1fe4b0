//! Example calls built from a schema, for error messages.

use serde_json::{Map, Value};

use super::problems::{enum_values, resolve};
use crate::call::signature_of;
use crate::spec::ToolSpec;

/// A call of the tool that passes validation, written as a model would:
/// `web(action="search", query_or_url="...")`. For a polymorphic tool the example uses
/// `action` when it names one, else the first action.
pub fn example_call(spec: &ToolSpec, action: Option<&str>) -> String {
    let schema = &*spec.input_schema;
    let props = schema.get("properties").and_then(Value::as_object);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut args = Map::new();
    let chosen = spec
        .actions
        .as_ref()
        .and_then(|set| action.and_then(|a| set.get(a)).or(set.actions.first()));
    let Some(props) = props else {
        return signature_of(&spec.name, Some(&Value::Object(args)));
    };
    for (name, node) in props {
        let wanted = match (&spec.actions, chosen) {
            (Some(set), Some(a)) if name == set.field.as_ref() => {
                args.insert(name.clone(), Value::String(a.name.to_string()));
                continue;
            }
            (Some(_), Some(a)) => {
                a.required.iter().any(|r| r == name) || required.contains(&name.as_str())
            }
            _ => required.contains(&name.as_str()),
        };
        if wanted {
            args.insert(name.clone(), example_value(schema, node, 0));
        }
    }
    signature_of(&spec.name, Some(&Value::Object(args)))
}

fn example_value(root: &Value, node: &Value, depth: usize) -> Value {
    let node = resolve(root, node);
    if depth > 4 {
        return Value::Null;
    }
    if let Some(ex) = node
        .get("examples")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
    {
        return ex.clone();
    }
    if let Some(d) = node.get("default") {
        return d.clone();
    }
    if let Some(values) = enum_values(root, node)
        && let Some(first) = values.into_iter().next()
    {
        return first;
    }
    let ty = match node.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null"),
        _ => {
            if let Some(first) = node
                .get("anyOf")
                .or_else(|| node.get("oneOf"))
                .and_then(Value::as_array)
                .and_then(|a| {
                    a.iter()
                        .find(|b| resolve(root, b).get("type") != Some(&Value::from("null")))
                })
            {
                return example_value(root, first, depth + 1);
            }
            "string"
        }
    };
    match ty {
        "string" => Value::String("...".into()),
        "integer" => node.get("minimum").cloned().unwrap_or(Value::from(1)),
        "number" => Value::from(1.0),
        "boolean" => Value::Bool(true),
        "array" => Value::Array(Vec::new()),
        "object" => {
            let mut m = Map::new();
            let req: Vec<&str> = node
                .get("required")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if let Some(props) = node.get("properties").and_then(Value::as_object) {
                for (k, v) in props {
                    if req.contains(&k.as_str()) {
                        m.insert(k.clone(), example_value(root, v, depth + 1));
                    }
                }
            }
            Value::Object(m)
        }
        _ => Value::Null,
    }
}
