//! The [`Tool`] trait a tool implements, and [`DynTool`], its object-safe erasure.

use std::any::Any;
use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::call::Arguments;
use crate::context::ToolContext;
use crate::error::ToolError;
use crate::render::{Render, ResourcesTracker};
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
/// #[async_trait::async_trait]
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
#[async_trait]
pub trait Tool: Send + Sync + 'static {
    /// The arguments, deserialized from the call. Its schema is the input schema.
    type Input: DeserializeOwned + JsonSchema + Send + 'static;
    /// The result. Its JSON form is the structured result; [`Render`] gives the texts.
    type Output: Serialize + Render + JsonSchema + Send + Sync + 'static;

    /// The tool's metadata. The input and output schemas are filled in from the types by
    /// [`DynTool::spec`]; leave them at their defaults here.
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

    /// Decodes and validates a call's arguments into the input (the runtime calls it through
    /// [`DynTool::decode`]). The default is [`CompiledSchema::decode`], the general path for
    /// any input type; a tool whose input refuses unknown members itself may answer with
    /// [`CompiledSchema::decode_strict`], one typed decode with no watch for them (the
    /// `#[tool]` macro does so for the input types it generates).
    fn decode_input(
        &self,
        args: &Arguments,
        schema: &CompiledSchema,
    ) -> Result<Self::Input, ToolError> {
        schema.decode(args)
    }

    /// Runs the tool.
    async fn call(&self, ctx: &ToolContext, input: Self::Input) -> Result<Self::Output, ToolError>;
}

/// A finished tool's output, erased: its JSON and its renderings.
pub trait AnyOutput: Send + Sync + 'static {
    /// The structured result.
    fn to_value(&self) -> Result<Value, ToolError>;
    /// The structured result as compact JSON text.
    fn to_json_string(&self) -> Result<String, ToolError>;
    /// The status line, if the output has its own.
    fn status(&self) -> Option<String>;
    /// The text for the model: the output's own rendering or its compact JSON.
    fn model_text(&self, tracker: &mut ResourcesTracker) -> String;
    /// The output's own rendering for the model, `None` when it has none (its compact JSON
    /// stands for it then). By default the [`model_text`](AnyOutput::model_text).
    fn rendered(&self, tracker: &mut ResourcesTracker) -> Option<String> {
        Some(self.model_text(tracker))
    }
    /// Whether the output reports success.
    fn is_success(&self) -> bool;
    /// The output as `Any`, to downcast to the concrete type.
    fn as_any(&self) -> &dyn Any;
}

fn serialize_error(e: serde_json::Error) -> ToolError {
    ToolError::system(format!("the tool's output could not be serialized: {e}"))
}

impl<T> AnyOutput for T
where
    T: Serialize + Render + Send + Sync + 'static,
{
    fn to_value(&self) -> Result<Value, ToolError> {
        serde_json::to_value(self).map_err(serialize_error)
    }
    fn to_json_string(&self) -> Result<String, ToolError> {
        serde_json::to_string(self).map_err(serialize_error)
    }
    fn status(&self) -> Option<String> {
        Render::status(self)
    }
    fn model_text(&self, tracker: &mut ResourcesTracker) -> String {
        match Render::render(self, tracker) {
            Some(text) => text,
            None => serde_json::to_string(self)
                .unwrap_or_else(|e| format!("(output not serializable: {e})")),
        }
    }
    fn rendered(&self, tracker: &mut ResourcesTracker) -> Option<String> {
        Render::render(self, tracker)
    }
    fn is_success(&self) -> bool {
        Render::is_success(self)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The error of an input decoded for another tool (not generic: one copy for every tool).
#[cold]
fn wrong_input_type() -> ToolError {
    ToolError::system("internal error: the decoded input has another type than the tool's")
}

/// A decoded, validated input waiting to be run (the typed input behind `Any`).
pub type DecodedInput = Box<dyn Any + Send>;

/// The object-safe form of a tool, as the registry stores it. Every [`Tool`] is a `DynTool`;
/// implement it directly only for tools whose input is not a Rust type (a proxy for remote
/// tools, say).
#[async_trait]
pub trait DynTool: Send + Sync + 'static {
    /// The full spec, schemas included.
    fn spec(&self) -> ToolSpec;

    /// Validates and decodes arguments against the compiled schema.
    fn decode(&self, args: &Arguments, schema: &CompiledSchema) -> Result<DecodedInput, ToolError>;

    /// Runs the tool on an input that [`DynTool::decode`] produced.
    async fn invoke(
        &self,
        ctx: &ToolContext,
        input: DecodedInput,
    ) -> Result<Arc<dyn AnyOutput>, ToolError>;
}

#[async_trait]
impl<T: Tool> DynTool for T {
    fn spec(&self) -> ToolSpec {
        let mut spec = Tool::spec(self);
        spec.input_schema = Arc::new(self.input_schema());
        if spec.output_schema.is_none() {
            spec.output_schema = self.output_schema().map(Arc::new);
        }
        spec
    }

    fn decode(&self, args: &Arguments, schema: &CompiledSchema) -> Result<DecodedInput, ToolError> {
        let input: T::Input = self.decode_input(args, schema)?;
        Ok(Box::new(input))
    }

    async fn invoke(
        &self,
        ctx: &ToolContext,
        input: DecodedInput,
    ) -> Result<Arc<dyn AnyOutput>, ToolError> {
        let input = input
            .downcast::<T::Input>()
            .map_err(|_| wrong_input_type())?;
        let output = self.call(ctx, *input).await?;
        Ok(Arc::new(output))
    }
}
