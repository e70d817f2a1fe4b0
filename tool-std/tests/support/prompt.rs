//! What the prompt tests share. For the stores: a fresh SQLite store in a temporary directory, a
//! compare-and-set append, a memory store whose writes a test can make misbehave, and
//! `both_stores!`, which runs each behaviour (written once, against `&dyn AgentStore`) on a
//! fresh memory store and on a fresh SQLite file. For the `prompt_manager` tool: a [`Fixture`]
//! holding seed 000's agent on the memory store or on a real SQLite file in a temporary
//! directory, the calls a model makes, the checks of their answers, and `both!`, which runs a
//! behaviour on each backend.

use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};
use tempfile::TempDir;
use tool_core::{CallOutcome, ErrorKind, Registry, Runtime, RuntimeBuilder, Session, ToolCall};
use tool_std::prompt::{
    Agent, AgentStore, MemoryAgentStore, NewAgent, PromptContext, PromptField, PromptManager,
    SqliteAgentStore, StoreError, SwapOutcome, UpdateResult, ViewResult,
};

// The stores.

/// Appends `tool` to the agent's list with a compare-and-set loop.
pub(crate) async fn append_tool(store: &dyn AgentStore, id: i64, tool: String) {
    let mut current = store.get_by_id(id).await.unwrap().unwrap();
    loop {
        let mut next = current.enabled_tools.clone();
        next.push(tool.clone());
        match store
            .compare_and_set_enabled_tools(id, &current.enabled_tools, &next)
            .await
            .unwrap()
        {
            SwapOutcome::Swapped(_) => return,
            SwapOutcome::Stale(latest) => current = latest,
        }
    }
}

pub(crate) fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// `50000` as `"50,000"`, for the expected messages.
pub(crate) fn group(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

pub(crate) async fn sqlite_store() -> (TempDir, SqliteAgentStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteAgentStore::open(dir.path().join("agents.db"))
        .await
        .unwrap();
    (dir, store)
}

/// A fresh Postgres database with the agent tables, and what keeps it alive; `None` (printed)
/// where no Postgres server can be had.
#[cfg(feature = "postgres")]
pub(crate) async fn postgres_store(
    test: &str,
) -> Option<(
    tool_core::testing::postgres::TestDatabase,
    tool_std::prompt::PostgresAgentStore,
)> {
    use tool_core::postgres::{PostgresConfig, PostgresStore};
    let db = match tool_core::testing::postgres::TestDatabase::create().await {
        Ok(db) => db,
        Err(why) => {
            eprintln!("skipping {test} on Postgres: {why}");
            return None;
        }
    };
    let shared = PostgresStore::connect(db.url(), PostgresConfig::default().pool_size(8))
        .await
        .expect("the Postgres store connects");
    let store = tool_std::prompt::PostgresAgentStore::open(&shared)
        .await
        .expect("the agent tables are made");
    Some((db, store))
}

/// Runs each behaviour against a fresh memory store, a fresh SQLite file and (feature
/// `postgres`) a fresh Postgres database.
macro_rules! both_stores {
    (borrowed: [$($name:ident),* $(,)?], shared: [$($shared:ident),* $(,)?]) => {
        mod memory {
            use super::*;
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $name() {
                    behaviour::$name(&::tool_std::prompt::MemoryAgentStore::new()).await;
                }
            )*
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $shared() {
                    behaviour::$shared(::std::sync::Arc::new(::tool_std::prompt::MemoryAgentStore::new())).await;
                }
            )*
        }
        mod sqlite {
            use super::*;
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $name() {
                    let (_dir, store) = crate::support::prompt::sqlite_store().await;
                    behaviour::$name(&store).await;
                }
            )*
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $shared() {
                    let (_dir, store) = crate::support::prompt::sqlite_store().await;
                    behaviour::$shared(::std::sync::Arc::new(store)).await;
                }
            )*
        }
        #[cfg(feature = "postgres")]
        mod postgres {
            use super::*;
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $name() {
                    let Some((_db, store)) =
                        crate::support::prompt::postgres_store(stringify!($name)).await
                    else {
                        return;
                    };
                    behaviour::$name(&store).await;
                }
            )*
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $shared() {
                    let Some((_db, store)) =
                        crate::support::prompt::postgres_store(stringify!($shared)).await
                    else {
                        return;
                    };
                    behaviour::$shared(::std::sync::Arc::new(store)).await;
                }
            )*
        }
    };
}

pub(crate) use both_stores;

/// A memory store whose writes a test can make misbehave: `hooks` stands in for the writes
/// it overrides; every other call goes to the memory store.
pub(crate) struct Hooked<H> {
    pub(crate) inner: MemoryAgentStore,
    pub(crate) hooks: H,
}

impl<H> Hooked<H> {
    pub(crate) fn new(hooks: H) -> Hooked<H> {
        Hooked {
            inner: MemoryAgentStore::new(),
            hooks,
        }
    }
}

/// The writes of a [`Hooked`] store; by default, those of its memory store.
#[async_trait]
pub(crate) trait Hooks: Send + Sync {
    async fn update_field(
        &self,
        inner: &MemoryAgentStore,
        id: i64,
        field: PromptField,
        value: &str,
    ) -> Result<Agent, StoreError> {
        inner.update_field(id, field, value).await
    }

    async fn compare_and_set_enabled_tools(
        &self,
        inner: &MemoryAgentStore,
        id: i64,
        expected: &[String],
        new: &[String],
    ) -> Result<SwapOutcome, StoreError> {
        inner.compare_and_set_enabled_tools(id, expected, new).await
    }
}

#[async_trait]
impl<H: Hooks> AgentStore for Hooked<H> {
    async fn get_by_id(&self, id: i64) -> Result<Option<Agent>, StoreError> {
        self.inner.get_by_id(id).await
    }
    async fn get_by_name(&self, account: &str, name: &str) -> Result<Option<Agent>, StoreError> {
        self.inner.get_by_name(account, name).await
    }
    async fn create(&self, agent: NewAgent) -> Result<Agent, StoreError> {
        self.inner.create(agent).await
    }
    async fn list(&self) -> Result<Vec<Agent>, StoreError> {
        self.inner.list().await
    }
    async fn update_field(
        &self,
        id: i64,
        field: PromptField,
        value: &str,
    ) -> Result<Agent, StoreError> {
        self.hooks.update_field(&self.inner, id, field, value).await
    }
    async fn set_enabled_tools(&self, id: i64, tools: &[String]) -> Result<Agent, StoreError> {
        self.inner.set_enabled_tools(id, tools).await
    }
    async fn compare_and_set_enabled_tools(
        &self,
        id: i64,
        expected: &[String],
        new: &[String],
    ) -> Result<SwapOutcome, StoreError> {
        self.hooks
            .compare_and_set_enabled_tools(&self.inner, id, expected, new)
            .await
    }
}

// The `prompt_manager` tool.

pub(crate) const ALLOWED_ACTIONS: [&str; 2] = ["view", "update"];

pub(crate) const ALLOWED_PROMPT_TYPES: [&str; 4] = [
    "system",
    "conversation_consolidation",
    "memory_management",
    "name",
];

/// A store holding seed 000's agent: Sage, with the three original prompts.
pub(crate) struct Fixture {
    pub(crate) store: Arc<dyn AgentStore>,
    pub(crate) agent: Agent,
    /// The SQLite file, to reopen it; `None` for the memory store.
    pub(crate) path: Option<PathBuf>,
    pub(crate) _dir: Option<TempDir>,
}

#[derive(Clone, Copy)]
pub(crate) enum Backend {
    Memory,
    Sqlite,
}

impl Fixture {
    pub(crate) async fn new(backend: Backend) -> Fixture {
        let (store, path, dir): (Arc<dyn AgentStore>, _, _) = match backend {
            Backend::Memory => (Arc::new(MemoryAgentStore::new()), None, None),
            Backend::Sqlite => {
                let dir = tempfile::tempdir().unwrap();
                let path = dir.path().join("agents.db");
                let store = SqliteAgentStore::open(&path).await.unwrap();
                (Arc::new(store), Some(path), Some(dir))
            }
        };
        let agent = store
            .create(
                NewAgent::new("default", "Sage")
                    .with_system_prompt("Original system prompt")
                    .with_reflection_prompt("Original reflection prompt")
                    .with_memory_reflection_prompt("Original memory prompt")
                    .with_enabled_tools(["prompt_manager"]),
            )
            .await
            .unwrap();
        Fixture {
            store,
            agent,
            path,
            _dir: dir,
        }
    }

    /// A context for the seed's setup: Sage, in a group conversation.
    pub(crate) fn context(&self) -> PromptContext {
        PromptContext::new(self.store.clone())
            .with_agent(&self.agent)
            .require_group_conversation(true)
    }

    /// A session over the seed's setup and the runtime's defaults.
    pub(crate) fn session(&self) -> Session {
        session_with(self.context())
    }

    /// A session whose host marks turns (an agent loop's): identical calls of a turn run once.
    pub(crate) fn turn_session(&self) -> Session {
        builder()
            .service(Arc::new(self.context()))
            .build()
            .session_with(tool_core::SessionConfig::default().turns(true))
    }

    /// The agent as the store has it now.
    pub(crate) async fn reload(&self) -> Agent {
        self.store
            .get_by_id(self.agent.id)
            .await
            .unwrap()
            .expect("the agent is still there")
    }

    /// The agent as a fresh connection to the same SQLite file reads it; the store's view
    /// for the memory store.
    pub(crate) async fn reload_from_disk(&self) -> Agent {
        match &self.path {
            Some(path) => SqliteAgentStore::open(path)
                .await
                .unwrap()
                .get_by_id(self.agent.id)
                .await
                .unwrap()
                .expect("the agent is on disk"),
            None => self.reload().await,
        }
    }
}

pub(crate) fn registry() -> Registry {
    super::registry_of(PromptManager)
}

pub(crate) fn builder() -> RuntimeBuilder {
    Runtime::builder(registry())
}

pub(crate) fn session_with(context: PromptContext) -> Session {
    builder().service(Arc::new(context)).build().session()
}

pub(crate) async fn call(session: &Session, arguments: Value) -> CallOutcome {
    call_as(session, "prompt_manager", arguments).await
}

pub(crate) async fn call_as(session: &Session, name: &str, arguments: Value) -> CallOutcome {
    // A new turn per call, so the redundancy check never answers from an earlier call.
    session.clear_current_turn();
    session.call(ToolCall::new("call", name, arguments)).await
}

pub(crate) fn view(prompt_type: &str) -> Value {
    json!({"action": "view", "prompt_type": prompt_type})
}

pub(crate) fn update(prompt_type: &str, content: &str) -> Value {
    json!({"action": "update", "prompt_type": prompt_type, "content": content})
}

pub(crate) fn view_result(out: &CallOutcome) -> ViewResult {
    assert!(out.is_success(), "{}", out.to_json());
    serde_json::from_value(out.to_json()).unwrap()
}

pub(crate) fn update_result(out: &CallOutcome) -> UpdateResult {
    assert!(out.is_success(), "{}", out.to_json());
    serde_json::from_value(out.to_json()).unwrap()
}

/// The error's JSON form, after checking its kind.
pub(crate) fn error(out: &CallOutcome, kind: ErrorKind) -> Value {
    let err = out
        .error()
        .unwrap_or_else(|| panic!("expected an error: {}", out.to_json()));
    assert_eq!(err.kind(), kind, "{}", out.to_json());
    out.to_json()
}

/// A validation error carrying both allowed lists in seed order.
pub(crate) fn validation_error(out: &CallOutcome) -> Value {
    let json = error(out, ErrorKind::ValidationError);
    assert_eq!(json["type"], "error");
    assert_eq!(json["allowed_actions"], json!(ALLOWED_ACTIONS), "{json}");
    assert_eq!(
        json["allowed_prompt_types"],
        json!(ALLOWED_PROMPT_TYPES),
        "{json}"
    );
    assert_eq!(
        json["allowed_values"],
        json!({"action": ALLOWED_ACTIONS, "prompt_type": ALLOWED_PROMPT_TYPES}),
        "{json}"
    );
    json
}

/// Runs a behaviour on the memory store and on a SQLite file.
macro_rules! both {
    ($($name:ident),* $(,)?) => {
        mod memory {
            $(
                #[tokio::test]
                async fn $name() {
                    super::behaviour::$name(super::Backend::Memory).await;
                }
            )*
        }
        mod sqlite {
            $(
                #[tokio::test]
                async fn $name() {
                    super::behaviour::$name(super::Backend::Sqlite).await;
                }
            )*
        }
    };
}

pub(crate) use both;
