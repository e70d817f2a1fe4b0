//! The `prompt_manager` tool through the runtime, as a model calls it.
//!
//! Seed 000's PromptManagerTool test plan, ported, plus what the issue adds: aliases,
//! permissions, the approval override for `update` alone, the store's refusals surfaced as
//! user errors, the exact input schema, and the tool-name renames read from the registry.
//!
//! Every behaviour is written once, against a [`Fixture`], and runs on the memory store and on
//! a real SQLite file in a temporary directory (`both!`).

use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};
use tempfile::TempDir;
use tool_core::{
    ApproveAll, CallOutcome, ErrorKind, Permission, PermissionSet, Registry, Runtime,
    RuntimeBuilder, Session, SessionConfig, ToolCall,
};
use tool_std::prompt::{
    Agent, AgentRef, AgentStore, Direction, MemoryAgentStore, NewAgent, PromptContext, PromptField,
    PromptManager, STANDARD_RENAMES, SqliteAgentStore, StoreError, SwapOutcome, ToolRenames,
    UpdateResult, ViewResult, migrate_enabled_tools,
};

const ALLOWED_ACTIONS: [&str; 2] = ["view", "update"];
const ALLOWED_PROMPT_TYPES: [&str; 4] = [
    "system",
    "conversation_consolidation",
    "memory_management",
    "name",
];

/// A store holding seed 000's agent: Sage, with the three original prompts.
struct Fixture {
    store: Arc<dyn AgentStore>,
    agent: Agent,
    /// The SQLite file, to reopen it; `None` for the memory store.
    path: Option<PathBuf>,
    _dir: Option<TempDir>,
}

#[derive(Clone, Copy)]
enum Backend {
    Memory,
    Sqlite,
}

impl Fixture {
    async fn new(backend: Backend) -> Fixture {
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
    fn context(&self) -> PromptContext {
        PromptContext::new(self.store.clone())
            .with_agent(&self.agent)
            .require_group_conversation(true)
    }

    /// A session over the seed's setup and the runtime's defaults.
    fn session(&self) -> Session {
        session_with(self.context())
    }

    /// The agent as the store has it now.
    async fn reload(&self) -> Agent {
        self.store
            .get_by_id(self.agent.id)
            .await
            .unwrap()
            .expect("the agent is still there")
    }

    /// The agent as a fresh connection to the same SQLite file reads it; the store's view
    /// for the memory store.
    async fn reload_from_disk(&self) -> Agent {
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

fn registry() -> Registry {
    Registry::builder().register(PromptManager).build().unwrap()
}

fn builder() -> RuntimeBuilder {
    Runtime::builder(registry())
}

fn session_with(context: PromptContext) -> Session {
    builder().service(Arc::new(context)).build().session()
}

async fn call(session: &Session, arguments: Value) -> CallOutcome {
    call_as(session, "prompt_manager", arguments).await
}

async fn call_as(session: &Session, name: &str, arguments: Value) -> CallOutcome {
    // A new turn per call, so the redundancy check never answers from an earlier call.
    session.clear_current_turn();
    session.call(ToolCall::new("call", name, arguments)).await
}

fn view(prompt_type: &str) -> Value {
    json!({"action": "view", "prompt_type": prompt_type})
}

fn update(prompt_type: &str, content: &str) -> Value {
    json!({"action": "update", "prompt_type": prompt_type, "content": content})
}

fn view_result(out: &CallOutcome) -> ViewResult {
    assert!(out.is_success(), "{}", out.to_json());
    serde_json::from_value(out.to_json()).unwrap()
}

fn update_result(out: &CallOutcome) -> UpdateResult {
    assert!(out.is_success(), "{}", out.to_json());
    serde_json::from_value(out.to_json()).unwrap()
}

/// The error's JSON form, after checking its kind.
fn error(out: &CallOutcome, kind: ErrorKind) -> Value {
    let err = out
        .error()
        .unwrap_or_else(|| panic!("expected an error: {}", out.to_json()));
    assert_eq!(err.kind(), kind, "{}", out.to_json());
    out.to_json()
}

/// A validation error carrying both allowed lists in seed order.
fn validation_error(out: &CallOutcome) -> Value {
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

fn message(json: &Value) -> &str {
    json["error"].as_str().unwrap()
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

both!(
    view_system_prompt_returns_current_value,
    view_conversation_consolidation_returns_reflection_prompt,
    view_memory_management_returns_memory_reflection_prompt,
    view_name_returns_agent_name,
    view_returns_not_set_for_nil_values,
    update_system_prompt_changes_value,
    update_conversation_consolidation_changes_reflection_prompt,
    update_memory_management_changes_memory_reflection_prompt,
    update_name_changes_agent_name,
    invalid_action_returns_error_with_allowed_values,
    invalid_prompt_type_returns_error_with_allowed_values,
    update_without_content_returns_error,
    returns_error_without_group_chat_context,
    returns_error_without_agent_context,
    every_validation_error_lists_both_allowed_sets,
    name_uniqueness_is_a_user_error_with_the_stores_message,
    length_limits_are_user_errors_with_the_stores_message,
    aliases_resolve_to_prompt_manager,
    a_role_without_manage_prompts_can_view_but_not_update,
    approval_can_be_required_for_update_alone,
    a_named_agent_is_followed_across_a_rename,
);

mod behaviour {
    use super::*;

    // View action (seed 000).

    pub(crate) async fn view_system_prompt_returns_current_value(backend: Backend) {
        let fx = Fixture::new(backend).await;
        let out = call(&fx.session(), view("system")).await;
        assert_eq!(
            out.to_json(),
            json!({
                "type": "view_result",
                "prompt_type": "system",
                "value": "Original system prompt",
                "agent_name": "Sage"
            })
        );
        assert_eq!(view_result(&out).agent_name, fx.agent.name);
    }

    pub(crate) async fn view_conversation_consolidation_returns_reflection_prompt(
        backend: Backend,
    ) {
        let fx = Fixture::new(backend).await;
        let json = call(&fx.session(), view("conversation_consolidation"))
            .await
            .to_json();
        assert_eq!(json["type"], "view_result");
        assert_eq!(json["prompt_type"], "conversation_consolidation");
        assert_eq!(json["value"], "Original reflection prompt");
    }

    pub(crate) async fn view_memory_management_returns_memory_reflection_prompt(backend: Backend) {
        let fx = Fixture::new(backend).await;
        let json = call(&fx.session(), view("memory_management"))
            .await
            .to_json();
        assert_eq!(json["type"], "view_result");
        assert_eq!(json["prompt_type"], "memory_management");
        assert_eq!(json["value"], "Original memory prompt");
    }

    pub(crate) async fn view_name_returns_agent_name(backend: Backend) {
        let fx = Fixture::new(backend).await;
        let json = call(&fx.session(), view("name")).await.to_json();
        assert_eq!(json["type"], "view_result");
        assert_eq!(json["prompt_type"], "name");
        assert_eq!(json["value"], "Sage");
    }

    pub(crate) async fn view_returns_not_set_for_nil_values(backend: Backend) {
        let fx = Fixture::new(backend).await;
        // Never set.
        let blank = fx
            .store
            .create(NewAgent::new("default", "Blank"))
            .await
            .unwrap();
        let session = session_with(PromptContext::new(fx.store.clone()).with_agent(&blank));
        for prompt_type in ["system", "conversation_consolidation", "memory_management"] {
            let out = call(&session, view(prompt_type)).await;
            assert_eq!(view_result(&out).value, "(not set)", "{prompt_type}");
        }
        // Set to nothing (the seed's `presence`: blank is not set).
        for value in ["", "  \n"] {
            fx.store
                .update_field(fx.agent.id, PromptField::SystemPrompt, value)
                .await
                .unwrap();
            let out = call(&fx.session(), view("system")).await;
            assert_eq!(view_result(&out).value, "(not set)");
        }
    }

    // Update action (seed 000), re-read from the store and, for SQLite, from the file.

    async fn update_changes(backend: Backend, prompt_type: &str, content: &str) -> Fixture {
        let fx = Fixture::new(backend).await;
        let out = call(&fx.session(), update(prompt_type, content)).await;
        let result = update_result(&out);
        assert_eq!(out.to_json()["type"], "update_result");
        assert_eq!(out.to_json()["prompt_type"], prompt_type);
        assert!(result.success);
        assert_eq!(result.new_value, content);
        fx
    }

    pub(crate) async fn update_system_prompt_changes_value(backend: Backend) {
        let fx = update_changes(backend, "system", "New system prompt").await;
        assert_eq!(
            fx.reload().await.system_prompt.as_deref(),
            Some("New system prompt")
        );
        assert_eq!(
            fx.reload_from_disk().await.system_prompt.as_deref(),
            Some("New system prompt")
        );
        // The other fields are untouched.
        let agent = fx.reload_from_disk().await;
        assert_eq!(agent.name, "Sage");
        assert_eq!(
            agent.reflection_prompt.as_deref(),
            Some("Original reflection prompt")
        );
    }

    pub(crate) async fn update_conversation_consolidation_changes_reflection_prompt(
        backend: Backend,
    ) {
        let fx = update_changes(backend, "conversation_consolidation", "New reflection").await;
        assert_eq!(
            fx.reload().await.reflection_prompt.as_deref(),
            Some("New reflection")
        );
        assert_eq!(
            fx.reload_from_disk().await.reflection_prompt.as_deref(),
            Some("New reflection")
        );
    }

    pub(crate) async fn update_memory_management_changes_memory_reflection_prompt(
        backend: Backend,
    ) {
        let fx = update_changes(backend, "memory_management", "New memory prompt").await;
        assert_eq!(
            fx.reload().await.memory_reflection_prompt.as_deref(),
            Some("New memory prompt")
        );
        assert_eq!(
            fx.reload_from_disk()
                .await
                .memory_reflection_prompt
                .as_deref(),
            Some("New memory prompt")
        );
    }

    pub(crate) async fn update_name_changes_agent_name(backend: Backend) {
        let fx = update_changes(backend, "name", "New Agent Name").await;
        assert_eq!(fx.reload().await.name, "New Agent Name");
        assert_eq!(fx.reload_from_disk().await.name, "New Agent Name");
        // The answer and later views speak of the new name.
        let out = call(&fx.session(), view("system")).await;
        assert_eq!(view_result(&out).agent_name, "New Agent Name");
    }

    // Validation errors (seed 000).

    pub(crate) async fn invalid_action_returns_error_with_allowed_values(backend: Backend) {
        let fx = Fixture::new(backend).await;
        let out = call(
            &fx.session(),
            json!({"action": "delete", "prompt_type": "system"}),
        )
        .await;
        let json = validation_error(&out);
        assert!(message(&json).contains("Invalid action 'delete'"), "{json}");
    }

    pub(crate) async fn invalid_prompt_type_returns_error_with_allowed_values(backend: Backend) {
        let fx = Fixture::new(backend).await;
        let out = call(&fx.session(), view("invalid")).await;
        let json = validation_error(&out);
        assert!(
            message(&json).contains("Invalid prompt_type 'invalid'"),
            "{json}"
        );
        // Nothing was read or written: the call never reached the tool.
        assert_eq!(fx.reload().await, fx.agent);
    }

    pub(crate) async fn update_without_content_returns_error(backend: Backend) {
        let fx = Fixture::new(backend).await;
        let session = fx.session();
        // Missing (the runtime's per-action rule) and blank (the tool, as the seed's
        // `content.blank?`): the same words either way.
        for arguments in [
            json!({"action": "update", "prompt_type": "system"}),
            update("system", ""),
            update("system", " \t\n"),
        ] {
            let out = call(&session, arguments.clone()).await;
            let json = validation_error(&out);
            assert!(
                message(&json).ends_with(": content is required for update action"),
                "{arguments}: {json}"
            );
            assert_eq!(
                out.error().unwrap().message(),
                "content is required for update action"
            );
            assert_eq!(json["problems"][0]["path"], "/content", "{json}");
            assert!(
                json["example"].as_str().unwrap().contains("content="),
                "{json}"
            );
        }
        // A `null` content is missing too (and not a string, which the schema says as well).
        let out = call(
            &session,
            json!({"action": "update", "prompt_type": "system", "content": null}),
        )
        .await;
        let json = validation_error(&out);
        assert!(
            message(&json).contains("content is required for update action"),
            "{json}"
        );
        assert_eq!(fx.reload().await, fx.agent);
    }

    // Context restrictions (seed 000).

    pub(crate) async fn returns_error_without_group_chat_context(backend: Backend) {
        let fx = Fixture::new(backend).await;
        let not_group = PromptContext::new(fx.store.clone())
            .with_agent(&fx.agent)
            .require_group_conversation(false);
        let session = session_with(not_group);
        for arguments in [view("system"), update("system", "x")] {
            let json = error(&call(&session, arguments).await, ErrorKind::UserError);
            assert!(message(&json).contains("group conversations"), "{json}");
            assert!(
                message(&json).ends_with("This tool only works in group conversations"),
                "{json}"
            );
        }
        assert_eq!(fx.reload().await, fx.agent);
        // The group rule is checked first, as in the seed.
        let neither =
            session_with(PromptContext::new(fx.store.clone()).require_group_conversation(false));
        let json = error(&call(&neither, view("system")).await, ErrorKind::UserError);
        assert!(message(&json).contains("group conversations"), "{json}");
        // With the rule off, any conversation will do.
        let rule_off = session_with(PromptContext::new(fx.store.clone()).with_agent(&fx.agent));
        assert!(call(&rule_off, view("system")).await.is_success());
    }

    pub(crate) async fn returns_error_without_agent_context(backend: Backend) {
        let fx = Fixture::new(backend).await;
        let session =
            session_with(PromptContext::new(fx.store.clone()).require_group_conversation(true));
        for arguments in [view("system"), update("system", "x")] {
            let json = error(&call(&session, arguments).await, ErrorKind::UserError);
            assert!(message(&json).contains("No current agent"), "{json}");
            assert!(
                message(&json).ends_with("No current agent context"),
                "{json}"
            );
        }
    }

    pub(crate) async fn every_validation_error_lists_both_allowed_sets(backend: Backend) {
        let fx = Fixture::new(backend).await;
        let session = fx.session();
        for arguments in [
            json!({}),
            json!({"prompt_type": "system"}),
            json!({"action": "view"}),
            json!({"action": "view", "prompt_type": "System"}),
            json!({"action": "VIEW", "prompt_type": "system"}),
            json!({"action": "delete", "prompt_type": "foo"}),
            json!({"action": "update", "prompt_type": "name", "content": 42}),
            json!({"action": "view", "prompt_type": "system", "content": "x"}),
            json!({"action": "view", "prompt_type": "system", "extra": true}),
            json!({"action": "update", "prompt_type": "nope"}),
        ] {
            let out = call(&session, arguments.clone()).await;
            validation_error(&out);
        }
        let out = session
            .call(ToolCall::new("c", "prompt_manager", "{not json"))
            .await;
        assert_eq!(out.error().unwrap().kind(), ErrorKind::ValidationError);
        assert_eq!(fx.reload().await, fx.agent);
    }

    // Store refusals.

    pub(crate) async fn name_uniqueness_is_a_user_error_with_the_stores_message(backend: Backend) {
        let fx = Fixture::new(backend).await;
        fx.store
            .create(NewAgent::new("default", "Oracle"))
            .await
            .unwrap();
        let out = call(&fx.session(), update("name", "Oracle")).await;
        let json = error(&out, ErrorKind::UserError);
        assert!(
            message(&json).ends_with(
                "Failed to update: name 'Oracle' is already taken in account 'default'; \
                 choose another name"
            ),
            "{json}"
        );
        assert_eq!(json["prompt_type"], "name");
        assert_eq!(fx.reload_from_disk().await.name, "Sage");
        // Renaming to its own name is fine, and so is a name used in another account only.
        fx.store
            .create(NewAgent::new("other", "Elsewhere"))
            .await
            .unwrap();
        assert!(
            call(&fx.session(), update("name", "Sage"))
                .await
                .is_success()
        );
        assert!(
            call(&fx.session(), update("name", "Elsewhere"))
                .await
                .is_success()
        );
        // An empty name is refused by the tool before the store sees it; a blank one too.
        let out = call(&fx.session(), update("name", "   ")).await;
        validation_error(&out);
    }

    pub(crate) async fn length_limits_are_user_errors_with_the_stores_message(backend: Backend) {
        let fx = Fixture::new(backend).await;
        let cases = [
            (
                "system",
                50_001,
                "system prompt is too long: 50,001 characters, the limit is 50,000",
            ),
            (
                "conversation_consolidation",
                10_001,
                "reflection prompt is too long: 10,001 characters, the limit is 10,000",
            ),
            (
                "memory_management",
                10_001,
                "memory reflection prompt is too long: 10,001 characters, the limit is 10,000",
            ),
            (
                "name",
                10_001,
                "name is too long: 10,001 characters, the limit is 10,000",
            ),
        ];
        for (prompt_type, chars, expected) in cases {
            let out = call(&fx.session(), update(prompt_type, &"é".repeat(chars))).await;
            let json = error(&out, ErrorKind::UserError);
            assert!(
                message(&json).ends_with(&format!("Failed to update: {expected}")),
                "{json}"
            );
            assert_eq!(json["prompt_type"], prompt_type);
            // At the limit it is accepted.
            let out = call(&fx.session(), update(prompt_type, &"é".repeat(chars - 1))).await;
            assert!(out.is_success(), "{}", out.to_json());
        }
        assert_eq!(fx.reload_from_disk().await.name, "é".repeat(10_000));
    }

    // What the issue adds.

    pub(crate) async fn aliases_resolve_to_prompt_manager(backend: Backend) {
        let fx = Fixture::new(backend).await;
        let session = fx.session();
        for alias in [
            "view_system_prompt",
            "update_system_prompt",
            "ViewSystemPromptTool",
            "UpdateSystemPromptTool",
            "PromptManagerTool",
        ] {
            let out = call_as(&session, alias, view("system")).await;
            assert_eq!(out.tool, "prompt_manager", "{alias}");
            assert_eq!(view_result(&out).value, "Original system prompt");
        }
        let out = call_as(
            &session,
            "update_system_prompt",
            update("system", "Via alias"),
        )
        .await;
        assert_eq!(update_result(&out).new_value, "Via alias");
        assert_eq!(
            fx.reload_from_disk().await.system_prompt.as_deref(),
            Some("Via alias")
        );
    }

    pub(crate) async fn a_role_without_manage_prompts_can_view_but_not_update(backend: Backend) {
        let fx = Fixture::new(backend).await;
        let runtime = builder().service(Arc::new(fx.context())).build();
        let viewer = runtime.session_with(
            SessionConfig::default()
                .permissions(PermissionSet::EMPTY.with(Permission::ViewPrompts)),
        );
        assert!(call(&viewer, view("system")).await.is_success());
        let out = call(&viewer, update("system", "Not allowed")).await;
        let json = error(&out, ErrorKind::PermissionError);
        assert_eq!(json["missing_permissions"], json!(["manage_prompts"]));
        assert!(message(&json).contains("action `update`"), "{json}");
        assert_eq!(fx.reload_from_disk().await, fx.agent);

        // A role with neither permission cannot view.
        let nobody =
            runtime.session_with(SessionConfig::default().permissions(PermissionSet::EMPTY));
        let json = error(
            &call(&nobody, view("system")).await,
            ErrorKind::PermissionError,
        );
        assert_eq!(json["missing_permissions"], json!(["view_prompts"]));

        // A role with both can update.
        let manager = runtime.session_with(
            SessionConfig::default().permissions(
                PermissionSet::EMPTY
                    .with(Permission::ViewPrompts)
                    .with(Permission::ManagePrompts),
            ),
        );
        assert!(
            call(&manager, update("system", "Allowed"))
                .await
                .is_success()
        );
    }

    pub(crate) async fn approval_can_be_required_for_update_alone(backend: Backend) {
        let fx = Fixture::new(backend).await;
        // By default neither action needs approval, even with the default approver (DenyAll).
        let open = builder().service(Arc::new(fx.context())).build().session();
        assert!(
            call(&open, update("system", "Unattended"))
                .await
                .is_success()
        );

        // A host requires approval for `update` alone: the default approver denies it, and
        // `view` still runs.
        let gated = builder()
            .service(Arc::new(fx.context()))
            .require_approval("prompt_manager", Some("update"))
            .build()
            .session();
        let out = call(&gated, update("system", "Denied")).await;
        error(&out, ErrorKind::ApprovalDenied);
        assert_eq!(
            fx.reload_from_disk().await.system_prompt.as_deref(),
            Some("Unattended")
        );
        assert_eq!(
            view_result(&call(&gated, view("system")).await).value,
            "Unattended"
        );
        // Called by an old name, it is still the same tool's `update`.
        let out = call_as(&gated, "update_system_prompt", update("system", "Denied")).await;
        error(&out, ErrorKind::ApprovalDenied);

        // With an approver that approves, the update runs.
        let approved = builder()
            .service(Arc::new(fx.context()))
            .require_approval("prompt_manager", Some("update"))
            .approver(ApproveAll)
            .build()
            .session();
        assert!(
            call(&approved, update("system", "Approved"))
                .await
                .is_success()
        );
        assert_eq!(
            fx.reload_from_disk().await.system_prompt.as_deref(),
            Some("Approved")
        );
    }

    pub(crate) async fn a_named_agent_is_followed_across_a_rename(backend: Backend) {
        let fx = Fixture::new(backend).await;
        let session = session_with(
            PromptContext::new(fx.store.clone()).with_agent(AgentRef::named("default", "Sage")),
        );
        let out = call(&session, update("name", "Sage II")).await;
        assert_eq!(update_result(&out).agent_name, "Sage II");
        let out = call(&session, view("system")).await;
        assert_eq!(view_result(&out).agent_name, "Sage II");

        // A name that is not in the store is the host's mistake: a system error.
        let missing = session_with(
            PromptContext::new(fx.store.clone()).with_agent(AgentRef::named("default", "Ghost")),
        );
        let json = error(
            &call(&missing, view("system")).await,
            ErrorKind::SystemError,
        );
        assert!(message(&json).contains("'Ghost'"), "{json}");
        let gone = session_with(PromptContext::new(fx.store.clone()).with_agent(999_999));
        error(&call(&gone, view("system")).await, ErrorKind::SystemError);
    }
}

// Single-backend tests.

/// A store whose writes fail as a broken database would.
struct BrokenStore(MemoryAgentStore);

#[async_trait]
impl AgentStore for BrokenStore {
    async fn get_by_id(&self, id: i64) -> Result<Option<Agent>, StoreError> {
        self.0.get_by_id(id).await
    }
    async fn get_by_name(&self, account: &str, name: &str) -> Result<Option<Agent>, StoreError> {
        self.0.get_by_name(account, name).await
    }
    async fn create(&self, agent: NewAgent) -> Result<Agent, StoreError> {
        self.0.create(agent).await
    }
    async fn list(&self) -> Result<Vec<Agent>, StoreError> {
        self.0.list().await
    }
    async fn update_field(&self, _: i64, _: PromptField, _: &str) -> Result<Agent, StoreError> {
        Err(StoreError::backend("updating an agent", "disk I/O error"))
    }
    async fn set_enabled_tools(&self, id: i64, tools: &[String]) -> Result<Agent, StoreError> {
        self.0.set_enabled_tools(id, tools).await
    }
    async fn compare_and_set_enabled_tools(
        &self,
        id: i64,
        expected: &[String],
        new: &[String],
    ) -> Result<SwapOutcome, StoreError> {
        self.0
            .compare_and_set_enabled_tools(id, expected, new)
            .await
    }
}

#[tokio::test]
async fn store_failures_are_system_errors() {
    let store = Arc::new(BrokenStore(MemoryAgentStore::new()));
    let sage = store
        .create(NewAgent::new("default", "Sage"))
        .await
        .unwrap();
    let session = session_with(PromptContext::new(store).with_agent(&sage));
    let out = call(&session, update("system", "x")).await;
    let json = error(&out, ErrorKind::SystemError);
    assert!(
        message(&json).ends_with(
            "Failed to update: the agent store failed while updating an agent: disk I/O error"
        ),
        "{json}"
    );
    assert_eq!(json["prompt_type"], "system");
}

#[tokio::test]
async fn a_host_without_a_prompt_context_gets_a_system_error() {
    let session = builder().build().session();
    let json = error(
        &call(&session, view("system")).await,
        ErrorKind::SystemError,
    );
    assert!(message(&json).contains("PromptContext"), "{json}");
}

#[tokio::test]
async fn a_session_context_shadows_the_runtime_context() {
    let fx = Fixture::new(Backend::Memory).await;
    let oracle = fx
        .store
        .create(NewAgent::new("default", "Oracle").with_system_prompt("You are Oracle."))
        .await
        .unwrap();
    let runtime = builder().service(Arc::new(fx.context())).build();
    let as_sage = runtime.session();
    let as_oracle = runtime.session_with(SessionConfig::default().service(Arc::new(
        PromptContext::new(fx.store.clone()).with_agent(&oracle),
    )));
    assert_eq!(
        view_result(&call(&as_sage, view("system")).await).value,
        "Original system prompt"
    );
    let oracle_view = view_result(&call(&as_oracle, view("system")).await);
    assert_eq!(oracle_view.value, "You are Oracle.");
    assert_eq!(oracle_view.agent_name, "Oracle");
}

#[tokio::test]
async fn sqlite_updates_survive_reopening_the_file() {
    let fx = Fixture::new(Backend::Sqlite).await;
    let path = fx.path.clone().unwrap();
    let session = fx.session();
    for (prompt_type, content) in [
        ("system", "S"),
        ("conversation_consolidation", "C"),
        ("memory_management", "M"),
        ("name", "N"),
    ] {
        assert!(
            call(&session, update(prompt_type, content))
                .await
                .is_success()
        );
    }
    drop(session);
    let reopened: Arc<dyn AgentStore> = Arc::new(SqliteAgentStore::open(&path).await.unwrap());
    let agent = reopened.get_by_id(fx.agent.id).await.unwrap().unwrap();
    assert_eq!(
        (
            agent.system_prompt.as_deref(),
            agent.reflection_prompt.as_deref(),
            agent.memory_reflection_prompt.as_deref(),
            agent.name.as_str(),
        ),
        (Some("S"), Some("C"), Some("M"), "N")
    );
    // And the tool reads them back through the reopened store.
    let session = session_with(PromptContext::new(reopened).with_agent(&agent));
    for (prompt_type, value) in [
        ("system", "S"),
        ("conversation_consolidation", "C"),
        ("memory_management", "M"),
        ("name", "N"),
    ] {
        assert_eq!(
            view_result(&call(&session, view(prompt_type)).await).value,
            value
        );
    }
}

#[test]
fn the_spec_says_what_each_action_may_do() {
    let registry = registry();
    let spec = registry.get("prompt_manager").unwrap().spec();
    assert_eq!(
        spec.description,
        "View or update your prompts and name. prompt_type: system, conversation_consolidation, \
         memory_management, or name. action: view or update."
    );
    assert_eq!(
        spec.aliases,
        [
            "view_system_prompt",
            "update_system_prompt",
            "ViewSystemPromptTool",
            "UpdateSystemPromptTool",
            "PromptManagerTool"
        ]
    );
    assert_eq!(
        spec.permissions,
        PermissionSet::EMPTY.with(Permission::ViewPrompts)
    );
    assert!(!spec.requires_approval);
    let actions = spec.actions.as_ref().unwrap();
    assert_eq!(actions.field, "action");
    assert_eq!(actions.names().collect::<Vec<_>>(), ALLOWED_ACTIONS);
    let view = actions.get("view").unwrap();
    let update = actions.get("update").unwrap();
    assert!(view.read_only && !update.read_only);
    assert!(!view.requires_approval && !update.requires_approval);
    assert!(!spec.needs_approval(Some("view")) && !spec.needs_approval(Some("update")));
    assert_eq!(view.required, ["prompt_type"]);
    assert_eq!(update.required, ["prompt_type", "content"]);
    assert_eq!(
        spec.required_permissions(Some("view")),
        PermissionSet::EMPTY.with(Permission::ViewPrompts)
    );
    assert_eq!(
        spec.required_permissions(Some("update")),
        PermissionSet::EMPTY
            .with(Permission::ViewPrompts)
            .with(Permission::ManagePrompts)
    );
    assert!(!spec.annotations.read_only);
    assert!(spec.annotations.destructive && spec.annotations.idempotent);
}

#[test]
fn the_input_schema_is_stable() {
    let registry = registry();
    let spec = registry.get("prompt_manager").unwrap().spec();
    assert_eq!(
        *spec.input_schema,
        json!({
            "type": "object",
            "properties": {
                "action": {
                    "type": "string",
                    "enum": ["view", "update"],
                    "description": "The action to perform, one of:\n\
                        - `view` (prompt_type): Show the current value.\n\
                        - `update` (prompt_type, content): Replace the value with `content`."
                },
                "prompt_type": {
                    "$ref": "#/$defs/PromptType",
                    "description": "One of: system, conversation_consolidation, \
                        memory_management, name."
                },
                "content": {
                    "type": "string",
                    "description": "New value (required for the `update` action)."
                }
            },
            "required": ["action", "prompt_type"],
            "$defs": {
                "PromptType": {
                    "type": "string",
                    "enum": ["system", "conversation_consolidation", "memory_management", "name"],
                    "description": "Which of the agent's prompts (or its name) to view or update."
                }
            },
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "additionalProperties": false
        })
    );
    // Key order is part of what a provider sees.
    assert_eq!(spec.parameter_names(), ["action", "prompt_type", "content"]);
}

#[test]
fn renames_from_the_registry_map_every_old_name_like_the_standard_ones() {
    let registry = registry();
    let from_registry = ToolRenames::from_registry(&registry).unwrap();
    let standard = ToolRenames::standard();
    let (new_name, old_names) = STANDARD_RENAMES
        .iter()
        .find(|(name, _)| *name == "prompt_manager")
        .unwrap();
    for old in *old_names {
        assert_eq!(from_registry.new_name(old), Some(*new_name), "{old}");
        assert_eq!(from_registry.new_name(old), standard.new_name(old), "{old}");
    }
    assert_eq!(
        from_registry.rollback_names("prompt_manager"),
        standard.rollback_names("prompt_manager")
    );
    assert_eq!(
        from_registry.rollback_names("prompt_manager"),
        ["view_system_prompt", "update_system_prompt"]
    );
    assert_eq!(from_registry.new_name("prompt_manager"), None);
}

#[test]
fn renames_from_every_linked_tool_cover_the_standard_ones() {
    // Every tool this crate registers through `inventory`, as the command line builds it.
    let registry = Registry::from_inventory().unwrap();
    let renames = ToolRenames::from_registry(&registry).unwrap();
    let standard = ToolRenames::standard();
    for (new_name, old_names) in STANDARD_RENAMES {
        assert!(
            registry.get(new_name).is_some(),
            "`{new_name}` is registered"
        );
        for old in *old_names {
            assert_eq!(renames.new_name(old), Some(*new_name), "{old}");
        }
        assert_eq!(
            renames.rollback_names(new_name),
            standard.rollback_names(new_name),
            "{new_name}"
        );
    }
    // Forward and rollback agree with the standard renames on a whole list.
    let stored: Vec<String> = ["ViewSystemPromptTool", "grep", "web_fetch", "WebSearchTool"]
        .map(String::from)
        .to_vec();
    for direction in [Direction::Forward, Direction::Rollback] {
        assert_eq!(
            renames.rewrite(&stored, direction),
            standard.rewrite(&stored, direction)
        );
    }
    assert_eq!(
        renames.rewrite(&stored, Direction::Forward),
        ["prompt_manager", "grep", "web"]
    );
}

#[tokio::test]
async fn migrating_a_store_with_the_registrys_renames() {
    let store = MemoryAgentStore::new();
    let old = store
        .create(NewAgent::new("default", "Old").with_enabled_tools([
            "ViewSystemPromptTool",
            "UpdateSystemPromptTool",
            "WebSearchTool",
            "WebFetchTool",
        ]))
        .await
        .unwrap();
    let renames = ToolRenames::from_registry(&Registry::from_inventory().unwrap()).unwrap();
    let report = migrate_enabled_tools(&store, &renames, Direction::Forward)
        .await
        .unwrap();
    assert_eq!(report.changes.len(), 1);
    let migrated = store.get_by_id(old.id).await.unwrap().unwrap();
    assert_eq!(migrated.enabled_tools, ["prompt_manager", "web"]);
    // Idempotent.
    let again = migrate_enabled_tools(&store, &renames, Direction::Forward)
        .await
        .unwrap();
    assert!(again.changes.is_empty());
}

// Regression: in one turn, view system, update system, view system answered the second view
// from the redundancy cache, as a duplicate of the first, with the value from before the
// update.
#[tokio::test]
async fn view_after_update_in_the_same_turn_shows_the_new_value() {
    for backend in [Backend::Memory, Backend::Sqlite] {
        let fx = Fixture::new(backend).await;
        let session = fx.session();
        let turn = |id: &str, arguments: Value| ToolCall::new(id, "prompt_manager", arguments);

        let before = session.call(turn("c1", view("system"))).await;
        assert_eq!(view_result(&before).value, "Original system prompt");
        let updated = session.call(turn("c2", update("system", "NEW"))).await;
        assert_eq!(update_result(&updated).new_value, "NEW");
        let after = session.call(turn("c3", view("system"))).await;
        assert_eq!(after.duplicate_of, None, "{}", after.to_json());
        assert_eq!(view_result(&after).value, "NEW");
        // With no write since, the same view is answered from the last one.
        let again = session.call(turn("c4", view("system"))).await;
        assert_eq!(again.duplicate_of.as_deref(), Some("c3"));
        assert_eq!(view_result(&again).value, "NEW");
    }
}

// Regression: the validation error for arguments that are not JSON lacked the allowed lists
// every other validation error of prompt_manager carries.
#[tokio::test]
async fn malformed_json_lists_both_allowed_sets() {
    let fx = Fixture::new(Backend::Memory).await;
    let session = fx.session();
    for text in ["{not json", r#"{"action": "view", "prompt_type": "#] {
        let out = session
            .call(ToolCall::new("c", "prompt_manager", text))
            .await;
        let json = validation_error(&out);
        assert!(message(&json).contains("Invalid JSON arguments"), "{json}");
    }
}

// Regression: `"content": null` on update was two problems, "`content` must be string, got
// null" and "content is required for update action"; it is the second alone.
#[tokio::test]
async fn a_null_content_is_one_problem() {
    let fx = Fixture::new(Backend::Memory).await;
    let out = call(
        &fx.session(),
        json!({"action": "update", "prompt_type": "system", "content": null}),
    )
    .await;
    let json = validation_error(&out);
    assert_eq!(
        json["problems"],
        json!([{
            "path": "/content",
            "message": "content is required for update action",
            "expected": "`content` for action `update`"
        }]),
        "{json}"
    );
    assert_eq!(
        out.error().unwrap().message(),
        "content is required for update action"
    );
}
