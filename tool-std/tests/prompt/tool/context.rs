//! The `prompt_manager` tool's context and store: the seed's context restrictions (a group
//! conversation, an agent), the store's refusals surfaced as user errors with its message, its
//! failures as system errors, a host without a prompt context, and a session context that
//! shadows the runtime's.

use std::sync::Arc;

use async_trait::async_trait;
use tool_core::{ErrorKind, SessionConfig};
use tool_std::prompt::{
    Agent, AgentStore, MemoryAgentStore, NewAgent, PromptContext, PromptField, StoreError,
};

use crate::support::error_message;
use crate::support::prompt::*;

both!(
    returns_error_without_group_chat_context,
    returns_error_without_agent_context,
    name_uniqueness_is_a_user_error_with_the_stores_message,
    length_limits_are_user_errors_with_the_stores_message,
);

mod behaviour {
    use super::*;

    // Context restrictions (seed 000).

    pub(crate) async fn returns_error_without_group_chat_context(backend: Backend) {
        let fx = Fixture::new(backend).await;
        let not_group = PromptContext::new(fx.store.clone())
            .with_agent(&fx.agent)
            .require_group_conversation(false);
        let session = session_with(not_group);
        for arguments in [view("system"), update("system", "x")] {
            let json = error(&call(&session, arguments).await, ErrorKind::UserError);
            assert!(
                error_message(&json).contains("group conversations"),
                "{json}"
            );
            assert!(
                error_message(&json).ends_with("This tool only works in group conversations"),
                "{json}"
            );
        }
        assert_eq!(fx.reload().await, fx.agent);
        // The group rule is checked first, as in the seed.
        let neither =
            session_with(PromptContext::new(fx.store.clone()).require_group_conversation(false));
        let json = error(&call(&neither, view("system")).await, ErrorKind::UserError);
        assert!(
            error_message(&json).contains("group conversations"),
            "{json}"
        );
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
            assert!(error_message(&json).contains("No current agent"), "{json}");
            assert!(
                error_message(&json).ends_with("No current agent context"),
                "{json}"
            );
        }
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
            error_message(&json).ends_with(
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
                error_message(&json).ends_with(&format!("Failed to update: {expected}")),
                "{json}"
            );
            assert_eq!(json["prompt_type"], prompt_type);
            // At the limit it is accepted.
            let out = call(&fx.session(), update(prompt_type, &"é".repeat(chars - 1))).await;
            assert!(out.is_success(), "{}", out.to_json());
        }
        assert_eq!(fx.reload_from_disk().await.name, "é".repeat(10_000));
    }
}

/// Writes that fail as a broken database's would.
struct Broken;

#[async_trait]
impl Hooks for Broken {
    async fn update_field(
        &self,
        _: &MemoryAgentStore,
        _: i64,
        _: PromptField,
        _: &str,
    ) -> Result<Agent, StoreError> {
        Err(StoreError::backend("updating an agent", "disk I/O error"))
    }
}

#[tokio::test]
async fn store_failures_are_system_errors() {
    let store = Arc::new(Hooked::new(Broken));
    let sage = store
        .create(NewAgent::new("default", "Sage"))
        .await
        .unwrap();
    let session = session_with(PromptContext::new(store).with_agent(&sage));
    let out = call(&session, update("system", "x")).await;
    let json = error(&out, ErrorKind::SystemError);
    assert!(
        error_message(&json).ends_with(
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
    assert!(error_message(&json).contains("PromptContext"), "{json}");
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
