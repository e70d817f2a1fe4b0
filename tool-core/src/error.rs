//! Errors: [`ToolError`], the value a model sees, and the host-side errors
//! ([`SpecError`], [`RegistryError`]) that a program handles.
//!
//! The two are kept apart on purpose. A `ToolError` is part of the conversation: it is
//! rendered into the tool result and says what was wrong, what is allowed and what to try.
//! A host error is a bug or misconfiguration in the program that declares the tools.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What kind of failure a [`ToolError`] reports. The model can branch on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorKind {
    /// The arguments do not fit the tool's schema (or the call is malformed).
    ValidationError,
    /// The call was well-formed but cannot be done as asked (file not found, bad regex...).
    UserError,
    /// Something failed inside the tool or its environment.
    SystemError,
    /// The session's role lacks a permission the tool or action needs, or the mode excludes it.
    PermissionError,
    /// The call was refused by a security policy (path escape, private address...).
    SecurityError,
    /// No tool, or no resource, by that name.
    NotFound,
    /// A person or policy declined to approve the call.
    ApprovalDenied,
    /// The call ran past its deadline.
    Timeout,
    /// The call was cancelled before it finished.
    Cancelled,
    /// A per-turn or per-session limit was reached.
    RateLimited,
}

impl ErrorKind {
    /// The snake_case name used as `error_type`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorKind::ValidationError => "validation_error",
            ErrorKind::UserError => "user_error",
            ErrorKind::SystemError => "system_error",
            ErrorKind::PermissionError => "permission_error",
            ErrorKind::SecurityError => "security_error",
            ErrorKind::NotFound => "not_found",
            ErrorKind::ApprovalDenied => "approval_denied",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Cancelled => "cancelled",
            ErrorKind::RateLimited => "rate_limited",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One thing wrong with a call's arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Problem {
    /// JSON pointer to the offending value (`""` for the root, `/paths/0`).
    pub path: String,
    /// What is wrong, in a sentence.
    pub message: String,
    /// What was expected there (`"string"`, `"one of: view, update"`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// The allowed values, for an enum.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed: Option<Vec<Value>>,
    /// The nearest allowed value or known name ("did you mean").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub did_you_mean: Option<String>,
}

impl Problem {
    /// A problem at `path` with a message.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Problem {
            path: path.into(),
            message: message.into(),
            expected: None,
            allowed: None,
            did_you_mean: None,
        }
    }

    /// Sets what was expected.
    pub fn expected(mut self, e: impl Into<String>) -> Self {
        self.expected = Some(e.into());
        self
    }

    /// Sets the allowed values.
    pub fn allowed(mut self, values: Vec<Value>) -> Self {
        self.allowed = Some(values);
        self
    }

    /// Sets the nearest match.
    pub fn did_you_mean(mut self, s: Option<String>) -> Self {
        self.did_you_mean = s;
        self
    }

    /// The field name the path ends in, if it names an object member, with the JSON pointer
    /// escapes undone (`/a~1b` names the member `a/b`).
    pub fn field(&self) -> Option<Cow<'_, str>> {
        let last = self.path.rsplit('/').next()?;
        if last.is_empty() || last.bytes().all(|b| b.is_ascii_digit()) {
            None
        } else if last.contains('~') {
            Some(Cow::Owned(last.replace("~1", "/").replace("~0", "~")))
        } else {
            Some(Cow::Borrowed(last))
        }
    }
}

/// An error a tool call answers with: a value in the conversation, never a panic.
///
/// Its JSON form ([`ToolError::to_json`]) is what the model reads:
///
/// ```json
/// {"type": "error", "error_type": "validation_error",
///  "error": "web(action=\"crawl\"): Invalid action 'crawl'",
///  "allowed_actions": ["search", "fetch"], "suggestion": "..."}
/// ```
///
/// ```
/// use tool_core::{ErrorKind, ToolError};
/// let err = ToolError::user("File not found: src/mian.rs")
///     .with_suggestion("Did you mean src/main.rs?");
/// assert_eq!(err.kind(), ErrorKind::UserError);
/// assert_eq!(err.to_json()["error_type"], "user_error");
/// ```
#[derive(Clone, PartialEq)]
pub struct ToolError(Box<Inner>);

/// The error's parts, boxed so that a `Result<T, ToolError>` stays one pointer wide on the
/// error side (a tool's result passes through every layer of a call).
#[derive(Debug, Clone, PartialEq)]
struct Inner {
    kind: ErrorKind,
    message: Cow<'static, str>,
    signature: Option<String>,
    suggestion: Option<String>,
    problems: Vec<Problem>,
    fields: Map<String, Value>,
}

impl fmt::Debug for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = &self.0;
        f.debug_struct("ToolError")
            .field("kind", &i.kind)
            .field("message", &i.message)
            .field("signature", &i.signature)
            .field("suggestion", &i.suggestion)
            .field("problems", &i.problems)
            .field("fields", &i.fields)
            .finish()
    }
}

impl ToolError {
    /// An error of a kind with a message.
    pub fn new(kind: ErrorKind, message: impl Into<Cow<'static, str>>) -> Self {
        ToolError(Box::new(Inner {
            kind,
            message: message.into(),
            signature: None,
            suggestion: None,
            problems: Vec::new(),
            fields: Map::new(),
        }))
    }

    /// A `validation_error`.
    pub fn validation(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ErrorKind::ValidationError, message)
    }

    /// A `user_error`.
    pub fn user(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ErrorKind::UserError, message)
    }

    /// A `system_error`.
    pub fn system(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ErrorKind::SystemError, message)
    }

    /// A `permission_error`.
    pub fn permission(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ErrorKind::PermissionError, message)
    }

    /// A `security_error`.
    pub fn security(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ErrorKind::SecurityError, message)
    }

    /// A `not_found` error.
    pub fn not_found(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ErrorKind::NotFound, message)
    }

    /// The runtime's answer to a call cancelled by its host (or its session).
    pub(crate) fn cancelled() -> Self {
        ToolError::new(ErrorKind::Cancelled, "the call was cancelled")
    }

    /// The answer to a call that a stopping server ended, or refused once it began to stop:
    /// a `cancelled` error with `"retryable": true`, which says to call again.
    pub fn server_stopping() -> Self {
        ToolError::new(
            ErrorKind::Cancelled,
            "the server is stopping, so the call was ended before it finished (or not begun); \
             call again",
        )
        .with_field("retryable", true)
        .with_suggestion(
            "Call again once the server is back (or on another replica); for a call that \
             writes, check first whether its change was made.",
        )
    }

    /// The runtime's end of a call whose caller dropped it after it began.
    pub(crate) fn abandoned() -> Self {
        ToolError::new(
            ErrorKind::Cancelled,
            "the call was abandoned before it finished",
        )
    }

    /// The runtime's answer to a call past its deadline of `timeout`.
    pub(crate) fn timed_out(timeout: std::time::Duration) -> Self {
        let took = if timeout.as_millis() < 1000 {
            format!("{} ms", timeout.as_millis())
        } else if timeout.subsec_millis() == 0 {
            format!("{} s", timeout.as_secs())
        } else {
            format!("{:.1} s", timeout.as_secs_f64())
        };
        ToolError::new(
            ErrorKind::Timeout,
            format!("the call did not finish within {took}"),
        )
        .with_suggestion("Try a smaller request, or raise the tool's timeout if it allows one.")
    }

    /// The runtime's answer to a call whose tool panicked.
    pub(crate) fn panicked() -> Self {
        ToolError::system("the tool panicked; this is a bug in the tool, not in the call")
    }

    /// The kind.
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    /// The message without the call signature.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// The call signature the message is prefixed with, once the runtime set it.
    pub fn signature(&self) -> Option<&str> {
        self.0.signature.as_deref()
    }

    /// The suggestion, if any.
    pub fn suggestion(&self) -> Option<&str> {
        self.0.suggestion.as_deref()
    }

    /// The individual problems of a validation error.
    pub fn problems(&self) -> &[Problem] {
        &self.0.problems
    }

    /// Extra fields of the JSON form (`allowed_actions`, `query_or_url`, ...).
    pub fn fields(&self) -> &Map<String, Value> {
        &self.0.fields
    }

    /// Adds a suggestion (what to try instead).
    pub fn with_suggestion(mut self, s: impl Into<String>) -> Self {
        self.0.suggestion = Some(s.into());
        self
    }

    /// Adds a field to the JSON form. `type`, `error_type`, `error`, `suggestion` and
    /// `problems` are reserved and ignored here.
    pub fn with_field(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        let key = key.into();
        if !matches!(
            key.as_str(),
            "type" | "error_type" | "error" | "suggestion" | "problems"
        ) {
            self.0.fields.insert(key, value.into());
        }
        self
    }

    /// Adds problems.
    pub fn with_problems(mut self, problems: Vec<Problem>) -> Self {
        self.0.problems.extend(problems);
        self
    }

    /// Sets the call signature (`web(action="crawl")`) the message is prefixed with. The
    /// runtime does this for every error it returns; a signature already set is kept.
    pub fn with_signature(mut self, signature: impl Into<String>) -> Self {
        if self.0.signature.is_none() {
            self.0.signature = Some(signature.into());
        }
        self
    }

    /// The full message: `signature: message`.
    pub fn full_message(&self) -> String {
        match &self.0.signature {
            Some(sig) => format!("{sig}: {}", self.0.message),
            None => self.0.message.to_string(),
        }
    }

    /// The JSON form the model reads, with `type: "error"`.
    pub fn to_json(&self) -> Value {
        let mut map = Map::new();
        map.insert("type".into(), "error".into());
        map.insert("error_type".into(), self.0.kind.as_str().into());
        map.insert("error".into(), self.full_message().into());
        for (k, v) in &self.0.fields {
            map.insert(k.clone(), v.clone());
        }
        if !self.0.problems.is_empty() {
            map.insert(
                "problems".into(),
                serde_json::to_value(&self.0.problems).unwrap_or(Value::Null),
            );
        }
        if let Some(s) = &self.0.suggestion {
            map.insert("suggestion".into(), s.clone().into());
        }
        Value::Object(map)
    }

    /// Reads an error back from its JSON form (for hosts that store results).
    pub fn from_json(value: &Value) -> Option<ToolError> {
        let obj = value.as_object()?;
        if obj.get("type")?.as_str()? != "error" {
            return None;
        }
        let kind: ErrorKind = serde_json::from_value(obj.get("error_type")?.clone()).ok()?;
        let mut err = ToolError::new(kind, obj.get("error")?.as_str()?.to_owned());
        if let Some(s) = obj.get("suggestion").and_then(Value::as_str) {
            err.0.suggestion = Some(s.to_owned());
        }
        if let Some(p) = obj.get("problems") {
            err.0.problems = serde_json::from_value(p.clone()).unwrap_or_default();
        }
        for (k, v) in obj {
            err = err.with_field(k.clone(), v.clone());
        }
        Some(err)
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.0.kind, self.full_message())
    }
}

impl std::error::Error for ToolError {}

impl Serialize for ToolError {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

/// A tool's spec breaks a rule: found when the tool is registered.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SpecError {
    /// A tool, alias or action name breaks the naming rule.
    InvalidName {
        /// The name as given.
        name: String,
        /// Why it is refused.
        reason: String,
    },
    /// A mode, permission or similar closed-set value is not one of the known values.
    UnknownValue {
        /// What was being parsed (`"mode"`, `"permission"`).
        what: &'static str,
        /// The value given.
        value: String,
        /// The accepted values.
        allowed: Vec<&'static str>,
    },
    /// The spec contradicts itself.
    Invalid {
        /// The tool.
        tool: String,
        /// What is wrong.
        reason: String,
    },
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpecError::InvalidName { name, reason } => {
                write!(f, "invalid tool name {name:?}: {reason}")
            }
            SpecError::UnknownValue {
                what,
                value,
                allowed,
            } => write!(
                f,
                "unknown {what} {value:?}; expected one of: {}",
                allowed.join(", ")
            ),
            SpecError::Invalid { tool, reason } => write!(f, "tool `{tool}`: {reason}"),
        }
    }
}

impl std::error::Error for SpecError {}

/// Building a [`crate::Registry`] failed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RegistryError {
    /// Two tools (or a tool and an alias) claim the same name.
    Duplicate {
        /// The contested name.
        name: String,
        /// Where the first claim was registered (`file:line` or a description).
        first: String,
        /// Where the second claim was registered.
        second: String,
    },
    /// A tool's spec breaks a rule.
    Spec {
        /// Where the tool was registered.
        location: String,
        /// The rule it breaks.
        error: SpecError,
    },
    /// A description was given for a tool the registry does not hold
    /// ([`RegistryBuilder::describe`](crate::RegistryBuilder::describe)).
    NotFound {
        /// The name given.
        name: String,
        /// The tools there are.
        tools: Vec<String>,
    },
    /// A tool's input schema could not be compiled for validation.
    Schema {
        /// The tool.
        tool: String,
        /// The compiler's message.
        message: String,
    },
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegistryError::Duplicate {
                name,
                first,
                second,
            } => write!(
                f,
                "tool name `{name}` is registered twice: at {first} and at {second}; rename one \
                 of them or drop the alias"
            ),
            RegistryError::Spec { location, error } => {
                write!(f, "{error} (registered at {location})")
            }
            RegistryError::Schema { tool, message } => {
                write!(
                    f,
                    "tool `{tool}`: its input schema does not compile: {message}"
                )
            }
            RegistryError::NotFound { name, tools } => write!(
                f,
                "a description was given for `{name}`, which is no tool here; tools: {}",
                tools.join(", ")
            ),
        }
    }
}

impl std::error::Error for RegistryError {}
