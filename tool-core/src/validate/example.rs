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
    let required = required_list(schema);
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

/// A number inside the schema's range (`minimum`, `maximum` and their exclusive forms): the
/// usual placeholder (`1`, `1.5`) when it fits, else the lower bound (the next whole number
/// above an exclusive one), else the middle of the range, else below the upper bound.
fn in_range(node: &Value, integer: bool) -> Value {
    let bound = |key: &str| node.get(key).and_then(Value::as_f64);
    let (lo, lo_open) = match (bound("minimum"), bound("exclusiveMinimum")) {
        (Some(m), Some(e)) if e >= m => (Some(e), true),
        (Some(m), _) => (Some(m), false),
        (None, Some(e)) => (Some(e), true),
        (None, None) => (None, false),
    };
    let (hi, hi_open) = match (bound("maximum"), bound("exclusiveMaximum")) {
        (Some(m), Some(e)) if e <= m => (Some(e), true),
        (Some(m), _) => (Some(m), false),
        (None, Some(e)) => (Some(e), true),
        (None, None) => (None, false),
    };
    let fits = |v: f64| {
        lo.is_none_or(|l| if lo_open { v > l } else { v >= l })
            && hi.is_none_or(|h| if hi_open { v < h } else { v <= h })
            && (!integer || v.fract() == 0.0)
    };
    let usual = if integer { 1.0 } else { 1.5 };
    let candidates = [
        Some(usual),
        lo.map(|l| if integer { l.floor() + 1.0 } else { l + 0.5 })
            .filter(|_| lo_open),
        lo.map(|l| if integer { l.ceil() } else { l }),
        lo.zip(hi).map(|(l, h)| {
            let mid = l + (h - l) / 2.0;
            if integer { mid.round() } else { mid }
        }),
        hi.map(|h| if integer { h.floor() } else { h }),
        hi.map(|h| if integer { h.ceil() - 1.0 } else { h - 0.5 }),
    ];
    let value = candidates
        .into_iter()
        .flatten()
        .find(|v| v.is_finite() && fits(*v))
        .unwrap_or(usual);
    if integer && value.abs() < 9.0e15 {
        Value::from(value as i64)
    } else {
        serde_json::Number::from_f64(value).map_or(Value::from(usual), Value::Number)
    }
}

/// How deep [`example_value`] follows nested arrays, objects and branches before it answers
/// `null`.
const MAX_EXAMPLE_DEPTH: usize = 6;

/// An example value for a schema, as JSON: its first example, its default (unless `null`),
/// its first non-`null` literal, else a placeholder for its type (an array holds one example
/// element, an object its required members). Shared by the validation messages and the XML
/// export's example call.
pub(crate) fn example_value(root: &Value, node: &Value, depth: usize) -> Value {
    let node = resolve(root, node);
    if depth > MAX_EXAMPLE_DEPTH {
        return Value::Null;
    }
    if let Some(ex) = node
        .get("examples")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
    {
        return ex.clone();
    }
    if let Some(d) = node.get("default")
        && !d.is_null()
    {
        return d.clone();
    }
    if let Some(first) =
        enum_values(root, node).and_then(|vs| vs.into_iter().find(|v| !v.is_null()))
    {
        return first;
    }
    let types = type_list(node);
    let ty = types.iter().find(|t| **t != "null").copied();
    match ty {
        Some("string") => Value::String("...".into()),
        Some("integer") => in_range(node, true),
        Some("number") => in_range(node, false),
        Some("boolean") => Value::Bool(true),
        Some("array") => match node.get("items") {
            Some(items) => Value::Array(vec![example_value(root, items, depth + 1)]),
            None => Value::Array(Vec::new()),
        },
        Some("object") | None if node.get("properties").is_some() => {
            let req = required_list(node);
            let mut m = Map::new();
            if let Some(props) = node.get("properties").and_then(Value::as_object) {
                for (k, v) in props {
                    if req.contains(&k.as_str()) {
                        m.insert(k.clone(), example_value(root, v, depth + 1));
                    }
                }
            }
            Value::Object(m)
        }
        Some("object") => Value::Object(Map::new()),
        _ => {
            for key in ["anyOf", "oneOf"] {
                if let Some(b) = node
                    .get(key)
                    .and_then(Value::as_array)
                    .and_then(|bs| bs.iter().find(|b| type_list(resolve(root, b)) != ["null"]))
                {
                    return example_value(root, b, depth + 1);
                }
            }
            Value::String("...".into())
        }
    }
}

/// The names in a schema's `type` (a string or an array of strings).
fn type_list(node: &Value) -> Vec<&str> {
    match node.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// The member names a schema's `required` lists.
pub(super) fn required_list(node: &Value) -> Vec<&str> {
    node.get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod range_tests {
    use serde_json::json;

    use super::in_range;

    #[test]
    fn examples_fall_inside_the_declared_range() {
        let cases = [
            (
                json!({"type": "number", "minimum": 5, "maximum": 30}),
                false,
                json!(5.0),
            ),
            (
                json!({"type": "number", "exclusiveMinimum": 5, "maximum": 30}),
                false,
                json!(5.5),
            ),
            (json!({"type": "number", "maximum": 1}), false, json!(1.0)),
            (json!({"type": "number"}), false, json!(1.5)),
            (
                json!({"type": "integer", "minimum": 5, "maximum": 30}),
                true,
                json!(5),
            ),
            (
                json!({"type": "integer", "exclusiveMinimum": 5}),
                true,
                json!(6),
            ),
            (json!({"type": "integer", "maximum": -3}), true, json!(-3)),
            (
                json!({"type": "integer", "exclusiveMaximum": 0}),
                true,
                json!(-1),
            ),
            (json!({"type": "integer"}), true, json!(1)),
        ];
        for (schema, integer, want) in cases {
            assert_eq!(in_range(&schema, integer), want, "{schema}");
        }
    }
}
