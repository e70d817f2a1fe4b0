//! What can go wrong between a tool and a provider: [`ExportError`] (a definition the provider
//! cannot take), [`ImportError`] (a provider message that is not a call) and
//! [`ParseFormatError`] (an unknown format name).

use std::fmt;

use crate::error::{Problem, ToolError};

use super::Format;

/// A tool's definition cannot be expressed in a provider's format.
///
/// Export never emits a schema the provider would reject; it answers with this error instead,
/// naming the tool, the format, where in the schema the construct is and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ExportError {
    /// A construct of the schema has no equivalent in the format (a map in OpenAI strict mode,
    /// a tuple in Gemini, a value of any type, ...).
    Unsupported {
        /// The tool.
        tool: String,
        /// The format it was exported to.
        format: Format,
        /// JSON pointer to the construct in the schema (refs inlined), `""` for the root.
        path: String,
        /// What the construct is, e.g. "a map (`additionalProperties` with a schema)".
        construct: String,
        /// Why the format refuses it, or what to do instead.
        reason: String,
    },
    /// The schema refers to itself (a recursive type) and the format needs every `$ref`
    /// inlined.
    Recursive {
        /// The tool.
        tool: String,
        /// The format it was exported to.
        format: Format,
        /// JSON pointer to where the recursion closes.
        path: String,
        /// The `$ref` that leads back into itself.
        reference: String,
    },
    /// A `$ref` names no schema in the document.
    UnresolvedRef {
        /// The tool.
        tool: String,
        /// The format it was exported to.
        format: Format,
        /// JSON pointer to the `$ref`.
        path: String,
        /// The reference as written.
        reference: String,
    },
    /// The schema is larger than the provider accepts (nesting, property count, enum size).
    LimitExceeded {
        /// The tool.
        tool: String,
        /// The format it was exported to.
        format: Format,
        /// Which limit, e.g. "object nesting levels".
        limit: &'static str,
        /// The schema's value.
        value: usize,
        /// The provider's maximum.
        max: usize,
    },
}

impl ExportError {
    /// The tool that could not be exported.
    pub fn tool(&self) -> &str {
        match self {
            ExportError::Unsupported { tool, .. }
            | ExportError::Recursive { tool, .. }
            | ExportError::UnresolvedRef { tool, .. }
            | ExportError::LimitExceeded { tool, .. } => tool,
        }
    }

    /// The format it was exported to.
    pub fn format(&self) -> Format {
        match self {
            ExportError::Unsupported { format, .. }
            | ExportError::Recursive { format, .. }
            | ExportError::UnresolvedRef { format, .. }
            | ExportError::LimitExceeded { format, .. } => *format,
        }
    }
}

fn at(path: &str) -> String {
    if path.is_empty() {
        "the root".to_owned()
    } else {
        format!("`{path}`")
    }
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExportError::Unsupported {
                tool,
                format,
                path,
                construct,
                reason,
            } => write!(
                f,
                "tool `{tool}` cannot be exported to {format}: {construct} at {} is not \
                 supported; {reason}",
                at(path)
            ),
            ExportError::Recursive {
                tool,
                format,
                path,
                reference,
            } => write!(
                f,
                "tool `{tool}` cannot be exported to {format}: its schema is recursive \
                 (`{reference}` at {} refers back to itself) and {format} needs every `$ref` \
                 inlined; break the cycle with a depth-limited type",
                at(path)
            ),
            ExportError::UnresolvedRef {
                tool,
                format,
                path,
                reference,
            } => write!(
                f,
                "tool `{tool}` cannot be exported to {format}: `$ref` `{reference}` at {} names \
                 no schema in the document",
                at(path)
            ),
            ExportError::LimitExceeded {
                tool,
                format,
                limit,
                value,
                max,
            } => write!(
                f,
                "tool `{tool}` cannot be exported to {format}: its schema has {value} {limit}; \
                 the limit is {max}"
            ),
        }
    }
}

impl std::error::Error for ExportError {}

/// A provider message could not be read as a tool call at all.
///
/// A call whose *arguments* are wrong is not an import error: it becomes a
/// [`ToolCall`](crate::ToolCall) and validation answers it. This error is for messages with no
/// call in them to answer (no tool name, an XML call cut off before its closing tag, input
/// over a size cap). [`ImportError::to_tool_error`] gives the `validation_error` to send back
/// to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ImportError {
    /// The message does not have the provider's shape (a field missing or of the wrong type).
    Malformed {
        /// The provider format it was read as.
        format: Format,
        /// What is wrong, e.g. "`function.name` is missing".
        message: String,
        /// The call's id when the message had one: the result must still answer it.
        call_id: Option<String>,
    },
    /// An XML tool call is not well formed (unclosed tag, bad tag name).
    Xml {
        /// The tool, when its opening tag was read.
        tool: Option<String>,
        /// What is wrong.
        message: String,
        /// Byte offset in the message where the problem starts.
        offset: usize,
    },
    /// The input is over one of the import limits.
    TooLarge {
        /// What is counted, e.g. "bytes of XML".
        what: &'static str,
        /// How many there are (or at least how many were counted before stopping).
        value: usize,
        /// The limit.
        max: usize,
    },
}

impl ImportError {
    /// The id of the call the error is about, when the message gave one (a provider expects
    /// an answer to every call id it sent).
    pub fn call_id(&self) -> Option<&str> {
        match self {
            ImportError::Malformed { call_id, .. } => call_id.as_deref(),
            _ => None,
        }
    }

    /// The tool the error is about, when its name was read.
    pub fn tool(&self) -> Option<&str> {
        match self {
            ImportError::Xml { tool, .. } => tool.as_deref(),
            _ => None,
        }
    }

    /// The error to answer the model with: a `validation_error` that says what was wrong and
    /// how to write the call.
    pub fn to_tool_error(&self) -> ToolError {
        let suggestion = match self {
            ImportError::Malformed { format, .. } => match format {
                Format::Xml => xml_hint(),
                _ => {
                    "Send one tool call with a tool name and a JSON object of arguments.".to_owned()
                }
            },
            ImportError::Xml { .. } => xml_hint(),
            ImportError::TooLarge { .. } => {
                "Send less data in one call, or split the work into several calls.".to_owned()
            }
        };
        let mut err = ToolError::validation(self.to_string()).with_suggestion(suggestion);
        if let ImportError::Xml {
            tool: Some(tool), ..
        } = self
        {
            err = err
                .with_signature(format!("{tool}(…)"))
                .with_problems(vec![Problem::new("", self.to_string())]);
        }
        err
    }
}

fn xml_hint() -> String {
    "Write each call as <tool:NAME>, one <param:NAME>value</param:NAME> per parameter, then \
     </tool:NAME>."
        .to_owned()
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImportError::Malformed {
                format, message, ..
            } => {
                write!(f, "malformed {format} tool call: {message}")
            }
            ImportError::Xml {
                tool: Some(tool),
                message,
                offset,
            } => write!(
                f,
                "the XML call of `{tool}` is malformed: {message} (at byte {offset})"
            ),
            ImportError::Xml {
                tool: None,
                message,
                offset,
            } => write!(f, "malformed XML tool call: {message} (at byte {offset})"),
            ImportError::TooLarge { what, value, max } => {
                write!(f, "the tool call has {value} {what}; the limit is {max}")
            }
        }
    }
}

impl std::error::Error for ImportError {}

/// A format name is not one of `json`, `openai`, `openai-strict`, `openai-responses`,
/// `anthropic`, `anthropic-strict`, `gemini`, `mcp`, `xml`, `typescript`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseFormatError {
    /// The name given.
    pub name: String,
}

impl fmt::Display for ParseFormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Format::ALL.iter().map(|f| f.as_str()).collect();
        write!(
            f,
            "unknown format {:?}; expected one of: {}",
            self.name,
            names.join(", ")
        )
    }
}

impl std::error::Error for ParseFormatError {}
