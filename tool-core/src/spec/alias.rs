//! Argument aliases: other names a call may give a parameter under ([`ArgAlias`]).

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::error::{SpecError, ToolError};

/// Another name a call may give a parameter under: one of the names models are trained on
/// (Claude Code's `file_path`, `old_string`, `-i`). A call's alias is read as its parameter
/// before validation; an alias is never in the schema (it costs no token), and a call that
/// gives a value under two names of one parameter is refused.
///
/// Two readings apply to the calls of a tool that has aliases:
///
/// - for a parameter whose schema is an array, a single value (a string, a number, an
///   object) is read as a list of one, under an alias or the parameter's own name
///   (`file_path: "a.rs"` for `paths: ["a.rs"]`, Claude Code's `glob: "*.rs"` for
///   `glob: ["*.rs"]`);
/// - a [negated](Self::negated) alias of a boolean parameter means its opposite (`-i: true`
///   for `case_sensitive: false`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ArgAlias {
    /// The name a call gives.
    pub alias: Cow<'static, str>,
    /// The parameter it stands for.
    pub parameter: Cow<'static, str>,
    /// Whether a boolean given under the alias means the parameter's opposite.
    pub negated: bool,
}

impl ArgAlias {
    /// `alias` as another name of `parameter`.
    pub fn new(
        alias: impl Into<Cow<'static, str>>,
        parameter: impl Into<Cow<'static, str>>,
    ) -> Self {
        ArgAlias {
            alias: alias.into(),
            parameter: parameter.into(),
            negated: false,
        }
    }

    /// `alias` as the opposite of the boolean `parameter`.
    pub fn negated(
        alias: impl Into<Cow<'static, str>>,
        parameter: impl Into<Cow<'static, str>>,
    ) -> Self {
        ArgAlias {
            negated: true,
            ..ArgAlias::new(alias, parameter)
        }
    }
}

/// The schema of parameter `name`, from an object schema's `properties`.
fn property<'a>(schema: &'a Value, name: &str) -> Option<&'a Value> {
    schema.get("properties").and_then(|p| p.get(name))
}

/// Whether a parameter's schema admits values of JSON type `ty` (`"type": ty`, or `ty` in a
/// list of types, as beside `null`).
fn admits(schema: &Value, ty: &str) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == ty,
        Some(Value::Array(types)) => types.iter().any(|t| t == ty),
        _ => false,
    }
}

fn is_array(schema: &Value) -> bool {
    admits(schema, "array")
}

/// Checks `aliases` against the tool's input schema: each names a parameter, is none itself,
/// is given once, and a negated one names a boolean.
pub(super) fn check(tool: &str, schema: &Value, aliases: &[ArgAlias]) -> Result<(), SpecError> {
    for (i, a) in aliases.iter().enumerate() {
        let invalid = |reason: String| SpecError::Invalid {
            tool: tool.to_owned(),
            reason,
        };
        let (alias, parameter) = (&a.alias, &a.parameter);
        let Some(target) = property(schema, parameter) else {
            return Err(invalid(format!(
                "argument alias `{alias}` names `{parameter}`, which is no parameter"
            )));
        };
        if property(schema, alias).is_some() {
            return Err(invalid(format!(
                "argument alias `{alias}` is the name of a parameter"
            )));
        }
        if aliases[..i].iter().any(|b| b.alias == *alias) {
            return Err(invalid(format!("argument alias `{alias}` is given twice")));
        }
        if a.negated && !admits(target, "boolean") {
            return Err(invalid(format!(
                "argument alias `{alias}` is negated, but `{parameter}` is no boolean"
            )));
        }
    }
    Ok(())
}

/// Reads the aliases a call's object gives as their parameters (see [`ArgAlias`]); `None`
/// when it gives none.
pub(super) fn apply(
    schema: &Value,
    aliases: &[ArgAlias],
    map: &Map<String, Value>,
) -> Result<Option<Map<String, Value>>, ToolError> {
    let single = |name: &str, v: &Value| {
        !v.is_array() && !v.is_null() && property(schema, name).is_some_and(is_array)
    };
    if !aliases.iter().any(|a| map.contains_key(a.alias.as_ref()))
        && !map.iter().any(|(k, v)| single(k, v))
    {
        return Ok(None);
    }
    let mut map = map.clone();
    for (name, value) in map.iter_mut() {
        if single(name, value) {
            *value = Value::Array(vec![value.take()]);
        }
    }
    for a in aliases {
        let Some(value) = map.remove(a.alias.as_ref()) else {
            continue;
        };
        let parameter = a.parameter.as_ref();
        if map.contains_key(parameter) {
            return Err(ToolError::validation(format!(
                "`{parameter}` is given twice, also as `{}`; give it once",
                a.alias
            ))
            .with_field("parameter", parameter)
            .with_field("alias", a.alias.as_ref()));
        }
        let target = property(schema, parameter);
        let value = match value {
            Value::Bool(b) if a.negated => Value::Bool(!b),
            v if !v.is_array() && !v.is_null() && target.is_some_and(is_array) => {
                Value::Array(vec![v])
            }
            v => v,
        };
        map.insert(parameter.to_owned(), value);
    }
    Ok(Some(map))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "paths": {"type": "array", "items": {"type": "string"}},
            "glob": {"type": ["array", "null"]},
            "case_sensitive": {"type": "boolean"},
            "limit": {"type": "integer"},
        }})
    }

    fn read(args: Value) -> Result<Option<Value>, ToolError> {
        let aliases = [
            ArgAlias::new("file_path", "paths"),
            ArgAlias::negated("-i", "case_sensitive"),
            ArgAlias::new("head_limit", "limit"),
        ];
        let map = args.as_object().expect("an object").clone();
        apply(&schema(), &aliases, &map).map(|m| m.map(Value::Object))
    }

    #[test]
    fn aliases_are_read_as_their_parameters() {
        assert_eq!(
            read(json!({"file_path": "a.rs", "-i": true, "head_limit": 3})).unwrap(),
            Some(json!({"paths": ["a.rs"], "case_sensitive": false, "limit": 3}))
        );
        assert_eq!(
            read(json!({"-i": false})).unwrap(),
            Some(json!({"case_sensitive": true}))
        );
        // A single value for a list, under the parameter's own name too.
        assert_eq!(
            read(json!({"glob": "*.rs"})).unwrap(),
            Some(json!({"glob": ["*.rs"]}))
        );
        assert_eq!(read(json!({"paths": ["a"], "limit": 1})).unwrap(), None);
        // A value the negation cannot read is left to validation.
        assert_eq!(
            read(json!({"-i": "yes"})).unwrap(),
            Some(json!({"case_sensitive": "yes"}))
        );
    }

    #[test]
    fn a_value_under_two_names_is_refused() {
        let e = read(json!({"paths": ["a"], "file_path": "b"})).unwrap_err();
        assert_eq!(
            e.message(),
            "`paths` is given twice, also as `file_path`; give it once"
        );
        assert!(read(json!({"case_sensitive": true, "-i": true})).is_err());
    }

    #[test]
    fn a_negated_alias_names_a_boolean() {
        let e = check("t", &schema(), &[ArgAlias::negated("-n", "limit")]).unwrap_err();
        assert!(e.to_string().contains("is no boolean"), "{e}");
        assert!(check("t", &schema(), &[ArgAlias::negated("-i", "case_sensitive")]).is_ok());
    }
}
