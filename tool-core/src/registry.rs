//! The [`Registry`]: every tool a program offers, by name and alias.
//!
//! Tools get in two ways. Explicitly, with [`RegistryBuilder::register`], which always works;
//! and by collection of every tool submitted to [`inventory`] (what `#[tool]` does unless told
//! `register = false`), with [`RegistryBuilder::with_inventory`]. Building checks every spec
//! and refuses two tools claiming one name, naming both places.

use std::collections::HashMap;
use std::panic::Location;
use std::sync::Arc;

use crate::call::{Arguments, signature_of_arguments};
use crate::error::{RegistryError, SpecError, ToolError};
use crate::selection::SelectedTools;
use crate::spec::{Mode, PermissionSet, ToolSpec};
use crate::tool::DynTool;
use crate::validate::{CompiledSchema, nearest};

/// A tool submitted for automatic registration. `#[tool]` emits one per tool; write one by
/// hand with [`inventory::submit!`] through [`crate::submit_tool!`].
#[derive(Debug)]
pub struct Registration {
    /// Makes the tool.
    pub constructor: fn() -> Arc<dyn DynTool>,
    /// Where it was declared, `file:line`.
    pub location: &'static str,
}

inventory::collect!(Registration);

/// A registered tool: the tool, its checked spec and its compiled schema.
pub struct ToolEntry {
    tool: Arc<dyn DynTool>,
    spec: Arc<ToolSpec>,
    /// The name, shared with every call's context.
    name: Arc<str>,
    schema: CompiledSchema,
    location: String,
}

impl std::fmt::Debug for ToolEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolEntry")
            .field("name", &self.spec.name)
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

impl ToolEntry {
    /// The tool.
    pub fn tool(&self) -> &Arc<dyn DynTool> {
        &self.tool
    }
    /// The name, shared (every call's [`ToolContext`](crate::ToolContext) holds it).
    pub(crate) fn shared_name(&self) -> &Arc<str> {
        &self.name
    }
    /// The spec (schemas computed once, at registration).
    pub fn spec(&self) -> &Arc<ToolSpec> {
        &self.spec
    }
    /// The compiled input schema.
    pub fn schema(&self) -> &CompiledSchema {
        &self.schema
    }
    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.spec.name
    }
    /// Where it was registered.
    pub fn location(&self) -> &str {
        &self.location
    }
}

/// Which tools to list; every field left `None` matches all.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ToolFilter {
    /// Only tools offered in this mode.
    pub mode: Option<Mode>,
    /// Only tools in this toolset.
    pub toolset: Option<String>,
    /// Only tools in this category.
    pub category: Option<String>,
    /// Only tools whose tool-level permissions this set grants (a role's view, seed 003).
    pub permissions: Option<PermissionSet>,
    /// Only the tools of a resolved [`ToolSelection`](crate::ToolSelection).
    pub selected: Option<SelectedTools>,
}

impl ToolFilter {
    /// Matches every tool.
    pub fn all() -> Self {
        Self::default()
    }
    /// Restricts to a mode.
    pub fn mode(mut self, m: Mode) -> Self {
        self.mode = Some(m);
        self
    }
    /// Restricts to a toolset.
    pub fn toolset(mut self, t: impl Into<String>) -> Self {
        self.toolset = Some(t.into());
        self
    }
    /// Restricts to a category.
    pub fn category(mut self, c: impl Into<String>) -> Self {
        self.category = Some(c.into());
        self
    }
    /// Restricts to tools a role with these permissions may call.
    pub fn permissions(mut self, p: PermissionSet) -> Self {
        self.permissions = Some(p);
        self
    }

    /// Restricts to the tools of a resolved [`ToolSelection`](crate::ToolSelection).
    pub fn selected(mut self, s: SelectedTools) -> Self {
        self.selected = Some(s);
        self
    }

    /// Whether a spec passes the filter.
    pub fn matches(&self, spec: &ToolSpec) -> bool {
        self.selected.as_ref().is_none_or(|s| s.matches(spec))
            && self.mode.is_none_or(|m| spec.supports_mode(m))
            && self
                .toolset
                .as_deref()
                .is_none_or(|t| spec.toolsets.iter().any(|s| s == t))
            && self
                .category
                .as_deref()
                .is_none_or(|c| spec.category.as_deref() == Some(c))
            && self
                .permissions
                .is_none_or(|p| p.contains_all(&spec.permissions))
    }
}

/// Collects tools and builds a [`Registry`].
#[derive(Default)]
pub struct RegistryBuilder {
    tools: Vec<(Arc<dyn DynTool>, String)>,
    inventory: bool,
    /// Descriptions that replace tools' own, by name or alias.
    descriptions: Vec<(String, String)>,
}

impl std::fmt::Debug for RegistryBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegistryBuilder")
            .field("tools", &self.tools.len())
            .field("inventory", &self.inventory)
            .finish()
    }
}

impl RegistryBuilder {
    /// Adds a tool.
    #[track_caller]
    pub fn register<T: DynTool>(self, tool: T) -> Self {
        self.register_arc(Arc::new(tool))
    }

    /// Adds a shared tool.
    #[track_caller]
    pub fn register_arc(mut self, tool: Arc<dyn DynTool>) -> Self {
        let loc = Location::caller();
        self.tools
            .push((tool, format!("{}:{}", loc.file(), loc.line())));
        self
    }

    /// Also collects every tool submitted to `inventory` in the linked program.
    pub fn with_inventory(mut self) -> Self {
        self.inventory = true;
        self
    }

    /// Replaces the description of the tool named `tool` (or one of its aliases) with
    /// `description`: for a description that states what the host configured (a limit, a
    /// window), so that the model reads the limits the server enforces. Building fails when
    /// no tool has that name.
    ///
    /// ```
    /// # use tool_core::{Registry, Tool, ToolContext, ToolError, ToolSpec};
    /// # use serde_json::Value;
    /// # struct Ping;
    /// # impl Tool for Ping {
    /// #     type Input = Value;
    /// #     type Output = Value;
    /// #     fn spec(&self) -> ToolSpec { ToolSpec::new("ping", "Ping once.") }
    /// #     async fn call(&self, _: &ToolContext, _: Value) -> Result<Value, ToolError> {
    /// #         Ok(Value::Null)
    /// #     }
    /// # }
    /// let registry = Registry::builder()
    ///     .register(Ping)
    ///     .describe("ping", "Ping once; at most 5 pings a minute on this server.")
    ///     .build()?;
    /// assert_eq!(
    ///     registry.get("ping").unwrap().spec().description,
    ///     "Ping once; at most 5 pings a minute on this server."
    /// );
    /// assert!(Registry::builder().register(Ping).describe("pong", "x").build().is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn describe(mut self, tool: impl Into<String>, description: impl Into<String>) -> Self {
        self.descriptions.push((tool.into(), description.into()));
        self
    }

    /// Checks every tool and builds the registry.
    pub fn build(self) -> Result<Registry, RegistryError> {
        let mut tools = self.tools;
        if self.inventory {
            for reg in inventory::iter::<Registration> {
                tools.push(((reg.constructor)(), reg.location.to_owned()));
            }
        }
        let mut entries: Vec<ToolEntry> = Vec::with_capacity(tools.len());
        let mut described = vec![false; self.descriptions.len()];
        for (tool, location) in tools {
            let mut spec = tool.spec();
            for (i, (name, text)) in self.descriptions.iter().enumerate() {
                if spec.name == name.as_str() || spec.aliases.iter().any(|a| a == name.as_str()) {
                    spec.description = text.clone().into();
                    described[i] = true;
                }
            }
            let spec = Arc::new(spec);
            spec.check().map_err(|error| RegistryError::Spec {
                location: location.clone(),
                error,
            })?;
            let schema = CompiledSchema::compile(spec.clone())?;
            entries.push(ToolEntry {
                tool,
                name: Arc::from(spec.name.as_ref()),
                spec,
                schema,
                location,
            });
        }
        if let Some(i) = described.iter().position(|d| !d) {
            return Err(RegistryError::NotFound {
                name: self.descriptions[i].0.clone(),
                tools: entries.iter().map(|e| e.spec.name.to_string()).collect(),
            });
        }
        // A stable sort by name: among tools claiming one name, the one registered first
        // (explicit registrations in order, then inventory) is reported as the first claim.
        entries.sort_by(|a, b| a.spec.name.cmp(&b.spec.name));
        let mut by_name = NameIndex::default();
        let mut claims: HashMap<String, String> = HashMap::new();
        for (i, e) in entries.iter().enumerate() {
            let names = std::iter::once(&e.spec.name).chain(e.spec.aliases.iter());
            for (n, name) in names.enumerate() {
                let here = if n == 0 {
                    e.location.clone()
                } else {
                    format!("{} (alias of `{}`)", e.location, e.spec.name)
                };
                if let Some(first) = claims.get(name.as_ref()) {
                    return Err(RegistryError::Duplicate {
                        name: name.to_string(),
                        first: first.clone(),
                        second: here,
                    });
                }
                claims.insert(name.to_string(), here);
                by_name.insert(name.to_string(), i);
            }
        }
        Ok(Registry {
            entries: entries.into_iter().map(Arc::new).collect(),
            by_name,
        })
    }
}

/// Every tool a program offers, sorted by name, with aliases resolved.
#[derive(Debug)]
pub struct Registry {
    entries: Vec<Arc<ToolEntry>>,
    by_name: NameIndex,
}

/// Names and aliases to entries: looked up on every call, with a fast seeded hasher.
type NameIndex = HashMap<String, usize, foldhash::fast::RandomState>;

impl Registry {
    /// A builder.
    pub fn builder() -> RegistryBuilder {
        RegistryBuilder::default()
    }

    /// A registry of every tool submitted to `inventory`.
    pub fn from_inventory() -> Result<Registry, RegistryError> {
        Self::builder().with_inventory().build()
    }

    /// The tool called `name`, or whose alias `name` is.
    pub fn get(&self, name: &str) -> Option<&Arc<ToolEntry>> {
        self.by_name.get(name).map(|&i| &self.entries[i])
    }

    /// Every tool, sorted by name.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<ToolEntry>> {
        self.entries.iter()
    }

    /// The number of tools.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there is no tool.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The tools passing a filter, sorted by name.
    pub fn filter<'a>(
        &'a self,
        filter: &'a ToolFilter,
    ) -> impl Iterator<Item = &'a Arc<ToolEntry>> + 'a {
        self.entries.iter().filter(move |e| filter.matches(&e.spec))
    }

    /// The names of the tools offered in `mode`.
    pub fn names_in_mode(&self, mode: Mode) -> Vec<&str> {
        self.offered(mode, None).map(|e| e.name()).collect()
    }

    /// The tools offered in `mode` and, when given, selected by `selection`, sorted by name.
    pub fn offered<'a>(
        &'a self,
        mode: Mode,
        selection: Option<&'a SelectedTools>,
    ) -> impl Iterator<Item = &'a Arc<ToolEntry>> + 'a {
        self.entries.iter().filter(move |e| {
            e.spec.supports_mode(mode) && selection.is_none_or(|s| s.matches(&e.spec))
        })
    }

    /// Every toolset some tool belongs to, sorted, once each.
    pub fn toolsets(&self) -> Vec<String> {
        let set: std::collections::BTreeSet<&str> = self
            .entries
            .iter()
            .flat_map(|e| e.spec.toolsets.iter().map(|t| t.as_ref()))
            .collect();
        set.into_iter().map(str::to_owned).collect()
    }

    /// The error for a call of `name` that no tool offered to the session answers to (the
    /// tools of `mode`, and of `selection` when the session has one): the tool is known but
    /// not offered in this mode or not selected (a `permission_error`), or unknown (a
    /// `not_found`); both list the tools offered, and `not_found` the nearest name, alias
    /// included.
    pub(crate) fn unknown_tool(
        &self,
        name: &str,
        mode: Mode,
        selection: Option<&SelectedTools>,
        arguments: &Arguments,
    ) -> ToolError {
        let available: Vec<&str> = self.offered(mode, selection).map(|e| e.name()).collect();
        let signature = signature_of_arguments(name, arguments);
        if let Some(e) = self.get(name) {
            let list = if available.is_empty() {
                "(none)".to_owned()
            } else {
                available.join(", ")
            };
            if !e.spec.supports_mode(mode) {
                return ToolError::permission(format!(
                    "tool `{}` is not available in mode `{mode}`",
                    e.name()
                ))
                .with_field("available_tools", available)
                .with_signature(signature);
            }
            return ToolError::permission(format!(
                "tool `{}` is not among the tools offered to this session; the tools offered: \
                 {list}",
                e.name()
            ))
            .with_field("available_tools", available)
            .with_suggestion(format!("Call one of the tools offered: {list}"))
            .with_signature(signature);
        }
        let aliases = self
            .offered(mode, selection)
            .flat_map(|e| e.spec().aliases.iter().map(|a| a.as_ref()));
        let near = nearest(name, available.iter().copied().chain(aliases))
            .map(|n| self.get(n).map_or(n, |e| e.name()));
        let list = available.join(", ");
        let err = ToolError::not_found(format!("Unknown tool '{name}'"))
            .with_field("available_tools", available.clone())
            .with_signature(signature);
        match near {
            Some(n) => err
                .with_field("did_you_mean", n)
                .with_suggestion(format!("Did you mean `{n}`? Tools available: {list}")),
            None => err.with_suggestion(format!("Tools available: {list}")),
        }
    }

    /// `(name, aliases)` pairs, for renaming data that stored old names (the tool migration).
    pub fn renames(&self) -> Vec<(String, Vec<String>)> {
        self.entries
            .iter()
            .filter(|e| !e.spec.aliases.is_empty())
            .map(|e| {
                (
                    e.spec.name.to_string(),
                    e.spec.aliases.iter().map(|a| a.to_string()).collect(),
                )
            })
            .collect()
    }
}

/// Submits a tool for automatic registration, as `#[tool]` does:
/// `tool_core::submit_tool!(MyTool)` for a `Default` tool or
/// `tool_core::submit_tool!(MyTool, || MyTool::new())`.
#[macro_export]
macro_rules! submit_tool {
    ($ty:ty) => {
        $crate::submit_tool!($ty, <$ty as ::core::default::Default>::default);
    };
    ($ty:ty, $ctor:expr) => {
        $crate::__private_0_1_0::inventory::submit! {
            $crate::Registration {
                constructor: || {
                    let make: fn() -> $ty = $ctor;
                    $crate::__private_0_1_0::Arc::new(make()) as $crate::__private_0_1_0::Arc<dyn $crate::DynTool>
                },
                location: ::core::concat!(::core::file!(), ":", ::core::line!()),
            }
        }
    };
}

impl From<SpecError> for RegistryError {
    fn from(error: SpecError) -> Self {
        RegistryError::Spec {
            location: "(unknown)".to_owned(),
            error,
        }
    }
}
