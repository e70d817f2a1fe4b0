//! The strict-mode schema subsets: OpenAI's Structured Outputs and Anthropic's strict tool
//! use. Both decode the model's arguments under a grammar built from the schema, so both
//! take a closed subset of JSON Schema; one walk derives either, told apart by [`Rules`].
//!
//! Common to both: every `$ref` inlined (a recursive type is refused), every object closed
//! (`additionalProperties: false`), `oneOf` rewritten to `anyOf`, a one-branch `allOf`
//! merged, keywords outside the subset removed (they only loosen the schema; the runtime
//! still validates every call against the canonical schema), maps, free-form objects,
//! tuples and values of any type refused. OpenAI also wants every property in `required`
//! (an optional one becomes nullable); Anthropic keeps optional properties, and has no
//! numeric or length constraints, so a dropped range is said in the description instead.

use serde_json::{Map, Value, json};

use super::Format;
use super::error::ExportError;
use super::openai::{
    STRICT_FORMATS, STRICT_KEYWORDS, STRICT_MAX_CHARS, STRICT_MAX_ENUM_VALUES, STRICT_MAX_NESTING,
    STRICT_MAX_PROPERTIES,
};
use super::schema::{Ctx, child, inline, is_any_in, types_in};
use crate::spec::ToolSpec;

/// What one provider's strict mode accepts.
pub(crate) struct Rules {
    /// Keywords kept; every other one is removed.
    keywords: &'static [&'static str],
    /// String formats kept.
    formats: &'static [&'static str],
    /// Whether every property must be required (an optional one made nullable).
    all_required: bool,
    /// The largest `minItems` kept (Anthropic: 1), if limited.
    max_min_items: Option<u64>,
    /// Whether a dropped numeric range is written into the description.
    range_in_description: bool,
    /// The plain format to suggest when a construct cannot be said.
    plain: &'static str,
}

/// OpenAI's Structured Outputs (Chat Completions `strict: true`, Responses).
pub(crate) const OPENAI: Rules = Rules {
    keywords: STRICT_KEYWORDS,
    formats: STRICT_FORMATS,
    all_required: true,
    max_min_items: None,
    range_in_description: false,
    plain: "openai",
};

/// Keywords Anthropic's strict tool use accepts; every other keyword is removed.
pub const ANTHROPIC_STRICT_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minItems",
    "enum",
    "const",
    "default",
    "anyOf",
    "description",
    "pattern",
    "format",
];

/// String formats Anthropic's strict tool use accepts; other `format`s are removed.
pub const ANTHROPIC_STRICT_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Anthropic's strict tool use (`"strict": true` on a tool).
pub(crate) const ANTHROPIC: Rules = Rules {
    keywords: ANTHROPIC_STRICT_KEYWORDS,
    formats: ANTHROPIC_STRICT_FORMATS,
    all_required: false,
    max_min_items: Some(1),
    range_in_description: true,
    plain: "anthropic",
};

/// What one schema holds, counted against the limits.
#[derive(Default)]
pub(crate) struct Stats {
    properties: usize,
    enum_values: usize,
    chars: usize,
    /// Properties not required.
    pub(crate) optional: usize,
    /// Properties whose schema is a union (`anyOf`, or a type array).
    pub(crate) unions: usize,
}

/// The input schema of `spec` in the subset `rules` describe.
pub(crate) fn schema(
    spec: &ToolSpec,
    format: Format,
    rules: &'static Rules,
) -> Result<Value, ExportError> {
    schema_with_stats(spec, format, rules).map(|(v, _)| v)
}

/// [`schema`] and what it counted.
pub(crate) fn schema_with_stats(
    spec: &ToolSpec,
    format: Format,
    rules: &'static Rules,
) -> Result<(Value, Stats), ExportError> {
    let ctx = Ctx::new(&spec.name, format, &spec.input_schema);
    let inlined = inline(&ctx, &spec.input_schema, "")?;
    let mut stats = Stats::default();
    let walk = Walk { ctx: &ctx, rules };
    let out = walk.node(inlined, "", 0, &mut stats)?;
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
    Ok((out, stats))
}

fn value_chars(v: &Value) -> usize {
    match v {
        Value::String(s) => s.len(),
        other => other.to_string().len(),
    }
}

/// One walk: the export's context and the provider's rules.
struct Walk<'a> {
    ctx: &'a Ctx<'a>,
    rules: &'static Rules,
}

/// The members of an object schema that strict mode rewrites.
struct ObjectParts {
    props: Option<Value>,
    extra: Option<Value>,
    required: Option<Value>,
}

impl Walk<'_> {
    fn node(
        &self,
        node: Value,
        path: &str,
        level: usize,
        stats: &mut Stats,
    ) -> Result<Value, ExportError> {
        let ctx = self.ctx;
        let any = format!(
            "strict mode needs a concrete type for every value; give the field a concrete type \
             or use plain mode (`{}`)",
            self.rules.plain
        );
        let mut m = match node {
            Value::Object(m) => m,
            Value::Bool(true) => {
                return Err(ctx.unsupported(path, "a value of any type (`true`)", any));
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
            return Err(ctx.unsupported(path, "a value of any type (`{}`)", any));
        }
        self.refuse_structural(&m, path)?;
        self.merge_single_all_of(&mut m, path)?;
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
        let is_object = types.iter().any(|t| t == "object")
            || (types.is_empty() && m.contains_key("properties"));
        let is_array = types.iter().any(|t| t == "array");

        if is_array && !m.contains_key("items") {
            return Err(ctx.unsupported(
                path,
                "an array without an item schema",
                "strict mode needs `items`; give the elements a type",
            ));
        }
        // Only a node with a bound has a range to say (most nodes: no copy made).
        let bounded = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]
            .iter()
            .any(|k| m.contains_key(*k));
        let range = (self.rules.range_in_description && bounded)
            .then(|| crate::validate::declared_range(&Value::Object(m.clone())))
            .flatten();
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
                        conv.push(self.node(b, &child(&here, &i.to_string()), level, stats)?);
                    }
                    out.insert(k, Value::Array(conv));
                }
                "items" => {
                    let items = self.node(v, &child(path, "items"), level, stats)?;
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
                        && v.as_str().is_some_and(|f| self.rules.formats.contains(&f));
                    if ok {
                        out.insert(k, v);
                    }
                }
                "minItems" => {
                    let fits = match (self.rules.max_min_items, v.as_u64()) {
                        (Some(max), Some(n)) => n <= max,
                        _ => true,
                    };
                    if fits && self.rules.keywords.contains(&"minItems") {
                        out.insert(k, v);
                    }
                }
                _ if self.rules.keywords.contains(&k.as_str()) => {
                    out.insert(k, v);
                }
                _ => {}
            }
        }
        if let Some(range) = range {
            let text = match out.get("description").and_then(Value::as_str) {
                Some(d) if d.ends_with('.') => format!("{d} Must be {range}."),
                Some(d) if !d.is_empty() => format!("{d}. Must be {range}."),
                _ => format!("Must be {range}."),
            };
            out.insert("description".into(), Value::String(text));
        }
        if is_object {
            let object = ObjectParts {
                props,
                extra,
                required,
            };
            self.object(object, &mut out, path, level, stats)?;
        }
        Ok(Value::Object(out))
    }

    fn refuse_structural(&self, m: &Map<String, Value>, path: &str) -> Result<(), ExportError> {
        if m.contains_key("patternProperties") {
            return Err(self.ctx.unsupported(
                path,
                "a map with pattern keys (`patternProperties`)",
                "strict mode needs every object key listed; use a list of {key, value} objects",
            ));
        }
        if m.contains_key("prefixItems") {
            return Err(self.ctx.unsupported(
                path,
                "a tuple (`prefixItems`)",
                "strict mode has no tuples; use an object with named fields",
            ));
        }
        Ok(())
    }

    fn merge_single_all_of(
        &self,
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
            _ => Err(self.ctx.unsupported(
                path,
                "an intersection of schemas (`allOf`)",
                "strict mode has no `allOf`; merge the schemas into one object",
            )),
        }
    }

    fn object(
        &self,
        object: ObjectParts,
        out: &mut Map<String, Value>,
        path: &str,
        level: usize,
        stats: &mut Stats,
    ) -> Result<(), ExportError> {
        let ctx = self.ctx;
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
                    format!(
                        "strict mode needs every object key listed; use a list of {{key, value}} \
                         objects or export in plain mode (`{}`)",
                        self.rules.plain
                    ),
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
            let mut s = self.node(sub, &child(&here, &name), level, stats)?;
            if is_union(&s) {
                stats.unions += 1;
            }
            let is_required = required.contains(&name);
            if !is_required && self.rules.all_required {
                s = make_nullable(s);
            }
            if !is_required && !self.rules.all_required {
                stats.optional += 1;
            }
            if is_required || self.rules.all_required {
                names.push(Value::String(name.clone()));
            }
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
}

/// Whether a schema is a union: `anyOf`, or a `type` array of more than one type.
fn is_union(node: &Value) -> bool {
    node.get("anyOf").is_some()
        || node
            .get("type")
            .and_then(Value::as_array)
            .is_some_and(|ts| ts.len() > 1)
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
