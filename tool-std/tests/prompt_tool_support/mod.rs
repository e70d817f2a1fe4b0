//! What the `prompt_tool_*` tests share: a [`Fixture`] holding seed 000's agent on the memory
//! store or on a real SQLite file in a temporary directory, the calls a model makes, the
//! checks of their answers, and `both!`, which runs a behaviour on each backend.
#![allow(dead_code, unreachable_pub)]

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{Value, json};
use tempfile::TempDir;
use tool_core::{CallOutcome, ErrorKind, Registry, Runtime, RuntimeBuilder, Session, ToolCall};
use tool_std::prompt::{
    Agent, AgentStore, MemoryAgentStore, NewAgent, PromptContext, PromptManager, SqliteAgentStore,
    UpdateResult, ViewResult,
};

pub const ALLOWED_ACTIONS: [&str; 2] = ["view", "update"];

pub const ALLOWED_PROMPT_TYPES: [&str; 4] = [
    "system",
    "conversation_consolidation",
    "memory_management",
    "name",
];

/// A store holding seed 000's agent: Sage, with the three original prompts.
pub struct Fixture {
    pub store: Arc<dyn AgentStore>,
    pub agent: Agent,
    /// The SQLite file, to reopen it; `None` for the memory store.
    pub path: Option<PathBuf>,
    pub _dir: Option<TempDir>,
}

#[derive(Clone, Copy)]
pub enum Backend {
    Memory,
    Sqlite,
}

impl Fixture {
    pub async fn new(backend: Backend) -> Fixture {
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
    pub fn context(&self) -> PromptContext {
        PromptContext::new(self.store.clone())
            .with_agent(&self.agent)
            .require_group_conversation(true)
    }

    /// A session over the seed's setup and the runtime's defaults.
    pub fn session(&self) -> Session {
        session_with(self.context())
    }

    /// The agent as the store has it now.
    pub async fn reload(&self) -> Agent {
        self.store
            .get_by_id(self.agent.id)
            .await
            .unwrap()
            .expect("the agent is still there")
    }

    /// The agent as a fresh connection to the same SQLite file reads it; the store's view
    /// for the memory store.
    pub async fn reload_from_disk(&self) -> Agent {
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

pub fn registry() -> Registry {
    Registry::builder().register(PromptManager).build().unwrap()
}

pub fn builder() -> RuntimeBuilder {
    Runtime::builder(registry())
}

pub fn session_with(context: PromptContext) -> Session {
    builder().service(Arc::new(context)).build().session()
}

pub async fn call(session: &Session, arguments: Value) -> CallOutcome {
    call_as(session, "prompt_manager", arguments).await
}

pub async fn call_as(session: &Session, name: &str, arguments: Value) -> CallOutcome {
    // A new turn per call, so the redundancy check never answers from an earlier call.
    session.clear_current_turn();
    session.call(ToolCall::new("call", name, arguments)).await
}

pub fn view(prompt_type: &str) -> Value {
    json!({"action": "view", "prompt_type": prompt_type})
}

pub fn update(prompt_type: &str, content: &str) -> Value {
    json!({"action": "update", "prompt_type": prompt_type, "content": content})
}

pub fn view_result(out: &CallOutcome) -> ViewResult {
    assert!(out.is_success(), "{}", out.to_json());
    serde_json::from_value(out.to_json()).unwrap()
}

pub fn update_result(out: &CallOutcome) -> UpdateResult {
    assert!(out.is_success(), "{}", out.to_json());
    serde_json::from_value(out.to_json()).unwrap()
}

/// The error's JSON form, after checking its kind.
pub fn error(out: &CallOutcome, kind: ErrorKind) -> Value {
    let err = out
        .error()
        .unwrap_or_else(|| panic!("expected an error: {}", out.to_json()));
    assert_eq!(err.kind(), kind, "{}", out.to_json());
    out.to_json()
}

/// A validation error carrying both allowed lists in seed order.
pub fn validation_error(out: &CallOutcome) -> Value {
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

pub fn message(json: &Value) -> &str {
    json["error"].as_str().unwrap()
}

/// Runs a behaviour on the memory store and on a SQLite file.
#[allow(unused_macros)]
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

#[allow(unused_imports)]
pub(crate) use both;
