//! The prompt family: the `prompt_manager` tool, where agents and their prompts live, and the
//! tool-name migration.
//!
//! The `prompt_manager` tool (seed 000) lets an agent view and update its own system prompt,
//! reflection prompts and name:
//!
//! - [`tool`]: [`PromptManager`], the polymorphic tool (`action`: `view` | `update`;
//!   `prompt_type`: [`PromptType`]), declared with `#[tool]`, answering [`ViewResult`] and
//!   [`UpdateResult`].
//! - [`context`]: [`PromptContext`], the host service that gives the tool its store, the
//!   current agent ([`AgentRef`]) and seed 000's optional group-conversation rule.
//!
//! And the layer under it:
//!
//! - [`store`]: the [`Agent`] record, its limits ([`MAX_SYSTEM_PROMPT_CHARS`] and the 10,000
//!   character limits of the other fields), [`StoreError`] with messages a model can act on, and
//!   the [`AgentStore`] trait.
//! - [`memory`]: [`MemoryAgentStore`], for tests and short-lived hosts.
//! - [`sqlite`]: [`SqliteAgentStore`], an embedded SQLite file (WAL, busy timeout, one
//!   `BEGIN IMMEDIATE` transaction per write), the CLI's default.
//! - `postgres` (feature `postgres`): `PostgresAgentStore`, the agents of several replicas in
//!   one Postgres database, beside tool-core's shared store.
//! - [`migrate`]: [`migrate_enabled_tools`], which rewrites agents' `enabled_tools` from the old
//!   tool names (`view_system_prompt`, `WebSearchTool`, ...) to the polymorphic tools and back,
//!   with the renames the registered tools declare ([`ToolRenames::from_registry`]).
//!
//! Both stores enforce the same rules before writing, and the same behaviour tests run against
//! both, so code tested against the memory store holds on SQLite.
//!
//! ```
//! use tool_std::prompt::{AgentStore, PromptField, SqliteAgentStore, StoreError};
//!
//! # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
//! let dir = tempfile::tempdir()?;
//! let store = SqliteAgentStore::open(dir.path().join("agents.db")).await?;
//! let sage = store.get_or_create("default", "Sage").await?;
//! let oracle = store.get_or_create("default", "Oracle").await?;
//!
//! let err = store.update_field(oracle.id, PromptField::Name, "Sage").await.unwrap_err();
//! assert!(matches!(err, StoreError::NameTaken { .. }));
//! assert_eq!(
//!     err.to_string(),
//!     "name 'Sage' is already taken in account 'default'; choose another name"
//! );
//! # let _ = sage;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod context;
pub mod memory;
pub mod migrate;
#[cfg(feature = "postgres")]
pub mod postgres;
pub mod sqlite;
pub mod store;
pub mod tool;

pub use context::{AgentRef, PromptContext};

pub use memory::MemoryAgentStore;
pub use migrate::{
    AgentChange, Direction, MigrationReport, RenameError, STANDARD_RENAMES, ToolRenames,
    migrate_enabled_tools, preview_enabled_tools,
};
#[cfg(feature = "postgres")]
pub use postgres::PostgresAgentStore;
pub use sqlite::SqliteAgentStore;
pub use store::{
    Agent, AgentStore, MAX_FORMER_NAMES, MAX_MEMORY_REFLECTION_PROMPT_CHARS, MAX_NAME_CHARS,
    MAX_REFLECTION_PROMPT_CHARS, MAX_SYSTEM_PROMPT_CHARS, NewAgent, PromptField, StoreError,
    SwapOutcome,
};
pub use tool::{NOT_SET, PromptManager, PromptType, UpdateResult, ViewResult};
