//! What the code `tool-macros` generates calls into. Not public API: no stability promise.
//!
//! Re-exported from `tool_core::__private`.

use std::fmt;
use std::marker::PhantomData;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Serialize;
use serde::de::{self, DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde_json::{Map, Value};

use super::Actions;
use crate::call::Arguments;
use crate::context::ToolContext;
use crate::error::ToolError;
use crate::render::Render;
use crate::spec::{ActionSet, ActionSpec, ToolSpec};
use crate::validate::CompiledSchema;

// ---- Compile-time checks. Generated code names the user's types through these traits,
// spanned at the user's token. Each requirement is its own trait whose blanket impl is
// `do_not_recommend`, so a missing impl is reported as that trait, with its hint, once.

macro_rules! check_trait {
    ($(#[$meta:meta])* $name:ident: $($bound:tt)+) => {
        $(#[$meta])*
        pub trait $name: $($bound)+ {}
        #[diagnostic::do_not_recommend]
        impl<T: $($bound)+> $name for T {}
    };
}

check_trait! {
    /// A tool's arguments type can be deserialized.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be a tool's arguments: it does not implement `Deserialize`",
        label = "the arguments type must implement `serde::Deserialize`",
        note = "derive it: `#[derive(serde::Deserialize)]`, or `#[derive(Action)]` for an enum of actions"
    )]
    ArgsDeserialize: DeserializeOwned
}

check_trait! {
    /// A tool's arguments type has a schema.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be a tool's arguments: it does not implement `JsonSchema`",
        label = "the arguments type must implement `schemars::JsonSchema`",
        note = "derive it: `#[derive(schemars::JsonSchema)]`, or `#[derive(Action)]` for an enum of actions"
    )]
    ArgsJsonSchema: JsonSchema
}

/// The type of a tool's arguments.
pub trait ToolArgs: ArgsDeserialize + ArgsJsonSchema + Send + 'static {
    /// The type itself.
    type This: DeserializeOwned + JsonSchema + Send + 'static;
}
impl<T: ArgsDeserialize + ArgsJsonSchema + Send + 'static> ToolArgs for T {
    type This = T;
}

check_trait! {
    /// A tool parameter's type can be deserialized.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be a tool parameter: it does not implement `Deserialize`",
        label = "a parameter type must implement `serde::Deserialize`",
        note = "use a type that does, or derive it: `#[derive(serde::Deserialize)]` (`#[derive(Action)]` for an enum of values)"
    )]
    ParamDeserialize: DeserializeOwned
}

check_trait! {
    /// A tool parameter's type has a schema.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be a tool parameter: it does not implement `JsonSchema`",
        label = "a parameter type must implement `schemars::JsonSchema`",
        note = "use a type that does, or derive it: `#[derive(schemars::JsonSchema)]` (`#[derive(Action)]` for an enum of values)"
    )]
    ParamJsonSchema: JsonSchema
}

check_trait! {
    /// A parameter with a default shows it in the schema.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot have a default value in the schema: it does not implement `Serialize`",
        label = "a parameter with a default must implement `serde::Serialize`",
        note = "derive `serde::Serialize` for it, or drop `#[param(default)]`"
    )]
    DefaultSerialize: Serialize
}

check_trait! {
    /// A tool's output can be serialized.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be a tool's output: it does not implement `Serialize`",
        label = "the output type must implement `serde::Serialize`",
        note = "derive it: `#[derive(serde::Serialize)]`"
    )]
    OutputSerialize: Serialize
}

check_trait! {
    /// A tool's output has a schema.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be a tool's output: it does not implement `JsonSchema`",
        label = "the output type must implement `schemars::JsonSchema`",
        note = "derive it: `#[derive(schemars::JsonSchema)]`"
    )]
    OutputJsonSchema: JsonSchema
}

check_trait! {
    /// A tool's output can be rendered.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be a tool's output: it does not implement `Render`",
        label = "the output type must implement `Render`",
        note = "add `impl Render for {Self} {{}}` to render it as JSON, or implement `status` and `render` for custom text"
    )]
    OutputRender: Render
}

/// The type of a tool's output.
pub trait ToolOutput:
    OutputSerialize + OutputJsonSchema + OutputRender + Send + Sync + 'static
{
    /// The type itself.
    type This: Serialize + Render + JsonSchema + Send + Sync + 'static;
}
impl<T: OutputSerialize + OutputJsonSchema + OutputRender + Send + Sync + 'static> ToolOutput
    for T
{
    type This = T;
}

/// The return type of a tool function or method.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool's result",
    label = "a tool returns `Result<T, ToolError>`",
    note = "return `Result<T, ToolError>` (or `ToolResult<T>`), where `T` is the output"
)]
pub trait ToolReturn {
    /// The output type.
    type Ok;
    /// The result.
    fn into_result(self) -> Result<Self::Ok, ToolError>;
}
impl<T> ToolReturn for Result<T, ToolError> {
    type Ok = T;
    fn into_result(self) -> Result<T, ToolError> {
        self
    }
}

/// The context parameter of a tool function or method.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not the tool context",
    label = "a reference parameter receives the call's context",
    note = "declare it as `ctx: &ToolContext`, or remove it"
)]
pub trait ContextArg<'a>: Sized {
    /// Passes the context.
    fn from_context(ctx: &'a ToolContext) -> Self;
}
impl<'a> ContextArg<'a> for &'a ToolContext {
    fn from_context(ctx: &'a ToolContext) -> Self {
        ctx
    }
}

/// A tool registered automatically must be constructible without arguments.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be registered automatically: it does not implement `Default`",
    label = "the tool is made with `Default::default()` when the registry collects it",
    note = "derive or implement `Default`, name a constructor with `#[tool(constructor = path)]`, or opt out with `#[tool(register = false)]`"
)]
pub trait AutoRegister: Sized {
    /// Makes the tool.
    fn make() -> Self;
}
impl<T: Default> AutoRegister for T {
    fn make() -> Self {
        T::default()
    }
}

/// Two declarations of one parameter must have one type.
#[diagnostic::on_unimplemented(
    message = "this parameter is declared by another action with type `{T}`, here with `{Self}`",
    label = "expected `{T}`",
    note = "a parameter shared by several actions has one type; rename one of them, or use `#[param(default)]` to make it optional"
)]
pub trait SameType<T> {
    /// The value, as `Self` (it is one).
    fn cast(value: T) -> Self;
}
impl<T> SameType<T> for T {
    fn cast(value: T) -> T {
        value
    }
}

/// A value of `A` as the `B` it is (see [`SameType`]).
pub fn same_type_cast<A, B: SameType<A>>(value: A) -> B {
    B::cast(value)
}

// ---- The output of a polymorphic `#[tool]` impl delegates to the chosen action's.

/// Checks an action's output type. Generated code calls it first in every function that
/// uses the type, at the type's span, so a type that does not fit is reported once.
pub fn check_output<T: OutputSerialize + OutputJsonSchema + OutputRender>() {}

/// Serializes one action's output.
pub fn output_serialize<T: OutputSerialize, S: serde::Serializer>(
    output: &T,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    output.serialize(serializer)
}

/// One action's output schema (inline, so equal outputs compare equal).
pub fn output_schema<T: OutputJsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    T::json_schema(generator)
}

/// One action's status line.
pub fn output_status<T: OutputRender>(output: &T) -> Option<String> {
    output.status()
}

/// One action's model text.
pub fn output_render<T: OutputRender>(
    output: &T,
    tracker: &mut crate::render::ResourcesTracker,
) -> Option<String> {
    output.render(tracker)
}

/// Whether one action's output reports success.
pub fn output_is_success<T: OutputRender>(output: &T) -> bool {
    output.is_success()
}

// ---- Whether a tool's input is polymorphic (autoref specialization on a concrete type).

/// Looks at a type to find out whether it implements [`Actions`].
pub struct Probe<T>(PhantomData<T>);

impl<T> Probe<T> {
    /// A probe.
    pub const fn new() -> Self {
        Probe(PhantomData)
    }
}

impl<T> Default for Probe<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// Picked for a type that implements [`Actions`].
pub trait ProbeActions {
    /// The type's actions.
    fn probe_actions(&self) -> Option<ActionSet>;
}
impl<T: Actions> ProbeActions for Probe<T> {
    fn probe_actions(&self) -> Option<ActionSet> {
        Some(T::action_set())
    }
}

/// Picked for any other type.
pub trait ProbePlain {
    /// No actions.
    fn probe_actions(&self) -> Option<ActionSet>;
}
impl<T> ProbePlain for &Probe<T> {
    fn probe_actions(&self) -> Option<ActionSet> {
        None
    }
}

/// Picked for an input type that refuses unknown members itself: one strict decode.
pub trait ProbeStrict {
    /// The input type.
    type Input;
    /// Decodes the arguments.
    fn probe_decode(
        &self,
        args: &Arguments,
        schema: &CompiledSchema,
    ) -> Result<Self::Input, ToolError>;
}
impl<T: DeserializeOwned + DeniesUnknownParams> ProbeStrict for Probe<T> {
    type Input = T;
    fn probe_decode(&self, args: &Arguments, schema: &CompiledSchema) -> Result<T, ToolError> {
        schema.decode_strict(args)
    }
}

/// Picked for any other input type: the general decode, watching for unknown members.
pub trait ProbeWatch {
    /// The input type.
    type Input;
    /// Decodes the arguments.
    fn probe_decode(
        &self,
        args: &Arguments,
        schema: &CompiledSchema,
    ) -> Result<Self::Input, ToolError>;
}
impl<T: DeserializeOwned> ProbeWatch for &Probe<T> {
    type Input = T;
    fn probe_decode(&self, args: &Arguments, schema: &CompiledSchema) -> Result<T, ToolError> {
        schema.decode(args)
    }
}

/// Declares the spec polymorphic when the input has actions.
pub fn with_actions(spec: ToolSpec, actions: Option<ActionSet>) -> ToolSpec {
    match actions {
        Some(set) => spec.actions(set),
        None => spec,
    }
}

/// Adds a parameter to an action, required unless it has a default or may be missing.
pub fn action_param<T: ParamDeserialize>(
    action: ActionSpec,
    name: &'static str,
    has_default: bool,
) -> ActionSpec {
    if has_default || is_optional::<T>() {
        action.optional(name)
    } else {
        action.required(name)
    }
}

// ---- Deserialization.

/// Finds a map key among the known parameter names: its index, or an `unknown parameter`
/// error naming the key and the known ones (the generated input types refuse unknown
/// members themselves, as `#[serde(deny_unknown_fields)]` does).
#[derive(Clone, Copy)]
pub struct KeySeed(pub &'static [&'static str]);

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = usize;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl Visitor<'_> for KeySeed {
    type Value = usize;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a parameter name")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        match self.0.iter().position(|k| *k == v) {
            Some(i) => Ok(i),
            None => Err(unknown_param(v, self.0)),
        }
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Self::Value, E> {
        match self.0.iter().position(|k| k.as_bytes() == v) {
            Some(i) => Ok(i),
            None => Err(unknown_param(&String::from_utf8_lossy(v), self.0)),
        }
    }
}

/// `unknown parameter `x`; known parameters: a, b`, as the validator words it.
#[cold]
fn unknown_param<E: de::Error>(name: &str, known: &[&str]) -> E {
    E::custom(unknown_param_message(name, known))
}

fn unknown_param_message(name: &str, known: &[&str]) -> String {
    if known.is_empty() {
        format!("unknown parameter `{name}`; this tool takes no parameters")
    } else {
        format!(
            "unknown parameter `{name}`; known parameters: {}",
            known.join(", ")
        )
    }
}

/// A type whose `Deserialize` refuses unknown members itself (the input types the macros
/// generate), so a tool may decode it without watching for them; see
/// [`CompiledSchema::decode_strict`](crate::validate::CompiledSchema::decode_strict).
pub trait DeniesUnknownParams {}

/// Reads one of a closed set of strings: the index of the value, or an
/// `unknown variant` error listing the allowed ones.
#[derive(Clone, Copy)]
pub struct NameSeed(pub &'static [&'static str]);

impl<'de> DeserializeSeed<'de> for NameSeed {
    type Value = usize;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for NameSeed {
    type Value = usize;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "one of: {}", self.0.join(", "))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<usize, E> {
        self.0
            .iter()
            .position(|k| *k == v)
            .ok_or_else(|| E::unknown_variant(v, self.0))
    }
}

/// A deserializer for a parameter that is absent: `None` for an `Option`, else a
/// `missing field` error.
struct Missing<E> {
    name: &'static str,
    marker: PhantomData<E>,
}

impl<'de, E: de::Error> Deserializer<'de> for Missing<E> {
    type Error = E;
    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, E> {
        Err(E::missing_field(self.name))
    }
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        visitor.visit_none()
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
        byte_buf unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

/// Checks a parameter type. Generated code calls it first in every function that uses
/// the type, at the type's span, so a type that does not fit is reported once.
pub fn check_param<T: ParamDeserialize + ParamJsonSchema>() {}

/// The value of an absent parameter: `None` for an `Option`, else `missing field`.
pub fn missing<T: ParamDeserialize, E: de::Error>(name: &'static str) -> Result<T, E> {
    T::deserialize(Missing {
        name,
        marker: PhantomData,
    })
}

/// Reads a parameter's value; `null` reads as absent.
pub fn read_param<'de, T: ParamDeserialize, A: MapAccess<'de>>(
    map: &mut A,
) -> Result<Option<T>, A::Error> {
    map.next_value::<Option<T>>()
}

/// Whether a parameter of type `T` may be left out (an `Option`).
pub fn is_optional<T: DeserializeOwned>() -> bool {
    T::deserialize(Missing::<de::value::Error> {
        name: "",
        marker: PhantomData,
    })
    .is_ok()
}

/// The error for a parameter given to an action that does not take it.
pub fn not_applicable<E: de::Error>(param: &str, action: &str) -> E {
    E::custom(format_args!(
        "`{param}` does not apply to action `{action}`"
    ))
}

/// The error for a value outside the declared set (not reachable through the seeds).
pub fn out_of_range<E: de::Error>(what: &str) -> E {
    E::custom(format_args!("unexpected {what}"))
}

// ---- Schemas.

/// One parameter of an object schema.
#[derive(Debug)]
pub struct ParamSchema {
    name: &'static str,
    schema: Schema,
    description: &'static str,
    default: Option<Value>,
    required: bool,
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
        }
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
        }
        schema.to_value()
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
