//! Reading tool calls from provider messages into [`ToolCall`]s.
//!
//! An [`Importer`] knows the registry, so it can fit arguments to each tool's canonical
//! schema ([`super::repair`]) and say what it changed. The rule throughout: a call whose
//! arguments are wrong still becomes a `ToolCall`, and validation answers it (malformed
//! `arguments` text is kept as text, an unknown tool keeps its name); only a message with no
//! call in it to answer is an [`ImportError`]. Nothing here panics on any input.

use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::Value;

use super::Format;
use super::error::ImportError;
use super::repair::{Repair, RepairKind, repair_arguments, xml_arguments};
use super::xml_parse::{self, Limits};
use crate::call::MAX_ARGUMENTS_BYTES;
use crate::call::ToolCall;
use crate::error::{Problem, ToolError};
use crate::registry::Registry;

/// The prefix of every call id the importer makes up (XML calls, Gemini calls without an
/// id, OpenAI calls missing theirs).
pub const GENERATED_ID_PREFIX: &str = "toolsmith_call_";
/// The default cap on an XML message's size, in bytes.
pub const DEFAULT_MAX_XML_BYTES: usize = MAX_ARGUMENTS_BYTES;
/// The default cap on XML calls read from one message.
pub const DEFAULT_MAX_XML_CALLS: usize = 64;
/// The default cap on parameters of one XML call.
pub const DEFAULT_MAX_XML_PARAMS: usize = 256;
/// The most calls read from one JSON message (`tool_calls`, content blocks, parts).
pub const MAX_JSON_CALLS: usize = 256;

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A new call id, unique in this process: `toolsmith_call_<n>`.
pub fn generate_id() -> String {
    format!(
        "{GENERATED_ID_PREFIX}{}",
        NEXT_ID.fetch_add(1, Ordering::Relaxed)
    )
}

/// Whether the importer made up this call id (see [`GENERATED_ID_PREFIX`]).
pub fn is_generated_id(id: &str) -> bool {
    id.starts_with(GENERATED_ID_PREFIX)
}

/// How an [`Importer`] reads calls.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ImportOptions {
    /// Fit JSON arguments (OpenAI, Anthropic, Gemini, MCP) to the schema, reporting each
    /// change. XML values are always converted (they are text). Default `true`.
    pub repair_json: bool,
    /// The largest XML message read, in bytes.
    pub max_xml_bytes: usize,
    /// The most XML calls read from one message.
    pub max_xml_calls: usize,
    /// The most parameters of one XML call.
    pub max_xml_params: usize,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            repair_json: true,
            max_xml_bytes: DEFAULT_MAX_XML_BYTES,
            max_xml_calls: DEFAULT_MAX_XML_CALLS,
            max_xml_params: DEFAULT_MAX_XML_PARAMS,
        }
    }
}

impl ImportOptions {
    /// Turns the JSON repairs on or off.
    pub fn repair_json(mut self, on: bool) -> Self {
        self.repair_json = on;
        self
    }
    /// Sets the XML size cap.
    pub fn max_xml_bytes(mut self, n: usize) -> Self {
        self.max_xml_bytes = n;
        self
    }
    /// Sets the XML call count cap.
    pub fn max_xml_calls(mut self, n: usize) -> Self {
        self.max_xml_calls = n;
        self
    }
    /// Sets the XML parameter count cap.
    pub fn max_xml_params(mut self, n: usize) -> Self {
        self.max_xml_params = n;
        self
    }
}

/// A call read from a provider message, with what the importer changed and what it found
/// wrong.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Imported {
    /// The call, ready for [`Session::call`](crate::Session::call).
    pub call: ToolCall,
    /// Each change made to the arguments, in document order.
    pub repairs: Vec<Repair>,
    /// What makes the call invalid as written, beyond what validation sees (an XML parameter
    /// given twice). The call's arguments fail validation too.
    pub problems: Vec<Problem>,
}

impl Imported {
    fn new(call: ToolCall, repairs: Vec<Repair>) -> Self {
        Imported {
            call,
            repairs,
            problems: Vec::new(),
        }
    }

    /// The `validation_error` to answer with instead of running the call, when the import
    /// found problems.
    pub fn error(&self) -> Option<ToolError> {
        if self.problems.is_empty() {
            return None;
        }
        let message = self
            .problems
            .iter()
            .map(|p| p.message.as_str())
            .collect::<Vec<_>>()
            .join("; ");
        Some(
            ToolError::validation(message)
                .with_signature(self.call.signature())
                .with_problems(self.problems.clone())
                .with_suggestion(
                    "Give a parameter that takes one value exactly one tag; repeat a tag only \
                     for an array parameter.",
                ),
        )
    }
}

/// Reads provider tool calls into [`ToolCall`]s, fitting arguments to the registry's
/// schemas.
///
/// ```
/// use serde_json::json;
/// use tool_core::provider::Importer;
/// use tool_core::Registry;
///
/// let registry = Registry::builder().build()?;
/// let importer = Importer::new(&registry);
/// let call = importer.openai_tool_call(&json!({
///     "id": "call_1", "type": "function",
///     "function": {"name": "grep", "arguments": "{\"pattern\": \"fn main\"}"}
/// }))?;
/// assert_eq!(call.call.name, "grep");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Importer<'r> {
    registry: Option<&'r Registry>,
    options: ImportOptions,
}

fn malformed(format: Format, message: impl Into<String>, call_id: Option<&str>) -> ImportError {
    ImportError::Malformed {
        format,
        message: message.into(),
        call_id: call_id.map(str::to_owned),
    }
}

fn str_field<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.get(key).and_then(Value::as_str)
}

impl<'r> Importer<'r> {
    /// An importer over a registry (aliases resolve for schema lookup).
    pub fn new(registry: &'r Registry) -> Self {
        Importer {
            registry: Some(registry),
            options: ImportOptions::default(),
        }
    }

    /// An importer without a registry: no schema, so no conversion (XML values stay text).
    pub fn without_registry() -> Self {
        Importer::default()
    }

    /// Sets the options.
    pub fn options(mut self, options: ImportOptions) -> Self {
        self.options = options;
        self
    }

    fn schema(&self, name: &str) -> Option<&'r Value> {
        self.registry
            .and_then(|r| r.get(name))
            .map(|e| &*e.spec().input_schema)
    }

    fn id_or_generate(v: Option<&str>) -> String {
        match v {
            Some(id) if !id.is_empty() => id.to_owned(),
            _ => generate_id(),
        }
    }

    /// Arguments given as JSON text (OpenAI): parsed and fitted; malformed text stays text.
    fn args_from_text(&self, id: String, name: &str, text: &str) -> Imported {
        if text.trim().is_empty() {
            let repair = Repair::new(
                "",
                RepairKind::EmptyStringAsEmptyObject,
                "an empty `arguments` string",
            );
            let call = ToolCall::new(id, name, Value::Object(Default::default()));
            return Imported::new(call, vec![repair]);
        }
        let schema = self.schema(name).filter(|_| self.options.repair_json);
        let keep = || Imported::new(ToolCall::new(id.clone(), name, text), Vec::new());
        let Some(schema) = schema else {
            return keep();
        };
        if text.len() > MAX_ARGUMENTS_BYTES {
            return keep();
        }
        match serde_json::from_str::<Value>(text) {
            Err(_) => keep(),
            Ok(v) => {
                let (fitted, repairs) = repair_arguments(schema, v);
                if repairs.is_empty() {
                    keep()
                } else {
                    Imported::new(ToolCall::new(id.clone(), name, fitted), repairs)
                }
            }
        }
    }

    /// Arguments given as a JSON value (Anthropic, Gemini, MCP): fitted to the schema.
    fn args_from_value(&self, id: String, name: &str, value: Value) -> Imported {
        match self.schema(name).filter(|_| self.options.repair_json) {
            Some(schema) => {
                let (fitted, repairs) = repair_arguments(schema, value);
                Imported::new(ToolCall::new(id, name, fitted), repairs)
            }
            None => Imported::new(ToolCall::new(id, name, value), Vec::new()),
        }
    }

    fn missing_arguments(&self, id: String, name: &str, what: &str) -> Imported {
        let repair = Repair::new("", RepairKind::MissingArguments, format!("no `{what}`"));
        Imported::new(
            ToolCall::new(id, name, Value::Object(Default::default())),
            vec![repair],
        )
    }

    /// One Chat Completions `tool_calls` entry:
    /// `{"id", "type": "function", "function": {"name", "arguments": "<JSON text>"}}`.
    pub fn openai_tool_call(&self, v: &Value) -> Result<Imported, ImportError> {
        let f = Format::Openai;
        let id = str_field(v, "id");
        if !v.is_object() {
            return Err(malformed(f, "a tool call must be a JSON object", None));
        }
        if let Some(t) = v.get("type")
            && t != "function"
        {
            return Err(malformed(f, format!("`type` is {t}, not \"function\""), id));
        }
        let Some(function) = v.get("function").filter(|x| x.is_object()) else {
            return Err(malformed(f, "`function` is missing", id));
        };
        let Some(name) = str_field(function, "name") else {
            return Err(malformed(f, "`function.name` is missing", id));
        };
        let id = Self::id_or_generate(id);
        Ok(match function.get("arguments") {
            Some(Value::String(text)) => self.args_from_text(id, name, text),
            None | Some(Value::Null) => self.missing_arguments(id, name, "function.arguments"),
            Some(other) => self.args_from_value(id, name, other.clone()),
        })
    }

    /// Every call of an assistant message: its `tool_calls` array, the array itself, or a
    /// single entry.
    pub fn openai_tool_calls(&self, v: &Value) -> Vec<Result<Imported, ImportError>> {
        let list = v.get("tool_calls").unwrap_or(v);
        match list {
            Value::Array(items) => items
                .iter()
                .take(MAX_JSON_CALLS)
                .map(|c| self.openai_tool_call(c))
                .collect(),
            Value::Null => Vec::new(),
            single => vec![self.openai_tool_call(single)],
        }
    }

    /// One Responses API `function_call` item:
    /// `{"type": "function_call", "call_id", "name", "arguments": "<JSON text>"}`.
    pub fn responses_function_call(&self, v: &Value) -> Result<Imported, ImportError> {
        let f = Format::OpenaiResponses;
        let id = str_field(v, "call_id").or_else(|| str_field(v, "id"));
        if !v.is_object() {
            return Err(malformed(f, "a function call must be a JSON object", None));
        }
        if let Some(t) = v.get("type")
            && t != "function_call"
        {
            return Err(malformed(
                f,
                format!("`type` is {t}, not \"function_call\""),
                id,
            ));
        }
        let Some(name) = str_field(v, "name") else {
            return Err(malformed(f, "`name` is missing", id));
        };
        let id = Self::id_or_generate(id);
        Ok(match v.get("arguments") {
            Some(Value::String(text)) => self.args_from_text(id, name, text),
            None | Some(Value::Null) => self.missing_arguments(id, name, "arguments"),
            Some(other) => self.args_from_value(id, name, other.clone()),
        })
    }

    /// The `function_call` items of a Responses API `output` array (other items skipped), or
    /// a single item.
    pub fn responses_output(&self, v: &Value) -> Vec<Result<Imported, ImportError>> {
        let list = v.get("output").unwrap_or(v);
        match list {
            Value::Array(items) => items
                .iter()
                .filter(|i| i.get("type").is_none_or(|t| t == "function_call"))
                .take(MAX_JSON_CALLS)
                .map(|i| self.responses_function_call(i))
                .collect(),
            Value::Null => Vec::new(),
            single => vec![self.responses_function_call(single)],
        }
    }

    /// One Anthropic `tool_use` block: `{"type": "tool_use", "id", "name", "input"}`.
    pub fn anthropic_tool_use(&self, v: &Value) -> Result<Imported, ImportError> {
        let f = Format::Anthropic;
        let id = str_field(v, "id");
        if !v.is_object() {
            return Err(malformed(f, "a content block must be a JSON object", None));
        }
        if let Some(t) = v.get("type")
            && t != "tool_use"
        {
            return Err(malformed(f, format!("`type` is {t}, not \"tool_use\""), id));
        }
        let Some(name) = str_field(v, "name") else {
            return Err(malformed(f, "`name` is missing", id));
        };
        let id = Self::id_or_generate(id);
        Ok(match v.get("input") {
            None | Some(Value::Null) => self.missing_arguments(id, name, "input"),
            Some(input) => self.args_from_value(id, name, input.clone()),
        })
    }

    /// The `tool_use` blocks of an assistant message's `content` (other blocks skipped), of
    /// the content array itself, or a single block.
    pub fn anthropic_content(&self, v: &Value) -> Vec<Result<Imported, ImportError>> {
        let list = v.get("content").unwrap_or(v);
        match list {
            Value::Array(items) => items
                .iter()
                .filter(|b| b.get("type").is_none_or(|t| t == "tool_use"))
                .take(MAX_JSON_CALLS)
                .map(|b| self.anthropic_tool_use(b))
                .collect(),
            Value::Null | Value::String(_) => Vec::new(),
            single => vec![self.anthropic_tool_use(single)],
        }
    }

    /// One Gemini `functionCall` part (`{"functionCall": {"name", "args", "id"?}}`) or the
    /// inner object. A call without an id gets a generated one; one without `args` has none.
    pub fn gemini_function_call(&self, v: &Value) -> Result<Imported, ImportError> {
        let f = Format::Gemini;
        let fc = v.get("functionCall").unwrap_or(v);
        let id = str_field(fc, "id");
        if !fc.is_object() {
            return Err(malformed(f, "`functionCall` must be a JSON object", None));
        }
        let Some(name) = str_field(fc, "name") else {
            return Err(malformed(f, "`functionCall.name` is missing", id));
        };
        let id = Self::id_or_generate(id);
        let args = match fc.get("args") {
            None | Some(Value::Null) => Value::Object(Default::default()),
            Some(a) => a.clone(),
        };
        Ok(self.args_from_value(id, name, args))
    }

    /// The `functionCall` parts of a candidate, a content (`{"parts": [...]}`) or a parts
    /// array (other parts skipped).
    pub fn gemini_parts(&self, v: &Value) -> Vec<Result<Imported, ImportError>> {
        let content = v.get("content").unwrap_or(v);
        let list = content.get("parts").unwrap_or(content);
        match list {
            Value::Array(items) => items
                .iter()
                .filter(|p| p.get("functionCall").is_some())
                .take(MAX_JSON_CALLS)
                .map(|p| self.gemini_function_call(p))
                .collect(),
            Value::Null => Vec::new(),
            single => vec![self.gemini_function_call(single)],
        }
    }

    /// The `params` of an MCP `tools/call` request (`{"name", "arguments"?}`); `id` is the
    /// JSON-RPC request id, or `None` to generate one.
    pub fn mcp_call(&self, params: &Value, id: Option<&str>) -> Result<Imported, ImportError> {
        let f = Format::Mcp;
        if !params.is_object() {
            return Err(malformed(f, "`params` must be a JSON object", id));
        }
        let Some(name) = str_field(params, "name") else {
            return Err(malformed(f, "`name` is missing", id));
        };
        let id = Self::id_or_generate(id);
        let args = match params.get("arguments") {
            None | Some(Value::Null) => Value::Object(Default::default()),
            Some(a) => a.clone(),
        };
        Ok(self.args_from_value(id, name, args))
    }

    /// Every XML call in a model's message (seed 001's `<tool:NAME><param:X>..</param:X>`
    /// syntax), in order, text around them ignored. Values are converted with the tool's
    /// schema ([`super::xml_arguments`]); an unknown tool keeps its name and string values.
    pub fn xml_calls(&self, text: &str) -> Vec<Result<Imported, ImportError>> {
        let limits = Limits {
            max_bytes: self.options.max_xml_bytes,
            max_calls: self.options.max_xml_calls,
            max_params: self.options.max_xml_params,
        };
        xml_parse::scan(text, limits)
            .into_iter()
            .map(|raw| {
                let raw = raw?;
                let (args, mut repairs, problems) =
                    xml_arguments(self.schema(&raw.name), &raw.params);
                if let Some(stray) = raw.stray {
                    repairs.insert(
                        0,
                        Repair::new(
                            "",
                            RepairKind::StrayTextIgnored,
                            format!("text outside the parameter tags: {stray:?}"),
                        ),
                    );
                }
                Ok(Imported {
                    call: ToolCall::new(generate_id(), raw.name, args),
                    repairs,
                    problems,
                })
            })
            .collect()
    }

    /// Reads every call of a message in a format: JSON text for the JSON formats (an
    /// assistant message, a list of calls or one call; for `mcp` a `tools/call` request or
    /// its params; `json` reads the neutral `{"id", "name", "arguments"}` form), the message
    /// text for `xml`.
    pub fn import(&self, format: Format, message: &str) -> Vec<Result<Imported, ImportError>> {
        if format == Format::Xml {
            return self.xml_calls(message);
        }
        if message.len() > MAX_ARGUMENTS_BYTES {
            return vec![Err(ImportError::TooLarge {
                what: "bytes of JSON",
                value: message.len(),
                max: MAX_ARGUMENTS_BYTES,
            })];
        }
        let v: Value = match serde_json::from_str(message) {
            Ok(v) => v,
            Err(e) => {
                return vec![Err(malformed(
                    format,
                    format!("the message is not JSON: {e}"),
                    None,
                ))];
            }
        };
        match format {
            Format::Openai | Format::OpenaiStrict => self.openai_tool_calls(&v),
            Format::OpenaiResponses => self.responses_output(&v),
            Format::Anthropic | Format::AnthropicStrict => self.anthropic_content(&v),
            Format::Gemini => self.gemini_parts(&v),
            Format::Mcp => {
                // A whole JSON-RPC request: its id answers the call.
                let rpc_id = v.get("params").and(v.get("id")).map(|id| match id {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                });
                vec![self.mcp_call(v.get("params").unwrap_or(&v), rpc_id.as_deref())]
            }
            _ => self.neutral(&v),
        }
    }

    fn neutral(&self, v: &Value) -> Vec<Result<Imported, ImportError>> {
        let one = |c: &Value| -> Result<Imported, ImportError> {
            let id = str_field(c, "id");
            let Some(name) = str_field(c, "name") else {
                return Err(malformed(Format::Json, "`name` is missing", id));
            };
            let id = Self::id_or_generate(id);
            Ok(match c.get("arguments") {
                Some(Value::String(t)) => self.args_from_text(id, name, t),
                None | Some(Value::Null) => self.missing_arguments(id, name, "arguments"),
                Some(a) => self.args_from_value(id, name, a.clone()),
            })
        };
        match v {
            Value::Array(items) => items.iter().take(MAX_JSON_CALLS).map(one).collect(),
            single => vec![one(single)],
        }
    }
}
