//! What the issue adds to the `prompt_manager` tool: aliases, permissions, the approval override
//! for `update` alone, a named agent followed across a rename, the spec of each action and the
//! exact input schema.

use std::sync::Arc;

use serde_json::json;
use tool_core::{ApproveAll, ErrorKind, Permission, PermissionSet, SessionConfig};
use tool_std::prompt::{AgentRef, PromptContext};

use crate::support::error_message;
use crate::support::prompt::*;

both!(
    aliases_resolve_to_prompt_manager,
    a_role_without_manage_prompts_can_view_but_not_update,
    approval_can_be_required_for_update_alone,
    a_named_agent_is_followed_across_a_rename,
);

mod behaviour {
    use super::*;

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
        assert!(error_message(&json).contains("action `update`"), "{json}");
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
        assert!(error_message(&json).contains("'Ghost'"), "{json}");
        let gone = session_with(PromptContext::new(fx.store.clone()).with_agent(999_999));
        error(&call(&gone, view("system")).await, ErrorKind::SystemError);
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
