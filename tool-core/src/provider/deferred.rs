//! Deferred loading and namespaces: [`ExportOptions`] and the lists it shapes.

use serde_json::Value;

use super::error::ExportError;
use super::{Format, anthropic, object, openai};
use crate::spec::ToolSpec;

/// Which tool search tool an export adds to its list when it defers a tool.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolSearch {
    /// The provider's own: Anthropic's regex variant, OpenAI's `tool_search` (the default).
    #[default]
    Regex,
    /// Anthropic's BM25 variant (natural-language queries); OpenAI's `tool_search` otherwise.
    Bm25,
    /// None: the host adds its own (a client-side search answering with tool references).
    None,
}

/// Anthropic's regex tool search tool: `(type, name)`.
pub const ANTHROPIC_TOOL_SEARCH_REGEX: (&str, &str) =
    ("tool_search_tool_regex_20251119", "tool_search_tool_regex");
/// Anthropic's BM25 tool search tool: `(type, name)`.
pub const ANTHROPIC_TOOL_SEARCH_BM25: (&str, &str) =
    ("tool_search_tool_bm25_20251119", "tool_search_tool_bm25");

/// How [`export_all_with`](super::export_all_with) defers and groups tools, on top of what
/// each spec says. `Default` changes nothing a spec does not ask for.
///
/// Deferred loading and namespaces: the providers' tool search, so that a model sees a tool's
/// whole definition only once it looks for it.
///
/// - **Anthropic** (Messages API, tool search tool): a tool entry with `"defer_loading":
///   true` stays out of the model's context until the tool search tool returns a reference
///   to it. The tools list carries a tool search tool, `{"type":
///   "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"}` or the BM25
///   variant, which is never deferred itself.
/// - **OpenAI Responses** (`tool_search`): a function tool with `"defer_loading": true` is
///   searchable rather than loaded; functions may be grouped in a namespace, `{"type":
///   "namespace", "name", "description", "tools": [functions]}`, where the model first sees
///   only the namespace's name and description. The tools list carries `{"type":
///   "tool_search"}`.
///
/// A tool is deferred when its spec says so ([`ToolSpec::defer_loading`](field@ToolSpec::defer_loading),
/// `#[tool(defer_loading)]`) or these options name it, its toolset, or every tool. It
/// is grouped in its spec's namespace ([`ToolSpec::namespace`](field@ToolSpec::namespace), `#[tool(namespace =
/// "...")]`), else the one the options give it or its first toolset
/// ([`namespace_by_toolset`](field@Self::namespace_by_toolset)). The other formats have no such fields:
/// [`export_all_with`](super::export_all_with) exports them as [`export_all`](super::export_all)
/// does.
///
/// ```
/// use tool_core::ToolSpec;
/// use tool_core::provider::{ExportOptions, Format, export_all_with};
///
/// let specs = [
///     ToolSpec::new("read_file", "Read a file.").toolset("file"),
///     ToolSpec::new("grep", "Search file contents.").toolset("search"),
/// ];
/// let options = ExportOptions::new().defer_toolset("search");
/// let tools = export_all_with(&specs, Format::Anthropic, &options)?;
/// let tools = tools.as_json().unwrap();
/// assert!(tools[0].get("defer_loading").is_none());
/// assert_eq!(tools[1]["defer_loading"], true);
/// assert_eq!(tools[2]["type"], "tool_search_tool_regex_20251119");
///
/// let options = ExportOptions::new().namespace_by_toolset();
/// let tools = export_all_with(&specs, Format::OpenaiResponses, &options)?;
/// assert_eq!(tools.as_json().unwrap()[0]["type"], "namespace");
/// assert_eq!(tools.as_json().unwrap()[0]["tools"][0]["name"], "read_file");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExportOptions {
    /// Tools deferred by name, besides those whose spec says so.
    pub defer_tools: Vec<String>,
    /// Toolsets whose every tool is deferred.
    pub defer_toolsets: Vec<String>,
    /// Defers every tool.
    pub defer_all: bool,
    /// `(tool, namespace)`: the namespace of a tool whose spec gives none.
    pub namespaces: Vec<(String, String)>,
    /// Groups each tool that has no namespace otherwise in one named after its first toolset.
    pub namespace_by_toolset: bool,
    /// `(namespace, description)`: what the model reads of a namespace before it searches
    /// it. Default: "Tools of `NAME`: " and its tools' names.
    pub namespace_descriptions: Vec<(String, String)>,
    /// The tool search tool added when a tool is deferred (default [`ToolSearch::Regex`]).
    pub tool_search: ToolSearch,
    /// Anthropic's `allowed_callers` for every tool ([`allowed_callers`](Self::allowed_callers)):
    /// who may call it, the model itself ([`ANTHROPIC_CALLER_DIRECT`]) or code the model runs
    /// in the code execution tool ([`ANTHROPIC_CALLER_CODE_EXECUTION`], programmatic tool
    /// calling). Empty: the entries carry none, and the provider's default holds.
    pub allowed_callers: Vec<String>,
    /// `(tool, callers)`: a tool's own `allowed_callers`, in place of the list above.
    pub tool_callers: Vec<(String, Vec<String>)>,
}

/// Anthropic's caller for a tool the model calls itself.
pub const ANTHROPIC_CALLER_DIRECT: &str = "direct";
/// Anthropic's caller for a tool called from code the model runs in the code execution tool
/// (programmatic tool calling).
pub const ANTHROPIC_CALLER_CODE_EXECUTION: &str = "code_execution_20260120";

impl ExportOptions {
    /// Options that change nothing a spec does not ask for.
    pub fn new() -> Self {
        Self::default()
    }
    /// Defers a tool (by its name).
    pub fn defer_tool(mut self, name: impl Into<String>) -> Self {
        self.defer_tools.push(name.into());
        self
    }
    /// Defers every tool of a toolset.
    pub fn defer_toolset(mut self, name: impl Into<String>) -> Self {
        self.defer_toolsets.push(name.into());
        self
    }
    /// Defers every tool.
    pub fn defer_all(mut self) -> Self {
        self.defer_all = true;
        self
    }
    /// Puts a tool in a namespace, unless its spec names one.
    pub fn namespace(mut self, tool: impl Into<String>, namespace: impl Into<String>) -> Self {
        self.namespaces.push((tool.into(), namespace.into()));
        self
    }
    /// Groups tools by their first toolset (see the field).
    pub fn namespace_by_toolset(mut self) -> Self {
        self.namespace_by_toolset = true;
        self
    }
    /// Describes a namespace.
    pub fn namespace_description(
        mut self,
        namespace: impl Into<String>,
        description: impl Into<String>,
    ) -> Self {
        self.namespace_descriptions
            .push((namespace.into(), description.into()));
        self
    }
    /// Chooses the tool search tool added when a tool is deferred.
    pub fn tool_search(mut self, search: ToolSearch) -> Self {
        self.tool_search = search;
        self
    }
    /// Sets Anthropic's `allowed_callers` of every tool, e.g. `[ANTHROPIC_CALLER_DIRECT,
    /// ANTHROPIC_CALLER_CODE_EXECUTION]` to let code the model runs call them too.
    pub fn allowed_callers<I, S>(mut self, callers: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allowed_callers = callers.into_iter().map(Into::into).collect();
        self
    }
    /// Sets one tool's `allowed_callers`, in place of the list every tool gets.
    pub fn tool_callers<I, S>(mut self, tool: impl Into<String>, callers: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let callers = callers.into_iter().map(Into::into).collect();
        self.tool_callers.push((tool.into(), callers));
        self
    }

    /// The `allowed_callers` of `spec`'s tool: its own, else every tool's; `None` when
    /// neither is set.
    pub fn callers_of(&self, spec: &ToolSpec) -> Option<&[String]> {
        match self
            .tool_callers
            .iter()
            .rev()
            .find(|(t, _)| *t == spec.name)
        {
            Some((_, callers)) => Some(callers),
            None if !self.allowed_callers.is_empty() => Some(&self.allowed_callers),
            None => None,
        }
    }

    /// Whether `spec`'s tool is deferred: its spec or these options say so.
    pub fn defers(&self, spec: &ToolSpec) -> bool {
        spec.defer_loading
            || self.defer_all
            || self.defer_tools.iter().any(|t| *t == spec.name)
            || spec
                .toolsets
                .iter()
                .any(|t| self.defer_toolsets.iter().any(|d| d == t))
    }

    /// The namespace `spec`'s tool is grouped in, if any: its spec's, else the options'.
    pub fn namespace_of<'a>(&'a self, spec: &'a ToolSpec) -> Option<&'a str> {
        if let Some(ns) = &spec.namespace {
            return Some(ns);
        }
        if let Some((_, ns)) = self.namespaces.iter().find(|(t, _)| *t == spec.name) {
            return Some(ns);
        }
        if self.namespace_by_toolset {
            return spec.toolsets.first().map(|t| t.as_ref());
        }
        None
    }
}

/// The Anthropic list (strict tool use when `strict`): entries, `defer_loading: true` on the
/// deferred ones, `allowed_callers` where the options give them, and the tool search tool
/// when one is deferred.
pub(super) fn anthropic_list(
    specs: &[&ToolSpec],
    options: &ExportOptions,
    strict: bool,
) -> Result<Value, ExportError> {
    let entries = if strict {
        match anthropic::strict_tools(specs.iter().copied())? {
            Value::Array(entries) => entries,
            _ => Vec::new(),
        }
    } else {
        let mut entries = Vec::with_capacity(specs.len());
        for spec in specs {
            entries.push(anthropic::tool(spec)?);
        }
        entries
    };
    let mut out = Vec::with_capacity(specs.len() + 1);
    let mut deferred = false;
    for (spec, mut entry) in specs.iter().zip(entries) {
        if options.defers(spec) {
            deferred = true;
            insert(&mut entry, "defer_loading", Value::Bool(true));
        }
        if let Some(callers) = options.callers_of(spec) {
            let callers = callers.iter().map(|c| Value::String(c.clone())).collect();
            insert(&mut entry, "allowed_callers", Value::Array(callers));
        }
        out.push(entry);
    }
    let search = match options.tool_search {
        ToolSearch::Regex => Some(ANTHROPIC_TOOL_SEARCH_REGEX),
        ToolSearch::Bm25 => Some(ANTHROPIC_TOOL_SEARCH_BM25),
        ToolSearch::None => None,
    };
    if let (true, Some((kind, name))) = (deferred, search) {
        out.push(object([("type", kind.into()), ("name", name.into())]));
    }
    Ok(Value::Array(out))
}

/// The OpenAI Responses list: function tools, `defer_loading: true` on the deferred ones,
/// namespaced tools grouped where the first of them stands, and `tool_search` when one is
/// deferred.
pub(super) fn responses_list(
    specs: &[&ToolSpec],
    options: &ExportOptions,
) -> Result<Value, ExportError> {
    let mut out: Vec<Value> = Vec::with_capacity(specs.len() + 1);
    // (namespace, index in `out`) of each group made so far.
    let mut groups: Vec<(String, usize)> = Vec::new();
    let mut deferred = false;
    for spec in specs {
        let mut entry = openai::responses_tool_auto(spec)?;
        if options.defers(spec) {
            deferred = true;
            insert(&mut entry, "defer_loading", Value::Bool(true));
        }
        let Some(ns) = options.namespace_of(spec) else {
            out.push(entry);
            continue;
        };
        match groups.iter().find(|(n, _)| n == ns) {
            Some(&(_, at)) => {
                if let Some(Value::Array(tools)) = out[at].get_mut("tools") {
                    tools.push(entry);
                }
            }
            None => {
                groups.push((ns.to_owned(), out.len()));
                out.push(object([
                    ("type", "namespace".into()),
                    ("name", ns.into()),
                    ("description", Value::Null),
                    ("tools", Value::Array(vec![entry])),
                ]));
            }
        }
    }
    for (ns, at) in &groups {
        let description = match options.namespace_descriptions.iter().find(|(n, _)| n == ns) {
            Some((_, d)) => d.clone(),
            None => default_description(ns, &out[*at]),
        };
        insert(&mut out[*at], "description", Value::String(description));
    }
    if deferred && options.tool_search != ToolSearch::None {
        out.push(object([("type", "tool_search".into())]));
    }
    Ok(Value::Array(out))
}

/// "Tools of `file`: read_file, grep." from a namespace entry.
fn default_description(ns: &str, group: &Value) -> String {
    let names: Vec<&str> = group["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str())
        .collect();
    format!("Tools of `{ns}`: {}.", names.join(", "))
}

fn insert(entry: &mut Value, key: &str, value: Value) {
    if let Value::Object(m) = entry {
        m.insert(key.to_owned(), value);
    }
}

/// Whether `format` has deferred loading or namespaces.
pub(super) fn applies_to(format: Format) -> bool {
    matches!(
        format,
        Format::Anthropic | Format::AnthropicStrict | Format::OpenaiResponses
    )
}
