//! Provider formats: export tool definitions to OpenAI, Anthropic, Gemini, MCP and an XML
//! prompt block, import their tool calls, and render results back.
//!
//! # Export
//!
//! Every export is a pure function of a [`ToolSpec`], derived from its canonical input schema
//! (JSON Schema 2020-12): [`openai::chat_tool`], [`openai::chat_tool_strict`],
//! [`openai::responses_tool`], [`anthropic::tool`], [`gemini::function_declaration`],
//! [`mcp::tool`] and [`xml::prompt_block`]. [`export`] and [`export_all`] pick one by
//! [`Format`], the names the CLI takes (`toolsmith list --format openai-strict`);
//! [`export_all_with`] also defers tools and groups them in namespaces where the provider
//! has a tool search ([`ExportOptions`]: Anthropic's `defer_loading`, OpenAI Responses'
//! `defer_loading` and `namespace`). Where a
//! schema cannot be said in a format (a map in OpenAI strict mode or Gemini, a recursive type
//! where references must be inlined) the export is an [`ExportError`] naming the tool and the
//! construct; it never emits a schema the provider would refuse. [`ExportCache`] keeps
//! exports for hosts that send the same tools with every request.
//!
//! # Import
//!
//! An [`Importer`] reads OpenAI `tool_calls` (and Responses `function_call` items),
//! Anthropic `tool_use` blocks, Gemini `functionCall` parts, MCP `tools/call` params and XML
//! calls into [`ToolCall`](crate::ToolCall)s. Arguments are fitted to the tool's schema and every change is
//! listed as a [`Repair`]; bad arguments still make a call, which
//! validation answers.
//!
//! # Results
//!
//! [`render_result`] (and the per-provider functions: [`openai_message`],
//! [`responses_output`], [`anthropic_block`], [`gemini_part`], [`mcp_result`], [`xml_result`])
//! turn a [`CallOutcome`](crate::CallOutcome) into the provider's tool-result message.
//!
//! ```
//! use tool_core::ToolSpec;
//! use tool_core::provider::{Format, export_all};
//!
//! let specs = [ToolSpec::new("ping", "Answer pong.")];
//! let format: Format = "openai".parse()?;
//! let tools = export_all(&specs, format)?;
//! assert_eq!(tools.as_json().unwrap()[0]["function"]["name"], "ping");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod anthropic;
mod cache;
mod deferred;
mod error;
pub mod gemini;
mod import;
pub mod mcp;
pub mod openai;
mod repair;
mod result;
pub(crate) mod schema;
mod strict;
pub mod typescript;
pub mod xml;
mod xml_parse;

use std::fmt;
use std::str::FromStr;

use serde_json::{Map, Value};

use crate::spec::ToolSpec;

pub use cache::{CachedExport, ExportCache, MAX_CACHED_TOOLS};
pub use deferred::{
    ANTHROPIC_CALLER_CODE_EXECUTION, ANTHROPIC_CALLER_DIRECT, ANTHROPIC_TOOL_SEARCH_BM25,
    ANTHROPIC_TOOL_SEARCH_REGEX, ExportOptions, ToolSearch,
};
pub use error::{ExportError, ImportError, ParseFormatError};
pub use import::{
    DEFAULT_MAX_XML_BYTES, DEFAULT_MAX_XML_CALLS, DEFAULT_MAX_XML_PARAMS, GENERATED_ID_PREFIX,
    ImportOptions, Imported, Importer, MAX_JSON_CALLS, generate_id, is_generated_id,
};
pub use repair::{MAX_CONVERT_DEPTH, Repair, RepairKind, repair_arguments, xml_arguments};
pub use result::{
    McpParts, anthropic_block, dispatch, gemini_part, mcp_result, openai_message, rejected,
    rejected_import, render_result, responses_output, xml_result,
};
pub use strict::{ANTHROPIC_STRICT_FORMATS, ANTHROPIC_STRICT_KEYWORDS};

/// A provider format, by the name the CLI uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Format {
    /// `json`: the canonical spec, as toolsmith holds it.
    Json,
    /// `openai`: Chat Completions `tools` entries with the canonical schema.
    Openai,
    /// `openai-strict`: Chat Completions `tools` entries in strict mode.
    OpenaiStrict,
    /// `openai-responses`: Responses API function tools (strict when the schema allows).
    OpenaiResponses,
    /// `anthropic`: Messages API `tools` entries.
    Anthropic,
    /// `anthropic-strict`: Messages API `tools` entries with `"strict": true` (strict tool
    /// use), in the schema subset it accepts.
    AnthropicStrict,
    /// `gemini`: `functionDeclarations` entries in Gemini's OpenAPI subset.
    Gemini,
    /// `mcp`: `tools/list` entries.
    Mcp,
    /// `xml`: a Markdown block for a system prompt, with the XML call syntax.
    Xml,
    /// `typescript`: TypeScript declarations of the tools for code mode (a `tools` object
    /// whose methods take the input and promise the output), from the input and output
    /// schemas.
    Typescript,
}

impl Format {
    /// Every format, in the order of the CLI's help.
    pub const ALL: &'static [Format] = &[
        Format::Json,
        Format::Openai,
        Format::OpenaiStrict,
        Format::OpenaiResponses,
        Format::Anthropic,
        Format::AnthropicStrict,
        Format::Gemini,
        Format::Mcp,
        Format::Xml,
        Format::Typescript,
    ];

    /// The CLI name: `json`, `openai`, `openai-strict`, `openai-responses`, `anthropic`,
    /// `anthropic-strict`, `gemini`, `mcp`, `xml`, `typescript`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Openai => "openai",
            Format::OpenaiStrict => "openai-strict",
            Format::OpenaiResponses => "openai-responses",
            Format::Anthropic => "anthropic",
            Format::AnthropicStrict => "anthropic-strict",
            Format::Gemini => "gemini",
            Format::Mcp => "mcp",
            Format::Xml => "xml",
            Format::Typescript => "typescript",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Format {
    type Err = ParseFormatError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Format::ALL
            .iter()
            .copied()
            .find(|f| f.as_str() == s)
            .ok_or_else(|| ParseFormatError { name: s.to_owned() })
    }
}

/// What an export produced: JSON for the JSON formats, text for [`Format::Xml`] and
/// [`Format::Typescript`].
#[derive(Debug, Clone, PartialEq)]
pub enum Exported {
    /// A JSON value (one entry, or an array of entries).
    Json(Value),
    /// Text (the XML/Markdown prompt block).
    Text(String),
}

impl Exported {
    /// The JSON value, for a JSON format.
    pub fn as_json(&self) -> Option<&Value> {
        match self {
            Exported::Json(v) => Some(v),
            Exported::Text(_) => None,
        }
    }

    /// The text, for [`Format::Xml`].
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Exported::Text(t) => Some(t),
            Exported::Json(_) => None,
        }
    }

    /// Compact JSON text, or the text as it is.
    pub fn to_compact(&self) -> String {
        match self {
            Exported::Json(v) => v.to_string(),
            Exported::Text(t) => t.clone(),
        }
    }

    /// Indented JSON text, or the text as it is.
    pub fn to_pretty(&self) -> String {
        match self {
            Exported::Json(v) => serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string()),
            Exported::Text(t) => t.clone(),
        }
    }
}

impl fmt::Display for Exported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_pretty())
    }
}

/// The canonical spec as JSON (`json` format): name, title, description, input and output
/// schemas, modes, permissions, approval, category, toolsets, aliases, annotations, timeout,
/// actions, and `text_output`, `defer_loading` and `namespace` when set.
pub fn canonical(spec: &ToolSpec) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), Value::String(spec.name.to_string()));
    if let Some(t) = &spec.title {
        m.insert("title".into(), Value::String(t.to_string()));
    }
    m.insert(
        "description".into(),
        Value::String(spec.description.to_string()),
    );
    m.insert("input_schema".into(), (*spec.input_schema).clone());
    if let Some(o) = &spec.output_schema {
        m.insert("output_schema".into(), (**o).clone());
    }
    let json = |v: Result<Value, serde_json::Error>| v.unwrap_or(Value::Null);
    m.insert("modes".into(), json(serde_json::to_value(&spec.modes)));
    m.insert(
        "permissions".into(),
        json(serde_json::to_value(spec.permissions)),
    );
    m.insert(
        "requires_approval".into(),
        Value::Bool(spec.requires_approval),
    );
    if let Some(c) = &spec.category {
        m.insert("category".into(), Value::String(c.to_string()));
    }
    m.insert(
        "toolsets".into(),
        json(serde_json::to_value(&spec.toolsets)),
    );
    m.insert("aliases".into(), json(serde_json::to_value(&spec.aliases)));
    m.insert("user_facing".into(), Value::Bool(spec.user_facing));
    if spec.suppress_execution_animation {
        m.insert("suppress_execution_animation".into(), Value::Bool(true));
    }
    m.insert(
        "annotations".into(),
        json(serde_json::to_value(spec.annotations)),
    );
    if let Some(t) = spec.timeout {
        let ms = u64::try_from(t.as_millis()).unwrap_or(u64::MAX);
        m.insert("timeout_ms".into(), Value::from(ms));
    }
    if let Some(a) = &spec.actions {
        m.insert("actions".into(), json(serde_json::to_value(a)));
    }
    if spec.text_output {
        m.insert("text_output".into(), Value::Bool(true));
    }
    if spec.defer_loading {
        m.insert("defer_loading".into(), Value::Bool(true));
    }
    if let Some(ns) = &spec.namespace {
        m.insert("namespace".into(), Value::String(ns.to_string()));
    }
    Value::Object(m)
}

/// The tool's input schema as any JSON Schema consumer takes it: the canonical schema
/// (2020-12, `$defs` and `$ref` kept) without `$schema` and without schemars' Rust-type
/// formats (`uint32`, `int64`, `double`; the ranges they imply stay as `minimum` and
/// `maximum`). What an agent framework with its own tool type (rig's `ToolDefinition`, say)
/// hands its provider, which then applies that provider's own rules.
pub fn neutral_schema(spec: &ToolSpec) -> Value {
    schema::without_dialect(&spec.input_schema)
}

/// One tool's entry in a format; for [`Format::Xml`] its section of the block.
pub(crate) fn export_entry(spec: &ToolSpec, format: Format) -> Result<Exported, ExportError> {
    Ok(match format {
        Format::Json => Exported::Json(canonical(spec)),
        Format::Openai => Exported::Json(openai::chat_tool(spec)?),
        Format::OpenaiStrict => Exported::Json(openai::chat_tool_strict(spec)?),
        Format::OpenaiResponses => Exported::Json(openai::responses_tool_auto(spec)?),
        Format::Anthropic => Exported::Json(anthropic::tool(spec)?),
        Format::AnthropicStrict => Exported::Json(anthropic::strict_tool(spec)?),
        Format::Gemini => Exported::Json(gemini::function_declaration(spec)?),
        Format::Mcp => Exported::Json(mcp::tool(spec)?),
        Format::Xml => Exported::Text(xml::tool_section(spec)?),
        Format::Typescript => Exported::Text(typescript::tool_member(spec)?),
    })
}

/// One tool in a format: its entry as JSON, or for [`Format::Xml`] a whole prompt block and
/// for [`Format::Typescript`] a whole declaration file with this tool alone (what `toolsmith
/// schema NAME --format F` prints).
pub fn export(spec: &ToolSpec, format: Format) -> Result<Exported, ExportError> {
    match format {
        Format::Xml => Ok(Exported::Text(xml::prompt_block([spec])?)),
        Format::Typescript => Ok(Exported::Text(typescript::declarations([spec])?)),
        other => export_entry(spec, other),
    }
}

/// A list of tools in a format: a JSON array of entries, or for [`Format::Xml`] the prompt
/// block and for [`Format::Typescript`] the declaration file (what `toolsmith list --format F` prints). The first tool that cannot be exported
/// makes the error.
pub fn export_all<'a, I>(specs: I, format: Format) -> Result<Exported, ExportError>
where
    I: IntoIterator<Item = &'a ToolSpec>,
{
    if format == Format::Xml {
        return xml::prompt_block(specs).map(Exported::Text);
    }
    if format == Format::Typescript {
        return typescript::declarations(specs).map(Exported::Text);
    }
    if format == Format::AnthropicStrict {
        return anthropic::strict_tools(specs).map(Exported::Json);
    }
    let specs = specs.into_iter();
    let mut out = Vec::with_capacity(specs.size_hint().0);
    for spec in specs {
        match export_entry(spec, format)? {
            Exported::Json(v) => out.push(v),
            Exported::Text(t) => out.push(Value::String(t)),
        }
    }
    Ok(Exported::Json(Value::Array(out)))
}

/// A list of tools in a format, deferred and grouped as their specs and `options` say: in
/// [`Format::Anthropic`] and [`Format::AnthropicStrict`], `defer_loading: true` on the
/// deferred tools, a tool search tool, and `allowed_callers` (programmatic tool calling);
/// in [`Format::OpenaiResponses`], `defer_loading: true`, namespaces and `tool_search`. The
/// other formats have no deferred loading: the same as [`export_all`]. See
/// [`ExportOptions`] and the providers' shapes in its module.
pub fn export_all_with<'a, I>(
    specs: I,
    format: Format,
    options: &ExportOptions,
) -> Result<Exported, ExportError>
where
    I: IntoIterator<Item = &'a ToolSpec>,
{
    if !deferred::applies_to(format) {
        return export_all(specs, format);
    }
    let specs: Vec<&ToolSpec> = specs.into_iter().collect();
    let list = match format {
        Format::Anthropic => deferred::anthropic_list(&specs, options, false)?,
        Format::AnthropicStrict => deferred::anthropic_list(&specs, options, true)?,
        _ => deferred::responses_list(&specs, options)?,
    };
    Ok(Exported::Json(list))
}

/// A JSON object from members in order (no re-serialization of the values, unlike `json!`).
pub(crate) fn object<const N: usize>(members: [(&str, Value); N]) -> Value {
    let mut m = Map::with_capacity(N);
    for (k, v) in members {
        m.insert(k.to_owned(), v);
    }
    Value::Object(m)
}

/// Escapes `&`, `<` and `"` for an XML attribute value.
pub(crate) fn escape_attr(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_names_round_trip() {
        for f in Format::ALL {
            assert_eq!(f.as_str().parse::<Format>(), Ok(*f));
        }
        let err = "openai_strict".parse::<Format>().unwrap_err();
        assert!(err.to_string().contains("openai-strict"));
    }
}
