use std::fmt;

use crate::error::{ErrorKind, ToolError};
use crate::output::ToolOutput;
use crate::spec::Mode;

/// The `tracing` target of the call spans and their events.
///
/// Tracing: every call is a [`tracing`] span named and attributed by OpenTelemetry's GenAI
/// semantic conventions, so a host sees its tool calls in the traces it already collects.
///
/// The span is `execute_tool` (target [`CALL_TARGET`], level `INFO`), with:
///
/// | field | value |
/// |---|---|
/// | `otel.name` | `execute_tool {gen_ai.tool.name}` (the span's name once exported) |
/// | `otel.kind` | `internal` |
/// | `gen_ai.operation.name` | `execute_tool` |
/// | `gen_ai.tool.name` | the tool's name (its canonical one once resolved from an alias) |
/// | `gen_ai.tool.call.id` | the call's id |
/// | `gen_ai.tool.type` | `function` |
/// | `gen_ai.agent.name`, `toolsmith.principal` | the session's ([`SessionConfig::agent`](crate::SessionConfig::agent), [`SessionConfig::principal`](crate::SessionConfig::principal)) |
/// | `toolsmith.mode` | the session's mode |
/// | `toolsmith.action` | a polymorphic tool's action |
/// | `toolsmith.outcome` | `success` or `failure` |
/// | `error.type`, `otel.status_code`, `otel.status_description` | a failed call's error kind (`validation_error`, `timeout`, `approval_denied`, ...), `error`, and its message |
/// | `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result` | only when the host opts in ([`RuntimeBuilder::trace_content`](crate::RuntimeBuilder::trace_content)); cut at [`MAX_TRACED_CONTENT_BYTES`] |
/// | `toolsmith.traceparent` | the remote parent given with [`CallOptions::trace_context`](crate::CallOptions::trace_context) |
///
/// Events inside the span: `approval asked` and `approval answered` (`approved`), and at the
/// end of a failed call one of `call refused` (the call never ran: unknown tool, permission,
/// validation, approval), `call timed out`, `call cancelled` or `call failed`, with the error's
/// `kind` and message (`error`).
///
/// The span's parent is the caller's current span, or [`CallOptions::parent`](crate::CallOptions::parent);
/// a remote caller's W3C trace context ([`TraceContext`], which the MCP server reads from a
/// request's `_meta`) becomes the parent of the exported span with tool-core's feature `otel`.
/// With no subscriber installed, a span costs a check of a cached flag.
pub const CALL_TARGET: &str = "toolsmith::call";

/// The most bytes of arguments or of a result a span records, when the host opts in; more is
/// cut, saying how much there was.
pub const MAX_TRACED_CONTENT_BYTES: usize = 4096;

/// The longest `tracestate` kept (W3C: 32 members of at most 256 characters; in practice
/// 512 characters is the propagation limit).
const MAX_TRACESTATE_BYTES: usize = 512;
/// The longest `baggage` kept (W3C Baggage: 8192 bytes).
const MAX_BAGGAGE_BYTES: usize = 8192;

/// A remote caller's W3C trace context: the `traceparent` it sent, and its `tracestate` and
/// `baggage` when it sent them. Over MCP these come in a request's `_meta`.
///
/// ```
/// use tool_core::TraceContext;
///
/// let ctx = TraceContext::parse("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")?;
/// assert_eq!(ctx.trace_id(), "0af7651916cd43dd8448eb211c80319c");
/// assert_eq!(ctx.parent_id(), "b7ad6b7169203331");
/// assert!(ctx.sampled());
/// assert!(TraceContext::parse("00-00000000000000000000000000000000-b7ad6b7169203331-01").is_err());
/// # Ok::<(), tool_core::BadTraceparent>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceContext {
    traceparent: String,
    tracestate: Option<String>,
    baggage: Option<String>,
}

/// A `traceparent` that is not `VERSION-TRACEID-PARENTID-FLAGS` in lower-case hex with a
/// nonzero trace id and parent id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadTraceparent(String);

impl fmt::Display for BadTraceparent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not a W3C traceparent (`00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>`, \
             ids not all zero)",
            self.0
        )
    }
}

impl std::error::Error for BadTraceparent {}

fn is_lower_hex(s: &str, len: usize) -> bool {
    s.len() == len
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

impl TraceContext {
    /// Reads a `traceparent` header value.
    pub fn parse(traceparent: &str) -> Result<TraceContext, BadTraceparent> {
        let bad = || BadTraceparent(traceparent.chars().take(80).collect());
        let parts: Vec<&str> = traceparent.trim().split('-').collect();
        let [version, trace, parent, flags, rest @ ..] = parts.as_slice() else {
            return Err(bad());
        };
        // Version 00 has exactly four parts; later versions may add more (W3C: read the four).
        let valid = is_lower_hex(version, 2)
            && *version != "ff"
            && (rest.is_empty() || *version != "00")
            && is_lower_hex(trace, 32)
            && trace.bytes().any(|b| b != b'0')
            && is_lower_hex(parent, 16)
            && parent.bytes().any(|b| b != b'0')
            && is_lower_hex(flags, 2);
        if !valid {
            return Err(bad());
        }
        Ok(TraceContext {
            traceparent: format!("{version}-{trace}-{parent}-{flags}"),
            tracestate: None,
            baggage: None,
        })
    }

    /// Adds the caller's `tracestate` (dropped when longer than 512 bytes, as W3C allows).
    pub fn with_tracestate(mut self, tracestate: &str) -> Self {
        self.tracestate = (tracestate.len() <= MAX_TRACESTATE_BYTES && !tracestate.is_empty())
            .then(|| tracestate.to_owned());
        self
    }

    /// Adds the caller's `baggage` (dropped when longer than 8192 bytes).
    pub fn with_baggage(mut self, baggage: &str) -> Self {
        self.baggage =
            (baggage.len() <= MAX_BAGGAGE_BYTES && !baggage.is_empty()).then(|| baggage.to_owned());
        self
    }

    /// The `traceparent` as read.
    pub fn traceparent(&self) -> &str {
        &self.traceparent
    }

    /// The trace id: 32 lower-case hex digits.
    pub fn trace_id(&self) -> &str {
        &self.traceparent[3..35]
    }

    /// The caller's span id: 16 lower-case hex digits.
    pub fn parent_id(&self) -> &str {
        &self.traceparent[36..52]
    }

    /// Whether the caller sampled its trace (flag `01`).
    pub fn sampled(&self) -> bool {
        u8::from_str_radix(&self.traceparent[53..55], 16).is_ok_and(|f| f & 1 == 1)
    }

    /// The caller's `tracestate`, if it sent one.
    pub fn tracestate(&self) -> Option<&str> {
        self.tracestate.as_deref()
    }

    /// The caller's `baggage`, if it sent one.
    pub fn baggage(&self) -> Option<&str> {
        self.baggage.as_deref()
    }
}

/// Who a session's calls are made for, as its spans say.
#[derive(Debug, Clone, Default)]
pub(crate) struct Who {
    pub(crate) agent: Option<std::sync::Arc<str>>,
    pub(crate) principal: Option<std::sync::Arc<str>>,
}

/// One call's span.
pub(crate) struct CallSpan {
    span: tracing::Span,
    content: bool,
}

/// Makes the call span, with `parent` when given, else the current span as its parent.
macro_rules! call_span {
    ($($parent:expr)?; $name:expr, $id:expr, $mode:expr) => {
        tracing::info_span!(
            target: CALL_TARGET,
            $(parent: $parent,)?
            "execute_tool",
            otel.name = %format_args!("execute_tool {}", $name),
            otel.kind = "internal",
            otel.status_code = tracing::field::Empty,
            otel.status_description = tracing::field::Empty,
            gen_ai.operation.name = "execute_tool",
            gen_ai.tool.name = $name,
            gen_ai.tool.call.id = $id,
            gen_ai.tool.type = "function",
            gen_ai.agent.name = tracing::field::Empty,
            gen_ai.tool.call.arguments = tracing::field::Empty,
            gen_ai.tool.call.result = tracing::field::Empty,
            toolsmith.principal = tracing::field::Empty,
            toolsmith.mode = $mode,
            toolsmith.action = tracing::field::Empty,
            toolsmith.outcome = tracing::field::Empty,
            toolsmith.traceparent = tracing::field::Empty,
            error.type = tracing::field::Empty,
        )
    };
}

impl CallSpan {
    /// The span of call `id` of tool `name` in a session of `mode` for `who`.
    pub(crate) fn new(
        name: &str,
        id: &str,
        mode: Mode,
        who: &Who,
        parent: Option<&tracing::Span>,
        remote: Option<&TraceContext>,
        content: bool,
    ) -> CallSpan {
        let span = match parent {
            Some(parent) => call_span!(parent; name, id, mode.as_str()),
            None => call_span!(; name, id, mode.as_str()),
        };
        if !span.is_disabled() {
            if let Some(agent) = &who.agent {
                span.record("gen_ai.agent.name", &**agent);
            }
            if let Some(principal) = &who.principal {
                span.record("toolsmith.principal", &**principal);
            }
            if let Some(remote) = remote {
                span.record("toolsmith.traceparent", remote.traceparent());
                #[cfg(feature = "otel")]
                otel::set_remote_parent(&span, remote);
            }
        }
        CallSpan { span, content }
    }

    /// The span, to run the call's steps in.
    pub(crate) fn span(&self) -> &tracing::Span {
        &self.span
    }

    /// The call resolved to tool `name` (its canonical name), `action`, with `arguments`.
    pub(crate) fn resolved(
        &self,
        name: &str,
        action: Option<&str>,
        arguments: impl FnOnce() -> String,
    ) {
        if self.span.is_disabled() {
            return;
        }
        self.span.record("gen_ai.tool.name", name);
        self.span.record(
            "otel.name",
            tracing::field::display(format_args!("execute_tool {name}")),
        );
        if let Some(action) = action {
            self.span.record("toolsmith.action", action);
        }
        if self.content {
            self.span
                .record("gen_ai.tool.call.arguments", bounded(arguments()).as_str());
        }
    }

    /// The call's end: its outcome, and for a failure its error and an event saying how it
    /// ended. `ran`: whether the tool began (else the call was refused).
    pub(crate) fn finish(&self, result: &Result<ToolOutput, ToolError>, ran: bool) {
        let recording = !self.span.is_disabled();
        let e = match result {
            Ok(output) => {
                if recording {
                    self.span.record("toolsmith.outcome", "success");
                    if self.content {
                        let text = output
                            .to_json_string()
                            .unwrap_or_else(|e| format!("(the result does not serialize: {e})"));
                        self.span
                            .record("gen_ai.tool.call.result", bounded(text).as_str());
                    }
                }
                return;
            }
            Err(e) => e,
        };
        let kind = e.kind().as_str();
        if recording {
            self.span.record("toolsmith.outcome", "failure");
            self.span.record("error.type", kind);
            self.span.record("otel.status_code", "error");
            let message = bounded(e.message().to_owned());
            self.span
                .record("otel.status_description", message.as_str());
        }
        // The events are filtered on their own: a subscriber may want a failure's warning
        // without the spans.
        let _in_span = self.span.enter();
        let error = e.message();
        match e.kind() {
            ErrorKind::Timeout => {
                tracing::warn!(target: CALL_TARGET, kind, error, "call timed out")
            }
            ErrorKind::Cancelled => tracing::info!(target: CALL_TARGET, kind, "call cancelled"),
            _ if !ran => tracing::info!(target: CALL_TARGET, kind, error, "call refused"),
            _ => tracing::warn!(target: CALL_TARGET, kind, error, "call failed"),
        }
    }
}

/// `text` cut at [`MAX_TRACED_CONTENT_BYTES`] (on a character boundary), saying how much there
/// was.
fn bounded(mut text: String) -> String {
    if text.len() <= MAX_TRACED_CONTENT_BYTES {
        return text;
    }
    let total = text.len();
    let cut = crate::activity::text_head(&text, MAX_TRACED_CONTENT_BYTES).len();
    text.truncate(cut);
    text.push_str(&format!("… ({total} bytes in all)"));
    text
}

/// The remote parent of an exported span (feature `otel`).
#[cfg(feature = "otel")]
mod otel {
    use opentelemetry::trace::{
        SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState,
    };
    use tracing_opentelemetry::OpenTelemetrySpanExt;

    use super::TraceContext;

    /// Makes `remote` the parent of `span` in the OpenTelemetry layer, if one is installed.
    pub(super) fn set_remote_parent(span: &tracing::Span, remote: &TraceContext) {
        let (Ok(trace_id), Ok(span_id)) = (
            TraceId::from_hex(remote.trace_id()),
            SpanId::from_hex(remote.parent_id()),
        ) else {
            return;
        };
        let flags = if remote.sampled() {
            TraceFlags::SAMPLED
        } else {
            TraceFlags::default()
        };
        let state = remote
            .tracestate()
            .and_then(|s| s.parse::<TraceState>().ok())
            .unwrap_or_default();
        let context = SpanContext::new(trace_id, span_id, flags, true, state);
        let parent = opentelemetry::Context::new().with_remote_span_context(context);
        // Fails only when the span has no OpenTelemetry layer to hold a parent: nothing to do.
        let _ = span.set_parent(parent);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traceparents_are_read_as_w3c_writes_them() {
        let good = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00";
        let ctx = TraceContext::parse(good).unwrap();
        assert_eq!(ctx.traceparent(), good);
        assert!(!ctx.sampled());
        // A later version may carry more fields; the four are read.
        let future = "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra";
        assert_eq!(
            TraceContext::parse(future).unwrap().trace_id(),
            "4bf92f3577b34da6a3ce929d0e0e4736"
        );
        for bad in [
            "",
            "00",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g",
        ] {
            assert!(TraceContext::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn oversized_state_and_baggage_are_dropped() {
        let ctx = TraceContext::parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
            .unwrap()
            .with_tracestate(&"a=b,".repeat(200))
            .with_baggage("user=alice");
        assert_eq!(ctx.tracestate(), None);
        assert_eq!(ctx.baggage(), Some("user=alice"));
    }

    #[test]
    fn content_is_cut_on_a_character_boundary() {
        let text = "é".repeat(MAX_TRACED_CONTENT_BYTES);
        let cut = bounded(text);
        assert!(cut.ends_with(&format!(
            "… ({} bytes in all)",
            2 * MAX_TRACED_CONTENT_BYTES
        )));
        assert!(cut.len() < MAX_TRACED_CONTENT_BYTES + 40);
    }
}
