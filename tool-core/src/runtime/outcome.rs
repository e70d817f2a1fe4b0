//! [`CallOutcome`]: what a call answers with, and what the host needs to answer the provider.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::error::ToolError;
use crate::output::ToolOutput;
use crate::render::ResourcesTracker;

/// The result of one call, with what the host needs to answer the provider.
///
/// The runtime makes them ([`Session::call`](super::Session::call)); a host answering a call
/// it refused itself (an import problem, say) makes one with [`CallOutcome::rejected`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CallOutcome {
    /// The provider's call id.
    pub call_id: String,
    /// The activity id of this call (empty for a call the runtime never saw); shared with
    /// the call's context and activity record.
    pub activity_id: Arc<str>,
    /// The tool's name (alias resolved), or the name as called when unknown.
    pub tool: String,
    /// The output or the error.
    pub result: Result<ToolOutput, ToolError>,
    /// When the redundancy check answered from an earlier identical call, its call id.
    pub duplicate_of: Option<String>,
    /// How long the call took.
    pub elapsed: Duration,
    /// Whether the tool's result is text alone
    /// ([`ToolSpec::text_output`](field@crate::ToolSpec::text_output)): its answer to a
    /// provider carries no structured content. `false` for a call refused before its tool
    /// was known.
    pub text_output: bool,
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
            activity_id: Arc::from(""),
            tool: tool.into(),
            result: Err(error),
            duplicate_of: None,
            elapsed: Duration::ZERO,
            text_output: false,
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

    /// The images the result carries to the model ([`Render::images`](crate::Render::images));
    /// none for an error.
    pub fn images(&self) -> Vec<crate::render::Image> {
        match &self.result {
            Ok(o) => o.images(),
            Err(_) => Vec::new(),
        }
    }

    /// The text for the model, de-duplicating resources through `tracker`. A call answered
    /// from an identical earlier call of its turn ([`duplicate_of`](Self::duplicate_of)) says
    /// so first, so that the model knows nothing ran again.
    pub fn model_text(&self, tracker: &mut ResourcesTracker) -> String {
        let text = match &self.result {
            Ok(o) => o.model_text(tracker),
            Err(e) => e.to_json().to_string(),
        };
        match &self.duplicate_of {
            Some(first) => format!(
                "(The same call as `{first}` earlier in this turn: answered with its result; \
                 nothing ran again.)\n{text}"
            ),
            None => text,
        }
    }
}
