//! Whole example inputs built from the examples a schema declares, for the exports that
//! carry them (Anthropic's `input_examples`).

use serde_json::{Map, Value};

use super::example::{example_value, required_list};
use super::problems::resolve;
use crate::spec::ToolSpec;

/// The most example inputs one tool gets.
pub const MAX_INPUT_EXAMPLES: usize = 4;

/// Example inputs of a tool, from the `examples` its parameters declare
/// (`#[param(example = ..)]`, or schemars' `example` on an input struct's field); none when
/// no parameter declares one.
///
/// A plain tool gets one input per declared example of the parameter with the most (at most
/// [`MAX_INPUT_EXAMPLES`]): the `i`-th example of each parameter that declares some (its
/// last when it has fewer), and an example value for every other required parameter. A
/// polymorphic tool gets one input for each action with a declared example among its own
/// parameters, its discriminator set. Every input is built to pass the tool's validation,
/// as the providers require of their examples.
pub fn input_examples(spec: &ToolSpec) -> Vec<Value> {
    let root = &*spec.input_schema;
    let Some(props) = root.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    let declared = |name: &str| -> &[Value] {
        props
            .get(name)
            .map(|node| resolve(root, node))
            .and_then(|node| node.get("examples"))
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    };
    let pick = |name: &str, i: usize| {
        let examples = declared(name);
        examples.get(i).or(examples.last()).cloned()
    };
    let required = required_list(root);
    let input = |names: &mut dyn Iterator<Item = (&str, bool)>, i: usize| {
        let mut m = Map::new();
        for (name, needed) in names {
            let value = match pick(name, i) {
                Some(v) => v,
                None if needed => match props.get(name) {
                    Some(node) => example_value(root, node, 0),
                    None => continue,
                },
                None => continue,
            };
            m.insert(name.to_owned(), value);
        }
        m
    };
    match &spec.actions {
        None => {
            let count = props.keys().map(|k| declared(k).len()).max().unwrap_or(0);
            (0..count.min(MAX_INPUT_EXAMPLES))
                .map(|i| {
                    let mut names = props
                        .keys()
                        .map(|k| (k.as_str(), required.contains(&k.as_str())));
                    Value::Object(input(&mut names, i))
                })
                .collect()
        }
        Some(set) => set
            .actions
            .iter()
            .filter(|a| {
                a.required
                    .iter()
                    .chain(&a.optional)
                    .any(|p| !declared(p).is_empty())
            })
            .take(MAX_INPUT_EXAMPLES)
            .map(|a| {
                let mut names = a
                    .required
                    .iter()
                    .map(|p| (p.as_ref(), true))
                    .chain(a.optional.iter().map(|p| (p.as_ref(), false)));
                let mut m = Map::new();
                m.insert(set.field.to_string(), Value::String(a.name.to_string()));
                m.extend(input(&mut names, 0));
                Value::Object(m)
            })
            .collect(),
    }
}
