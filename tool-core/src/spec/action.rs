//! The actions of a polymorphic tool: [`ActionSpec`] and [`ActionSet`].

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::{Permission, PermissionSet};

/// One action of a polymorphic tool: a value of its discriminator parameter, with the
/// parameters that action takes and its own permissions and approval rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ActionSpec {
    /// The discriminator value, e.g. `"search"`.
    pub name: Cow<'static, str>,
    /// What the action does (one line; listed in the discriminator's description).
    pub description: Cow<'static, str>,
    /// Parameters the action requires.
    pub required: Vec<Cow<'static, str>>,
    /// Parameters the action accepts but does not require.
    pub optional: Vec<Cow<'static, str>>,
    /// Permissions needed on top of the tool's.
    pub permissions: PermissionSet,
    /// Whether a call of this action goes through the approval gate.
    pub requires_approval: bool,
    /// Whether this action leaves its environment unchanged.
    pub read_only: bool,
}

impl ActionSpec {
    /// An action with a name and a description, no parameters, no extra permission.
    pub fn new(
        name: impl Into<Cow<'static, str>>,
        description: impl Into<Cow<'static, str>>,
    ) -> Self {
        ActionSpec {
            name: name.into(),
            description: description.into(),
            required: Vec::new(),
            optional: Vec::new(),
            permissions: PermissionSet::EMPTY,
            requires_approval: false,
            read_only: false,
        }
    }

    /// Adds a required parameter.
    pub fn required(mut self, param: impl Into<Cow<'static, str>>) -> Self {
        self.required.push(param.into());
        self
    }

    /// Adds an optional parameter.
    pub fn optional(mut self, param: impl Into<Cow<'static, str>>) -> Self {
        self.optional.push(param.into());
        self
    }

    /// Adds a permission this action needs.
    pub fn permission(mut self, p: Permission) -> Self {
        self.permissions.insert(p);
        self
    }

    /// Marks the action as needing approval.
    pub fn requires_approval(mut self, v: bool) -> Self {
        self.requires_approval = v;
        self
    }

    /// Marks the action as read-only.
    pub fn read_only(mut self, v: bool) -> Self {
        self.read_only = v;
        self
    }

    /// Whether the action takes `param`, required or not.
    pub fn takes(&self, param: &str) -> bool {
        self.required
            .iter()
            .chain(&self.optional)
            .any(|p| p == param)
    }
}

/// The actions of a polymorphic tool and the name of the parameter that picks one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ActionSet {
    /// The discriminator parameter, `"action"` unless the tool says otherwise.
    pub field: Cow<'static, str>,
    /// The actions in declaration order.
    pub actions: Vec<ActionSpec>,
}

impl ActionSet {
    /// A set of actions picked by `field`.
    pub fn new(field: impl Into<Cow<'static, str>>, actions: Vec<ActionSpec>) -> Self {
        ActionSet {
            field: field.into(),
            actions,
        }
    }

    /// The action called `name`.
    pub fn get(&self, name: &str) -> Option<&ActionSpec> {
        self.actions.iter().find(|a| a.name == name)
    }

    /// The action names in declaration order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.actions.iter().map(|a| a.name.as_ref())
    }
}
