//! [`AnyOutput`]: a finished tool's output, erased, and the wrapper that makes its JSON tree
//! at most once.

use std::any::Any;
use std::sync::{Arc, OnceLock};

use serde::Serialize;
use serde_json::Value;

use crate::error::ToolError;
use crate::render::{Render, ResourcesTracker};

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
    /// Whether [`to_value`](AnyOutput::to_value) answers from a tree made once (the outputs
    /// of [`Tool`](crate::Tool)s do); the runtime wraps any other output so that the activity
    /// record, the END event and the outcome share one tree.
    #[doc(hidden)]
    fn keeps_tree(&self) -> bool {
        false
    }
    /// The structured result for a caller that needs it once: the kept tree's copy when
    /// there is one, else a tree made for the caller alone (none kept, none copied).
    #[doc(hidden)]
    fn value_once(&self) -> Result<Value, ToolError> {
        self.to_value()
    }
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

/// An output with its JSON tree made at most once, when first asked for: the activity
/// record, the END event, [`CallOutcome::to_json`](crate::CallOutcome::to_json) and the
/// answers of duplicate calls share it. JSON text is written from the tree when it is
/// there, else straight from the output (no tree in between). Everything else is the
/// output's own ([`AnyOutput::as_any`] gives the tool's type).
///
/// A [`Tool`](crate::Tool)'s output is put in one when it is made (one allocation for
/// both); the runtime wraps any other output in one around [`Shared`].
pub(crate) struct Serialized<O> {
    json: OnceLock<Result<Value, ToolError>>,
    output: O,
}

impl<O: AnyOutput> Serialized<O> {
    pub(crate) fn new(output: O) -> Self {
        Serialized {
            json: OnceLock::new(),
            output,
        }
    }

    fn tree(&self) -> &Result<Value, ToolError> {
        self.json.get_or_init(|| self.output.to_value())
    }
}

/// Shares the JSON tree of an output that does not keep its own (one a hand-written
/// [`DynTool`](crate::DynTool) made).
pub(crate) fn keep_tree(output: Arc<dyn AnyOutput>) -> Arc<dyn AnyOutput> {
    if output.keeps_tree() {
        output
    } else {
        Arc::new(Serialized::new(Shared(output)))
    }
}

impl<O: AnyOutput> AnyOutput for Serialized<O> {
    fn to_value(&self) -> Result<Value, ToolError> {
        self.tree().clone()
    }
    fn to_json_string(&self) -> Result<String, ToolError> {
        match self.json.get() {
            Some(Ok(v)) => Ok(v.to_string()),
            _ => self.output.to_json_string(),
        }
    }
    fn status(&self) -> Option<String> {
        self.output.status()
    }
    fn model_text(&self, tracker: &mut ResourcesTracker) -> String {
        match self.output.rendered(tracker) {
            Some(text) => text,
            None => self
                .to_json_string()
                .unwrap_or_else(|_| self.output.model_text(tracker)),
        }
    }
    fn rendered(&self, tracker: &mut ResourcesTracker) -> Option<String> {
        self.output.rendered(tracker)
    }
    fn is_success(&self) -> bool {
        self.output.is_success()
    }
    fn as_any(&self) -> &dyn Any {
        self.output.as_any()
    }
    fn keeps_tree(&self) -> bool {
        true
    }
    fn value_once(&self) -> Result<Value, ToolError> {
        match self.json.get() {
            Some(tree) => tree.clone(),
            None => self.output.to_value(),
        }
    }
}

/// An erased output behind an `Arc`, as an [`AnyOutput`] of its own.
pub(crate) struct Shared(Arc<dyn AnyOutput>);

impl AnyOutput for Shared {
    fn to_value(&self) -> Result<Value, ToolError> {
        self.0.to_value()
    }
    fn to_json_string(&self) -> Result<String, ToolError> {
        self.0.to_json_string()
    }
    fn status(&self) -> Option<String> {
        self.0.status()
    }
    fn model_text(&self, tracker: &mut ResourcesTracker) -> String {
        self.0.model_text(tracker)
    }
    fn rendered(&self, tracker: &mut ResourcesTracker) -> Option<String> {
        self.0.rendered(tracker)
    }
    fn is_success(&self) -> bool {
        self.0.is_success()
    }
    fn as_any(&self) -> &dyn Any {
        self.0.as_any()
    }
}
