//! The static description of a tool: [`ToolSpec`] and what it is made of.

mod action;
mod alias;
mod annotations;
mod permission;

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

pub use action::{ActionSet, ActionSpec};
pub use alias::ArgAlias;
pub use annotations::Annotations;
pub use permission::{Mode, Permission, PermissionSet};

use crate::call::{Arguments, MAX_ARGUMENTS_BYTES};
use crate::error::{SpecError, ToolError};

/// The longest tool name providers accept (OpenAI, Anthropic and Gemini agree on 64).
pub const MAX_NAME_LEN: usize = 64;

/// Checks a tool, alias or action name: 1 to 64 characters of `[A-Za-z0-9_-]`.
///
/// ```
/// assert!(tool_core::validate_name("read_file").is_ok());
/// assert!(tool_core::validate_name("read file").is_err());
/// assert!(tool_core::validate_name("").is_err());
/// ```
pub fn validate_name(name: &str) -> Result<(), SpecError> {
    if name.is_empty() {
        return Err(SpecError::InvalidName {
            name: name.to_owned(),
            reason: "it is empty; use 1 to 64 characters of [A-Za-z0-9_-]".to_owned(),
        });
    }
    // The character rule first: a name of 40 `é` is refused for its characters, not for its
    // 80 bytes, and once every character is ASCII, bytes and characters agree.
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
    {
        return Err(SpecError::InvalidName {
            name: name.to_owned(),
            reason: format!("{bad:?} is not allowed; use only [A-Za-z0-9_-]"),
        });
    }
    if name.len() > MAX_NAME_LEN {
        return Err(SpecError::InvalidName {
            name: name.to_owned(),
            reason: format!(
                "it is {} characters long; the limit is {MAX_NAME_LEN}",
                name.len()
            ),
        });
    }
    Ok(())
}

/// Everything static about a tool: identity, description, schemas, where it may run and what
/// it may do.
///
/// Build one with [`ToolSpec::new`] and the builder methods; the registry checks it (name
/// rules, alias clashes) when the tool is registered.
///
/// ```
/// use tool_core::{Mode, Permission, ToolSpec};
/// let spec = ToolSpec::new("grep", "Search file contents with a regular expression.")
///     .modes([Mode::Agent, Mode::Mcp])
///     .permission(Permission::ReadFiles)
///     .category("search");
/// assert!(spec.supports_mode(Mode::Agent));
/// assert!(!spec.supports_mode(Mode::Cli));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolSpec {
    /// Unique name, 1 to 64 characters of `[A-Za-z0-9_-]`.
    pub name: Cow<'static, str>,
    /// A human title (MCP's `title`); defaults to none.
    pub title: Option<Cow<'static, str>>,
    /// What the tool does, for the model.
    pub description: Cow<'static, str>,
    /// The canonical input schema (JSON Schema draft 2020-12, root an object).
    pub input_schema: Arc<Value>,
    /// The output schema, when the output type has one (never for a
    /// [`text_output`](field@ToolSpec::text_output) tool).
    pub output_schema: Option<Arc<Value>>,
    /// Whether the tool's result is text by nature (a command's output, say): it declares no
    /// output schema, and its results carry the text alone, with no structured content
    /// (MCP's `structuredContent`), so a host that forwards only the structured content of
    /// a result sends the model the text instead. Programs in the same process still get
    /// the typed output ([`CallOutcome::result`](crate::CallOutcome::result), the activity
    /// record, `toolsmith call`'s JSON). Default `false`; `#[tool(text_output)]` sets it.
    pub text_output: bool,
    /// Modes the tool is offered in; empty means every mode.
    pub modes: Vec<Mode>,
    /// Permissions every call needs.
    pub permissions: PermissionSet,
    /// Whether every call goes through the approval gate.
    pub requires_approval: bool,
    /// A grouping for prompts and filters, e.g. `"search"`, `"file_reading"`.
    pub category: Option<Cow<'static, str>>,
    /// Named sets the tool belongs to (seed 002's toolsets).
    pub toolsets: Vec<Cow<'static, str>>,
    /// Older names that still resolve to this tool.
    pub aliases: Vec<Cow<'static, str>>,
    /// Whether a UI shows this tool's activity to the user.
    pub user_facing: bool,
    /// Other names a call may give a parameter under: the names models are trained on
    /// (`file_path` for `paths`); see [`ArgAlias`].
    pub arg_aliases: Vec<ArgAlias>,
    /// Whether a UI shows a call of this tool without a running animation (seed 004's
    /// `suppressExecutionAnimation`): for a tool that answers at once, whose spinner would
    /// only flicker. Default `false`.
    pub suppress_execution_animation: bool,
    /// Behaviour hints.
    pub annotations: Annotations,
    /// The default deadline of one call; the runtime's default when `None`.
    pub timeout: Option<Duration>,
    /// The actions, for a polymorphic tool.
    pub actions: Option<ActionSet>,
    /// Whether providers that search tools load this one's definition only when a search
    /// finds it (Anthropic's and OpenAI Responses' `defer_loading`; see
    /// [`provider::ExportOptions`](crate::provider::ExportOptions)). Default `false`.
    pub defer_loading: bool,
    /// The OpenAI Responses namespace the tool is grouped in (`{"type": "namespace"}`);
    /// `None` leaves it at the top level unless the export options group it. Same name rule
    /// as a tool's.
    pub namespace: Option<Cow<'static, str>>,
    /// Top-level parameters whose given values are echoed into every error of this tool:
    /// validation, permission and approval errors the runtime answers with before the tool
    /// runs, and the errors the tool returns, unless the error already has that field. Seed
    /// 000's `web` answers every error with its `query_or_url` this way.
    pub error_context: Vec<Cow<'static, str>>,
}

impl ToolSpec {
    /// A spec with a name, a description and an empty object schema, offered in every mode.
    pub fn new(
        name: impl Into<Cow<'static, str>>,
        description: impl Into<Cow<'static, str>>,
    ) -> Self {
        ToolSpec {
            name: name.into(),
            title: None,
            description: description.into(),
            input_schema: Arc::new(serde_json::json!({"type": "object", "properties": {}})),
            output_schema: None,
            text_output: false,
            modes: Vec::new(),
            permissions: PermissionSet::EMPTY,
            requires_approval: false,
            category: None,
            toolsets: Vec::new(),
            aliases: Vec::new(),
            user_facing: true,
            arg_aliases: Vec::new(),
            suppress_execution_animation: false,
            annotations: Annotations::new(),
            timeout: None,
            actions: None,
            error_context: Vec::new(),
            defer_loading: false,
            namespace: None,
        }
    }

    /// Sets the input schema from a Rust type (see [`crate::schema::input_schema_for`]).
    pub fn input<T: schemars::JsonSchema>(mut self) -> Self {
        self.input_schema = Arc::new(crate::schema::input_schema_for::<T>());
        self
    }

    /// Sets the output schema from a Rust type.
    pub fn output<T: schemars::JsonSchema>(mut self) -> Self {
        self.output_schema = Some(Arc::new(crate::schema::output_schema_for::<T>()));
        self
    }

    /// Sets the input schema from a JSON value.
    pub fn input_schema(mut self, schema: Value) -> Self {
        self.input_schema = Arc::new(schema);
        self
    }

    /// Sets the title.
    pub fn title(mut self, title: impl Into<Cow<'static, str>>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the modes the tool is offered in.
    pub fn modes(mut self, modes: impl IntoIterator<Item = Mode>) -> Self {
        self.modes = modes.into_iter().collect();
        self
    }

    /// Adds a permission every call needs.
    pub fn permission(mut self, p: Permission) -> Self {
        self.permissions.insert(p);
        self
    }

    /// Marks every call as needing approval.
    pub fn requires_approval(mut self, v: bool) -> Self {
        self.requires_approval = v;
        self
    }

    /// Sets the category.
    pub fn category(mut self, c: impl Into<Cow<'static, str>>) -> Self {
        self.category = Some(c.into());
        self
    }

    /// Adds a toolset.
    pub fn toolset(mut self, t: impl Into<Cow<'static, str>>) -> Self {
        self.toolsets.push(t.into());
        self
    }

    /// Adds an alias (an old name that still resolves).
    pub fn alias(mut self, a: impl Into<Cow<'static, str>>) -> Self {
        self.aliases.push(a.into());
        self
    }

    /// Sets whether a UI shows the tool's activity.
    pub fn user_facing(mut self, v: bool) -> Self {
        self.user_facing = v;
        self
    }

    /// Adds `alias` as another name of the parameter `parameter` (see [`ArgAlias`]).
    pub fn arg_alias(
        mut self,
        alias: impl Into<Cow<'static, str>>,
        parameter: impl Into<Cow<'static, str>>,
    ) -> Self {
        self.arg_aliases.push(ArgAlias::new(alias, parameter));
        self
    }

    /// Adds `alias` as the opposite of the boolean parameter `parameter`
    /// ([`ArgAlias::negated`]: `-i` for `case_sensitive`).
    pub fn negated_arg_alias(
        mut self,
        alias: impl Into<Cow<'static, str>>,
        parameter: impl Into<Cow<'static, str>>,
    ) -> Self {
        self.arg_aliases.push(ArgAlias::negated(alias, parameter));
        self
    }

    /// Sets whether a UI shows a call without a running animation
    /// ([`suppress_execution_animation`](field@Self::suppress_execution_animation)).
    pub fn suppress_execution_animation(mut self, v: bool) -> Self {
        self.suppress_execution_animation = v;
        self
    }

    /// Sets the annotations.
    pub fn annotations(mut self, a: Annotations) -> Self {
        self.annotations = a;
        self
    }

    /// Sets the default deadline of one call.
    pub fn timeout(mut self, d: Duration) -> Self {
        self.timeout = Some(d);
        self
    }

    /// Sets whether providers that search tools load this one only when a search finds it
    /// (see the field [`defer_loading`](field@ToolSpec::defer_loading)).
    pub fn defer_loading(mut self, v: bool) -> Self {
        self.defer_loading = v;
        self
    }

    /// Sets whether the tool's result is text alone: no output schema, no structured
    /// content (see the field [`text_output`](field@ToolSpec::text_output)).
    ///
    /// ```
    /// use tool_core::ToolSpec;
    /// let spec = ToolSpec::new("bash", "Run a shell command.").text_output(true);
    /// assert!(spec.text_output && spec.output_schema.is_none());
    /// assert!(spec.check().is_ok());
    /// assert!(spec.output::<serde_json::Value>().check().is_err());
    /// ```
    pub fn text_output(mut self, v: bool) -> Self {
        self.text_output = v;
        self
    }

    /// Groups the tool in an OpenAI Responses namespace (see the field
    /// [`namespace`](field@ToolSpec::namespace)).
    pub fn namespace(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.namespace = Some(name.into());
        self
    }

    /// Declares the tool polymorphic with these actions.
    pub fn actions(mut self, set: ActionSet) -> Self {
        self.actions = Some(set);
        self
    }

    /// Echoes a parameter's given value into every error of the tool (see the field
    /// [`error_context`](field@ToolSpec::error_context)); registration checks that the input
    /// schema has that parameter.
    ///
    /// ```
    /// use tool_core::ToolSpec;
    /// let spec = ToolSpec::new("web", "Search the web or fetch a page.")
    ///     .input_schema(serde_json::json!({
    ///         "type": "object",
    ///         "properties": {"query_or_url": {"type": "string"}}
    ///     }))
    ///     .error_context("query_or_url");
    /// assert_eq!(spec.error_context, ["query_or_url"]);
    /// assert!(spec.check().is_ok());
    /// assert!(ToolSpec::new("web", "No parameters.").error_context("query").check().is_err());
    /// ```
    pub fn error_context(mut self, param: impl Into<Cow<'static, str>>) -> Self {
        self.error_context.push(param.into());
        self
    }

    /// The action a call's arguments choose, for a polymorphic tool, with the arguments as
    /// the tool reads them: parsed once here (unless over the size limit, which validation
    /// refuses unread), for the action decides permissions and approval. A plain tool keeps
    /// the text for the fast decode.
    pub(crate) fn action_of(
        &self,
        args: &Arc<Arguments>,
    ) -> Result<(Arc<Arguments>, Option<String>), ToolError> {
        if self.actions.is_none() && self.arg_aliases.is_empty() {
            return Ok((args.clone(), None));
        }
        let mut arguments = args.clone();
        if let Arguments::Text(t) = &**args
            && t.len() <= MAX_ARGUMENTS_BYTES
            && let Ok(v) = serde_json::from_str::<Value>(if t.trim().is_empty() { "{}" } else { t })
        {
            arguments = Arc::new(Arguments::Value(v));
        }
        if let Arguments::Value(Value::Object(map)) = &*arguments
            && let Some(map) = alias::apply(&self.input_schema, &self.arg_aliases, map)?
        {
            arguments = Arc::new(Arguments::Value(Value::Object(map)));
        }
        let Some(set) = &self.actions else {
            return Ok((arguments, None));
        };
        let action = match &*arguments {
            Arguments::Value(v) => (v.get(set.field.as_ref()).and_then(Value::as_str))
                .filter(|a| set.get(a).is_some())
                .map(str::to_owned),
            Arguments::Text(_) => None,
        };
        Ok((arguments, action))
    }

    /// Echoes the given values of the [`error_context`](field@ToolSpec::error_context)
    /// parameters into an error, each unless the error already has that field (a tool's own
    /// value wins) or the call did not give it.
    pub(crate) fn with_error_context(&self, err: ToolError, args: &Arguments) -> ToolError {
        if self.error_context.is_empty() {
            return err;
        }
        let parsed;
        let value = match args {
            Arguments::Value(v) => v,
            Arguments::Text(t) if t.len() <= MAX_ARGUMENTS_BYTES => {
                match serde_json::from_str::<Value>(t) {
                    Ok(v) => {
                        parsed = v;
                        &parsed
                    }
                    Err(_) => return err,
                }
            }
            Arguments::Text(_) => return err,
        };
        let mut err = err;
        for name in &self.error_context {
            if err.fields().contains_key(name.as_ref()) {
                continue;
            }
            if let Some(given) = value.get(name.as_ref()).filter(|v| !v.is_null()) {
                err = err.with_field(name.as_ref(), given.clone());
            }
        }
        err
    }

    /// Whether the tool is offered in `mode`.
    pub fn supports_mode(&self, mode: Mode) -> bool {
        self.modes.is_empty() || self.modes.contains(&mode)
    }

    /// The permissions a call needs: the tool's plus the chosen action's.
    pub fn required_permissions(&self, action: Option<&str>) -> PermissionSet {
        let mut set = self.permissions;
        if let (Some(actions), Some(name)) = (&self.actions, action)
            && let Some(a) = actions.get(name)
        {
            for p in a.permissions.iter() {
                set.insert(p);
            }
        }
        set
    }

    /// Whether a call needs approval: the tool's flag or the chosen action's.
    pub fn needs_approval(&self, action: Option<&str>) -> bool {
        self.requires_approval
            || match (&self.actions, action) {
                (Some(actions), Some(name)) => {
                    actions.get(name).is_some_and(|a| a.requires_approval)
                }
                _ => false,
            }
    }

    /// Whether a call leaves its environment unchanged: the tool is `read_only`, or the chosen
    /// action of a polymorphic tool is. The redundancy check forgets a turn's earlier answers
    /// after a call that is not.
    pub fn is_read_only(&self, action: Option<&str>) -> bool {
        self.annotations.read_only
            || match (&self.actions, action) {
                (Some(actions), Some(name)) => actions.get(name).is_some_and(|a| a.read_only),
                _ => false,
            }
    }

    /// The top-level properties of the input schema, in schema order.
    pub fn parameter_names(&self) -> Vec<&str> {
        self.input_schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|m| m.keys().map(String::as_str).collect())
            .unwrap_or_default()
    }

    /// Checks the spec's own rules: names, aliases, a root object schema, the action set,
    /// no output schema on a [`text_output`](field@ToolSpec::text_output) tool.
    pub fn check(&self) -> Result<(), SpecError> {
        validate_name(&self.name)?;
        for (i, alias) in self.aliases.iter().enumerate() {
            validate_name(alias)?;
            if alias == &self.name {
                return Err(SpecError::Invalid {
                    tool: self.name.to_string(),
                    reason: format!("alias `{alias}` is the tool's own name"),
                });
            }
            if self.aliases[..i].contains(alias) {
                return Err(SpecError::Invalid {
                    tool: self.name.to_string(),
                    reason: format!("alias `{alias}` is listed twice"),
                });
            }
        }
        alias::check(&self.name, &self.input_schema, &self.arg_aliases)?;
        if self.input_schema.get("type").and_then(Value::as_str) != Some("object") {
            return Err(SpecError::Invalid {
                tool: self.name.to_string(),
                reason: "the input schema's root must be `{\"type\": \"object\"}`".to_owned(),
            });
        }
        if let Some(ns) = &self.namespace
            && let Err(SpecError::InvalidName { reason, .. }) = validate_name(ns)
        {
            return Err(SpecError::Invalid {
                tool: self.name.to_string(),
                reason: format!("namespace `{ns}`: {reason}"),
            });
        }
        if self.text_output && self.output_schema.is_some() {
            return Err(SpecError::Invalid {
                tool: self.name.to_string(),
                reason: "a text_output tool declares no output schema; drop the output schema or text_output".to_owned(),
            });
        }
        if self.annotations.read_only && self.annotations.destructive {
            return Err(SpecError::Invalid {
                tool: self.name.to_string(),
                reason: "a tool cannot be both read_only and destructive".to_owned(),
            });
        }
        // An `error_context` name echoes a parameter: one the schema does not have is a typo
        // that would echo nothing, ever.
        let params = self.parameter_names();
        for (i, name) in self.error_context.iter().enumerate() {
            if !params.contains(&name.as_ref()) {
                return Err(SpecError::Invalid {
                    tool: self.name.to_string(),
                    reason: format!(
                        "error_context names `{name}`, which is not a parameter of the tool; \
                         its parameters are: {}",
                        if params.is_empty() {
                            "(none)".to_owned()
                        } else {
                            params.join(", ")
                        }
                    ),
                });
            }
            if self.error_context[..i].contains(name) {
                return Err(SpecError::Invalid {
                    tool: self.name.to_string(),
                    reason: format!("error_context lists `{name}` twice"),
                });
            }
        }
        if let Some(actions) = &self.actions {
            if actions.actions.is_empty() {
                return Err(SpecError::Invalid {
                    tool: self.name.to_string(),
                    reason: "a polymorphic tool needs at least one action".to_owned(),
                });
            }
            let mut seen = std::collections::HashSet::new();
            for a in &actions.actions {
                // Action names are values a model writes, under the same rule as tool names.
                validate_name(&a.name)?;
                if !seen.insert(a.name.as_ref()) {
                    return Err(SpecError::Invalid {
                        tool: self.name.to_string(),
                        reason: format!("action `{}` is declared twice", a.name),
                    });
                }
            }
        }
        Ok(())
    }
}
