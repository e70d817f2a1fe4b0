//! Polymorphic tools: the [`Actions`] trait `#[derive(Action)]` implements for an enum of
//! actions, and [`Choice`] for an enum of string values.
//!
//! A polymorphic tool takes one discriminator parameter (`action` unless it says otherwise)
//! whose value picks an action; each action has its own parameters, permissions and approval
//! rule (seed 000's `web(action, query_or_url)`). Its canonical schema stays one flat object:
//! the discriminator as a string `enum` plus the union of every action's parameters, and the
//! per-action rules travel in the [`ActionSet`] of its [`ToolSpec`](crate::ToolSpec), which the
//! runtime enforces (required parameters, permissions, approval).
//!
//! The `tool-macros` crate derives both traits; they can also be written by hand:
//!
//! ```
//! use tool_core::{ActionSet, ActionSpec, Actions, Permission};
//!
//! enum WebAction {
//!     Search { query: String },
//!     Fetch { url: String },
//! }
//!
//! impl Actions for WebAction {
//!     fn action_set() -> ActionSet {
//!         ActionSet::new(
//!             "action",
//!             vec![
//!                 ActionSpec::new("search", "Search the web.").required("query"),
//!                 ActionSpec::new("fetch", "Fetch a page.")
//!                     .required("url")
//!                     .permission(Permission::Network),
//!             ],
//!         )
//!     }
//!     fn action_name(&self) -> &'static str {
//!         match self {
//!             WebAction::Search { .. } => "search",
//!             WebAction::Fetch { .. } => "fetch",
//!         }
//!     }
//! }
//!
//! let set = WebAction::action_set();
//! assert_eq!(set.names().collect::<Vec<_>>(), ["search", "fetch"]);
//! assert_eq!(WebAction::Fetch { url: "https://example.com".into() }.action_name(), "fetch");
//! ```

use crate::spec::ActionSet;

/// The input of a polymorphic tool: an enum whose variants are the tool's actions.
///
/// `#[derive(Action)]` implements it for an enum with struct variants, and `#[tool]` for the
/// input it generates from a `#[tool]` impl's `#[action]` methods; `#[tool]` then puts
/// [`Actions::action_set`] into the tool's spec.
pub trait Actions {
    /// The discriminator parameter and every action in declaration order, each with its
    /// required and optional parameters, permissions, approval rule and `read_only` flag.
    fn action_set() -> ActionSet;

    /// The chosen action's name: the discriminator's value.
    fn action_name(&self) -> &'static str;
}

/// A closed set of string values: a unit-only `#[derive(Action)]` enum, such as seed 000's
/// `prompt_type` (`system`, `conversation_consolidation`, `memory_management`, `name`).
///
/// Its schema is `{"type": "string", "enum": [...]}` in declaration order, so a bad value is
/// answered with the allowed ones (`allowed_prompt_types`).
pub trait Choice: Sized + 'static {
    /// Every value, in declaration order.
    const VALUES: &'static [&'static str];

    /// This value's string.
    fn as_str(&self) -> &'static str;

    /// The value spelled `name`, if there is one.
    fn from_name(name: &str) -> Option<Self>;
}

#[doc(hidden)]
pub(crate) mod support;

#[cfg(test)]
mod tests {
    use super::support::*;
    use crate::spec::{ActionSet, ActionSpec};

    #[test]
    fn missing_is_none_for_option_only() {
        assert!(is_optional::<Option<String>>());
        assert!(!is_optional::<String>());
        assert!(!is_optional::<Vec<u8>>());
    }

    #[test]
    fn usage_suffixes() {
        let set = ActionSet::new(
            "action",
            vec![
                ActionSpec::new("view", "View.").required("kind"),
                ActionSpec::new("update", "Update.")
                    .required("kind")
                    .required("content"),
            ],
        );
        let schema = flat_schema(
            &set,
            vec![
                ParamSchema::new::<String>("kind", schemars::json_schema!({}), "", None),
                ParamSchema::new::<String>(
                    "content",
                    schemars::json_schema!({"type": "string"}),
                    "New value.",
                    None,
                ),
            ],
        );
        let v = schema.to_value();
        // Required by every action: required at the root, with no note in its description.
        assert_eq!(v["properties"]["kind"].get("description"), None);
        assert_eq!(
            v["properties"]["content"]["description"],
            "New value (required for the `update` action)."
        );
        assert_eq!(v["required"], serde_json::json!(["action", "kind"]));
        assert_eq!(
            v["properties"]["action"]["description"],
            "The action to perform, one of:\n- `view` (kind): View.\n- `update` (kind, content): Update."
        );
    }
}
