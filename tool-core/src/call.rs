//! A tool call as it arrives from a provider: [`ToolCall`] and its [`Arguments`].

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The largest arguments document accepted, in bytes of JSON text. Larger calls are refused
/// before parsing.
pub const MAX_ARGUMENTS_BYTES: usize = 4 * 1024 * 1024;

/// The arguments of a call: JSON text as a provider sent it, or an already parsed value.
///
/// Keeping the text lets the runtime decode straight into the tool's input type without an
/// intermediate [`Value`] on the fast path; a value (Anthropic's `input`, Gemini's `args`) is
/// decoded from the tree.
#[derive(Debug, Clone, PartialEq)]
pub enum Arguments {
    /// JSON text, possibly malformed (OpenAI's `arguments` string, the CLI's argument).
    Text(String),
    /// A parsed JSON value.
    Value(Value),
}

impl Arguments {
    /// The arguments as a value, parsing text; a parse error is returned as a message.
    pub fn to_value(&self) -> Result<Value, serde_json::Error> {
        match self {
            Arguments::Text(t) => serde_json::from_str(t),
            Arguments::Value(v) => Ok(v.clone()),
        }
    }

    /// The arguments as compact JSON text (text is returned as given).
    pub fn to_json_text(&self) -> String {
        match self {
            Arguments::Text(t) => t.clone(),
            Arguments::Value(v) => v.to_string(),
        }
    }
}

impl Default for Arguments {
    fn default() -> Self {
        Arguments::Value(Value::Object(Default::default()))
    }
}

impl From<Value> for Arguments {
    fn from(v: Value) -> Self {
        Arguments::Value(v)
    }
}

impl From<String> for Arguments {
    fn from(t: String) -> Self {
        Arguments::Text(t)
    }
}

impl From<&str> for Arguments {
    fn from(t: &str) -> Self {
        Arguments::Text(t.to_owned())
    }
}

impl Serialize for Arguments {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Arguments::Value(v) => v.serialize(s),
            Arguments::Text(t) => match serde_json::from_str::<Value>(t) {
                Ok(v) => v.serialize(s),
                Err(_) => s.serialize_str(t),
            },
        }
    }
}

impl<'de> Deserialize<'de> for Arguments {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Arguments::Value(Value::deserialize(d)?))
    }
}

/// One call of a tool, in the provider-neutral form every import produces.
///
/// ```
/// use tool_core::ToolCall;
/// let call = ToolCall::new("call_1", "grep", serde_json::json!({"pattern": "fn main"}));
/// assert_eq!(call.signature(), "grep(pattern=\"fn main\")");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's call id (echoed in the result message).
    pub id: String,
    /// The tool name (or an alias).
    pub name: String,
    /// The arguments.
    pub arguments: Arguments,
}

/// The longest a value is shown in a call signature before it is cut.
const SIGNATURE_VALUE_CHARS: usize = 60;
/// The longest a whole call signature gets.
const SIGNATURE_CHARS: usize = 240;

impl ToolCall {
    /// A call with an id, a tool name and arguments.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<Arguments>,
    ) -> Self {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
        }
    }

    /// The call as a model would write it, for error prefixes: `web(action="crawl",
    /// query_or_url="x")`. Long values are cut with `…`; malformed arguments show as `(…)`.
    pub fn signature(&self) -> String {
        signature_of_arguments(&self.name, &self.arguments)
    }
}

/// [`signature_of`] for arguments as they came: empty text is `name()`, text that does not
/// parse, or is over [`MAX_ARGUMENTS_BYTES`] (it is not
/// even read), is `name(…)`.
pub(crate) fn signature_of_arguments(name: &str, arguments: &Arguments) -> String {
    match arguments {
        Arguments::Value(v) => signature_of(name, Some(v)),
        Arguments::Text(t) if t.len() > MAX_ARGUMENTS_BYTES => signature_of(name, None),
        Arguments::Text(t) if t.trim().is_empty() => signature_of(name, Some(&Value::Null)),
        Arguments::Text(t) => signature_of(name, serde_json::from_str::<Value>(t).ok().as_ref()),
    }
}

/// Formats `name(key=value, ...)` from an arguments value; see [`ToolCall::signature`].
pub fn signature_of(name: &str, arguments: Option<&Value>) -> String {
    let mut out = String::with_capacity(64);
    out.push_str(name);
    out.push('(');
    match arguments {
        Some(Value::Object(map)) => {
            for (i, (k, v)) in map.iter().enumerate() {
                if out.len() > SIGNATURE_CHARS {
                    out.push_str(", …");
                    break;
                }
                if i > 0 {
                    out.push_str(", ");
                }
                // Keys are cut too: a model may send a megabyte-long key.
                push_cut(&mut out, k, SIGNATURE_VALUE_CHARS);
                out.push('=');
                let text = match v {
                    Value::String(s) => serde_json::to_string(s).unwrap_or_default(),
                    other => other.to_string(),
                };
                push_cut(&mut out, &text, SIGNATURE_VALUE_CHARS);
            }
        }
        Some(Value::Null) | None => {
            if arguments.is_none() {
                out.push('…');
            }
        }
        Some(other) => {
            let _ = write!(out, "{}", cut(&other.to_string(), SIGNATURE_VALUE_CHARS));
        }
    }
    out.push(')');
    out
}

/// Appends `text`, cut to `max` characters with `…` when longer.
fn push_cut(out: &mut String, text: &str, max: usize) {
    match text.char_indices().nth(max) {
        None => out.push_str(text),
        Some((end, _)) => {
            out.push_str(&text[..end]);
            out.push('…');
        }
    }
}

fn cut(text: &str, max: usize) -> String {
    let mut s = String::with_capacity(text.len().min(max * 4 + 3));
    push_cut(&mut s, text, max);
    s
}

/// The decimal digits of `n`, written at the end of `buf` (by hand: `format!` costs a
/// noticeable part of a call's path, where ids are made).
pub(crate) fn decimal_digits(mut n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    &buf[at..]
}
