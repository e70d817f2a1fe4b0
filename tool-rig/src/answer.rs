//! A toolsmith [`CallOutcome`] as the answer a rig tool gives: a [`ToolOutput`] for a
//! success, a [`ToolExecutionError`] for everything else, with toolsmith's text for the model
//! in both.

use rig_core::message::{ImageMediaType, MimeType, ToolResultContent};
use rig_core::tool::{ToolErrorKind, ToolExecutionError, ToolOutput};
use serde_json::Value;
use tool_core::{CallOutcome, ErrorKind, ResourcesTracker, ToolError};

/// The rig kind a toolsmith error kind maps onto, where rig tells them apart; [`Other`]
/// where it does not.
///
/// | toolsmith | rig |
/// |---|---|
/// | `validation_error` | [`InvalidArgs`] |
/// | `not_found` | [`NotFound`] |
/// | `permission_error`, `security_error`, `approval_denied` | [`PermissionDenied`] |
/// | `timeout` | [`Timeout`] |
/// | `cancelled` | [`Cancelled`] |
/// | `rate_limited` | [`RateLimited`] |
/// | `user_error`, `system_error`, and any kind added later | [`Other`] |
///
/// The toolsmith kind itself is kept as the error's code ([`ToolExecutionError::code`]).
///
/// ```
/// use rig_core::tool::ToolErrorKind;
/// use tool_core::ErrorKind;
///
/// assert_eq!(tool_rig::error_kind(ErrorKind::ApprovalDenied), ToolErrorKind::PermissionDenied);
/// assert_eq!(tool_rig::error_kind(ErrorKind::UserError), ToolErrorKind::Other);
/// ```
///
/// [`InvalidArgs`]: ToolErrorKind::InvalidArgs
/// [`NotFound`]: ToolErrorKind::NotFound
/// [`PermissionDenied`]: ToolErrorKind::PermissionDenied
/// [`Timeout`]: ToolErrorKind::Timeout
/// [`Cancelled`]: ToolErrorKind::Cancelled
/// [`RateLimited`]: ToolErrorKind::RateLimited
/// [`Other`]: ToolErrorKind::Other
pub fn error_kind(kind: ErrorKind) -> ToolErrorKind {
    match kind {
        ErrorKind::ValidationError => ToolErrorKind::InvalidArgs,
        ErrorKind::NotFound => ToolErrorKind::NotFound,
        ErrorKind::PermissionError | ErrorKind::SecurityError | ErrorKind::ApprovalDenied => {
            ToolErrorKind::PermissionDenied
        }
        ErrorKind::Timeout => ToolErrorKind::Timeout,
        ErrorKind::Cancelled => ToolErrorKind::Cancelled,
        ErrorKind::RateLimited => ToolErrorKind::RateLimited,
        ErrorKind::UserError | ErrorKind::SystemError => ToolErrorKind::Other,
        _ => ToolErrorKind::Other,
    }
}

/// The answer a rig tool gives for `outcome`.
///
/// - A success is the text toolsmith gives the model ([`CallOutcome::model_text`], the
///   tool's own rendering, token-lean), followed by the images the result carries.
/// - An error is a [`ToolExecutionError`] of the kind [`error_kind`] maps to, whose
///   model-visible output is toolsmith's whole error text (its `type: "error"` JSON: the
///   message, every problem with its path, the allowed values, the suggestion and the example
///   call), whose message is the error's one line, and whose code is the toolsmith kind
///   (`validation_error`, `approval_denied`, ...). An error that says it is worth calling
///   again (`"retryable"`) keeps that hint.
/// - An output that reports a failure of its own (a command that exited non-zero) is an
///   [`Other`](ToolErrorKind::Other) error whose model-visible output is the output's text,
///   as toolsmith's Anthropic and MCP results mark it an error.
///
/// A call answered from an identical earlier call of its turn says so first, as
/// [`CallOutcome::model_text`] does.
pub fn answer(outcome: &CallOutcome) -> Result<ToolOutput, ToolExecutionError> {
    let text = outcome.model_text(&mut ResourcesTracker::new());
    match &outcome.result {
        Err(error) => Err(execution_error(error, text)),
        Ok(output) => {
            let content = with_images(outcome, text);
            if outcome.is_success() {
                return Ok(content);
            }
            let failure = output
                .failure()
                .unwrap_or_else(|| format!("{} reported a failure", outcome.tool));
            Err(ToolExecutionError::other(failure).with_model_output(content))
        }
    }
}

/// The rig error for a toolsmith error whose text for the model is `model_text`.
fn execution_error(error: &ToolError, model_text: String) -> ToolExecutionError {
    let kind = error.kind();
    let rig = ToolExecutionError::new(error_kind(kind), error.full_message())
        .with_model_feedback(model_text)
        .with_code(kind.as_str());
    match error.fields().get("retryable").and_then(Value::as_bool) {
        Some(retryable) => rig.with_retryable(retryable),
        None => rig,
    }
}

/// `text`, then the outcome's images as image blocks (base64, with their media type when
/// rig knows it).
fn with_images(outcome: &CallOutcome, text: String) -> ToolOutput {
    let images = outcome.images();
    if images.is_empty() {
        return ToolOutput::text(text);
    }
    let mut content = Vec::with_capacity(images.len() + 1);
    content.push(ToolResultContent::text(text));
    content.extend(images.iter().map(|image| {
        ToolResultContent::image_base64(
            image.base64(),
            ImageMediaType::from_mime_type(image.media_type()),
            None,
        )
    }));
    // The list holds the text at least, so it is never the empty list rig refuses.
    ToolOutput::content(content).unwrap_or_else(|_| ToolOutput::text(String::new()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every toolsmith kind, with the rig kind it maps onto.
    const KINDS: &[(ErrorKind, ToolErrorKind)] = &[
        (ErrorKind::ValidationError, ToolErrorKind::InvalidArgs),
        (ErrorKind::UserError, ToolErrorKind::Other),
        (ErrorKind::SystemError, ToolErrorKind::Other),
        (ErrorKind::PermissionError, ToolErrorKind::PermissionDenied),
        (ErrorKind::SecurityError, ToolErrorKind::PermissionDenied),
        (ErrorKind::NotFound, ToolErrorKind::NotFound),
        (ErrorKind::ApprovalDenied, ToolErrorKind::PermissionDenied),
        (ErrorKind::Timeout, ToolErrorKind::Timeout),
        (ErrorKind::Cancelled, ToolErrorKind::Cancelled),
        (ErrorKind::RateLimited, ToolErrorKind::RateLimited),
    ];

    #[test]
    fn every_toolsmith_kind_maps_onto_its_rig_kind() {
        for &(kind, rig) in KINDS {
            assert_eq!(error_kind(kind), rig, "{kind}");
        }
    }

    #[test]
    fn every_error_keeps_its_whole_text_and_its_kind_as_the_code() {
        for &(kind, rig) in KINDS {
            let error = ToolError::new(kind, "it went wrong")
                .with_signature("probe(x=1)")
                .with_suggestion("try y")
                .with_field("allowed_xs", vec!["a", "b"]);
            let outcome = CallOutcome::rejected("c1", "probe", error.clone());
            let Err(answered) = answer(&outcome) else {
                panic!("{kind}: an error answered as a success");
            };
            assert_eq!(answered.kind(), rig, "{kind}");
            assert_eq!(answered.code(), Some(kind.as_str()));
            assert_eq!(answered.message(), "probe(x=1): it went wrong");
            let feedback = answered.model_feedback().unwrap_or_default();
            let json: Value = serde_json::from_str(feedback).unwrap_or_default();
            assert_eq!(json, error.to_json(), "{kind}: {feedback}");
            assert_eq!(json["error_type"], kind.as_str());
            assert_eq!(json["suggestion"], "try y");
            assert_eq!(json["allowed_xs"][1], "b");
        }
    }

    #[test]
    fn a_retryable_error_says_so_and_others_keep_rigs_default() {
        let stopping = CallOutcome::rejected("c1", "probe", ToolError::server_stopping());
        let Err(answered) = answer(&stopping) else {
            panic!("an error answered as a success");
        };
        assert_eq!(answered.kind(), ToolErrorKind::Cancelled);
        assert_eq!(answered.retryable(), Some(true));

        let plain = CallOutcome::rejected("c1", "probe", ToolError::validation("bad"));
        let Err(answered) = answer(&plain) else {
            panic!("an error answered as a success");
        };
        assert_eq!(
            answered.retryable(),
            ToolErrorKind::InvalidArgs.default_retryable()
        );
    }
}
