//! [`ToolOutput`]: a finished tool's output, erased, with its JSON tree made at most once.

use std::any::Any;
use std::sync::{Arc, OnceLock};

use serde::Serialize;
use serde_json::Value;

use crate::error::ToolError;
use crate::render::{Render, ResourcesTracker};

/// A finished tool's output: the tool's own value behind one shared allocation, its JSON and
/// its renderings. Cheap to clone; clones share the value and its JSON tree.
///
/// The JSON tree is made the first time someone asks for it ([`to_value`](Self::to_value)),
/// and then shared: the activity record, the END event, the outcome and the answers of
/// duplicate calls read the same tree. JSON text is written from the tree when there is one,
/// else straight from the value.
///
/// ```
/// use tool_core::{Render, ResourcesTracker, ToolOutput};
///
/// #[derive(serde::Serialize, Debug, PartialEq)]
/// struct Sum { sum: i64 }
/// impl Render for Sum {
///     fn status(&self) -> Option<String> { Some(format!("The sum is {}", self.sum)) }
/// }
///
/// let output = ToolOutput::new(Sum { sum: 5 });
/// assert_eq!(output.to_value()?, serde_json::json!({"sum": 5}));
/// assert_eq!(output.status().as_deref(), Some("The sum is 5"));
/// assert_eq!(output.model_text(&mut ResourcesTracker::new()), r#"{"sum":5}"#);
/// assert_eq!(output.downcast_ref::<Sum>(), Some(&Sum { sum: 5 }));
/// # Ok::<(), tool_core::ToolError>(())
/// ```
#[derive(Clone)]
pub struct ToolOutput(Arc<Kept<dyn Erased>>);

/// The value and its tree, in one allocation (the value last, so it may be unsized).
struct Kept<O: ?Sized> {
    json: OnceLock<Result<Value, ToolError>>,
    output: O,
}

/// What the output's own type gives, erased.
trait Erased: Send + Sync + 'static {
    fn to_value(&self) -> Result<Value, ToolError>;
    fn to_json_string(&self) -> Result<String, ToolError>;
    fn write_json(&self, w: &mut crate::activity::Meter) -> serde_json::Result<()>;
    fn status(&self) -> Option<String>;
    fn render(&self, tracker: &mut ResourcesTracker) -> Option<String>;
    fn is_success(&self) -> bool;
    fn failure(&self) -> Option<String>;
    fn images(&self) -> Vec<crate::render::Image>;
    fn as_any(&self) -> &dyn Any;
    fn action_output(&self) -> Option<&dyn Any>;
}

fn serialize_error(e: serde_json::Error) -> ToolError {
    ToolError::system(format!("the tool's output could not be serialized: {e}"))
}

impl<T: Serialize + Render + Send + Sync + 'static> Erased for T {
    fn to_value(&self) -> Result<Value, ToolError> {
        serde_json::to_value(self).map_err(serialize_error)
    }
    fn to_json_string(&self) -> Result<String, ToolError> {
        serde_json::to_string(self).map_err(serialize_error)
    }
    fn write_json(&self, w: &mut crate::activity::Meter) -> serde_json::Result<()> {
        serde_json::to_writer(w, self)
    }
    fn status(&self) -> Option<String> {
        Render::status(self)
    }
    fn render(&self, tracker: &mut ResourcesTracker) -> Option<String> {
        Render::render(self, tracker)
    }
    fn is_success(&self) -> bool {
        Render::is_success(self)
    }
    fn failure(&self) -> Option<String> {
        Render::failure(self)
    }
    fn images(&self) -> Vec<crate::render::Image> {
        Render::images(self)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn action_output(&self) -> Option<&dyn Any> {
        Render::action_output(self)
    }
}

impl ToolOutput {
    /// The output of a tool: any value with a JSON form and a [`Render`]ing
    /// (`serde_json::Value` and `String` are ones).
    pub fn new<T: Serialize + Render + Send + Sync + 'static>(output: T) -> Self {
        ToolOutput(Arc::new(Kept {
            json: OnceLock::new(),
            output,
        }))
    }

    fn tree(&self) -> &Result<Value, ToolError> {
        self.0.json.get_or_init(|| self.0.output.to_value())
    }

    /// The structured result (a copy of the shared tree, made on first use).
    pub fn to_value(&self) -> Result<Value, ToolError> {
        self.tree().clone()
    }

    /// The structured result for a caller that needs it once: the shared tree's copy when
    /// there is one, else a tree made for the caller alone (none kept).
    pub(crate) fn value_once(&self) -> Result<Value, ToolError> {
        match self.0.json.get() {
            Some(tree) => tree.clone(),
            None => self.0.output.to_value(),
        }
    }

    /// The structured result as compact JSON text.
    pub fn to_json_string(&self) -> Result<String, ToolError> {
        match self.0.json.get() {
            Some(Ok(v)) => Ok(v.to_string()),
            _ => self.0.output.to_json_string(),
        }
    }

    /// The output's JSON measured against `limit` bytes, with its first `keep` bytes: written
    /// from the tree when there is one, else from the value, and never past the limit.
    pub(crate) fn metered(&self, limit: usize, keep: usize) -> crate::activity::Metered {
        crate::activity::meter_with(limit, keep, |w| match self.0.json.get() {
            Some(Ok(v)) => serde_json::to_writer(w, v),
            _ => self.0.output.write_json(w),
        })
    }

    /// The status line, if the output has its own ([`Render::status`]).
    pub fn status(&self) -> Option<String> {
        self.0.output.status()
    }

    /// The text for the model: the output's own rendering ([`Render::render`]) or its
    /// compact JSON.
    pub fn model_text(&self, tracker: &mut ResourcesTracker) -> String {
        match self.0.output.render(tracker) {
            Some(text) => text,
            None => self
                .to_json_string()
                .unwrap_or_else(|e| format!("(output not serializable: {})", e.message())),
        }
    }

    /// Whether the output reports success ([`Render::is_success`]).
    pub fn is_success(&self) -> bool {
        self.0.output.is_success()
    }

    /// What went wrong, for an output that reports a failure: [`Render::failure`], else its
    /// status line, else `"the tool reported a failure"`; `None` for a success. The activity
    /// record's `error`.
    pub fn failure(&self) -> Option<String> {
        if self.is_success() {
            return None;
        }
        Some(
            self.0
                .output
                .failure()
                .or_else(|| self.status())
                .unwrap_or_else(|| "the tool reported a failure".to_owned()),
        )
    }

    /// The images the output carries to the model ([`Render::images`]).
    pub fn images(&self) -> Vec<crate::render::Image> {
        self.0.output.images()
    }

    /// The tool's own value, if it is a `T`; for a polymorphic tool, the chosen action's
    /// output, if it is a `T`.
    pub fn downcast_ref<T: 'static>(&self) -> Option<&T> {
        let output = &self.0.output;
        output
            .as_any()
            .downcast_ref()
            .or_else(|| output.action_output()?.downcast_ref())
    }
}

impl std::fmt::Debug for ToolOutput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.tree() {
            Ok(v) => f.debug_tuple("ToolOutput").field(v).finish(),
            Err(e) => f.debug_tuple("ToolOutput").field(&e.message()).finish(),
        }
    }
}

impl ResourcesTracker {
    /// Re-renders a conversation's outputs (oldest first) so that each resource's content
    /// appears at its newest occurrence only. Returns the texts in the same order.
    pub fn render_history<'a, I>(outputs: I) -> Vec<String>
    where
        I: IntoIterator<Item = &'a ToolOutput>,
        I::IntoIter: DoubleEndedIterator,
    {
        let mut tracker = ResourcesTracker::new();
        let mut texts: Vec<String> = outputs
            .into_iter()
            .rev()
            .map(|o| o.model_text(&mut tracker))
            .collect();
        texts.reverse();
        texts
    }
}
