//! [`MemoryAgentStore`]: agents kept in process memory, for tests and short-lived hosts.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use async_trait::async_trait;

use super::store::{
    Agent, AgentStore, MAX_FORMER_NAMES, NewAgent, PromptField, StoreError, SwapOutcome,
};

/// An [`AgentStore`] in process memory; nothing survives the process.
///
/// It enforces exactly the rules of the SQLite store (limits, unique names per account, atomic
/// updates), so tests written against it hold for the persistent store too. Clones share the
/// same agents. Ids start at 1 and are never reused.
#[derive(Debug, Clone, Default)]
pub struct MemoryAgentStore {
    state: Arc<Mutex<State>>,
}

#[derive(Debug, Default)]
struct State {
    last_id: i64,
    agents: BTreeMap<i64, Agent>,
    /// `(account, former name)` to `(agent id, rename sequence number)`.
    former_names: HashMap<(String, String), (i64, u64)>,
    last_rename: u64,
}

impl State {
    fn name_owner(&self, account: &str, name: &str) -> Option<&Agent> {
        self.agents
            .values()
            .find(|agent| agent.account == account && agent.name == name)
    }

    fn former_owner(&self, account: &str, name: &str) -> Option<&Agent> {
        let (id, _) = self
            .former_names
            .get(&(account.to_owned(), name.to_owned()))?;
        self.agents.get(id)
    }

    /// Records that agent `id` was called `old` in `account` before it was renamed to `new`.
    fn record_rename(&mut self, id: i64, account: &str, old: &str, new: &str) {
        self.former_names
            .remove(&(account.to_owned(), new.to_owned()));
        self.last_rename += 1;
        self.former_names
            .insert((account.to_owned(), old.to_owned()), (id, self.last_rename));
        let mut mine: Vec<(u64, (String, String))> = self
            .former_names
            .iter()
            .filter(|(_, (owner, _))| *owner == id)
            .map(|(key, (_, seq))| (*seq, key.clone()))
            .collect();
        if mine.len() > MAX_FORMER_NAMES {
            mine.sort_unstable_by_key(|(seq, _)| *seq);
            for (_, key) in &mine[..mine.len() - MAX_FORMER_NAMES] {
                self.former_names.remove(key);
            }
        }
    }

    fn insert(&mut self, agent: NewAgent) -> Result<Agent, StoreError> {
        agent.validate()?;
        if self.name_owner(&agent.account, &agent.name).is_some() {
            return Err(StoreError::NameTaken {
                account: agent.account,
                name: agent.name,
            });
        }
        let id = self.last_id.checked_add(1).ok_or_else(|| {
            StoreError::backend("creating an agent", "no agent ids left in this store")
        })?;
        self.last_id = id;
        self.former_names
            .remove(&(agent.account.clone(), agent.name.clone()));
        let agent = agent.into_agent(id);
        self.agents.insert(id, agent.clone());
        Ok(agent)
    }

    fn agent_mut(&mut self, id: i64) -> Result<&mut Agent, StoreError> {
        self.agents.get_mut(&id).ok_or(StoreError::NotFound { id })
    }
}

impl MemoryAgentStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // No code path panics while holding the lock, and every mutation is a single assignment
        // made after all checks, so even a poisoned state is consistent.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[async_trait]
impl AgentStore for MemoryAgentStore {
    async fn get_by_id(&self, id: i64) -> Result<Option<Agent>, StoreError> {
        Ok(self.lock().agents.get(&id).cloned())
    }

    async fn get_by_name(&self, account: &str, name: &str) -> Result<Option<Agent>, StoreError> {
        Ok(self.lock().name_owner(account, name).cloned())
    }

    async fn get_by_former_name(
        &self,
        account: &str,
        name: &str,
    ) -> Result<Option<Agent>, StoreError> {
        Ok(self.lock().former_owner(account, name).cloned())
    }

    async fn create(&self, agent: NewAgent) -> Result<Agent, StoreError> {
        self.lock().insert(agent)
    }

    async fn get_or_create(&self, account: &str, name: &str) -> Result<Agent, StoreError> {
        let mut state = self.lock();
        if let Some(agent) = state
            .name_owner(account, name)
            .or_else(|| state.former_owner(account, name))
        {
            return Ok(agent.clone());
        }
        state.insert(NewAgent::new(account, name))
    }

    async fn list(&self) -> Result<Vec<Agent>, StoreError> {
        Ok(self.lock().agents.values().cloned().collect())
    }

    async fn update_field(
        &self,
        id: i64,
        field: PromptField,
        value: &str,
    ) -> Result<Agent, StoreError> {
        field.validate(value)?;
        let mut state = self.lock();
        let account = state.agent_mut(id)?.account.clone();
        if field == PromptField::Name
            && state
                .name_owner(&account, value)
                .is_some_and(|owner| owner.id != id)
        {
            return Err(StoreError::NameTaken {
                account,
                name: value.to_owned(),
            });
        }
        let old_name = state.agent_mut(id)?.name.clone();
        if field == PromptField::Name && old_name != value {
            state.record_rename(id, &account, &old_name, value);
        }
        let agent = state.agent_mut(id)?;
        let value = value.to_owned();
        match field {
            PromptField::SystemPrompt => agent.system_prompt = Some(value),
            PromptField::ReflectionPrompt => agent.reflection_prompt = Some(value),
            PromptField::MemoryReflectionPrompt => agent.memory_reflection_prompt = Some(value),
            PromptField::Name => agent.name = value,
        }
        Ok(agent.clone())
    }

    async fn set_enabled_tools(&self, id: i64, tools: &[String]) -> Result<Agent, StoreError> {
        let mut state = self.lock();
        let agent = state.agent_mut(id)?;
        agent.enabled_tools = tools.to_vec();
        Ok(agent.clone())
    }

    async fn compare_and_set_enabled_tools(
        &self,
        id: i64,
        expected: &[String],
        new: &[String],
    ) -> Result<SwapOutcome, StoreError> {
        let mut state = self.lock();
        let agent = state.agent_mut(id)?;
        if agent.enabled_tools != expected {
            return Ok(SwapOutcome::Stale(agent.clone()));
        }
        agent.enabled_tools = new.to_vec();
        Ok(SwapOutcome::Swapped(agent.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block_on<F: std::future::Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a current-thread runtime")
            .block_on(future)
    }

    #[test]
    fn ids_count_up_from_one() {
        block_on(async {
            let store = MemoryAgentStore::new();
            let a = store.create(NewAgent::new("x", "a")).await.unwrap();
            let b = store.create(NewAgent::new("x", "b")).await.unwrap();
            assert_eq!((a.id, b.id), (1, 2));
        });
    }

    #[test]
    fn a_refused_rename_changes_nothing() {
        block_on(async {
            let store = MemoryAgentStore::new();
            let a = store.create(NewAgent::new("x", "a")).await.unwrap();
            store.create(NewAgent::new("x", "b")).await.unwrap();
            let err = store
                .update_field(a.id, PromptField::Name, "b")
                .await
                .unwrap_err();
            assert!(matches!(err, StoreError::NameTaken { .. }));
            assert_eq!(store.get_by_id(a.id).await.unwrap().unwrap().name, "a");
        });
    }

    #[test]
    fn clones_share_agents() {
        block_on(async {
            let store = MemoryAgentStore::new();
            let clone = store.clone();
            store.get_or_create("x", "a").await.unwrap();
            assert_eq!(clone.list().await.unwrap().len(), 1);
        });
    }
}
