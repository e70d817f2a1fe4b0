//! Argument validation of polymorphic tools: an unknown action (allowed actions in declaration
//! order, the nearest), a parameter an action requires or does not take, a string
//! discriminator checked against the action set, and a null required parameter.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tool_core::{Arguments, Problem, Registry, Tool, ToolContext, ToolError, ToolSpec};

use crate::support::validation::*;

// 15. Polymorphic tools -----------------------------------------------------------------------

const PM_FIELDS_ACTIONS: [&str; 2] = ["view", "update"];

#[test]
fn invalid_action_lists_allowed_actions_in_declaration_order() {
    let e = invalid(
        "prompt_manager",
        json!({"action": "crawl", "prompt_type": "system"}),
    );
    assert_eq!(
        e.full_message(),
        r#"prompt_manager(action="crawl", prompt_type="system"): Invalid action 'crawl'"#
    );
    assert_eq!(e.fields()["allowed_actions"], json!(PM_FIELDS_ACTIONS));
    assert_eq!(
        e.fields()["allowed_prompt_types"],
        json!([
            "system",
            "conversation_consolidation",
            "memory_management",
            "name"
        ])
    );
    assert_eq!(
        e.fields()["allowed_values"]["action"],
        json!(PM_FIELDS_ACTIONS)
    );
    assert_eq!(
        e.fields()["example"],
        r#"prompt_manager(action="view", prompt_type="system")"#
    );
    let p = &e.problems()[0];
    assert_eq!(p.path, "/action");
    assert_eq!(p.did_you_mean, None);
    let e = invalid(
        "prompt_manager",
        json!({"action": "updat", "prompt_type": "name", "content": "Bob"}),
    );
    assert_eq!(
        problems(&e),
        pairs(&[("/action", "Invalid action 'updat'")])
    );
    assert_eq!(e.problems()[0].did_you_mean.as_deref(), Some("update"));
    assert!(
        e.suggestion()
            .unwrap()
            .starts_with("Did you mean `update` for `action`? ")
    );

    // A bad prompt_type, documented enum (oneOf of consts in schemars), gets the same care.
    let e = invalid(
        "prompt_manager",
        json!({"action": "view", "prompt_type": "sytem"}),
    );
    assert_eq!(
        problems(&e),
        pairs(&[("/prompt_type", "Invalid prompt_type 'sytem'")])
    );
    assert_eq!(e.problems()[0].did_you_mean.as_deref(), Some("system"));
}

#[test]
fn an_actions_required_parameter() {
    let e = invalid(
        "prompt_manager",
        json!({"action": "update", "prompt_type": "system"}),
    );
    assert_eq!(
        e.full_message(),
        r#"prompt_manager(action="update", prompt_type="system"): content is required for update action"#
    );
    assert_eq!(
        e.problems(),
        &[
            Problem::new("/content", "content is required for update action")
                .expected("`content` for action `update`")
        ]
    );
    assert_eq!(
        e.fields()["example"],
        r#"prompt_manager(action="update", prompt_type="system", content="...")"#
    );
    // Same through a value and a null content.
    let e = invalid(
        "prompt_manager",
        json!({"action": "update", "prompt_type": "system", "content": null}),
    );
    assert_eq!(
        problems(&e),
        pairs(&[("/content", "content is required for update action")])
    );
}

#[test]
fn a_parameter_that_does_not_apply_to_the_action() {
    let e = invalid(
        "prompt_manager",
        json!({"action": "view", "prompt_type": "system", "content": "x"}),
    );
    assert_eq!(
        problems(&e),
        pairs(&[(
            "/content",
            "`content` does not apply to action `view`; it takes: prompt_type"
        )])
    );
}

#[test]
fn a_string_discriminator_is_checked_against_the_action_set() {
    let e = invalid("notes", json!({"action": "remov"}));
    assert_eq!(
        problems(&e),
        pairs(&[("/action", "Invalid action 'remov'")])
    );
    assert_eq!(e.problems()[0].did_you_mean.as_deref(), Some("remove"));
    assert_eq!(
        e.fields()["allowed_actions"],
        json!(["add", "list", "remove"])
    );
    assert_eq!(
        e.fields()["allowed_values"],
        json!({"action": ["add", "list", "remove"]})
    );
    let e = invalid("notes", json!({"action": "add"}));
    assert_eq!(
        problems(&e),
        pairs(&[("/action", "text is required for add action")].map(|(_, m)| ("/text", m)))
    );
    let e = invalid("notes", json!({"action": "list", "index": 2}));
    assert_eq!(
        problems(&e),
        pairs(&[(
            "/index",
            "`index` does not apply to action `list`; it takes: no other parameter"
        )])
    );
    // Valid calls still pass.
    let registry = all_tools();
    let entry = registry.get("notes").unwrap();
    for ok in [
        json!({"action": "list"}),
        json!({"action": "add", "text": "t"}),
        json!({"action": "remove", "index": 1}),
    ] {
        assert!(
            validate(entry, &Arguments::from(ok.clone())).is_ok(),
            "{ok}"
        );
        assert!(
            validate(entry, &Arguments::from(ok.to_string())).is_ok(),
            "{ok}"
        );
    }
}

/// Arguments of `edit`: `content` is a plain (not nullable) string in the schema.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct EditArgs {
    /// `show` or `replace`.
    action: String,
    /// The new text (`replace`).
    #[serde(default)]
    content: String,
}

/// A polymorphic tool whose `replace` action requires `content`.
struct Edit;

impl Tool for Edit {
    type Input = EditArgs;
    type Output = Value;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("edit", "Show or replace a text.").actions(tool_core::ActionSet::new(
            "action",
            vec![
                tool_core::ActionSpec::new("show", "Show it.").read_only(true),
                tool_core::ActionSpec::new("replace", "Replace it.").required("content"),
            ],
        ))
    }
    async fn call(&self, _: &ToolContext, _: EditArgs) -> Result<Value, ToolError> {
        Ok(Value::Null)
    }
}

// Regression: `"content": null` for an action that requires `content` was answered with two
// problems, "`content` must be string, got null" and "content is required for update action".
#[test]
fn a_null_required_parameter_is_one_problem_saying_it_is_required() {
    let registry = Registry::builder().register(Edit).build().unwrap();
    let entry = registry.get("edit").unwrap();
    let decode = |v: Value| {
        validate(entry, &Arguments::from(v))
            .map(|_| ())
            .unwrap_err()
    };
    let e = decode(json!({"action": "replace", "content": null}));
    assert_eq!(
        problems(&e),
        pairs(&[("/content", "content is required for replace action")])
    );
    assert_eq!(
        e.full_message(),
        r#"edit(action="replace", content=null): content is required for replace action"#
    );
    // A wrong type that is not null is still reported as one.
    let e = decode(json!({"action": "replace", "content": 5}));
    assert_eq!(
        problems(&e),
        pairs(&[("/content", "`content` must be string, got integer")])
    );
}
