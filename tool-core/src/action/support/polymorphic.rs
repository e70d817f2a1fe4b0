//! Polymorphic tools: the output of a `#[tool]` impl delegates to the chosen action's, and
//! the probes that find out whether a tool's input has actions.

use std::marker::PhantomData;

use schemars::{Schema, SchemaGenerator};

use super::checks::{OutputJsonSchema, OutputRender, OutputSerialize, ParamDeserialize};
use super::decode::is_optional;
use crate::action::Actions;
use crate::spec::{ActionSet, ActionSpec, ToolSpec};

// ---- The output of a polymorphic `#[tool]` impl delegates to the chosen action's.

/// Checks an action's output type. Generated code calls it first in every function that
/// uses the type, at the type's span, so a type that does not fit is reported once.
pub fn check_output<T: OutputSerialize + OutputJsonSchema + OutputRender>() {}

/// Serializes one action's output.
pub fn output_serialize<T: OutputSerialize, S: serde::Serializer>(
    output: &T,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    output.serialize(serializer)
}

/// One action's output schema (inline, so equal outputs compare equal).
pub fn output_schema<T: OutputJsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    T::json_schema(generator)
}

/// One action's status line.
pub fn output_status<T: OutputRender>(output: &T) -> Option<String> {
    output.status()
}

/// One action's model text.
pub fn output_render<T: OutputRender>(
    output: &T,
    tracker: &mut crate::render::ResourcesTracker,
) -> Option<String> {
    output.render(tracker)
}

/// Whether one action's output reports success.
pub fn output_is_success<T: OutputRender>(output: &T) -> bool {
    output.is_success()
}

// ---- Whether a tool's input is polymorphic (autoref specialization on a concrete type).

/// Looks at a type to find out whether it implements [`Actions`].
pub struct Probe<T>(PhantomData<T>);

impl<T> Probe<T> {
    /// A probe.
    pub const fn new() -> Self {
        Probe(PhantomData)
    }
}

impl<T> Default for Probe<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// Picked for a type that implements [`Actions`].
pub trait ProbeActions {
    /// The type's actions.
    fn probe_actions(&self) -> Option<ActionSet>;
}
impl<T: Actions> ProbeActions for Probe<T> {
    fn probe_actions(&self) -> Option<ActionSet> {
        Some(T::action_set())
    }
}

/// Picked for any other type.
pub trait ProbePlain {
    /// No actions.
    fn probe_actions(&self) -> Option<ActionSet>;
}
impl<T> ProbePlain for &Probe<T> {
    fn probe_actions(&self) -> Option<ActionSet> {
        None
    }
}

/// Declares the spec polymorphic when the input has actions.
pub fn with_actions(spec: ToolSpec, actions: Option<ActionSet>) -> ToolSpec {
    match actions {
        Some(set) => spec.actions(set),
        None => spec,
    }
}

/// Adds a parameter to an action, required unless it has a default or may be missing.
pub fn action_param<T: ParamDeserialize>(
    action: ActionSpec,
    name: &'static str,
    has_default: bool,
) -> ActionSpec {
    if has_default || is_optional::<T>() {
        action.optional(name)
    } else {
        action.required(name)
    }
}
