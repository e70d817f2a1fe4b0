//! Argument validation, one parameter at a time: a missing or unknown parameter (with the
//! nearest known name), a wrong type, a number out of range, a value outside an enum (with the
//! allowed values and the nearest), deep JSON paths into nested objects, JSON pointer escaping,
//! and several problems reported in one error, capped with a count of the rest.

use serde_json::{Value, json};
use tool_core::MAX_PROBLEMS;

use crate::support::validation::*;

// 1. ----------------------------------------------------------------------------------------

#[test]
fn missing_required_field() {
    let e = invalid("search", json!({"query": "rust", "corpus": "code"}));
    assert_eq!(
        e.to_json(),
        search_error(
            r#"search(query="rust", corpus="code"): missing required parameter `limit`"#,
            json!([{"path": "/limit", "message": "missing required parameter `limit`", "expected": "integer"}]),
            ""
        )
    );
    assert_eq!(
        e.signature(),
        Some(r#"search(query="rust", corpus="code")"#)
    );
    assert_eq!(e.message(), "missing required parameter `limit`");
    assert_eq!(e.problems()[0].field().as_deref(), Some("limit"));
}

// 2. ----------------------------------------------------------------------------------------

#[test]
fn wrong_type_string_for_integer() {
    let e = invalid(
        "search",
        json!({"query": "rust", "corpus": "code", "limit": "ten"}),
    );
    assert_eq!(
        e.to_json(),
        search_error(
            r#"search(query="rust", corpus="code", limit="ten"): `limit` must be integer, got string"#,
            json!([{"path": "/limit", "message": "`limit` must be integer, got string", "expected": "integer"}]),
            ""
        )
    );
}

// 3. ----------------------------------------------------------------------------------------

#[test]
fn wrong_types_boolean_for_string_and_float_for_integer() {
    let e = invalid("add", json!({"a": 1.5, "b": true}));
    assert_eq!(
        problems(&e),
        pairs(&[
            ("/a", "`a` must be integer, got number"),
            ("/b", "`b` must be integer, got boolean"),
        ])
    );
    assert_eq!(
        e.message(),
        "2 problems with the arguments: 1) `a` must be integer, got number; 2) `b` must be integer, got boolean"
    );
    assert_eq!(
        e.full_message(),
        format!("add(a=1.5, b=true): {}", e.message())
    );
    let e = invalid(
        "search",
        json!({"query": true, "corpus": "code", "limit": 3}),
    );
    assert_eq!(
        problems(&e),
        pairs(&[("/query", "`query` must be string, got boolean")])
    );
    let e = invalid(
        "search",
        json!({"query": null, "corpus": "code", "limit": 3}),
    );
    assert_eq!(
        problems(&e),
        pairs(&[("/query", "`query` must be string, got null")])
    );
}

// 4. ----------------------------------------------------------------------------------------

#[test]
fn unknown_field_with_did_you_mean() {
    let e = invalid(
        "search",
        json!({"query": "x", "corpus": "code", "limit": 5, "sortt": "newest"}),
    );
    assert_eq!(
        e.to_json(),
        search_error(
            r#"search(query="x", corpus="code", limit=5, sortt="newest"): unknown parameter `sortt`; known parameters: query, corpus, limit, sort, filters"#,
            json!([{
                "path": "/sortt",
                "message": "unknown parameter `sortt`; known parameters: query, corpus, limit, sort, filters",
                "did_you_mean": "sort"
            }]),
            "Did you mean `sort` for `sortt`? "
        )
    );
    // Nothing near: no did-you-mean.
    let e = invalid("add", json!({"a": 1, "b": 2, "zzzzzz": 3}));
    assert_eq!(e.problems()[0].did_you_mean, None);
    assert_eq!(e.suggestion(), Some("Example: add(a=1, b=1)"));
}

// 5. ----------------------------------------------------------------------------------------

#[test]
fn out_of_range_numbers() {
    let e = invalid(
        "search",
        json!({"query": "x", "corpus": "code", "limit": 500}),
    );
    assert_eq!(
        problems(&e),
        pairs(&[(
            "/limit",
            "`limit` must be an integer from 1 to 100, got 500"
        )])
    );
    let e = invalid("search", r#"{"query": "x", "corpus": "code", "limit": 0}"#);
    assert_eq!(
        problems(&e),
        pairs(&[("/limit", "`limit` must be an integer from 1 to 100, got 0")])
    );
    // A value out of the Rust type's range (u32) is refused too, with its path.
    let e = invalid("search", r#"{"query": "x", "corpus": "code", "limit": -1}"#);
    assert_eq!(
        problems(&e),
        pairs(&[("/limit", "`limit` must be an integer from 1 to 100, got -1")])
    );
    let registry = all_tools();
    assert!(
        !registry.get("search").unwrap().schema().is_serde_complete(),
        "a schemars range is a constraint serde does not check"
    );
    assert!(registry.get("add").unwrap().schema().is_serde_complete());
}

// 6. ----------------------------------------------------------------------------------------

#[test]
fn bad_enum_value_lists_allowed_values_and_the_nearest() {
    let e = invalid("search", json!({"query": "x", "corpus": "doc", "limit": 5}));
    assert_eq!(
        e.to_json(),
        search_error(
            r#"search(query="x", corpus="doc", limit=5): Invalid corpus 'doc'"#,
            json!([{
                "path": "/corpus",
                "message": "Invalid corpus 'doc'",
                "expected": r#"one of: "code", "docs", "issues""#,
                "allowed": ["code", "docs", "issues"],
                "did_you_mean": "docs"
            }]),
            "Did you mean `docs` for `corpus`? "
        )
    );
    // A value of the wrong type for a closed set: one problem, with the allowed values.
    let e = invalid("search", json!({"query": "x", "corpus": 5, "limit": 5}));
    assert_eq!(problems(&e), pairs(&[("/corpus", "Invalid corpus '5'")]));
    assert_eq!(e.problems()[0].allowed.as_ref().map(Vec::len), Some(3));
    // An optional enum (anyOf [enum, null]).
    let e = invalid(
        "search",
        json!({"query": "x", "corpus": "docs", "limit": 5, "sort": "newst"}),
    );
    assert_eq!(problems(&e), pairs(&[("/sort", "Invalid sort 'newst'")]));
    assert_eq!(e.problems()[0].did_you_mean.as_deref(), Some("newest"));
    assert_eq!(
        e.problems()[0].allowed,
        Some(vec![json!("relevance"), json!("newest"), json!("oldest")])
    );
}

#[test]
fn documented_unit_enums_become_a_flat_string_enum() {
    let registry = all_tools();
    let schema = &registry.get("search").unwrap().spec().input_schema;
    assert_eq!(
        schema["$defs"]["Corpus"],
        json!({
            "type": "string",
            "enum": ["code", "docs", "issues"],
            "description": "What to search.\n\n- `code`: Source code.\n- `docs`: Documentation pages.\n- `issues`: Issue threads."
        })
    );
    let schema = &registry.get("prompt_manager").unwrap().spec().input_schema;
    assert_eq!(
        schema["$defs"]["PromptType"]["enum"],
        json!([
            "system",
            "conversation_consolidation",
            "memory_management",
            "name"
        ])
    );
}

// 10. ---------------------------------------------------------------------------------------

#[test]
fn nested_problems_have_deep_paths() {
    let e = invalid(
        "search",
        json!({"query": "x", "corpus": "code", "limit": 5,
               "filters": [{"name": "lang", "value": "rust"}, {"nme": "size"}, {"name": 7}]}),
    );
    assert_eq!(
        problems(&e),
        pairs(&[
            (
                "/filters/1/nme",
                "unknown parameter `nme`; known parameters: name, value"
            ),
            ("/filters/1/name", "missing required parameter `name`"),
            ("/filters/2/name", "`name` must be string, got integer"),
        ])
    );
    assert_eq!(e.problems()[0].did_you_mean.as_deref(), Some("name"));
    assert_eq!(e.problems()[0].field().as_deref(), Some("nme"));
    assert_eq!(e.problems()[1].expected.as_deref(), Some("string"));
    assert!(
        e.suggestion()
            .unwrap()
            .starts_with("Did you mean `name` for `nme`? "),
        "{:?}",
        e.suggestion()
    );
    let e = invalid(
        "search",
        json!({"query": "x", "corpus": "code", "limit": 5, "filters": {"name": "a"}}),
    );
    assert_eq!(
        problems(&e),
        pairs(&[("/filters", "`filters` must be array, got object")])
    );
}

// 11. ---------------------------------------------------------------------------------------

#[test]
fn several_problems_are_all_reported_in_one_error() {
    let e = invalid(
        "search",
        json!({"query": 1, "corpus": "doc", "limit": 0, "sortt": "new", "filters": [{"value": 2}]}),
    );
    assert_eq!(
        problems(&e),
        pairs(&[
            ("/query", "`query` must be string, got integer"),
            ("/corpus", "Invalid corpus 'doc'"),
            ("/limit", "`limit` must be an integer from 1 to 100, got 0"),
            (
                "/filters/0/value",
                "`value` must be string or null, got integer"
            ),
            ("/filters/0/name", "missing required parameter `name`"),
            (
                "/sortt",
                "unknown parameter `sortt`; known parameters: query, corpus, limit, sort, filters"
            ),
        ])
    );
    assert!(
        e.message().starts_with("6 problems with the arguments: 1) `query` must be string, got integer; 2) Invalid corpus 'doc'; "),
        "{}",
        e.message()
    );
    assert_eq!(
        e.suggestion(),
        Some(format!("Did you mean `docs` for `corpus`? Did you mean `sort` for `sortt`? Example: {SEARCH_EXAMPLE}").as_str())
    );
}

#[test]
fn the_problem_list_is_capped_and_says_how_many_more() {
    let mut args = serde_json::Map::new();
    for i in 0..40 {
        args.insert(format!("p{i:02}"), json!("not a number"));
    }
    let e = invalid("wide", Value::Object(args));
    assert_eq!(e.problems().len(), MAX_PROBLEMS);
    assert_eq!(e.fields()["problems_omitted"], json!(40 - MAX_PROBLEMS));
    assert!(
        e.message().starts_with("40 problems with the arguments (the first 32 listed): 1) `p00` must be integer or null, got string;"),
        "{}",
        e.message()
    );
}

#[test]
fn json_pointer_escaping_in_problem_paths() {
    let e = invalid("slashy", json!({"x~y": "one"}));
    assert_eq!(
        problems(&e),
        pairs(&[
            ("/x~0y", "`x~y` must be integer or null, got string"),
            ("/a~1b", "missing required parameter `a/b`"),
        ])
    );
    assert_eq!(e.problems()[0].field().as_deref(), Some("x~y"));
    assert_eq!(e.problems()[1].field().as_deref(), Some("a/b"));
    let e = invalid("slashy", json!({"a/b": "ok", "a/c": 1}));
    assert_eq!(
        problems(&e),
        pairs(&[(
            "/a~1c",
            "unknown parameter `a/c`; known parameters: a/b, x~y"
        )])
    );
    assert_eq!(e.problems()[0].did_you_mean.as_deref(), Some("a/b"));
}

/// A target between 5 and 30, declared with schemars' range keys.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct TargetArgs {
    /// How many, from 5 to 30.
    #[schemars(range(min = 5, max = 30))]
    target: f64,
}

struct Target;

impl tool_core::Tool for Target {
    type Input = TargetArgs;
    type Output = Value;
    fn spec(&self) -> tool_core::ToolSpec {
        tool_core::ToolSpec::new("aim", "Aim at a target.")
    }
    async fn call(
        &self,
        _: &tool_core::ToolContext,
        a: TargetArgs,
    ) -> Result<Value, tool_core::ToolError> {
        Ok(json!({"target": a.target}))
    }
}

#[tokio::test]
async fn a_declared_range_is_enforced_named_and_kept_by_the_example_call() {
    let session = crate::support::session_of(|b| b.register(Target));
    let out = session
        .call(crate::support::call("c1", "aim", json!({"target": 1.5})))
        .await;
    let e = crate::support::expect_err(&out);
    assert_eq!(
        e.problems()[0].message,
        "`target` must be a number from 5 to 30, got 1.5"
    );
    assert_eq!(
        e.problems()[0].expected.as_deref(),
        Some("a number from 5 to 30")
    );
    // The example call keeps to the range.
    assert_eq!(e.to_json()["example"], "aim(target=5.0)");
    let ok = session
        .call(crate::support::call("c2", "aim", json!({"target": 12.5})))
        .await;
    assert_eq!(ok.to_json(), json!({"target": 12.5}));
}
