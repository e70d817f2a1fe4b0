//! Whether a tool's new schemas break its callers: the *compatible* comparison of
//! [`Surface`](super::Surface).
//!
//! A caller sends arguments the input schema accepted and reads answers the output schema
//! promised. A change breaks it when the new input schema refuses arguments the old one
//! accepted (a parameter removed or renamed, one newly required, a type, an enum or a bound
//! narrowed, a union's variant gone), or when the new output schema promises less than the
//! old one (a field removed, retyped or no longer always there, an answer's shape gone).
//! Additions pass: a new optional parameter, a new enum value or action, a new output field,
//! a new answer shape.
//!
//! References (`$ref` to `#/$defs/...` or `#/definitions/...`) are followed within each
//! document, to a bounded depth, so a type moved into `$defs` is the same type.

use serde_json::{Map, Value};

/// How deep references are followed and schemas walked.
const MAX_DEPTH: usize = 32;

/// One change that breaks callers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Break {
    /// Where, as a JSON pointer into the schema (`/properties/limit`).
    pub(crate) path: String,
    /// Why it breaks callers, in a sentence.
    pub(crate) why: String,
}

/// Which way a schema is read: what callers send (input) or what they read (output).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Input,
    Output,
}

/// The breaking changes from `old` to `new`, read as `side`.
pub(crate) fn breaks(old: &Value, new: &Value, side: Side) -> Vec<Break> {
    let mut walk = Walk {
        old_root: old,
        new_root: new,
        side,
        found: Vec::new(),
    };
    walk.compare(old, new, String::new(), 0);
    walk.found
}

struct Walk<'a> {
    old_root: &'a Value,
    new_root: &'a Value,
    side: Side,
    found: Vec<Break>,
}

/// `schema` with its `$ref` followed within `root` (to a bounded depth).
fn resolve<'a>(root: &'a Value, mut schema: &'a Value) -> &'a Value {
    for _ in 0..MAX_DEPTH {
        let Some(pointer) = schema.get("$ref").and_then(Value::as_str) else {
            return schema;
        };
        let Some(target) = pointer.strip_prefix('#').and_then(|p| root.pointer(p)) else {
            return schema;
        };
        schema = target;
    }
    schema
}

/// The JSON types a schema allows; `None` for any.
fn types(schema: &Value) -> Option<Vec<String>> {
    let mut set: Vec<String> = match schema.get("type")? {
        Value::String(t) => vec![t.clone()],
        Value::Array(ts) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => return None,
    };
    // An integer is a number: `number` allows every integer.
    if set.iter().any(|t| t == "number") && !set.iter().any(|t| t == "integer") {
        set.push("integer".into());
    }
    if schema.get("nullable") == Some(&Value::Bool(true)) {
        set.push("null".into());
    }
    Some(set)
}

/// The values an `enum` (or `const`) allows; `None` for any.
fn values(schema: &Value) -> Option<Vec<Value>> {
    if let Some(c) = schema.get("const") {
        return Some(vec![c.clone()]);
    }
    schema.get("enum").and_then(Value::as_array).cloned()
}

fn properties(schema: &Value) -> Map<String, Value> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
}

fn required(schema: &Value) -> Vec<String> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// The variants of a union (`anyOf` or `oneOf`), if the schema is one.
fn variants(schema: &Value) -> Option<&Vec<Value>> {
    schema
        .get("anyOf")
        .or_else(|| schema.get("oneOf"))
        .and_then(Value::as_array)
}

fn show(values: &[Value]) -> String {
    let shown: Vec<String> = values.iter().map(Value::to_string).collect();
    shown.join(", ")
}

impl Walk<'_> {
    fn add(&mut self, path: &str, why: String) {
        self.found.push(Break {
            path: if path.is_empty() {
                "/".to_owned()
            } else {
                path.to_owned()
            },
            why,
        });
    }

    fn compare(&mut self, old: &Value, new: &Value, path: String, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let old = resolve(self.old_root, old);
        let new = resolve(self.new_root, new);
        if old == new {
            return;
        }
        if let Some(old_variants) = variants(old) {
            return self.compare_union(old_variants, new, &path, depth);
        }
        self.compare_types(old, new, &path);
        self.compare_values(old, new, &path);
        self.compare_bounds(old, new, &path);
        self.compare_properties(old, new, &path, depth);
        if let (Some(o), Some(n)) = (old.get("items"), new.get("items")) {
            self.compare(o, n, format!("{path}/items"), depth + 1);
        }
    }

    /// Each old variant must still be there (compatibly); a new one is an addition.
    fn compare_union(&mut self, old_variants: &[Value], new: &Value, path: &str, depth: usize) {
        let new_variants: Vec<&Value> = match variants(new) {
            Some(v) => v.iter().collect(),
            None => vec![new],
        };
        for (i, old_variant) in old_variants.iter().enumerate() {
            let mut best: Option<Vec<Break>> = None;
            for new_variant in &new_variants {
                let mut inner = Walk {
                    old_root: self.old_root,
                    new_root: self.new_root,
                    side: self.side,
                    found: Vec::new(),
                };
                inner.compare(
                    old_variant,
                    new_variant,
                    format!("{path}/anyOf/{i}"),
                    depth + 1,
                );
                if best.as_ref().is_none_or(|b| inner.found.len() < b.len()) {
                    best = Some(inner.found);
                }
            }
            match best {
                Some(found) => self.found.extend(found),
                None => self.add(path, "a variant was removed".into()),
            }
        }
    }

    fn compare_types(&mut self, old: &Value, new: &Value, path: &str) {
        let (old_types, new_types) = (types(old), types(new));
        match self.side {
            // Every type callers could send must still be taken.
            Side::Input => {
                let lost: Vec<String> = match (&old_types, &new_types) {
                    (_, None) => Vec::new(),
                    (None, Some(n)) => vec![format!("any type but {}", n.join(" or "))],
                    (Some(o), Some(n)) => o.iter().filter(|t| !n.contains(t)).cloned().collect(),
                };
                if !lost.is_empty() {
                    self.add(
                        path,
                        format!(
                            "the type was narrowed: calls sending {} are refused",
                            lost.join(" or ")
                        ),
                    );
                }
            }
            // Callers read only the types they were promised.
            Side::Output => {
                let new_only: Vec<String> = match (&old_types, &new_types) {
                    (None, _) => Vec::new(),
                    (Some(o), None) => vec![format!("any type, not only {}", o.join(" or "))],
                    (Some(o), Some(n)) => n.iter().filter(|t| !o.contains(t)).cloned().collect(),
                };
                if !new_only.is_empty() {
                    self.add(
                        path,
                        format!(
                            "the field was retyped: callers reading it now get {}",
                            new_only.join(" or ")
                        ),
                    );
                }
            }
        }
    }

    fn compare_values(&mut self, old: &Value, new: &Value, path: &str) {
        let (old_values, new_values) = (values(old), values(new));
        match self.side {
            Side::Input => {
                let Some(new_values) = new_values else { return };
                let lost: Vec<Value> = match old_values {
                    None => {
                        return self.add(
                            path,
                            format!(
                                "the values were narrowed to {}: calls sending any other are \
                                 refused",
                                show(&new_values)
                            ),
                        );
                    }
                    Some(o) => o.into_iter().filter(|v| !new_values.contains(v)).collect(),
                };
                if !lost.is_empty() {
                    self.add(
                        path,
                        format!(
                            "the enum was narrowed: calls sending {} are refused",
                            show(&lost)
                        ),
                    );
                }
            }
            Side::Output => {
                let Some(old_values) = old_values else { return };
                let added: Vec<Value> = match new_values {
                    None => {
                        return self.add(
                            path,
                            format!(
                                "the field is no longer one of {}: callers may get a value they \
                                 do not handle",
                                show(&old_values)
                            ),
                        );
                    }
                    Some(n) => n.into_iter().filter(|v| !old_values.contains(v)).collect(),
                };
                if !added.is_empty() {
                    self.add(
                        path,
                        format!(
                            "the answer may now hold {}: callers may not handle it",
                            show(&added)
                        ),
                    );
                }
            }
        }
    }

    /// Bounds an input may not tighten (an output's bounds are the tool's own business).
    fn compare_bounds(&mut self, old: &Value, new: &Value, path: &str) {
        if self.side == Side::Output {
            return;
        }
        let num = |s: &Value, k: &str| s.get(k).and_then(Value::as_f64);
        for (key, lower) in [
            ("minimum", true),
            ("exclusiveMinimum", true),
            ("minLength", true),
            ("minItems", true),
            ("maximum", false),
            ("exclusiveMaximum", false),
            ("maxLength", false),
            ("maxItems", false),
        ] {
            let tighter = match (num(old, key), num(new, key)) {
                (None, Some(_)) => true,
                (Some(o), Some(n)) => (lower && n > o) || (!lower && n < o),
                _ => false,
            };
            if tighter {
                self.add(
                    path,
                    format!(
                        "`{key}` was tightened to {}: calls within the old bound are refused",
                        new[key]
                    ),
                );
            }
        }
        if new.get("pattern").is_some() && old.get("pattern") != new.get("pattern") {
            self.add(
                path,
                format!(
                    "the pattern changed to {}: calls matching the old one may be refused",
                    new["pattern"]
                ),
            );
        }
    }

    fn compare_properties(&mut self, old: &Value, new: &Value, path: &str, depth: usize) {
        let (old_props, new_props) = (properties(old), properties(new));
        let (old_required, new_required) = (required(old), required(new));
        for (name, old_prop) in &old_props {
            let at = format!(
                "{path}/properties/{}",
                name.replace('~', "~0").replace('/', "~1")
            );
            match (new_props.get(name), self.side) {
                // Refused by validation, or (in an open object) silently ignored.
                (None, Side::Input) => self.add(
                    &at,
                    format!(
                        "the parameter `{name}` was removed or renamed: calls that pass it are \
                         refused or lose what it did"
                    ),
                ),
                (None, Side::Output) => self.add(
                    &at,
                    format!("the field `{name}` was removed: callers reading it find nothing"),
                ),
                (Some(new_prop), _) => self.compare(old_prop, new_prop, at, depth + 1),
            }
        }
        match self.side {
            Side::Input => {
                for name in new_required.iter().filter(|n| !old_required.contains(n)) {
                    // A strict format's optional parameter: required, and null allowed.
                    let takes_null = new_props.get(name).is_some_and(|p| {
                        let p = resolve(self.new_root, p);
                        types(p).is_some_and(|t| t.iter().any(|t| t == "null"))
                            || variants(p).is_some_and(|v| {
                                v.iter()
                                    .any(|v| v.get("type") == Some(&Value::from("null")))
                            })
                    });
                    if takes_null {
                        continue;
                    }
                    let at = format!("{path}/properties/{name}");
                    self.add(
                        &at,
                        format!(
                            "the parameter `{name}` is now required: calls that leave it out are \
                             refused"
                        ),
                    );
                }
                let was_open = old.get("additionalProperties") != Some(&Value::Bool(false));
                let closed = new.get("additionalProperties") == Some(&Value::Bool(false));
                if was_open && closed && old.get("type") == Some(&Value::from("object")) {
                    self.add(
                        path,
                        "the object was closed (`additionalProperties: false`): calls passing \
                         other keys are refused"
                            .into(),
                    );
                }
            }
            Side::Output => {
                for name in old_required.iter().filter(|n| !new_required.contains(n)) {
                    if new_props.contains_key(name) {
                        let at = format!("{path}/properties/{name}");
                        self.add(
                            &at,
                            format!(
                                "the field `{name}` is no longer always there: callers reading it \
                                 may find nothing"
                            ),
                        );
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn input(old: Value, new: Value) -> Vec<Break> {
        breaks(&old, &new, Side::Input)
    }

    fn output(old: Value, new: Value) -> Vec<Break> {
        breaks(&old, &new, Side::Output)
    }

    fn base() -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "mode": {"type": "string", "enum": ["a", "b"]},
                "limit": {"type": "integer", "minimum": 1, "maximum": 100}
            },
            "required": ["path"],
            "additionalProperties": false
        })
    }

    #[test]
    fn additions_to_the_input_pass() {
        let mut new = base();
        new["properties"]["extra"] = json!({"type": "boolean"});
        new["properties"]["mode"]["enum"] = json!(["a", "b", "c"]);
        new["properties"]["limit"]["maximum"] = json!(200);
        new["properties"]["limit"]["type"] = json!(["integer", "null"]);
        assert_eq!(input(base(), new), []);
        let mut fewer = base();
        fewer["required"] = json!([]);
        assert_eq!(input(base(), fewer), []);
    }

    #[test]
    fn narrowing_the_input_breaks_naming_the_path() {
        let mut renamed = base();
        let path = renamed["properties"]["path"].take();
        renamed["properties"]
            .as_object_mut()
            .unwrap()
            .remove("path");
        renamed["properties"]["file"] = path;
        renamed["required"] = json!(["file"]);
        let found = input(base(), renamed);
        let paths: Vec<&str> = found.iter().map(|b| b.path.as_str()).collect();
        assert_eq!(paths, ["/properties/path", "/properties/file"], "{found:?}");
        assert!(found[0].why.contains("`path` was removed or renamed"));
        assert!(found[1].why.contains("`file` is now required"));

        let mut narrowed = base();
        narrowed["properties"]["mode"]["enum"] = json!(["a"]);
        let found = input(base(), narrowed);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].path, "/properties/mode");
        assert!(
            found[0].why.contains("calls sending \"b\" are refused"),
            "{found:?}"
        );

        let mut tighter = base();
        tighter["properties"]["limit"]["maximum"] = json!(50);
        tighter["properties"]["limit"]["type"] = json!("string");
        let found = input(base(), tighter);
        assert_eq!(found.len(), 2, "{found:?}");
    }

    #[test]
    fn references_are_followed() {
        let old = json!({"type": "object", "properties": {"k": {"$ref": "#/$defs/K"}},
            "$defs": {"K": {"type": "string", "enum": ["x", "y"]}}});
        let inline =
            json!({"type": "object", "properties": {"k": {"type": "string", "enum": ["x", "y"]}}});
        assert_eq!(input(old.clone(), inline), []);
        let narrowed = json!({"type": "object", "properties": {"k": {"$ref": "#/$defs/K"}},
            "$defs": {"K": {"type": "string", "enum": ["x"]}}});
        assert_eq!(input(old, narrowed)[0].path, "/properties/k");
    }

    #[test]
    fn outputs_may_grow_and_may_not_lose() {
        let old = json!({"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}},
            "required": ["n", "s"]});
        let mut more = old.clone();
        more["properties"]["t"] = json!({"type": "string"});
        assert_eq!(output(old.clone(), more), []);
        let mut less = old.clone();
        less["properties"].as_object_mut().unwrap().remove("s");
        less["required"] = json!(["n"]);
        let found = output(old.clone(), less);
        assert_eq!(found[0].path, "/properties/s");
        assert!(found[0].why.contains("`s` was removed"));
        let mut retyped = old.clone();
        retyped["properties"]["n"]["type"] = json!("string");
        assert!(output(old.clone(), retyped)[0].why.contains("retyped"));
        let mut optional = old.clone();
        optional["required"] = json!(["n"]);
        assert!(
            output(old, optional)[0]
                .why
                .contains("no longer always there")
        );
    }

    #[test]
    fn a_union_keeps_its_old_variants_and_may_gain_new_ones() {
        let a =
            json!({"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]});
        let b =
            json!({"type": "object", "properties": {"y": {"type": "integer"}}, "required": ["y"]});
        let c =
            json!({"type": "object", "properties": {"z": {"type": "boolean"}}, "required": ["z"]});
        let old = json!({"anyOf": [a, b]});
        assert_eq!(output(old.clone(), json!({"anyOf": [a, b, c]})), []);
        let found = output(old, json!({"anyOf": [a, c]}));
        assert!(!found.is_empty());
        assert!(found[0].path.starts_with("/anyOf/1"), "{found:?}");
    }
}
