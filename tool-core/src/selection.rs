//! Tool selections: [`ToolSelection`] and [`SelectedTools`].

use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::registry::Registry;
use crate::spec::ToolSpec;
use crate::validate::nearest;

/// The most names one [`ToolSelection`] may hold (toolsets, tools and exclusions together).
pub const MAX_SELECTION_NAMES: usize = 4096;

/// A choice of tools by toolset, name or alias, with exclusions; unresolved until
/// [`resolve`](Self::resolve) checks it against a registry into [`SelectedTools`].
/// `Default` (and [`all`](Self::all)) selects every tool.
///
/// A host picks the tools an agent needs rather than offering every tool it has: each tool
/// definition costs the model tokens on every request, and a tool the agent should not use
/// is better refused than merely hidden. So a selection does both: a session configured with
/// one ([`SessionConfig::tools`](field@crate::SessionConfig::tools)) lists only the selected tools
/// (`tools/list` over MCP, [`Session::offered`](crate::Session::offered)), and its runtime
/// refuses a call of any other tool with a `permission_error` naming the tools it does offer.
///
/// The rules of [`ToolSelection::resolve`]:
///
/// - With no toolset and no tool named, the selection starts from every tool of the registry;
///   otherwise from the tools of the named toolsets plus the named tools.
/// - The excluded tools are then removed. Exclusion wins over inclusion.
/// - A name may be a tool's name or one of its aliases (`read` for `read_file`); either way
///   the tool itself is selected or excluded.
/// - A name no tool answers to, or a toolset no tool belongs to, is an error listing every
///   such mistake at once, with the valid names and the nearest one.
///
/// Two selections combine with [`SelectedTools::intersection`]: a command line's flags and
/// the configured agent's enabled tools, or (later) a principal's toolsets and an agent's.
///
/// ```
/// use tool_core::{Registry, ToolSelection, ToolSpec, Tool, ToolContext, ToolError, NoArgs, Render};
///
/// # #[derive(serde::Serialize, schemars::JsonSchema)] struct Done { ok: bool }
/// # impl Render for Done {}
/// # struct T(&'static str, &'static str, &'static str);
/// # impl Tool for T {
/// #     type Input = NoArgs; type Output = Done;
/// #     fn spec(&self) -> ToolSpec { ToolSpec::new(self.0, "A tool.").toolset(self.1).alias(self.2) }
/// #     async fn call(&self, _: &ToolContext, _: NoArgs) -> Result<Done, ToolError> { Ok(Done { ok: true }) }
/// # }
/// let registry = Registry::builder()
///     .register(T("read_file", "file", "read"))
///     .register(T("delete_file", "file", "rm"))
///     .register(T("bash", "shell", "sh"))
///     .build()?;
///
/// let selected = ToolSelection::all().toolset("file").exclude("rm").resolve(&registry)?;
/// assert_eq!(selected.names().collect::<Vec<_>>(), ["read_file"]);
///
/// let err = ToolSelection::all().tool("raed_file").resolve(&registry).unwrap_err();
/// assert_eq!(err.unknown_tools(), ["raed_file"]);
/// assert!(err.to_string().contains("did you mean `read_file`?"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ToolSelection {
    toolsets: Vec<String>,
    tools: Vec<String>,
    exclude: Vec<String>,
}

impl ToolSelection {
    /// Every tool.
    pub fn all() -> Self {
        Self::default()
    }

    /// Also selects every tool of a toolset.
    pub fn toolset(mut self, name: impl Into<String>) -> Self {
        self.toolsets.push(name.into());
        self
    }

    /// Also selects every tool of these toolsets.
    pub fn toolsets<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.toolsets.extend(names.into_iter().map(Into::into));
        self
    }

    /// Also selects a tool, by name or alias.
    pub fn tool(mut self, name: impl Into<String>) -> Self {
        self.tools.push(name.into());
        self
    }

    /// Also selects these tools, by name or alias.
    pub fn tools<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.tools.extend(names.into_iter().map(Into::into));
        self
    }

    /// Leaves a tool out, by name or alias, whatever includes it.
    pub fn exclude(mut self, name: impl Into<String>) -> Self {
        self.exclude.push(name.into());
        self
    }

    /// Leaves these tools out, by name or alias.
    pub fn excludes<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.exclude.extend(names.into_iter().map(Into::into));
        self
    }

    /// The toolsets named.
    pub fn toolset_names(&self) -> &[String] {
        &self.toolsets
    }

    /// The tools named (names or aliases, as given).
    pub fn tool_names(&self) -> &[String] {
        &self.tools
    }

    /// The tools excluded (names or aliases, as given).
    pub fn excluded_names(&self) -> &[String] {
        &self.exclude
    }

    /// Whether the selection names nothing, and so selects every tool.
    pub fn is_all(&self) -> bool {
        self.toolsets.is_empty() && self.tools.is_empty() && self.exclude.is_empty()
    }

    /// The tools of `registry` this selection chooses (see the [type docs](Self) for the
    /// rules), or every name and toolset that `registry` does not know.
    pub fn resolve(&self, registry: &Registry) -> Result<SelectedTools, SelectionError> {
        let count = self.toolsets.len() + self.tools.len() + self.exclude.len();
        if count > MAX_SELECTION_NAMES {
            return Err(SelectionError::too_many(count));
        }
        let mut err = SelectionError::default();
        let details = &mut *err.0;
        let known_toolsets = registry.toolsets();
        for t in &self.toolsets {
            if !known_toolsets.iter().any(|k| k == t) && !details.unknown_toolsets.contains(t) {
                details.unknown_toolsets.push(t.clone());
            }
        }
        let mut lookup = |name: &String| match registry.get(name) {
            Some(e) => Some(e.name().to_owned()),
            None => {
                if !details.unknown_tools.contains(name) {
                    details.unknown_tools.push(name.clone());
                }
                None
            }
        };
        let named: Vec<String> = self.tools.iter().filter_map(&mut lookup).collect();
        let excluded: Vec<String> = self.exclude.iter().filter_map(&mut lookup).collect();
        if !details.unknown_tools.is_empty() || !details.unknown_toolsets.is_empty() {
            err.fill(registry, &known_toolsets);
            return Err(err);
        }
        let everything = self.toolsets.is_empty() && self.tools.is_empty();
        let names = registry
            .iter()
            .filter(|e| {
                let spec = e.spec();
                let included = everything
                    || named.iter().any(|n| n == e.name())
                    || spec
                        .toolsets
                        .iter()
                        .any(|t| self.toolsets.iter().any(|s| s == t));
                included && !excluded.iter().any(|n| n == e.name())
            })
            .map(|e| e.name().to_owned())
            .collect();
        Ok(SelectedTools::from_set(names))
    }
}

/// A resolved [`ToolSelection`]: the canonical names of the selected tools, in name order.
/// Cheap to clone.
///
/// It holds names, not tools: hand it to a session of the runtime whose registry it was
/// resolved against ([`SessionConfig::tools`](field@crate::SessionConfig::tools)), and filter
/// listings with [`ToolFilter::selected`](crate::ToolFilter::selected).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectedTools {
    names: Arc<BTreeSet<String>>,
}

impl SelectedTools {
    fn from_set(names: BTreeSet<String>) -> Self {
        SelectedTools {
            names: Arc::new(names),
        }
    }

    /// Every tool of `registry`.
    pub fn all_of(registry: &Registry) -> Self {
        Self::from_set(registry.iter().map(|e| e.name().to_owned()).collect())
    }

    /// Whether the tool called `name` (its canonical name, not an alias) is selected.
    pub fn contains(&self, name: &str) -> bool {
        self.names.contains(name)
    }

    /// Whether `spec`'s tool is selected.
    pub fn matches(&self, spec: &ToolSpec) -> bool {
        self.contains(&spec.name)
    }

    /// The selected tools' names, in name order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.names.iter().map(String::as_str)
    }

    /// How many tools are selected.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether no tool is selected.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The tools both selections choose: a host's selection narrowed by an agent's, say.
    pub fn intersection(&self, other: &SelectedTools) -> SelectedTools {
        Self::from_set(self.names.intersection(&other.names).cloned().collect())
    }
}

impl fmt::Display for SelectedTools {
    /// The names, comma-separated, or `(none)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.names.is_empty() {
            return f.write_str("(none)");
        }
        for (i, n) in self.names.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(n)?;
        }
        Ok(())
    }
}

/// Why a [`ToolSelection`] does not resolve: every unknown tool and toolset at once, with
/// what is valid.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SelectionError(Box<Details>);

/// What a [`SelectionError`] holds (boxed: an error is rare, a `Result` common).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Details {
    unknown_tools: Vec<String>,
    unknown_toolsets: Vec<String>,
    /// `(unknown, nearest)` for each unknown tool that has a near name.
    near_tools: Vec<(String, String)>,
    valid_tools: Vec<String>,
    valid_toolsets: Vec<String>,
    too_many: Option<usize>,
}

impl SelectionError {
    fn too_many(count: usize) -> Self {
        SelectionError(Box::new(Details {
            too_many: Some(count),
            ..Details::default()
        }))
    }

    /// Adds what is valid and the nearest names.
    fn fill(&mut self, registry: &Registry, toolsets: &[String]) {
        let d = &mut *self.0;
        d.valid_tools = registry.iter().map(|e| e.name().to_owned()).collect();
        d.valid_toolsets = toolsets.to_vec();
        let aliases: Vec<&str> = registry
            .iter()
            .flat_map(|e| e.spec().aliases.iter().map(|a| a.as_ref()))
            .collect();
        for name in &d.unknown_tools {
            let candidates = d
                .valid_tools
                .iter()
                .map(String::as_str)
                .chain(aliases.iter().copied());
            if let Some(n) = nearest(name, candidates) {
                let tool = registry.get(n).map_or(n, |e| e.name());
                d.near_tools.push((name.clone(), tool.to_owned()));
            }
        }
    }

    /// The tool names (or aliases) no tool answers to, as given.
    pub fn unknown_tools(&self) -> &[String] {
        &self.0.unknown_tools
    }

    /// The toolsets no tool belongs to, as given.
    pub fn unknown_toolsets(&self) -> &[String] {
        &self.0.unknown_toolsets
    }

    /// The names of the registry's tools.
    pub fn valid_tools(&self) -> &[String] {
        &self.0.valid_tools
    }

    /// The registry's toolsets.
    pub fn valid_toolsets(&self) -> &[String] {
        &self.0.valid_toolsets
    }
}

impl fmt::Display for SelectionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(n) = self.0.too_many {
            return write!(
                f,
                "a tool selection names {n} tools and toolsets; the limit is {MAX_SELECTION_NAMES}"
            );
        }
        let mut parts = Vec::new();
        for name in &self.0.unknown_tools {
            let near = self.0.near_tools.iter().find(|(u, _)| u == name);
            parts.push(match near {
                Some((_, n)) => format!("no tool is called `{name}` (did you mean `{n}`?)"),
                None => format!("no tool is called `{name}`"),
            });
        }
        if !self.0.unknown_tools.is_empty() {
            parts.push(format!(
                "the tools (names or their aliases): {}",
                list(&self.0.valid_tools)
            ));
        }
        for name in &self.0.unknown_toolsets {
            parts.push(format!("no tool belongs to a toolset `{name}`"));
        }
        if !self.0.unknown_toolsets.is_empty() {
            parts.push(format!("the toolsets: {}", list(&self.0.valid_toolsets)));
        }
        f.write_str(&parts.join("; "))
    }
}

impl std::error::Error for SelectionError {}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        "(none)".to_owned()
    } else {
        names.join(", ")
    }
}
