//! Compile-time checks: the traits generated code names the user's types through, each
//! spanned at the user's token, with the hint on the trait.

use std::future::Future;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::context::ToolContext;
use crate::error::ToolError;
use crate::render::Render;

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
    /// A parameter with examples shows them in the schema.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot have examples in the schema: it does not implement `Serialize`",
        label = "a parameter with an example must implement `serde::Serialize`",
        note = "derive `serde::Serialize` for it, or drop `#[param(example = ..)]`"
    )]
    ExampleSerialize: Serialize
}

/// A parameter with a range is a number (or an `Option` of one).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot have a range: it is not a number",
    label = "`range(min = .., max = ..)` bounds a number parameter",
    note = "give the range to an integer or float parameter (or an `Option` of one), or drop it"
)]
pub trait RangeParam {}
macro_rules! range_params {
    ($($t:ty),*) => { $(#[diagnostic::do_not_recommend] impl RangeParam for $t {})* };
}
range_params!(
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    f32,
    f64,
    std::num::NonZeroU8,
    std::num::NonZeroU16,
    std::num::NonZeroU32,
    std::num::NonZeroU64,
    std::num::NonZeroUsize,
    std::num::NonZeroI8,
    std::num::NonZeroI16,
    std::num::NonZeroI32,
    std::num::NonZeroI64,
    std::num::NonZeroIsize
);
#[diagnostic::do_not_recommend]
impl<T: RangeParam> RangeParam for Option<T> {}

/// Checks that a parameter with `range(..)` is a number.
pub fn check_range<T: RangeParam>() {}

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
    /// The future of the user's function as the tool's call: that future itself, whose
    /// output already is the call's result (no wrapper around it to poll and move the
    /// result through).
    fn future<F: Future<Output = Self>>(f: F) -> F {
        f
    }
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
