//! What the host tells the `prompt_manager` tool: the store, whose prompts, and where.
//!
//! The tool has no state of its own. Everything it needs comes from one host service, a
//! [`PromptContext`], injected with [`tool_core::RuntimeBuilder::service`] (one context for
//! every conversation, as the command line does) or [`tool_core::SessionConfig::service`] (one
//! per conversation, which shadows the runtime's):
//!
//! - the [`AgentStore`] the prompts live in;
//! - the *current agent*, the one whose prompts the model views and edits, as an
//!   [`AgentRef`] (an id, or an account and a name); without one every call is answered
//!   "No current agent context", as in seed 000;
//! - optionally, seed 000's group-conversation rule: a host that enables it with
//!   [`PromptContext::require_group_conversation`] says whether this conversation is a group
//!   conversation, and outside one every call is answered "This tool only works in group
//!   conversations".
//!
//! ```
//! use std::sync::Arc;
//! use tool_std::prompt::{AgentRef, MemoryAgentStore, PromptContext};
//!
//! let store = Arc::new(MemoryAgentStore::new());
//! let context = PromptContext::new(store)
//!     .with_agent(AgentRef::named("default", "Sage"))
//!     .require_group_conversation(true);
//! assert_eq!(context.group_conversation(), Some(true));
//! ```

use std::fmt;
use std::sync::{Arc, OnceLock};

use tool_core::ToolError;

use super::store::{Agent, AgentStore};

/// Which agent a conversation speaks as: the one whose prompts `prompt_manager` edits.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AgentRef {
    /// The agent with this store id.
    Id(i64),
    /// The agent called `name` in `account`.
    ///
    /// It is looked up on the first call and followed by id from then on, so renaming it
    /// (`prompt_type: "name"`) does not lose it. It must exist: the tool never creates agents
    /// (a host that wants that calls [`AgentStore::get_or_create`] and passes the id).
    Named {
        /// The account the agent belongs to.
        account: String,
        /// The agent's name when the conversation started.
        name: String,
    },
}

impl AgentRef {
    /// The agent called `name` in `account`.
    pub fn named(account: impl Into<String>, name: impl Into<String>) -> Self {
        AgentRef::Named {
            account: account.into(),
            name: name.into(),
        }
    }
}

impl From<i64> for AgentRef {
    fn from(id: i64) -> Self {
        AgentRef::Id(id)
    }
}

impl From<&Agent> for AgentRef {
    fn from(agent: &Agent) -> Self {
        AgentRef::Id(agent.id)
    }
}

impl fmt::Display for AgentRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AgentRef::Id(id) => write!(f, "agent {id}"),
            AgentRef::Named { account, name } => {
                write!(f, "agent '{name}' of account '{account}'")
            }
        }
    }
}

/// The host service the `prompt_manager` tool reads: the store, the current agent and the
/// optional group-conversation rule. See the [module documentation](self).
#[derive(Clone)]
pub struct PromptContext {
    store: Arc<dyn AgentStore>,
    agent: Option<AgentRef>,
    group_conversation: Option<bool>,
    /// The id a [`AgentRef::Named`] resolved to on first use.
    pinned: Arc<OnceLock<i64>>,
}

impl fmt::Debug for PromptContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PromptContext")
            .field("agent", &self.agent)
            .field("group_conversation", &self.group_conversation)
            .field("pinned", &self.pinned.get())
            .finish_non_exhaustive()
    }
}

impl PromptContext {
    /// A context over `store` with no current agent and no group-conversation rule.
    pub fn new(store: Arc<dyn AgentStore>) -> Self {
        PromptContext {
            store,
            agent: None,
            group_conversation: None,
            pinned: Arc::new(OnceLock::new()),
        }
    }

    /// Sets the current agent: an [`AgentRef`], an id, or an [`Agent`] by reference.
    pub fn with_agent(mut self, agent: impl Into<AgentRef>) -> Self {
        self.agent = Some(agent.into());
        self.pinned = Arc::new(OnceLock::new());
        self
    }

    /// Enables seed 000's group-conversation rule and says whether this conversation is a
    /// group conversation. With the rule on and `false`, every call is refused with "This tool
    /// only works in group conversations". Without this call the rule is off.
    pub fn require_group_conversation(mut self, is_group_conversation: bool) -> Self {
        self.group_conversation = Some(is_group_conversation);
        self
    }

    /// The store.
    pub fn store(&self) -> &Arc<dyn AgentStore> {
        &self.store
    }

    /// The current agent, if the host set one.
    pub fn agent(&self) -> Option<&AgentRef> {
        self.agent.as_ref()
    }

    /// `None` when the group-conversation rule is off, else whether this conversation is one.
    pub fn group_conversation(&self) -> Option<bool> {
        self.group_conversation
    }

    /// Checks the context's preconditions (group conversation, current agent) and reads the
    /// current agent from the store, as every `prompt_manager` call starts.
    ///
    /// Errors: `user_error` "This tool only works in group conversations" and "No current
    /// agent context" (seed 000's context errors); `system_error` when the agent named by the
    /// host is not in the store or the store fails.
    pub async fn current_agent(&self) -> Result<Agent, ToolError> {
        if self.group_conversation == Some(false) {
            return Err(ToolError::user(
                "This tool only works in group conversations",
            ));
        }
        let Some(agent_ref) = &self.agent else {
            return Err(ToolError::user("No current agent context").with_suggestion(
                "This conversation is not attached to an agent; ask the user to select one.",
            ));
        };
        let found = match (agent_ref, self.pinned.get()) {
            (AgentRef::Id(id), _) | (AgentRef::Named { .. }, Some(id)) => {
                self.store.get_by_id(*id).await
            }
            (AgentRef::Named { account, name }, None) => {
                self.store.get_by_name(account, name).await
            }
        };
        match found {
            Ok(Some(agent)) => {
                // First resolution of a name wins; later ones agree or follow the id.
                let _ = self.pinned.set(agent.id);
                Ok(agent)
            }
            Ok(None) => Err(ToolError::system(format!(
                "the current agent ({agent_ref}) is not in the agent store"
            ))),
            Err(e) => Err(ToolError::system(e.to_string())),
        }
    }
}
