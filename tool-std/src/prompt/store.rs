//! The agent record, its limits, and the [`AgentStore`] trait every backend implements.
//!
//! An [`Agent`] is what the `prompt_manager` tool reads and edits: a name that is unique within
//! its account, three prompts, and the list of tools the agent may call. The limits are the
//! seed's model validations (system prompt 50,000 characters, the other prompts and the name
//! 10,000, no empty names), enforced here, before any backend is touched, so every store refuses
//! the same inputs with the same message.
//!
//! Lengths are counted in characters (Unicode scalar values, `str::chars`), never in bytes, so a
//! prompt written in Japanese gets the same allowance as one in English.

mod error;

use std::fmt;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

pub use error::StoreError;

/// The longest system prompt a store accepts, in characters.
pub const MAX_SYSTEM_PROMPT_CHARS: usize = 50_000;
/// The longest reflection (conversation consolidation) prompt a store accepts, in characters.
pub const MAX_REFLECTION_PROMPT_CHARS: usize = 10_000;
/// The longest memory reflection (memory management) prompt a store accepts, in characters.
pub const MAX_MEMORY_REFLECTION_PROMPT_CHARS: usize = 10_000;
/// The longest agent name a store accepts, in characters.
pub const MAX_NAME_CHARS: usize = 10_000;
/// How many of an agent's former names a store remembers after renames (the most recent ones),
/// so [`AgentStore::get_or_create`] under an old name still finds the agent.
pub const MAX_FORMER_NAMES: usize = 16;

/// One agent: its identity, its prompts and the tools it may call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Agent {
    /// The store-assigned identifier; never reused by the SQLite store.
    pub id: i64,
    /// The account (tenant) the agent belongs to; names are unique within it.
    pub account: String,
    /// The agent's display name, unique within `account`.
    pub name: String,
    /// The system prompt, `None` when never set.
    pub system_prompt: Option<String>,
    /// The prompt used when consolidating a conversation (`conversation_consolidation`).
    pub reflection_prompt: Option<String>,
    /// The prompt used when managing memories (`memory_management`).
    pub memory_reflection_prompt: Option<String>,
    /// The names of the tools this agent may call, in the order they were configured. Empty
    /// means every tool: an agent never configured is not cut off. The command line reads it
    /// this way (`--agent NAME` is offered, and may call, only these; `toolsmith agents`
    /// edits them), through `tool_core::ToolSelection`.
    pub enabled_tools: Vec<String>,
}

impl Agent {
    /// The current value of `field`: the name is always set, the prompts may not be.
    pub fn field(&self, field: PromptField) -> Option<&str> {
        match field {
            PromptField::SystemPrompt => self.system_prompt.as_deref(),
            PromptField::ReflectionPrompt => self.reflection_prompt.as_deref(),
            PromptField::MemoryReflectionPrompt => self.memory_reflection_prompt.as_deref(),
            PromptField::Name => Some(&self.name),
        }
    }
}

/// The fields of an [`Agent`] that the `prompt_manager` tool can view and update.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PromptField {
    /// [`Agent::system_prompt`] (prompt type `system`).
    SystemPrompt,
    /// [`Agent::reflection_prompt`] (prompt type `conversation_consolidation`).
    ReflectionPrompt,
    /// [`Agent::memory_reflection_prompt`] (prompt type `memory_management`).
    MemoryReflectionPrompt,
    /// [`Agent::name`] (prompt type `name`).
    Name,
}

impl PromptField {
    /// Every field, in the seed's order of prompt types.
    pub const ALL: [PromptField; 4] = [
        PromptField::SystemPrompt,
        PromptField::ReflectionPrompt,
        PromptField::MemoryReflectionPrompt,
        PromptField::Name,
    ];

    /// The column (and [`Agent`] field) this maps to, e.g. `"system_prompt"`.
    pub const fn column(self) -> &'static str {
        match self {
            PromptField::SystemPrompt => "system_prompt",
            PromptField::ReflectionPrompt => "reflection_prompt",
            PromptField::MemoryReflectionPrompt => "memory_reflection_prompt",
            PromptField::Name => "name",
        }
    }

    /// How the field is named in messages, e.g. `"system prompt"`.
    pub const fn label(self) -> &'static str {
        match self {
            PromptField::SystemPrompt => "system prompt",
            PromptField::ReflectionPrompt => "reflection prompt",
            PromptField::MemoryReflectionPrompt => "memory reflection prompt",
            PromptField::Name => "name",
        }
    }

    /// The longest value accepted, in characters.
    pub const fn max_chars(self) -> usize {
        match self {
            PromptField::SystemPrompt => MAX_SYSTEM_PROMPT_CHARS,
            PromptField::ReflectionPrompt => MAX_REFLECTION_PROMPT_CHARS,
            PromptField::MemoryReflectionPrompt => MAX_MEMORY_REFLECTION_PROMPT_CHARS,
            PromptField::Name => MAX_NAME_CHARS,
        }
    }

    /// Checks `value` against this field's rules without touching a store.
    ///
    /// Refuses values longer than [`max_chars`](Self::max_chars) with [`StoreError::TooLong`] and,
    /// for [`PromptField::Name`], names that are empty or only whitespace with
    /// [`StoreError::EmptyName`]. Uniqueness of names is checked by the store.
    pub fn validate(self, value: &str) -> Result<(), StoreError> {
        if self == PromptField::Name && value.trim().is_empty() {
            return Err(StoreError::EmptyName);
        }
        let limit = self.max_chars();
        // Count at most one past the limit: enough to decide, and cheap on huge inputs.
        if value.chars().take(limit + 1).count() > limit {
            return Err(StoreError::TooLong {
                field: self,
                chars: value.chars().count(),
                limit,
            });
        }
        Ok(())
    }
}

impl fmt::Display for PromptField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// The values of an agent about to be created; the store assigns the id.
///
/// ```
/// use tool_std::prompt::NewAgent;
///
/// let agent = NewAgent::new("default", "Sage")
///     .with_system_prompt("You are Sage.")
///     .with_enabled_tools(["prompt_manager", "web"]);
/// assert_eq!(agent.enabled_tools, ["prompt_manager", "web"]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct NewAgent {
    /// The account the agent belongs to.
    pub account: String,
    /// The agent's name, unique within `account`.
    pub name: String,
    /// The initial system prompt.
    pub system_prompt: Option<String>,
    /// The initial reflection (conversation consolidation) prompt.
    pub reflection_prompt: Option<String>,
    /// The initial memory reflection (memory management) prompt.
    pub memory_reflection_prompt: Option<String>,
    /// The initial list of enabled tools.
    pub enabled_tools: Vec<String>,
}

impl NewAgent {
    /// An agent with a name in an account, no prompts and no tools.
    pub fn new(account: impl Into<String>, name: impl Into<String>) -> Self {
        NewAgent {
            account: account.into(),
            name: name.into(),
            ..NewAgent::default()
        }
    }

    /// Sets the initial system prompt.
    pub fn with_system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// Sets the initial reflection (conversation consolidation) prompt.
    pub fn with_reflection_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.reflection_prompt = Some(prompt.into());
        self
    }

    /// Sets the initial memory reflection (memory management) prompt.
    pub fn with_memory_reflection_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.memory_reflection_prompt = Some(prompt.into());
        self
    }

    /// Sets the initial list of enabled tools.
    pub fn with_enabled_tools<I, S>(mut self, tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.enabled_tools = tools.into_iter().map(Into::into).collect();
        self
    }

    /// Checks every field's limits (not name uniqueness, which needs the store).
    ///
    /// Stores call this before writing; the first problem found, in [`PromptField::ALL`] order
    /// with the name first, is returned.
    pub fn validate(&self) -> Result<(), StoreError> {
        PromptField::Name.validate(&self.name)?;
        let prompts = [
            (PromptField::SystemPrompt, &self.system_prompt),
            (PromptField::ReflectionPrompt, &self.reflection_prompt),
            (
                PromptField::MemoryReflectionPrompt,
                &self.memory_reflection_prompt,
            ),
        ];
        for (field, value) in prompts {
            if let Some(value) = value {
                field.validate(value)?;
            }
        }
        Ok(())
    }

    /// The agent this becomes once the store has assigned `id`.
    pub fn into_agent(self, id: i64) -> Agent {
        Agent {
            id,
            account: self.account,
            name: self.name,
            system_prompt: self.system_prompt,
            reflection_prompt: self.reflection_prompt,
            memory_reflection_prompt: self.memory_reflection_prompt,
            enabled_tools: self.enabled_tools,
        }
    }
}

/// The result of [`AgentStore::compare_and_set_enabled_tools`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SwapOutcome {
    /// The list matched what the caller expected and was replaced; this is the updated agent.
    Swapped(Agent),
    /// Someone changed the list first; nothing was written and this is the agent as it is now.
    Stale(Agent),
}

/// Where agents live: the storage behind the `prompt_manager` tool and the tool-name migration.
///
/// Every implementation enforces the same rules, checked before anything is written: names are
/// non-empty and unique per account, values respect the [`PromptField`] limits, and each update
/// is atomic (it is applied whole or not at all, and a concurrent reader never sees half of it).
/// Implementations are shared between tasks (`Send + Sync`), usually behind an `Arc`.
///
/// ```
/// use tool_std::prompt::{AgentStore, MemoryAgentStore, PromptField};
///
/// # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
/// let store = MemoryAgentStore::new();
/// let sage = store.get_or_create("default", "Sage").await?;
/// let sage = store
///     .update_field(sage.id, PromptField::SystemPrompt, "You are Sage.")
///     .await?;
/// assert_eq!(sage.system_prompt.as_deref(), Some("You are Sage."));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[async_trait]
pub trait AgentStore: Send + Sync {
    /// The agent with this id, if any.
    async fn get_by_id(&self, id: i64) -> Result<Option<Agent>, StoreError>;

    /// The agent called `name` in `account`, if any (names compare exactly, case included).
    async fn get_by_name(&self, account: &str, name: &str) -> Result<Option<Agent>, StoreError>;

    /// The agent that was called `name` in `account` before it was renamed, if no agent is
    /// called `name` now.
    ///
    /// Stores remember each agent's last [`MAX_FORMER_NAMES`] names; a name becomes current
    /// again (and stops pointing at the renamed agent) when an agent is created or renamed to
    /// it. The default implementation remembers nothing.
    async fn get_by_former_name(
        &self,
        account: &str,
        name: &str,
    ) -> Result<Option<Agent>, StoreError> {
        let _ = (account, name);
        Ok(None)
    }

    /// Creates an agent after checking its limits; [`StoreError::NameTaken`] if the name is used.
    async fn create(&self, agent: NewAgent) -> Result<Agent, StoreError>;

    /// The agent called `name` in `account`; else the agent renamed away from `name`
    /// ([`get_by_former_name`](Self::get_by_former_name)); else a new empty agent called `name`.
    ///
    /// A host that names its agent in configuration (the command line's `--agent`) finds it with
    /// this, so a rename through `prompt_manager` does not leave the next start with a new empty
    /// agent under the old name; compare the returned [`Agent::name`] with `name` to tell the
    /// user about the rename.
    ///
    /// Two callers racing on the same new name both get the same agent. The default
    /// implementation retries the lookup after losing a creation race; stores override it to do
    /// both steps in one transaction.
    async fn get_or_create(&self, account: &str, name: &str) -> Result<Agent, StoreError> {
        if let Some(agent) = self.get_by_name(account, name).await? {
            return Ok(agent);
        }
        if let Some(agent) = self.get_by_former_name(account, name).await? {
            return Ok(agent);
        }
        match self.create(NewAgent::new(account, name)).await {
            Err(StoreError::NameTaken { .. }) => {
                self.get_by_name(account, name).await?.ok_or_else(|| {
                    StoreError::backend(
                        "creating an agent",
                        format!("agent '{name}' was taken and then disappeared; try again"),
                    )
                })
            }
            other => other,
        }
    }

    /// Every agent, ordered by id.
    async fn list(&self) -> Result<Vec<Agent>, StoreError>;

    /// The agents of one account, ordered by id.
    async fn list_account(&self, account: &str) -> Result<Vec<Agent>, StoreError> {
        let mut agents = self.list().await?;
        agents.retain(|agent| agent.account == account);
        Ok(agents)
    }

    /// Sets one field to `value` after checking it, atomically, and returns the updated agent.
    ///
    /// Errors: [`StoreError::NotFound`] for an unknown id, [`StoreError::TooLong`],
    /// [`StoreError::EmptyName`], and [`StoreError::NameTaken`] when renaming onto another
    /// agent's name (renaming an agent to its own name is fine).
    async fn update_field(
        &self,
        id: i64,
        field: PromptField,
        value: &str,
    ) -> Result<Agent, StoreError>;

    /// Replaces the agent's enabled tools and returns the updated agent.
    async fn set_enabled_tools(&self, id: i64, tools: &[String]) -> Result<Agent, StoreError>;

    /// Replaces the agent's enabled tools only if they are still exactly `expected`.
    ///
    /// The check and the write are one atomic step, so a read-modify-write loop built on it (the
    /// tool-name migration is one) never overwrites a change made meanwhile by another task or
    /// process.
    async fn compare_and_set_enabled_tools(
        &self,
        id: i64,
        expected: &[String],
        new: &[String],
    ) -> Result<SwapOutcome, StoreError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_hold_at_the_boundary() {
        for field in PromptField::ALL {
            let limit = field.max_chars();
            assert!(field.validate(&"x".repeat(limit)).is_ok(), "{field}");
            let err = field.validate(&"x".repeat(limit + 1)).unwrap_err();
            assert!(
                matches!(err, StoreError::TooLong { chars, .. } if chars == limit + 1),
                "{field}"
            );
        }
    }

    #[test]
    fn limits_count_characters_not_bytes() {
        let japanese = "語".repeat(MAX_NAME_CHARS);
        assert!(japanese.len() > MAX_NAME_CHARS);
        assert!(PromptField::Name.validate(&japanese).is_ok());
    }

    #[test]
    fn blank_names_are_refused_but_blank_prompts_are_not() {
        for blank in ["", " ", "\t\n"] {
            assert!(matches!(
                PromptField::Name.validate(blank),
                Err(StoreError::EmptyName)
            ));
            assert!(PromptField::SystemPrompt.validate(blank).is_ok());
        }
    }

    #[test]
    fn new_agent_reports_the_first_problem() {
        let agent = NewAgent::new("a", "").with_system_prompt("x".repeat(60_000));
        assert!(matches!(agent.validate(), Err(StoreError::EmptyName)));
        let agent = NewAgent::new("a", "n").with_memory_reflection_prompt("x".repeat(10_001));
        assert!(matches!(
            agent.validate(),
            Err(StoreError::TooLong {
                field: PromptField::MemoryReflectionPrompt,
                ..
            })
        ));
    }

    #[test]
    fn field_reads_the_matching_column() {
        let agent = NewAgent::new("a", "n")
            .with_reflection_prompt("r")
            .into_agent(1);
        assert_eq!(agent.field(PromptField::Name), Some("n"));
        assert_eq!(agent.field(PromptField::ReflectionPrompt), Some("r"));
        assert_eq!(agent.field(PromptField::SystemPrompt), None);
    }
}
