use serde_json::{Map, Value, json};

use super::Format;
use super::error::ImportError;
use super::import::{Imported, generate_id, is_generated_id};
use super::{Exported, escape_attr};
use crate::call::ToolCall;
use crate::error::ToolError;
use crate::render::ResourcesTracker;
use crate::runtime::{CallOutcome, Session};

/// Chat Completions: `{"role": "tool", "tool_call_id", "content"}`.
pub fn openai_message(outcome: &CallOutcome, tracker: &mut ResourcesTracker) -> Value {
    json!({
        "role": "tool",
        "tool_call_id": outcome.call_id,
        "content": outcome.model_text(tracker),
    })
}

/// Responses API: `{"type": "function_call_output", "call_id", "output"}`; with images the
/// output is a list of `input_text` and `input_image` items.
pub fn responses_output(outcome: &CallOutcome, tracker: &mut ResourcesTracker) -> Value {
    let text = outcome.model_text(tracker);
    let images = outcome.images();
    let output = if images.is_empty() {
        Value::String(text)
    } else {
        let mut items = vec![json!({"type": "input_text", "text": text})];
        items.extend(
            images
                .iter()
                .map(|i| json!({"type": "input_image", "image_url": i.data_url()})),
        );
        Value::Array(items)
    };
    json!({
        "type": "function_call_output",
        "call_id": outcome.call_id,
        "output": output,
    })
}

/// Anthropic: a `{"type": "tool_result", "tool_use_id", "content", "is_error"}` block for the
/// next user message; with images the content is a list of a `text` block and `image`
/// blocks (`{"type": "base64", "media_type", "data"}` sources).
pub fn anthropic_block(outcome: &CallOutcome, tracker: &mut ResourcesTracker) -> Value {
    let text = outcome.model_text(tracker);
    let images = outcome.images();
    let content = if images.is_empty() {
        Value::String(text)
    } else {
        let mut blocks = vec![json!({"type": "text", "text": text})];
        blocks.extend(images.iter().map(|i| {
            json!({
                "type": "image",
                "source": {"type": "base64", "media_type": i.media_type(), "data": i.base64()},
            })
        }));
        Value::Array(blocks)
    };
    json!({
        "type": "tool_result",
        "tool_use_id": outcome.call_id,
        "content": content,
        "is_error": !outcome.is_success(),
    })
}

/// Gemini: a `{"functionResponse": {"id"?, "name", "response"}}` part; the response is
/// `{"output": text}` on success and `{"error": {...}}` (the error's JSON) on failure. The id
/// is echoed only when the model sent one. Images go as the function response's `parts`
/// (`{"inlineData": {"mimeType", "data"}}`), Gemini's multimodal function responses.
pub fn gemini_part(outcome: &CallOutcome, tracker: &mut ResourcesTracker) -> Value {
    let response = match &outcome.result {
        Err(e) => json!({ "error": e.to_json() }),
        Ok(_) => json!({ "output": outcome.model_text(tracker) }),
    };
    let mut fr = Map::new();
    if !is_generated_id(&outcome.call_id) {
        fr.insert("id".into(), Value::String(outcome.call_id.clone()));
    }
    fr.insert("name".into(), Value::String(outcome.tool.clone()));
    fr.insert("response".into(), response);
    let images = outcome.images();
    if !images.is_empty() {
        fr.insert(
            "parts".into(),
            images
                .iter()
                .map(|i| json!({"inlineData": {"mimeType": i.media_type(), "data": i.base64()}}))
                .collect(),
        );
    }
    json!({ "functionResponse": fr })
}

/// MCP: a `CallToolResult`, `{"content": [{"type": "text", "text"}, {"type": "image",
/// "data", "mimeType"}...], "structuredContent"?, "isError"}`; `structuredContent` is the output's JSON when it is an object (never for
/// errors, nor for a [`text_output`](field@crate::ToolSpec::text_output) tool).
pub fn mcp_result(outcome: &CallOutcome, tracker: &mut ResourcesTracker) -> Value {
    let parts = McpParts::of(outcome, tracker);
    let mut out = Map::new();
    let mut content = vec![json!({ "type": "text", "text": parts.text })];
    content.extend(
        parts
            .images
            .iter()
            .map(|i| json!({"type": "image", "data": i.base64(), "mimeType": i.media_type()})),
    );
    out.insert("content".into(), Value::Array(content));
    if let Some(value) = parts.structured {
        out.insert("structuredContent".into(), value);
    }
    out.insert("isError".into(), Value::Bool(parts.is_error));
    Value::Object(out)
}

/// The parts of an MCP `CallToolResult` ([`mcp_result`]), for a server that builds its own
/// result type from them.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct McpParts {
    /// The text content: the text for the model.
    pub text: String,
    /// The structured content: the output's JSON when it is an object, unless the tool's
    /// result is text alone ([`CallOutcome::text_output`]).
    pub structured: Option<Value>,
    /// Whether the call failed.
    pub is_error: bool,
    /// The images, as `image` content after the text.
    pub images: Vec<crate::render::Image>,
}

impl McpParts {
    /// The parts of `outcome`'s result.
    pub fn of(outcome: &CallOutcome, tracker: &mut ResourcesTracker) -> McpParts {
        let text = outcome.model_text(tracker);
        let structured = match &outcome.result {
            Ok(_) if outcome.text_output => None,
            Ok(output) => output.value_once().ok().filter(Value::is_object),
            Err(_) => None,
        };
        McpParts {
            text,
            structured,
            is_error: !outcome.is_success(),
            images: outcome.images(),
        }
    }
}

/// XML: `<tool_result tool="NAME">text</tool_result>`; the text is literal, as tool
/// output (a file's content) must reach the model unchanged.
pub fn xml_result(outcome: &CallOutcome, tracker: &mut ResourcesTracker) -> String {
    format!(
        "<tool_result tool=\"{}\">{}</tool_result>",
        escape_attr(&outcome.tool),
        outcome.model_text(tracker)
    )
}

/// The result message of `outcome` in `format` (`json` gives `{"call_id", "tool",
/// "result"}` with the structured result).
///
/// A call's outcome, rendered into each provider's tool-result message.
///
/// The text the model reads is [`CallOutcome::model_text`] with the conversation's
/// [`ResourcesTracker`] (so a resource is shown once); an error is its `type: "error"` JSON.
/// Images a result carries ([`CallOutcome::images`]) go beside the text where the provider's
/// result can hold them: MCP `image` content, Anthropic `image` blocks, OpenAI Responses
/// `input_image` items and Gemini `inlineData` parts of the function response. Chat
/// Completions tool messages and the XML form carry text alone, which says what the images
/// are.
///
/// [`rejected`] and [`rejected_import`] make an outcome for a call that was refused before it
/// ran (import problems), so every call a provider sent gets an answer in the same shape.
pub fn render_result(
    format: Format,
    outcome: &CallOutcome,
    tracker: &mut ResourcesTracker,
) -> Exported {
    match format {
        Format::Openai | Format::OpenaiStrict => Exported::Json(openai_message(outcome, tracker)),
        Format::OpenaiResponses => Exported::Json(responses_output(outcome, tracker)),
        Format::Anthropic | Format::AnthropicStrict => {
            Exported::Json(anthropic_block(outcome, tracker))
        }
        Format::Gemini => Exported::Json(gemini_part(outcome, tracker)),
        Format::Mcp => Exported::Json(mcp_result(outcome, tracker)),
        Format::Xml => Exported::Text(xml_result(outcome, tracker)),
        // Code mode hands the script the same neutral result.
        Format::Json | Format::Typescript => Exported::Json(json!({
            "call_id": outcome.call_id,
            "tool": outcome.tool,
            "result": outcome.to_json(),
        })),
    }
}

/// An outcome for a call refused before it ran, answered with `error`.
pub fn rejected(call: &ToolCall, error: ToolError) -> CallOutcome {
    CallOutcome::rejected(call.id.clone(), call.name.clone(), error)
}

/// An outcome for a message the importer could not read as a call: the error's call id (or
/// a generated one) and tool name (or `"unknown"`).
pub fn rejected_import(error: &ImportError) -> CallOutcome {
    CallOutcome::rejected(
        error.call_id().map_or_else(generate_id, str::to_owned),
        error.tool().unwrap_or("unknown"),
        error.to_tool_error(),
    )
}

/// Runs an imported call: answered with [`Imported::error`] when the import found problems
/// (with the tool's allowed values, as every validation error of it has), else through
/// [`Session::call`].
pub async fn dispatch(session: &Session, imported: Imported) -> CallOutcome {
    match imported.error() {
        Some(error) => {
            let error = match session.runtime().registry().get(&imported.call.name) {
                Some(entry) => entry.schema().with_allowed_values(error),
                None => error,
            };
            rejected(&imported.call, error)
        }
        None => session.call(imported.call).await,
    }
}
