//! Turning JSON Schema errors into [`Problem`]s a model can act on.

use serde_json::Value;

use super::nearest::nearest;
use super::range::range_of;
use crate::error::Problem;
use crate::spec::ActionSet;

/// Keywords whose meaning serde enforces by itself when it deserializes the Rust type the
/// schema was derived from. A schema using anything else needs the full validator.
const SERDE_CHECKED: &[&str] = &[
    "$schema",
    "$id",
    "$comment",
    "$ref",
    "$defs",
    "definitions",
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "prefixItems",
    "anyOf",
    "oneOf",
    "enum",
    "const",
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "nullable",
];

/// Formats schemars emits for Rust number types, with the bounds it writes for them. serde
/// checks exactly these ranges when it deserializes the type, and nothing narrower.
const NUMBER_FORMATS: &[(&str, Option<f64>, Option<f64>)] = &[
    ("int8", Some(i8::MIN as f64), Some(i8::MAX as f64)),
    ("int16", Some(i16::MIN as f64), Some(i16::MAX as f64)),
    ("int32", None, None),
    ("int64", None, None),
    ("int128", None, None),
    ("int", None, None),
    ("uint8", Some(0.0), Some(u8::MAX as f64)),
    ("uint16", Some(0.0), Some(u16::MAX as f64)),
    ("uint32", Some(0.0), None),
    ("uint64", Some(0.0), None),
    ("uint128", Some(0.0), None),
    ("uint", Some(0.0), None),
    ("float", None, None),
    ("double", None, None),
];

/// Whether a `minimum` or `maximum` is the natural bound of the number format (what serde
/// checks by itself) rather than a narrower range such as `#[schemars(range(min = 1))]`.
pub(super) fn natural_bound(format: &str, key: &str, value: &Value) -> bool {
    let Some(&(_, min, max)) = NUMBER_FORMATS.iter().find(|(f, _, _)| *f == format) else {
        return false;
    };
    let bound = if key == "minimum" { min } else { max };
    match (bound, value.as_f64()) {
        (Some(b), Some(v)) => b == v,
        _ => false,
    }
}

/// Whether deserializing the type proves the schema satisfied: no keyword outside
/// [`SERDE_CHECKED`], except the number `format`s schemars derives from Rust number types and
/// the natural bounds of those types. A narrower range is a constraint serde does not check.
pub(super) fn serde_checks_everything(schema: &Value) -> bool {
    match schema {
        Value::Object(obj) => {
            let number_format = obj
                .get("format")
                .and_then(Value::as_str)
                .filter(|f| NUMBER_FORMATS.iter().any(|(n, _, _)| n == f));
            for (k, v) in obj {
                let key_ok = SERDE_CHECKED.contains(&k.as_str())
                    || number_format.is_some_and(|f| match k.as_str() {
                        "format" => true,
                        "minimum" | "maximum" => natural_bound(f, k, v),
                        _ => false,
                    });
                if !key_ok {
                    return false;
                }
                let descend = match k.as_str() {
                    "properties" | "$defs" | "definitions" => v
                        .as_object()
                        .is_none_or(|m| m.values().all(serde_checks_everything)),
                    "items" | "additionalProperties" => serde_checks_everything(v),
                    "prefixItems" | "anyOf" | "oneOf" => v
                        .as_array()
                        .is_none_or(|a| a.iter().all(serde_checks_everything)),
                    _ => true,
                };
                if !descend {
                    return false;
                }
            }
            true
        }
        Value::Bool(_) => true,
        _ => false,
    }
}

/// Follows `$ref`s (local `#/...` pointers only) to the schema they name.
pub(super) fn resolve<'a>(root: &'a Value, mut node: &'a Value) -> &'a Value {
    for _ in 0..16 {
        match node.get("$ref").and_then(Value::as_str) {
            Some(r) if r.starts_with('#') => match root.pointer(&r[1..]) {
                Some(target) => node = target,
                None => return node,
            },
            _ => return node,
        }
    }
    node
}

/// The string values a schema allows, if it is a closed set.
pub(super) fn enum_values(root: &Value, node: &Value) -> Option<Vec<Value>> {
    let node = resolve(root, node);
    if let Some(values) = node.get("enum").and_then(Value::as_array) {
        return Some(values.clone());
    }
    if let Some(c) = node.get("const") {
        return Some(vec![c.clone()]);
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(branches) = node.get(key).and_then(Value::as_array) {
            let mut out = Vec::new();
            for b in branches {
                let b = resolve(root, b);
                if b.get("type").and_then(Value::as_str) == Some("null") {
                    continue;
                }
                out.extend(enum_values(root, b)?);
            }
            return Some(out);
        }
    }
    None
}

/// The top-level parameters whose values are a closed set of strings, in schema order.
pub(super) fn top_level_enums(schema: &Value) -> Vec<(String, Vec<Value>)> {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    props
        .iter()
        .filter_map(|(name, node)| {
            let values = enum_values(schema, node)?;
            (!values.is_empty() && values.iter().all(Value::is_string))
                .then(|| (name.clone(), values))
        })
        .collect()
}

/// The JSON type name of a value, as schemas spell it.
pub(super) fn json_type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The schema node a keyword location points at, following `$ref` segments.
fn schema_at<'a>(root: &'a Value, location: &str) -> Option<&'a Value> {
    let mut node = root;
    for seg in location.split('/').skip(1) {
        let seg = seg.replace("~1", "/").replace("~0", "~");
        if seg == "$ref" {
            node = resolve(root, node);
            continue;
        }
        node = match node {
            Value::Object(m) => m.get(&seg)?,
            Value::Array(a) => a.get(seg.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(node)
}

/// The schema object that holds the keyword a location ends with.
fn parent_schema<'a>(root: &'a Value, location: &str) -> Option<&'a Value> {
    let cut = location.rfind('/')?;
    schema_at(root, &location[..cut]).map(|n| resolve(root, n))
}

/// The last member name of a JSON pointer, unescaped (`/a~1b` is the member `a/b`).
fn field_name(path: &str) -> String {
    unescape(path.rsplit('/').next().unwrap_or(""))
}

/// Escapes a member name for a JSON pointer segment (RFC 6901: `~` as `~0`, `/` as `~1`).
pub(crate) fn escape(name: &str) -> std::borrow::Cow<'_, str> {
    if name.contains(['~', '/']) {
        name.replace('~', "~0").replace('/', "~1").into()
    } else {
        name.into()
    }
}

/// Reverses [`escape`].
pub(crate) fn unescape(segment: &str) -> String {
    segment.replace("~1", "/").replace("~0", "~")
}

fn describe_expected(root: &Value, node: &Value) -> Option<String> {
    let node = resolve(root, node);
    if let Some(values) = enum_values(root, node)
        && !values.is_empty()
    {
        let list: Vec<String> = values.iter().map(|v| v.to_string()).collect();
        return Some(format!("one of: {}", list.join(", ")));
    }
    match node.get("type") {
        Some(Value::String(t)) => Some(t.clone()),
        Some(Value::Array(ts)) => Some(
            ts.iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" or "),
        ),
        _ => None,
    }
}

/// A value outside a closed set: `Invalid action 'crawl'`, the allowed values, the nearest.
fn enum_problem(path: &str, given: &Value, allowed: Vec<Value>) -> Problem {
    let shown = match given {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let near = given
        .as_str()
        .and_then(|s| nearest(s, allowed.iter().filter_map(Value::as_str)).map(str::to_owned));
    let field = field_name(path);
    let what = if field.is_empty() { "value" } else { &field };
    let list: Vec<String> = allowed.iter().map(|v| v.to_string()).collect();
    Problem::new(path, format!("Invalid {what} '{shown}'"))
        .expected(format!("one of: {}", list.join(", ")))
        .allowed(allowed)
        .did_you_mean(near)
}

/// Adds the problem(s) one validator error stands for.
pub(super) fn push_problem(
    root: &Value,
    err: &jsonschema::ValidationError<'_>,
    out: &mut Vec<Problem>,
) {
    use jsonschema::error::ValidationErrorKind as K;
    let path = err.instance_path().as_str().to_owned();
    let keyword_location = err.schema_path().as_str();
    match err.kind() {
        K::Required { property } => {
            let name = property.as_str().unwrap_or_default();
            let parent = parent_schema(root, keyword_location);
            let expected = parent
                .and_then(|p| p.get("properties"))
                .and_then(|p| p.get(name))
                .and_then(|n| describe_expected(root, n));
            let mut p = Problem::new(
                format!("{path}/{}", escape(name)),
                format!("missing required parameter `{name}`"),
            );
            p.expected = expected;
            out.push(p);
        }
        K::AdditionalProperties { unexpected } => {
            let parent = parent_schema(root, keyword_location);
            let known: Vec<&str> = parent
                .and_then(|p| p.get("properties"))
                .and_then(Value::as_object)
                .map(|m| m.keys().map(String::as_str).collect())
                .unwrap_or_default();
            for name in unexpected {
                let near = nearest(name, known.iter().copied()).map(str::to_owned);
                let mut msg = format!("unknown parameter `{name}`");
                if !known.is_empty() {
                    msg.push_str(&format!("; known parameters: {}", known.join(", ")));
                }
                out.push(Problem::new(format!("{path}/{}", escape(name)), msg).did_you_mean(near));
            }
        }
        K::Enum { options } => {
            let allowed: Vec<Value> = options.as_array().cloned().unwrap_or_default();
            out.push(enum_problem(&path, err.instance(), allowed));
        }
        K::Constant { expected_value } => {
            out.push(
                Problem::new(path.clone(), format!("must be {expected_value}"))
                    .expected(expected_value.to_string())
                    .allowed(vec![(**expected_value).clone()]),
            );
        }
        K::Type { .. } => {
            let node = schema_at(root, keyword_location.rsplit_once('/').map_or("", |x| x.0));
            // A closed set's `enum` fails as well and says more (allowed values): one
            // problem per value is enough.
            if node.is_some_and(|n| resolve(root, n).get("enum").is_some()) {
                return;
            }
            let expected = node.and_then(|n| describe_expected(root, n));
            let got = json_type_name(err.instance());
            let subject = subject_of(&path, "the arguments");
            let msg = match &expected {
                Some(e) => format!("{subject} must be {e}, got {got}"),
                None => format!("{subject} has the wrong type ({got})"),
            };
            let mut p = Problem::new(path.clone(), msg);
            p.expected = expected;
            out.push(p);
        }
        K::OneOfNotValid { .. } | K::AnyOf { .. } => {
            let node = parent_schema(root, keyword_location);
            // An optional closed set (`Option<Enum>`: anyOf [enum, null]) is answered like a
            // plain enum: the allowed values and the nearest one.
            if let Some(allowed) = node
                .and_then(|n| enum_values(root, n))
                .filter(|v| !v.is_empty())
            {
                out.push(enum_problem(&path, err.instance(), allowed));
                return;
            }
            let expected = node.and_then(|n| describe_expected(root, n));
            let field = field_name(&path);
            let mut p = Problem::new(
                path.clone(),
                format!(
                    "`{}` matches none of the accepted shapes: {err}",
                    if field.is_empty() {
                        "arguments"
                    } else {
                        &field
                    }
                ),
            );
            p.expected = expected;
            out.push(p);
        }
        K::Minimum { .. }
        | K::Maximum { .. }
        | K::ExclusiveMinimum { .. }
        | K::ExclusiveMaximum { .. } => {
            let node = parent_schema(root, keyword_location).map(|n| resolve(root, n));
            let range = node.and_then(range_of);
            let subject = subject_of(&path, "the value");
            let msg = match &range {
                Some(range) => format!("{subject} must be {range}, got {}", err.instance()),
                None => format!("{subject}: {err}"),
            };
            let mut p = Problem::new(path.clone(), msg);
            p.expected = range;
            out.push(p);
        }
        _ => {
            let field = field_name(&path);
            let msg = if field.is_empty() {
                err.to_string()
            } else {
                format!("`{field}`: {err}")
            };
            out.push(Problem::new(path.clone(), msg));
        }
    }
}

/// What a problem at `path` is about: `` `limit` ``, or `root` for the arguments themselves.
fn subject_of(path: &str, root: &str) -> String {
    let field = field_name(path);
    if field.is_empty() {
        root.to_owned()
    } else {
        format!("`{field}`")
    }
}

/// The rules of a polymorphic tool that a flat schema cannot state: the discriminator names
/// a declared action, the chosen action's required parameters are there, and no parameter of
/// another action is given. Problems the schema already reported (a bad `enum` value, a
/// missing required discriminator) are not repeated.
pub(super) fn action_problems(actions: &ActionSet, value: &Value, out: &mut Vec<Problem>) {
    let Some(obj) = value.as_object() else {
        return;
    };
    let field = actions.field.as_ref();
    let field_path = format!("/{}", escape(field));
    let reported = |out: &Vec<Problem>| out.iter().any(|p| p.path == field_path);
    let allowed: Vec<Value> = actions.names().map(Value::from).collect();
    let list = || {
        allowed
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let name = match obj.get(field) {
        None | Some(Value::Null) => {
            if !reported(out) {
                out.push(
                    Problem::new(
                        field_path.clone(),
                        format!("missing required parameter `{field}`"),
                    )
                    .expected(format!("one of: {}", list()))
                    .allowed(allowed.clone()),
                );
            }
            return;
        }
        Some(Value::String(name)) => name,
        Some(_) => return, // the schema's type check reported it
    };
    let Some(action) = actions.get(name) else {
        if !reported(out) {
            let near = nearest(name, actions.names()).map(str::to_owned);
            out.push(
                Problem::new(field_path.clone(), format!("Invalid {field} '{name}'"))
                    .expected(format!("one of: {}", list()))
                    .allowed(allowed.clone())
                    .did_you_mean(near),
            );
        }
        return;
    };
    for req in &action.required {
        if obj.get(req.as_ref()).is_none_or(Value::is_null) {
            out.push(
                Problem::new(
                    format!("/{}", escape(req)),
                    format!("{req} is required for {name} action"),
                )
                .expected(format!("`{req}` for action `{name}`")),
            );
        }
    }
    for (key, v) in obj {
        if key == field || v.is_null() || action.takes(key) {
            continue;
        }
        let takes: Vec<&str> = action
            .required
            .iter()
            .chain(&action.optional)
            .map(|s| s.as_ref())
            .collect();
        // Only parameters another action takes are reported here as "does not apply";
        // unknown ones were reported by the schema.
        let used_elsewhere = actions.actions.iter().any(|a| a.takes(key));
        if used_elsewhere {
            out.push(Problem::new(
                format!("/{}", escape(key)),
                format!(
                    "`{key}` does not apply to action `{name}`; it takes: {}",
                    if takes.is_empty() {
                        "no other parameter".to_owned()
                    } else {
                        takes.join(", ")
                    }
                ),
            ));
        }
    }
}

/// Whether a validator error is a missing root parameter other than the discriminator: the
/// flat schema requires at the root what every action requires, and [`action_problems`]
/// reports it for the chosen action (or not at all when the action itself is wrong).
pub(super) fn is_root_action_param_missing(
    actions: &ActionSet,
    err: &jsonschema::ValidationError<'_>,
) -> bool {
    matches!(
        err.kind(),
        jsonschema::error::ValidationErrorKind::Required { property }
            if err.instance_path().as_str().is_empty()
                && property.as_str() != Some(actions.field.as_ref())
    )
}

/// The JSON pointers of the parameters the chosen action requires that are given as `null`
/// (answered as missing by [`action_problems`]).
pub(super) fn null_required_paths(actions: &ActionSet, value: &Value) -> Vec<String> {
    let action = value
        .get(actions.field.as_ref())
        .and_then(Value::as_str)
        .and_then(|name| actions.get(name));
    let Some(action) = action else {
        return Vec::new();
    };
    action
        .required
        .iter()
        .filter(|req| value.get(req.as_ref()).is_some_and(Value::is_null))
        .map(|req| format!("/{}", escape(req)))
        .collect()
}

/// One line for the error message: the single problem, or a count and a list. `total` counts
/// the problems left off the list too.
pub(super) fn summary(problems: &[Problem], total: usize) -> String {
    match problems {
        [] => "the arguments are invalid".to_owned(),
        [one] if total <= 1 => one.message.clone(),
        many => {
            let parts: Vec<String> = many
                .iter()
                .enumerate()
                .map(|(i, p)| format!("{}) {}", i + 1, p.message))
                .collect();
            let count = if total > many.len() {
                format!(
                    "{total} problems with the arguments (the first {} listed)",
                    many.len()
                )
            } else {
                format!("{} problems with the arguments", many.len())
            };
            format!("{count}: {}", parts.join("; "))
        }
    }
}
