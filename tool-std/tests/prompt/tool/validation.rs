//! The `prompt_manager` tool's validation errors (seed 000's test plan), on the memory store and
//! on a real SQLite file (`both!`): an unknown action or prompt type, an update without
//! content, malformed JSON and a null content, each error listing both allowed sets.

use serde_json::json;
use tool_core::{ErrorKind, ToolCall};

use crate::support::error_message;
use crate::support::prompt::*;

both!(
    invalid_action_returns_error_with_allowed_values,
    invalid_prompt_type_returns_error_with_allowed_values,
    update_without_content_returns_error,
    every_validation_error_lists_both_allowed_sets,
);

mod behaviour {
    use super::*;

    // Validation errors (seed 000).

    pub(crate) async fn invalid_action_returns_error_with_allowed_values(backend: Backend) {
        let fx = Fixture::new(backend).await;
        let out = call(
            &fx.session(),
            json!({"action": "delete", "prompt_type": "system"}),
        )
        .await;
        let json = validation_error(&out);
        assert!(
            error_message(&json).contains("Invalid action 'delete'"),
            "{json}"
        );
    }

    pub(crate) async fn invalid_prompt_type_returns_error_with_allowed_values(backend: Backend) {
        let fx = Fixture::new(backend).await;
        let out = call(&fx.session(), view("invalid")).await;
        let json = validation_error(&out);
        assert!(
            error_message(&json).contains("Invalid prompt_type 'invalid'"),
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
                error_message(&json).ends_with(": content is required for update action"),
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
            error_message(&json).contains("content is required for update action"),
            "{json}"
        );
        assert_eq!(fx.reload().await, fx.agent);
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
        assert!(
            error_message(&json).contains("Invalid JSON arguments"),
            "{json}"
        );
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
