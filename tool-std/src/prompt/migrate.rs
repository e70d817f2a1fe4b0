//! The tool-name data migration: rewrite every agent's `enabled_tools` from old tool names to
//! the polymorphic tools that replaced them, and back.
//!
//! Seed 000 folds `view_system_prompt` and `update_system_prompt` into `prompt_manager`, and
//! `web_search` and `web_fetch` into `web`. Agents configured before that still list the old
//! names (in the seed's application, as class names such as `ViewSystemPromptTool`).
//! [`migrate_enabled_tools`] rewrites them:
//!
//! - **Forward** maps every alias to its tool's new name and removes duplicates, keeping the
//!   first occurrence's position: `["ViewSystemPromptTool", "grep", "UpdateSystemPromptTool"]`
//!   becomes `["prompt_manager", "grep"]`.
//! - **Rollback** expands each new name into the old tool names it replaced:
//!   `["prompt_manager", "grep"]` becomes `["view_system_prompt", "update_system_prompt", "grep"]`.
//!   Rollback cannot know which of the old tools an agent had before (forward merged them), so it
//!   restores all of them; the forward [`MigrationReport`] records the exact lists if they are
//!   needed.
//!
//! Both directions are idempotent: running one twice changes nothing the second time. Each
//! agent is rewritten with a compare-and-set, so a concurrent edit of an agent's tools is never
//! overwritten; the new list is recomputed from the edited one instead.
//!
//! The renames come from [`ToolRenames`], built from `(new_name, aliases)` pairs: the aliases
//! that tools declare with `#[tool(aliases(..))]` feed it directly, and
//! [`ToolRenames::standard`] holds seed 000's renames.

use std::collections::{BTreeMap, HashSet};
use std::fmt;

use serde::{Deserialize, Serialize};

use super::store::{AgentStore, StoreError, SwapOutcome};

/// Seed 000's renames as `(new_name, aliases)` pairs: the snake_case tool names, the seed's
/// class names, and the class-style spelling of each new tool.
pub const STANDARD_RENAMES: &[(&str, &[&str])] = &[
    (
        "prompt_manager",
        &[
            "view_system_prompt",
            "update_system_prompt",
            "ViewSystemPromptTool",
            "UpdateSystemPromptTool",
            "PromptManagerTool",
        ],
    ),
    (
        "web",
        &[
            "web_search",
            "web_fetch",
            "WebSearchTool",
            "WebFetchTool",
            "WebTool",
        ],
    ),
];

/// How many times one agent's list is recomputed when others keep changing it.
const MAX_ATTEMPTS: usize = 8;

/// Which way a migration rewrites tool names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Old names to new: `web_search` becomes `web`.
    Forward,
    /// New names back to the old tool names: `web` becomes `web_search`, `web_fetch`.
    Rollback,
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Direction::Forward => "forward",
            Direction::Rollback => "rollback",
        })
    }
}

/// Which old tool names became which new tool, and what a rollback restores.
///
/// Built from `(new_name, aliases)` pairs. Forward maps every alias to its new name. Rollback
/// restores the aliases spelled like tool names (a lower-case ASCII letter followed by
/// lower-case letters, digits, `_` or `-`, e.g. `web_search`) in declared order; class-style
/// aliases (`WebSearchTool`, `WebTool`) are only ever read, since no registry resolves them as
/// tools.
///
/// ```
/// use tool_std::prompt::{Direction, ToolRenames};
///
/// let renames = ToolRenames::new([("web", ["web_search", "web_fetch", "WebSearchTool"])])?;
/// let tools = ["WebSearchTool".to_string(), "grep".into(), "web_fetch".into()];
/// assert_eq!(renames.rewrite(&tools, Direction::Forward), ["web", "grep"]);
/// assert_eq!(
///     renames.rewrite(&["web".to_string()], Direction::Rollback),
///     ["web_search", "web_fetch"]
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolRenames {
    /// alias -> new name.
    forward: BTreeMap<String, String>,
    /// new name -> the tool-name-shaped aliases a rollback restores.
    rollback: BTreeMap<String, Vec<String>>,
}

impl ToolRenames {
    /// Builds the renames from `(new_name, aliases)` pairs, checking they are consistent.
    ///
    /// A new name listed twice has its aliases merged; an alias equal to its own new name is
    /// ignored. Errors: an empty name ([`RenameError::EmptyName`]), one alias claimed by two
    /// tools ([`RenameError::AliasConflict`]), or a name that is both a new name and an alias
    /// ([`RenameError::Chain`]), which would make a second run rename again.
    pub fn new<I, N, A, S>(pairs: I) -> Result<Self, RenameError>
    where
        I: IntoIterator<Item = (N, A)>,
        N: Into<String>,
        A: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut renames = ToolRenames::default();
        for (new_name, aliases) in pairs {
            let new_name = new_name.into();
            if new_name.trim().is_empty() {
                return Err(RenameError::EmptyName { tool: new_name });
            }
            let mut restore = renames.rollback.remove(&new_name).unwrap_or_default();
            for alias in aliases {
                let alias = alias.into();
                if alias.trim().is_empty() {
                    return Err(RenameError::EmptyName { tool: new_name });
                }
                if alias == new_name {
                    continue;
                }
                match renames.forward.get(&alias) {
                    Some(first) if *first != new_name => {
                        return Err(RenameError::AliasConflict {
                            alias,
                            first: first.clone(),
                            second: new_name,
                        });
                    }
                    Some(_) => continue,
                    None => {}
                }
                if is_tool_name(&alias) {
                    restore.push(alias.clone());
                }
                renames.forward.insert(alias, new_name.clone());
            }
            renames.rollback.insert(new_name, restore);
        }
        for name in renames.rollback.keys() {
            if let Some(alias_of) = renames.forward.get(name) {
                return Err(RenameError::Chain {
                    name: name.clone(),
                    alias_of: alias_of.clone(),
                });
            }
        }
        Ok(renames)
    }

    /// Seed 000's renames ([`STANDARD_RENAMES`]): `prompt_manager` and `web`.
    pub fn standard() -> Self {
        // STANDARD_RENAMES is consistent (a unit test checks it), so this never falls back.
        Self::new(
            STANDARD_RENAMES
                .iter()
                .map(|(new, aliases)| (*new, aliases.iter().copied())),
        )
        .unwrap_or_default()
    }

    /// The renames the tools of `registry` declare: each tool's name with its
    /// `#[tool(aliases(..))]`, from [`Registry::renames`](tool_core::Registry::renames).
    ///
    /// This is what `toolsmith migrate-tools` runs on: a tool that gains an alias migrates it
    /// without a change here. Errors as [`ToolRenames::new`]; a registry already refuses an
    /// alias claimed twice, so in practice this only fails on an empty alias.
    ///
    /// ```
    /// use tool_core::Registry;
    /// use tool_std::prompt::{PromptManager, ToolRenames};
    ///
    /// let registry = Registry::builder().register(PromptManager).build()?;
    /// let renames = ToolRenames::from_registry(&registry)?;
    /// assert_eq!(renames.new_name("ViewSystemPromptTool"), Some("prompt_manager"));
    /// assert_eq!(renames.rollback_names("prompt_manager"), ["view_system_prompt", "update_system_prompt"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_registry(registry: &tool_core::Registry) -> Result<Self, RenameError> {
        Self::new(registry.renames())
    }

    /// The new name `name` migrates to, if it is an old name.
    pub fn new_name(&self, name: &str) -> Option<&str> {
        self.forward.get(name).map(String::as_str)
    }

    /// The old names a rollback restores in place of `new_name` (empty if none).
    pub fn rollback_names(&self, new_name: &str) -> &[String] {
        self.rollback.get(new_name).map_or(&[], Vec::as_slice)
    }

    /// Rewrites one list of tool names, removing duplicates and keeping first occurrences.
    ///
    /// Names the renames do not mention pass through unchanged, in place.
    pub fn rewrite(&self, tools: &[String], direction: Direction) -> Vec<String> {
        let mut seen = HashSet::new();
        let mut out = Vec::with_capacity(tools.len());
        let mut push = |name: &str| {
            if seen.insert(name.to_owned()) {
                out.push(name.to_owned());
            }
        };
        for tool in tools {
            match direction {
                Direction::Forward => push(self.new_name(tool).unwrap_or(tool)),
                Direction::Rollback => match self.rollback_names(tool) {
                    [] => push(tool),
                    old => old.iter().for_each(|name| push(name)),
                },
            }
        }
        out
    }
}

/// `web_search`-like: what a registry resolves as a tool name, unlike a class name.
fn is_tool_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
}

/// Why a set of `(new_name, aliases)` pairs cannot be turned into [`ToolRenames`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RenameError {
    /// A new name, or one of its aliases, is empty or only whitespace.
    EmptyName {
        /// The tool being declared (empty when the new name itself is empty).
        tool: String,
    },
    /// The same alias is declared for two different tools.
    AliasConflict {
        /// The alias declared twice.
        alias: String,
        /// The tool that declared it first.
        first: String,
        /// The tool that declared it again.
        second: String,
    },
    /// A name is both a new tool name and an alias of another tool, so renames would chain.
    Chain {
        /// The name used both ways.
        name: String,
        /// The tool it is an alias of.
        alias_of: String,
    },
}

impl fmt::Display for RenameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RenameError::EmptyName { tool } if tool.trim().is_empty() => {
                f.write_str("a renamed tool has an empty name")
            }
            RenameError::EmptyName { tool } => write!(f, "tool '{tool}' declares an empty alias"),
            RenameError::AliasConflict {
                alias,
                first,
                second,
            } => write!(
                f,
                "alias '{alias}' is declared by both '{first}' and '{second}'; \
                 an old name can migrate to only one tool"
            ),
            RenameError::Chain { name, alias_of } => write!(
                f,
                "'{name}' is both a tool name and an alias of '{alias_of}'; renames must not chain"
            ),
        }
    }
}

impl std::error::Error for RenameError {}

/// One agent whose `enabled_tools` a migration changed (or, in a preview, would change).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentChange {
    /// The agent's id.
    pub id: i64,
    /// The agent's account.
    pub account: String,
    /// The agent's name.
    pub name: String,
    /// `enabled_tools` before the change.
    pub before: Vec<String>,
    /// `enabled_tools` after the change.
    pub after: Vec<String>,
}

impl fmt::Display for AgentChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Debug quoting keeps one change on one line whatever the names contain.
        write!(
            f,
            "agent {} {:?} (account {:?}): {:?} -> {:?}",
            self.id, self.name, self.account, self.before, self.after
        )
    }
}

/// What a migration changed: one [`AgentChange`] per rewritten agent, in id order.
///
/// Its `Display` is one line per changed agent and a summary line; it serializes to JSON for
/// machine-readable output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct MigrationReport {
    /// The direction that was run.
    pub direction: Direction,
    /// `true` when the changes were written, `false` for a [`preview_enabled_tools`].
    pub applied: bool,
    /// How many agents were examined.
    pub agents_checked: usize,
    /// The agents whose lists changed.
    pub changes: Vec<AgentChange>,
}

impl MigrationReport {
    /// How many examined agents needed no change.
    pub fn unchanged(&self) -> usize {
        self.agents_checked.saturating_sub(self.changes.len())
    }
}

impl fmt::Display for MigrationReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for change in &self.changes {
            writeln!(f, "{change}")?;
        }
        let (what, verb) = match self.applied {
            true => ("complete", "changed"),
            false => ("preview", "would change"),
        };
        write!(
            f,
            "{} migration {what}: {} of {} agents {verb}, {} unchanged",
            self.direction,
            self.changes.len(),
            self.agents_checked,
            self.unchanged()
        )?;
        if !self.applied {
            f.write_str("; nothing was written")?;
        }
        Ok(())
    }
}

/// Rewrites every agent's `enabled_tools` in `store` and reports each change.
///
/// Each agent is updated atomically on its own; if the store fails half way, the agents already
/// rewritten stay rewritten and running the migration again finishes the job (it is
/// idempotent). Errors: whatever the store reports, and [`StoreError::Contended`] if an agent's
/// list changed under the migration on every one of several attempts.
///
/// ```
/// use tool_std::prompt::{
///     migrate_enabled_tools, AgentStore, Direction, MemoryAgentStore, NewAgent, ToolRenames,
/// };
///
/// # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
/// let store = MemoryAgentStore::new();
/// store
///     .create(NewAgent::new("default", "Sage").with_enabled_tools(["WebSearchTool", "WebFetchTool"]))
///     .await?;
/// let report = migrate_enabled_tools(&store, &ToolRenames::standard(), Direction::Forward).await?;
/// assert_eq!(report.changes[0].after, ["web"]);
/// assert_eq!(
///     report.to_string(),
///     "agent 1 \"Sage\" (account \"default\"): [\"WebSearchTool\", \"WebFetchTool\"] -> [\"web\"]\n\
///      forward migration complete: 1 of 1 agents changed, 0 unchanged"
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub async fn migrate_enabled_tools(
    store: &dyn AgentStore,
    mapping: &ToolRenames,
    direction: Direction,
) -> Result<MigrationReport, StoreError> {
    let agents = store.list().await?;
    let mut report = MigrationReport {
        direction,
        applied: true,
        agents_checked: agents.len(),
        changes: Vec::new(),
    };
    for agent in agents {
        let id = agent.id;
        let mut current = agent;
        let mut done = false;
        for _ in 0..MAX_ATTEMPTS {
            let after = mapping.rewrite(&current.enabled_tools, direction);
            if after == current.enabled_tools {
                done = true;
                break;
            }
            match store
                .compare_and_set_enabled_tools(id, &current.enabled_tools, &after)
                .await
            {
                Ok(SwapOutcome::Swapped(updated)) => {
                    report.changes.push(AgentChange {
                        id,
                        account: updated.account,
                        name: updated.name,
                        before: current.enabled_tools,
                        after: updated.enabled_tools,
                    });
                    done = true;
                    break;
                }
                Ok(SwapOutcome::Stale(latest)) => current = latest,
                // Deleted since it was listed: nothing left to migrate.
                Err(StoreError::NotFound { .. }) => {
                    done = true;
                    break;
                }
                Err(err) => return Err(err),
            }
        }
        if !done {
            return Err(StoreError::Contended { id });
        }
    }
    Ok(report)
}

/// Reports what [`migrate_enabled_tools`] would change, without writing anything.
pub async fn preview_enabled_tools(
    store: &dyn AgentStore,
    mapping: &ToolRenames,
    direction: Direction,
) -> Result<MigrationReport, StoreError> {
    let agents = store.list().await?;
    let agents_checked = agents.len();
    let changes = agents
        .into_iter()
        .filter_map(|agent| {
            let after = mapping.rewrite(&agent.enabled_tools, direction);
            if after == agent.enabled_tools {
                return None;
            }
            Some(AgentChange {
                id: agent.id,
                account: agent.account,
                name: agent.name,
                before: agent.enabled_tools,
                after,
            })
        })
        .collect();
    Ok(MigrationReport {
        direction,
        applied: false,
        agents_checked,
        changes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_standard_renames_are_consistent() {
        let pairs = STANDARD_RENAMES
            .iter()
            .map(|(new, aliases)| (*new, aliases.iter().copied()));
        assert_eq!(
            ToolRenames::new(pairs).as_ref(),
            Ok(&ToolRenames::standard())
        );
        let standard = ToolRenames::standard();
        assert_eq!(
            standard.rollback_names("prompt_manager"),
            ["view_system_prompt", "update_system_prompt"]
        );
        assert_eq!(standard.rollback_names("web"), ["web_search", "web_fetch"]);
        assert_eq!(
            standard.new_name("PromptManagerTool"),
            Some("prompt_manager")
        );
        assert_eq!(standard.new_name("prompt_manager"), None);
    }

    #[test]
    fn conflicting_aliases_are_refused() {
        let err = ToolRenames::new([("a", ["old"]), ("b", ["old"])]).unwrap_err();
        assert_eq!(
            err,
            RenameError::AliasConflict {
                alias: "old".into(),
                first: "a".into(),
                second: "b".into()
            }
        );
        assert!(err.to_string().contains("only one tool"));
    }

    #[test]
    fn chained_renames_are_refused() {
        let err = ToolRenames::new([("a", ["b"]), ("b", ["c"])]).unwrap_err();
        assert!(
            matches!(err, RenameError::Chain { ref name, .. } if name == "b"),
            "{err}"
        );
    }

    #[test]
    fn empty_names_are_refused() {
        let err = ToolRenames::new([("", ["x"])]).unwrap_err();
        assert_eq!(err.to_string(), "a renamed tool has an empty name");
        let err = ToolRenames::new([("web", [" "])]).unwrap_err();
        assert_eq!(err.to_string(), "tool 'web' declares an empty alias");
    }

    #[test]
    fn repeated_pairs_merge_and_self_aliases_are_ignored() {
        let renames = ToolRenames::new([
            ("web", vec!["web", "web_search"]),
            ("web", vec!["web_fetch"]),
        ])
        .unwrap();
        assert_eq!(renames.rollback_names("web"), ["web_search", "web_fetch"]);
        assert_eq!(renames.new_name("web"), None);
    }

    #[test]
    fn only_tool_shaped_aliases_are_restored() {
        assert!(is_tool_name("web_search") && is_tool_name("read-file2"));
        assert!(!is_tool_name("WebSearchTool") && !is_tool_name("_x") && !is_tool_name(""));
    }

    #[test]
    fn rewrite_keeps_unknown_names_in_place() {
        let standard = ToolRenames::standard();
        let tools = names(&["grep", "WebFetchTool", "bash", "web_search"]);
        assert_eq!(
            standard.rewrite(&tools, Direction::Forward),
            ["grep", "web", "bash"]
        );
        assert_eq!(
            standard.rewrite(&[], Direction::Rollback),
            Vec::<String>::new()
        );
    }

    #[test]
    fn report_summary_for_a_preview_says_nothing_was_written() {
        let report = MigrationReport {
            direction: Direction::Rollback,
            applied: false,
            agents_checked: 2,
            changes: Vec::new(),
        };
        assert_eq!(
            report.to_string(),
            "rollback migration preview: 0 of 2 agents would change, 2 unchanged; nothing was written"
        );
    }
}
