//! Schemas: a parameter's schema, the object schema of a plain tool's input, the flat
//! schema of a polymorphic one, and the schemas of choices and of several outputs.

use schemars::{Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::checks::{DefaultSerialize, ExampleSerialize, ParamDeserialize, ParamJsonSchema};
use super::decode::is_optional;
use crate::spec::ActionSet;

/// One parameter of an object schema.
#[derive(Debug)]
pub struct ParamSchema {
    name: &'static str,
    schema: Schema,
    description: &'static str,
    default: Option<Value>,
    required: bool,
    examples: Vec<Value>,
    minimum: Option<Value>,
    maximum: Option<Value>,
}

/// One parameter's schema: required unless it has a default or is an `Option`.
pub fn param_schema<T: ParamDeserialize + ParamJsonSchema>(
    generator: &mut SchemaGenerator,
    name: &'static str,
    description: &'static str,
    default: Option<Value>,
) -> ParamSchema {
    ParamSchema::new::<T>(name, generator.subschema_for::<T>(), description, default)
}

impl ParamSchema {
    /// A parameter, required unless it has a default or is an `Option`.
    pub fn new<T: DeserializeOwned>(
        name: &'static str,
        schema: Schema,
        description: &'static str,
        default: Option<Value>,
    ) -> Self {
        let required = default.is_none() && !is_optional::<T>();
        ParamSchema {
            name,
            schema,
            description,
            default,
            required,
            examples: Vec::new(),
            minimum: None,
            maximum: None,
        }
    }

    /// The parameter's examples (`#[param(example = ..)]`), each the JSON of a value of its
    /// type; one that does not serialize is left out.
    pub fn with_examples(mut self, examples: Vec<Option<Value>>) -> Self {
        self.examples = examples.into_iter().flatten().collect();
        self
    }

    /// The parameter's inclusive range (`#[param(range(min = .., max = ..))]`). A bound the
    /// type already holds tighter (a `u32`'s `minimum: 0` against `min = -5`) stays.
    pub fn with_range(mut self, (minimum, maximum): (Option<Value>, Option<Value>)) -> Self {
        self.minimum = minimum;
        self.maximum = maximum;
        self
    }

    fn into_value(self, extra: Option<String>) -> Value {
        let mut schema = self.schema;
        let mut text = self.description.trim().to_owned();
        if let Some(extra) = extra {
            text = if text.is_empty() {
                capitalize(&extra) + "."
            } else if let Some(stem) = text.strip_suffix('.') {
                format!("{stem} ({extra}).")
            } else {
                format!("{text} ({extra})")
            };
        }
        if let Some(obj) = schema.as_object_mut() {
            if !text.is_empty() {
                obj.insert("description".into(), Value::String(text));
            }
            if let Some(d) = self.default {
                obj.insert("default".into(), d);
            }
            tighten(obj, "minimum", self.minimum, |new, old| new > old);
            tighten(obj, "maximum", self.maximum, |new, old| new < old);
            if !self.examples.is_empty() {
                obj.insert("examples".into(), Value::Array(self.examples));
            }
        }
        schema.to_value()
    }
}

/// Sets a bound unless the schema already holds a tighter one.
fn tighten(
    obj: &mut Map<String, Value>,
    key: &str,
    bound: Option<Value>,
    tighter: fn(f64, f64) -> bool,
) {
    let Some(bound) = bound else { return };
    let keep = match (bound.as_f64(), obj.get(key).and_then(Value::as_f64)) {
        (Some(new), Some(old)) => !tighter(new, old),
        _ => false,
    };
    if !keep {
        obj.insert(key.into(), bound);
    }
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(first) => first.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// The JSON form of a parameter's default value, for the schema.
pub fn default_value<T: DefaultSerialize>(value: &T) -> Option<Value> {
    serde_json::to_value(value).ok()
}

/// The JSON form of one of a parameter's examples, for the schema: a value of the
/// parameter's type (of the type inside an `Option`), or a string literal for a `String` or
/// `PathBuf`.
pub fn example_value<T: ExampleSerialize, E: ExampleOf<T>>(value: E) -> Option<Value> {
    serde_json::to_value(value.into_param()).ok()
}

/// What `#[param(example = ..)]` takes for a parameter of type `T`: a `T`, or a string
/// literal where `T` is owned text.
#[diagnostic::on_unimplemented(
    message = "this example is not a value of the parameter's type `{T}`",
    label = "expected a `{T}`",
    note = "write the example as a value of the parameter's type (for an `Option<T>`, a `T`)"
)]
pub trait ExampleOf<T> {
    /// The example as the parameter's value.
    fn into_param(self) -> T;
}
impl<T> ExampleOf<T> for T {
    fn into_param(self) -> T {
        self
    }
}
#[diagnostic::do_not_recommend]
impl ExampleOf<String> for &str {
    fn into_param(self) -> String {
        self.to_owned()
    }
}
#[diagnostic::do_not_recommend]
impl ExampleOf<std::path::PathBuf> for &str {
    fn into_param(self) -> std::path::PathBuf {
        self.into()
    }
}

/// The object schema of a list of parameters (a plain tool's input).
pub fn object_schema(params: Vec<ParamSchema>) -> Schema {
    let mut props = Map::new();
    let mut required = Vec::new();
    for p in params {
        if p.required {
            required.push(Value::String(p.name.to_owned()));
        }
        props.insert(p.name.to_owned(), p.into_value(None));
    }
    let mut obj = Map::new();
    obj.insert("type".into(), "object".into());
    obj.insert("properties".into(), Value::Object(props));
    if !required.is_empty() {
        obj.insert("required".into(), Value::Array(required));
    }
    Schema::from(obj)
}

fn list(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match quoted.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// Whether every action (of at least one) requires the parameter: such a parameter is
/// required at the root of the flat schema.
pub(crate) fn required_by_every_action(set: &ActionSet, param: &str) -> bool {
    !set.actions.is_empty()
        && set
            .actions
            .iter()
            .all(|a| a.required.iter().any(|r| r == param))
}

/// What the description of a parameter adds about the actions that use it.
fn usage(set: &ActionSet, param: &str) -> Option<String> {
    let all = set.actions.len();
    let required: Vec<&str> = set
        .actions
        .iter()
        .filter(|a| a.required.iter().any(|r| r == param))
        .map(|a| a.name.as_ref())
        .collect();
    let takes: Vec<&str> = set
        .actions
        .iter()
        .filter(|a| a.takes(param))
        .map(|a| a.name.as_ref())
        .collect();
    let plural = |n: usize| if n == 1 { "action" } else { "actions" };
    if required.len() == all {
        // Required at the root: the schema's `required` says so.
        None
    } else if !required.is_empty() {
        Some(format!(
            "required for the {} {}",
            list(&required),
            plural(required.len())
        ))
    } else if takes.len() < all {
        Some(format!(
            "only for the {} {}",
            list(&takes),
            plural(takes.len())
        ))
    } else {
        None
    }
}

/// The canonical flat schema of a polymorphic input: the discriminator as a string enum
/// whose description lists each action, plus the union of every action's parameters. The
/// root `required` lists the discriminator and the parameters every action requires; each
/// action's other required parameters are enforced from the [`ActionSet`].
pub fn flat_schema(set: &ActionSet, params: Vec<ParamSchema>) -> Schema {
    let mut text = String::from("The action to perform, one of:");
    for a in &set.actions {
        text.push_str(&format!("\n- `{}`", a.name));
        let args: Vec<String> = a
            .required
            .iter()
            .map(|p| p.to_string())
            .chain(a.optional.iter().map(|p| format!("[{p}]")))
            .collect();
        if !args.is_empty() {
            text.push_str(&format!(" ({})", args.join(", ")));
        }
        if !a.description.is_empty() {
            text.push_str(&format!(": {}", a.description));
        }
    }
    let names: Vec<Value> = set.names().map(|n| Value::String(n.to_owned())).collect();
    let mut tag = Map::new();
    tag.insert("type".into(), "string".into());
    tag.insert("enum".into(), Value::Array(names));
    tag.insert("description".into(), Value::String(text));
    let mut props = Map::new();
    props.insert(set.field.to_string(), Value::Object(tag));
    let mut required = vec![Value::String(set.field.to_string())];
    for p in params {
        if required_by_every_action(set, p.name) {
            required.push(Value::String(p.name.to_owned()));
        }
        let extra = usage(set, p.name);
        props.insert(p.name.to_owned(), p.into_value(extra));
    }
    let mut obj = Map::new();
    obj.insert("type".into(), "object".into());
    obj.insert("properties".into(), Value::Object(props));
    obj.insert("required".into(), Value::Array(required));
    Schema::from(obj)
}

/// The schema of a closed set of strings, in declaration order.
pub fn choice_schema(values: &[&str], description: &str) -> Schema {
    let mut obj = Map::new();
    obj.insert("type".into(), "string".into());
    obj.insert(
        "enum".into(),
        Value::Array(values.iter().map(|v| Value::from(*v)).collect()),
    );
    if !description.is_empty() {
        obj.insert("description".into(), description.into());
    }
    Schema::from(obj)
}

/// The schema of one of several outputs: the common schema when they are all alike,
/// else `anyOf`.
pub fn union_schema(schemas: Vec<Schema>) -> Schema {
    let all_alike = schemas.windows(2).all(|w| w[0] == w[1]);
    match schemas.first() {
        Some(first) if all_alike => first.clone(),
        _ => {
            let mut obj = Map::new();
            obj.insert(
                "anyOf".into(),
                Value::Array(schemas.into_iter().map(Schema::to_value).collect()),
            );
            Schema::from(obj)
        }
    }
}
