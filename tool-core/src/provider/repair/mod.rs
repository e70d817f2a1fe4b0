use serde::Serialize;
use serde_json::{Map, Value};

mod shape;

use self::shape::{
    Kinds, array_schema, integer_of, items_of, kinds, object_schema, parse_number, type_name,
};
use super::schema::{accepts_null, required_list, resolve};
use crate::error::Problem;

/// The deepest level of arguments the converter descends into; deeper values are left as
/// they are (validation still sees them).
pub const MAX_CONVERT_DEPTH: usize = 64;

/// What kind of change a [`Repair`] made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum RepairKind {
    /// A string holding JSON text was parsed where an object or an array was expected
    /// (also a whole `arguments` string that was JSON-encoded twice).
    StringifiedJsonParsed,
    /// An empty (or blank) string where an object was expected became `{}`.
    EmptyStringAsEmptyObject,
    /// One value where an array was expected became a one-element array.
    ScalarWrappedInArray,
    /// A string holding a number was read as that number.
    NumberFromString,
    /// A float with no fractional part (`5.0`, as Gemini sends every number) was read as an
    /// integer where only an integer fits.
    IntegerFromFloat,
    /// A string `true` or `false` (any case) was read as a boolean.
    BoolFromString,
    /// A string `null` was read as `null` where the schema takes `null` but no string.
    NullFromString,
    /// A `null` for an optional parameter that does not take `null` was dropped, as if the
    /// parameter were absent (strict mode makes optional parameters nullable).
    NullDropped,
    /// The call had no arguments at all; `{}` was used.
    MissingArguments,
    /// Text outside the parameter tags of an XML call was ignored.
    StrayTextIgnored,
}

impl RepairKind {
    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            RepairKind::StringifiedJsonParsed => "stringified_json_parsed",
            RepairKind::EmptyStringAsEmptyObject => "empty_string_as_empty_object",
            RepairKind::ScalarWrappedInArray => "scalar_wrapped_in_array",
            RepairKind::NumberFromString => "number_from_string",
            RepairKind::IntegerFromFloat => "integer_from_float",
            RepairKind::BoolFromString => "bool_from_string",
            RepairKind::NullFromString => "null_from_string",
            RepairKind::NullDropped => "null_dropped",
            RepairKind::MissingArguments => "missing_arguments",
            RepairKind::StrayTextIgnored => "stray_text_ignored",
        }
    }
}

impl std::fmt::Display for RepairKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One change the importer made to a call's arguments.
///
/// Schema-guided conversion of imported arguments (seed 001's phase 3), every change reported.
///
/// XML parameters arrive as text, and models sometimes send JSON of the wrong shape (an
/// object as a JSON string, `"5"` for a number, one value where a list is expected, `null`
/// for a parameter strict mode made nullable). The importer fits such values to the tool's
/// canonical schema and lists each change as a [`Repair`], so a host can log or refuse them;
/// nothing is guessed silently. A value that cannot be converted is left as it was, and
/// validation reports it to the model.
///
/// What counts as a repair: every value whose JSON type differs from what the model wrote.
/// For XML that includes `42` read as a number; the list of tags of an array parameter *is*
/// the array (the documented syntax) and is not a repair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Repair {
    /// JSON pointer to the value in the arguments (`""` for the whole arguments).
    pub path: String,
    /// What was done.
    pub kind: RepairKind,
    /// What the value was, in a few words, e.g. `the string "5"`.
    pub detail: String,
}

impl Repair {
    /// A repair at `path`.
    pub fn new(path: impl Into<String>, kind: RepairKind, detail: impl Into<String>) -> Self {
        Repair {
            path: path.into(),
            kind,
            detail: detail.into(),
        }
    }
}

fn short(v: &str) -> String {
    let mut s: String = v.chars().take(40).collect();
    if v.chars().count() > 40 {
        s.push('…');
    }
    format!("{s:?}")
}

/// Fits values to a schema, collecting what it changed.
pub(crate) struct Converter<'a> {
    root: &'a Value,
    pub(crate) repairs: Vec<Repair>,
}

impl<'a> Converter<'a> {
    pub(crate) fn new(root: &'a Value) -> Self {
        Converter {
            root,
            repairs: Vec::new(),
        }
    }

    fn repair(&mut self, path: &str, kind: RepairKind, detail: String) {
        self.repairs.push(Repair::new(path, kind, detail));
    }

    /// Fits `value` to the schema `node`.
    pub(crate) fn convert(
        &mut self,
        node: &Value,
        value: Value,
        path: &str,
        depth: usize,
    ) -> Value {
        if depth > MAX_CONVERT_DEPTH {
            return value;
        }
        let k = kinds(self.root, node, 0);
        if k.fits(&value) {
            return match value {
                Value::Object(obj) => self.convert_object(node, obj, path, depth),
                Value::Array(items) => self.convert_array(node, items, path, depth),
                Value::Number(n) if n.is_f64() && !k.number && !k.any => match integer_of(&n) {
                    Some(i) => {
                        self.repair(
                            path,
                            RepairKind::IntegerFromFloat,
                            format!("the number {n}"),
                        );
                        Value::Number(i)
                    }
                    None => Value::Number(n),
                },
                other => other,
            };
        }
        match value {
            Value::String(s) => self.fit_string(node, k, s, path, depth),
            Value::Null => Value::Null,
            other if k.array => {
                let detail = format!("a single {}", type_name(&other));
                let item = self.convert(
                    items_of(self.root, node),
                    other,
                    &format!("{path}/0"),
                    depth + 1,
                );
                self.repair(path, RepairKind::ScalarWrappedInArray, detail);
                Value::Array(vec![item])
            }
            other => other,
        }
    }

    fn fit_string(&mut self, node: &Value, k: Kinds, s: String, path: &str, depth: usize) -> Value {
        let trimmed = s.trim();
        if k.object && trimmed.is_empty() {
            self.repair(
                path,
                RepairKind::EmptyStringAsEmptyObject,
                "an empty string".to_owned(),
            );
            return Value::Object(Map::new());
        }
        if (k.object || k.array) && (trimmed.starts_with('{') || trimmed.starts_with('[')) {
            let mut parsed = serde_json::from_str::<Value>(trimmed).ok();
            let mut levels = 1;
            if let Some(Value::String(inner)) = &parsed {
                let t = inner.trim();
                if t.starts_with('{') || t.starts_with('[') {
                    parsed = serde_json::from_str::<Value>(t).ok();
                    levels = 2;
                }
            }
            if let Some(p) = parsed
                && ((k.object && p.is_object()) || (k.array && p.is_array()))
            {
                let what = if p.is_object() { "object" } else { "array" };
                self.repair(
                    path,
                    RepairKind::StringifiedJsonParsed,
                    if levels == 1 {
                        format!("a JSON {what} written as a string")
                    } else {
                        format!("a JSON {what} written as a string, encoded twice")
                    },
                );
                return self.convert(node, p, path, depth + 1);
            }
        }
        if (k.integer || k.number)
            && let Some(n) = parse_number(trimmed, k.number)
        {
            self.repair(
                path,
                RepairKind::NumberFromString,
                format!("the string {}", short(&s)),
            );
            return Value::Number(n);
        }
        if k.boolean {
            let b = if trimmed.eq_ignore_ascii_case("true") {
                Some(true)
            } else if trimmed.eq_ignore_ascii_case("false") {
                Some(false)
            } else {
                None
            };
            if let Some(b) = b {
                self.repair(
                    path,
                    RepairKind::BoolFromString,
                    format!("the string {}", short(&s)),
                );
                return Value::Bool(b);
            }
        }
        if k.null && trimmed == "null" {
            self.repair(
                path,
                RepairKind::NullFromString,
                "the string \"null\"".to_owned(),
            );
            return Value::Null;
        }
        if k.array {
            let items = items_of(self.root, node);
            let item = self.convert(items, Value::String(s), &format!("{path}/0"), depth + 1);
            self.repair(
                path,
                RepairKind::ScalarWrappedInArray,
                "a single string".to_owned(),
            );
            return Value::Array(vec![item]);
        }
        Value::String(s)
    }

    fn convert_object(
        &mut self,
        node: &Value,
        obj: Map<String, Value>,
        path: &str,
        depth: usize,
    ) -> Value {
        let Some(schema) = object_schema(self.root, node, &obj, 0) else {
            return Value::Object(obj);
        };
        let props = schema.get("properties").and_then(Value::as_object);
        let extra = schema
            .get("additionalProperties")
            .filter(|a| !matches!(a, Value::Bool(_)));
        let required = required_list(schema);
        let mut out = Map::with_capacity(obj.len());
        for (key, val) in obj {
            let sub = props.and_then(|p| p.get(&key));
            let here = super::schema::child(path, &key);
            if val.is_null()
                && let Some(sub) = sub
                && !required.contains(&key.as_str())
                && !accepts_null(self.root, sub)
            {
                self.repair(
                    &here,
                    RepairKind::NullDropped,
                    format!("`null` for the optional parameter `{key}`"),
                );
                continue;
            }
            let v = match sub.or(extra) {
                Some(s) => self.convert(s, val, &here, depth + 1),
                None => val,
            };
            out.insert(key, v);
        }
        Value::Object(out)
    }

    fn convert_array(
        &mut self,
        node: &Value,
        items: Vec<Value>,
        path: &str,
        depth: usize,
    ) -> Value {
        let node = resolve(self.root, node);
        let node = array_schema(self.root, node, 0).unwrap_or(node);
        let prefix = node.get("prefixItems").and_then(Value::as_array);
        let rest = node.get("items");
        let mut out = Vec::with_capacity(items.len());
        for (i, v) in items.into_iter().enumerate() {
            let sub = prefix.and_then(|p| p.get(i)).or(rest);
            out.push(match sub {
                Some(s) => self.convert(s, v, &format!("{path}/{i}"), depth + 1),
                None => v,
            });
        }
        Value::Array(out)
    }
}

/// Fits a JSON arguments value to a tool's canonical schema; see the module docs.
///
/// ```
/// use serde_json::json;
/// use tool_core::provider::{RepairKind, repair_arguments};
/// let schema = json!({"type": "object", "properties": {
///     "n": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}}}});
/// let (value, repairs) = repair_arguments(&schema, json!({"n": "5", "tags": "a"}));
/// assert_eq!(value, json!({"n": 5, "tags": ["a"]}));
/// assert_eq!(repairs[0].kind, RepairKind::NumberFromString);
/// assert_eq!(repairs[1].kind, RepairKind::ScalarWrappedInArray);
/// ```
pub fn repair_arguments(schema: &Value, value: Value) -> (Value, Vec<Repair>) {
    let mut c = Converter::new(schema);
    let out = c.convert(schema, value, "", 0);
    (out, c.repairs)
}

/// Builds the arguments of an XML call from its parameters (name and text, in order) and the
/// tool's schema (`None` for an unknown tool: every value stays a string). Returns the
/// arguments, the repairs, and the problems: a parameter given more than once that takes one
/// value (it becomes an array of the texts, so validation refuses it too).
pub fn xml_arguments(
    schema: Option<&Value>,
    params: &[(String, String)],
) -> (Value, Vec<Repair>, Vec<Problem>) {
    static EMPTY: Value = Value::Null;
    let root = schema.unwrap_or(&EMPTY);
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for (name, text) in params {
        match groups.iter_mut().find(|(n, _)| n == name) {
            Some((_, list)) => list.push(text),
            None => groups.push((name, vec![text])),
        }
    }
    let props = root.get("properties").and_then(Value::as_object);
    let mut c = Converter::new(root);
    let mut problems = Vec::new();
    let mut out = Map::with_capacity(groups.len());
    for (name, texts) in groups {
        let here = super::schema::child("", name);
        let Some(sub) = props.and_then(|p| p.get(name)) else {
            // Unknown parameter (or unknown tool): left as text for validation to report.
            let v = if texts.len() == 1 {
                Value::String(texts[0].to_owned())
            } else {
                Value::Array(
                    texts
                        .iter()
                        .map(|t| Value::String((*t).to_owned()))
                        .collect(),
                )
            };
            out.insert(name.to_owned(), v);
            continue;
        };
        let k = kinds(root, sub, 0);
        let value = if k.array && !(k.string && texts.len() == 1) {
            let single_json = texts.len() == 1 && texts[0].trim_start().starts_with('[');
            if single_json
                && let Ok(Value::Array(items)) = serde_json::from_str::<Value>(texts[0].trim())
            {
                c.repair(
                    &here,
                    RepairKind::StringifiedJsonParsed,
                    "a JSON array written in one tag".to_owned(),
                );
                c.convert(sub, Value::Array(items), &here, 1)
            } else {
                let items = items_of(root, sub);
                let conv: Vec<Value> = texts
                    .iter()
                    .enumerate()
                    .map(|(i, t)| {
                        c.convert(
                            items,
                            Value::String((*t).to_owned()),
                            &format!("{here}/{i}"),
                            1,
                        )
                    })
                    .collect();
                Value::Array(conv)
            }
        } else if texts.len() > 1 {
            problems.push(
                Problem::new(
                    here.clone(),
                    format!(
                        "parameter `{name}` was given {} times; it takes one value",
                        texts.len()
                    ),
                )
                .expected("one <param:".to_owned() + name + "> tag"),
            );
            Value::Array(
                texts
                    .iter()
                    .map(|t| Value::String((*t).to_owned()))
                    .collect(),
            )
        } else {
            c.convert(sub, Value::String(texts[0].to_owned()), &here, 1)
        };
        out.insert(name.to_owned(), value);
    }
    (Value::Object(out), c.repairs, problems)
}
