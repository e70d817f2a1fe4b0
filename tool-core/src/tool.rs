//! The [`Tool`] trait a tool implements, and [`DynTool`], its object-safe erasure.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::call::Arguments;
use crate::context::ToolContext;
use crate::error::ToolError;
use crate::output::ToolOutput;
use crate::render::Render;
use crate::spec::ToolSpec;
use crate::validate::CompiledSchema;

/// A tool with typed input and output.
///
/// The input type's [`JsonSchema`] is the tool's canonical input schema; the runtime validates
/// every call against it before [`Tool::call`] runs, so `call` only sees well-formed input.
///
/// ```
/// use tool_core::{Render, Tool, ToolContext, ToolError, ToolSpec};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct EchoArgs {
///     /// The text to send back.
///     text: String,
/// }
///
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Echoed {
///     r#type: &'static str,
///     text: String,
/// }
/// impl Render for Echoed {}
///
/// struct Echo;
///
/// impl Tool for Echo {
///     type Input = EchoArgs;
///     type Output = Echoed;
///     fn spec(&self) -> ToolSpec {
///         ToolSpec::new("echo", "Send the text back.")
///     }
///     async fn call(&self, _ctx: &ToolContext, input: EchoArgs) -> Result<Echoed, ToolError> {
///         Ok(Echoed { r#type: "echoed", text: input.text })
///     }
/// }
/// ```
pub trait Tool: Send + Sync + 'static {
    /// The arguments, deserialized from the call. Its schema is the input schema.
    type Input: DeserializeOwned + JsonSchema + Send + 'static;
    /// The result. Its JSON form is the structured result; [`Render`] gives the texts.
    type Output: Serialize + Render + JsonSchema + Send + Sync + 'static;

    /// The tool's metadata. The input and output schemas are filled in from the types by
    /// [`DynTool::spec`] (no output schema for a
    /// [`text_output`](field@ToolSpec::text_output) tool); leave them at their defaults here.
    fn spec(&self) -> ToolSpec;

    /// The input schema; by default derived from [`Tool::Input`].
    fn input_schema(&self) -> Value {
        crate::schema::input_schema_for::<Self::Input>()
    }

    /// The output schema; by default derived from [`Tool::Output`] when every value of it is
    /// an object: an object schema, or a `oneOf`/`anyOf` of object schemas (a tagged enum),
    /// which gets `"type": "object"` at the root (see
    /// [`object_output_schema`](crate::schema::object_output_schema)).
    fn output_schema(&self) -> Option<Value> {
        crate::schema::object_output_schema(crate::schema::output_schema_for::<Self::Output>())
    }

    /// Runs the tool. Write it as an `async fn`; its future must be `Send` (a call may run
    /// on any thread of a multi-threaded runtime).
    fn call(
        &self,
        ctx: &ToolContext,
        input: Self::Input,
    ) -> impl Future<Output = Result<Self::Output, ToolError>> + Send;
}

/// A call's future, as [`DynTool::start`] makes it: the tool's output or its error.
pub type ToolFuture<'a> = Pin<Box<dyn Future<Output = Result<ToolOutput, ToolError>> + Send + 'a>>;

/// The object-safe form of a tool, as the registry stores it and the runtime runs it. Every
/// [`Tool`] is a `DynTool`; implement it directly only for tools whose input is not a Rust
/// type (a proxy for remote tools, say).
pub trait DynTool: Send + Sync + 'static {
    /// The full spec, schemas included.
    fn spec(&self) -> ToolSpec;

    /// Validates and decodes the arguments against the compiled schema and makes the call's
    /// future, not yet polled: what the runtime runs once the call has passed its gates. A
    /// refusal (every problem of the arguments at once) is the `Err`.
    fn start<'a>(
        &'a self,
        ctx: &'a ToolContext,
        args: &Arguments,
        schema: &CompiledSchema,
    ) -> Result<ToolFuture<'a>, ToolError>;
}

impl<T: Tool> DynTool for T {
    fn spec(&self) -> ToolSpec {
        let mut spec = Tool::spec(self);
        spec.input_schema = Arc::new(self.input_schema());
        // A text_output tool declares none (its spec's check refuses one set by hand).
        if spec.output_schema.is_none() && !spec.text_output {
            spec.output_schema = self.output_schema().map(Arc::new);
        }
        spec
    }

    fn start<'a>(
        &'a self,
        ctx: &'a ToolContext,
        args: &Arguments,
        schema: &CompiledSchema,
    ) -> Result<ToolFuture<'a>, ToolError> {
        let input = schema.decode(args)?;
        Ok(Box::pin(run(self, ctx, input)))
    }
}

/// Runs a tool on its typed input.
///
/// The tool's own future is made before the returned one, which holds it alone (not the
/// input beside it as well).
fn run<'a, T: Tool>(
    tool: &'a T,
    ctx: &'a ToolContext,
    input: T::Input,
) -> impl Future<Output = Result<ToolOutput, ToolError>> + Send + 'a {
    let call = tool.call(ctx, input);
    async move { Ok(ToolOutput::new(call.await?)) }
}
