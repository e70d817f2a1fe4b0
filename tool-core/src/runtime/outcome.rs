//! [`CallOutcome`]: what a call answers with, and what the host needs to answer the provider.

use std::any::Any;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde_json::Value;

use crate::error::ToolError;
use crate::render::ResourcesTracker;
use crate::tool::AnyOutput;

/// The result of one call, with what the host needs to answer the provider.
///
/// The runtime makes them ([`Session::call`](super::Session::call)); a host answering a call
/// it refused itself (an import problem, say) makes one with [`CallOutcome::rejected`].
#[derive(Clone)]
#[non_exhaustive]
pub struct CallOutcome {
    /// The provider's call id.
    pub call_id: String,
    /// The activity id of this call (empty for a call the runtime never saw).
    pub activity_id: String,
    /// The tool's name (alias resolved), or the name as called when unknown.
    pub tool: String,
    /// The output or the error.
    pub result: Result<Arc<dyn AnyOutput>, ToolError>,
    /// When the redundancy check answered from an earlier identical call, its call id.
    pub duplicate_of: Option<String>,
    /// How long the call took.
    pub elapsed: Duration,
}

impl std::fmt::Debug for CallOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallOutcome")
            .field("call_id", &self.call_id)
            .field("tool", &self.tool)
            .field("result", &self.to_json())
            .field("duplicate_of", &self.duplicate_of)
            .finish()
    }
}

impl CallOutcome {
    /// An outcome for a call refused before it ran, answered with `error`: no activity, no
    /// time spent.
    ///
    /// ```
    /// use tool_core::{CallOutcome, ToolError};
    /// let out = CallOutcome::rejected("call_1", "web", ToolError::validation("bad call"));
    /// assert!(!out.is_success());
    /// assert_eq!(out.to_json()["error_type"], "validation_error");
    /// ```
    pub fn rejected(
        call_id: impl Into<String>,
        tool: impl Into<String>,
        error: ToolError,
    ) -> CallOutcome {
        CallOutcome {
            call_id: call_id.into(),
            activity_id: String::new(),
            tool: tool.into(),
            result: Err(error),
            duplicate_of: None,
            elapsed: Duration::ZERO,
        }
    }

    /// Whether the call succeeded (and its output reports success).
    pub fn is_success(&self) -> bool {
        self.result.as_ref().is_ok_and(|o| o.is_success())
    }

    /// The error, if it failed.
    pub fn error(&self) -> Option<&ToolError> {
        self.result.as_ref().err()
    }

    /// The structured result: the output's JSON, or the error's.
    pub fn to_json(&self) -> Value {
        match &self.result {
            Ok(o) => o.to_value().unwrap_or_else(|e| e.to_json()),
            Err(e) => e.to_json(),
        }
    }

    /// The structured result as compact JSON text: [`to_json`](Self::to_json)'s text, written
    /// straight from the output when nothing made its tree yet.
    pub fn to_json_string(&self) -> String {
        match &self.result {
            Ok(o) => o
                .to_json_string()
                .unwrap_or_else(|e| e.to_json().to_string()),
            Err(e) => e.to_json().to_string(),
        }
    }

    /// The status line for an activity list.
    pub fn status(&self) -> String {
        match &self.result {
            Ok(o) => o
                .status()
                .unwrap_or_else(|| format!("{} succeeded", self.tool)),
            Err(e) => format!("{} failed: {}", self.tool, e.message()),
        }
    }

    /// The text for the model, de-duplicating resources through `tracker`.
    pub fn model_text(&self, tracker: &mut ResourcesTracker) -> String {
        match &self.result {
            Ok(o) => o.model_text(tracker),
            Err(e) => e.to_json().to_string(),
        }
    }
}

/// A tool's output with its JSON tree made at most once, when first asked for: the activity
/// record, the END event, [`CallOutcome::to_json`] and the answers of duplicate calls share
/// it. JSON text is written from the tree when it is there, else straight from the output
/// (no tree in between). Everything else is the output's own ([`AnyOutput::as_any`] gives
/// the tool's type).
pub(super) struct Serialized {
    output: Arc<dyn AnyOutput>,
    json: OnceLock<Result<Value, ToolError>>,
}

impl Serialized {
    pub(super) fn wrap(output: Arc<dyn AnyOutput>) -> Arc<dyn AnyOutput> {
        Arc::new(Serialized {
            output,
            json: OnceLock::new(),
        })
    }

    fn tree(&self) -> &Result<Value, ToolError> {
        self.json.get_or_init(|| self.output.to_value())
    }
}

impl AnyOutput for Serialized {
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
}
