//! Point 4: argument validation. Every malformed call gets a `validation_error` listing all
//! its problems (JSON path, message, expected, allowed values, nearest match) and an example
//! call, prefixed with the call's signature. Never a panic.

mod common;

use common::*;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tool_core::validate::{MAX_ARGUMENTS_BYTES, MAX_PROBLEMS};
use tool_core::{Arguments, ErrorKind, Problem, Registry, Tool, ToolContext, ToolError, ToolSpec};

/// A tool whose parameter names need JSON pointer escaping.
struct Slashy;

/// Arguments of `slashy`.
#[derive(Debug, Deserialize, JsonSchema)]
struct SlashyArgs {
    /// A name with a slash.
    #[serde(rename = "a/b")]
    _ab: String,
    /// A name with a tilde.
    #[serde(rename = "x~y")]
    _xy: Option<u32>,
}

#[async_trait::async_trait]
impl Tool for Slashy {
    type Input = SlashyArgs;
    type Output = Value;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("slashy", "Odd names.")
    }
    async fn call(&self, _: &ToolContext, _: SlashyArgs) -> Result<Value, ToolError> {
        Ok(Value::Null)
    }
}

/// A tool with many optional integer parameters, to overflow the problem list.
struct Wide;

/// Arguments of `wide`: forty optional integers.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct WideArgs {
    p00: Option<u32>,
    p01: Option<u32>,
    p02: Option<u32>,
    p03: Option<u32>,
    p04: Option<u32>,
    p05: Option<u32>,
    p06: Option<u32>,
    p07: Option<u32>,
    p08: Option<u32>,
    p09: Option<u32>,
    p10: Option<u32>,
    p11: Option<u32>,
    p12: Option<u32>,
    p13: Option<u32>,
    p14: Option<u32>,
    p15: Option<u32>,
    p16: Option<u32>,
    p17: Option<u32>,
    p18: Option<u32>,
    p19: Option<u32>,
    p20: Option<u32>,
    p21: Option<u32>,
    p22: Option<u32>,
    p23: Option<u32>,
    p24: Option<u32>,
    p25: Option<u32>,
    p26: Option<u32>,
    p27: Option<u32>,
    p28: Option<u32>,
    p29: Option<u32>,
    p30: Option<u32>,
    p31: Option<u32>,
    p32: Option<u32>,
    p33: Option<u32>,
    p34: Option<u32>,
    p35: Option<u32>,
    p36: Option<u32>,
    p37: Option<u32>,
    p38: Option<u32>,
    p39: Option<u32>,
}

#[async_trait::async_trait]
impl Tool for Wide {
    type Input = WideArgs;
    type Output = Value;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("wide", "Many parameters.")
    }
    async fn call(&self, _: &ToolContext, _: WideArgs) -> Result<Value, ToolError> {
        Ok(Value::Null)
    }
}

fn all_tools() -> Registry {
    Registry::builder()
        .register(Add)
        .register(Search)
        .register(PromptManager::default())
        .register(Notes)
        .register(Slashy)
        .register(Wide)
        .build()
        .unwrap()
}

/// Decodes through the erased tool; returns the error.
fn invalid(tool: &str, args: impl Into<Arguments>) -> ToolError {
    let registry = all_tools();
    let entry = registry.get(tool).unwrap();
    match entry.tool().decode(&args.into(), entry.schema()) {
        Ok(_) => panic!("expected a validation error"),
        Err(e) => {
            assert_eq!(e.kind(), ErrorKind::ValidationError, "{}", e.to_json());
            let example = e.fields().get("example").and_then(Value::as_str);
            assert!(
                example.is_some_and(|ex| ex.starts_with(&format!("{tool}("))),
                "every validation error carries an example call: {}",
                e.to_json()
            );
            e
        }
    }
}

/// `(path, message)` of every problem.
fn problems(e: &ToolError) -> Vec<(String, String)> {
    e.problems()
        .iter()
        .map(|p| (p.path.clone(), p.message.clone()))
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

const SEARCH_EXAMPLE: &str = r#"search(query="...", corpus="code", limit=1)"#;

fn search_fields() -> Value {
    json!({
        "allowed_corpuses": ["code", "docs", "issues"],
        "allowed_sorts": ["relevance", "newest", "oldest"],
        "allowed_values": {
            "corpus": ["code", "docs", "issues"],
            "sort": ["relevance", "newest", "oldest"]
        },
        "example": SEARCH_EXAMPLE,
    })
}

/// The full JSON of a `search` validation error.
fn search_error(error: &str, problems: Value, did_you_mean: &str) -> Value {
    let mut v = json!({
        "type": "error",
        "error_type": "validation_error",
        "error": error,
        "problems": problems,
        "suggestion": format!("{did_you_mean}Example: {SEARCH_EXAMPLE}"),
    });
    for (k, f) in search_fields().as_object().unwrap() {
        v[k] = f.clone();
    }
    v
}

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
        pairs(&[("/limit", "`limit`: 500 is greater than the maximum of 100")])
    );
    let e = invalid("search", r#"{"query": "x", "corpus": "code", "limit": 0}"#);
    assert_eq!(
        problems(&e),
        pairs(&[("/limit", "`limit`: 0 is less than the minimum of 1")])
    );
    // A value out of the Rust type's range (u32) is refused too, with its path.
    let e = invalid("search", r#"{"query": "x", "corpus": "code", "limit": -1}"#);
    assert_eq!(
        problems(&e),
        pairs(&[("/limit", "`limit`: -1 is less than the minimum of 1")])
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

// 7. ----------------------------------------------------------------------------------------

#[test]
fn malformed_json_text() {
    let e = invalid("add", r#"{"a": 1,"#);
    assert_eq!(
        e.to_json(),
        json!({
            "type": "error",
            "error_type": "validation_error",
            "error": "add(…): Invalid JSON arguments: EOF while parsing a value at line 1 column 8",
            "example": "add(a=1, b=1)",
            "problems": [{
                "path": "",
                "message": "the arguments are not valid JSON: EOF while parsing a value at line 1 column 8 (line 1, column 8)",
                "expected": "a JSON object"
            }],
            "suggestion": "Send the arguments as one JSON object. Example: add(a=1, b=1)"
        })
    );
    let e = invalid("add", "{a: 1, b: 2}");
    assert_eq!(
        e.message(),
        "Invalid JSON arguments: key must be a string at line 1 column 2"
    );
    let e = invalid("add", r#"{"a": 1, "b": 2} trailing"#);
    assert_eq!(
        e.message(),
        "Invalid JSON arguments: trailing characters at line 1 column 18"
    );
}

// 8. ----------------------------------------------------------------------------------------

#[test]
fn non_object_arguments() {
    for (args, sig, got) in [
        (Arguments::from("[2, 3]"), "add([2,3])", "array"),
        (Arguments::from(json!([2, 3])), "add([2,3])", "array"),
        (Arguments::from(r#""a=1""#), r#"add("a=1")"#, "string"),
        (Arguments::from(json!("a=1")), r#"add("a=1")"#, "string"),
        (Arguments::from("null"), "add()", "null"),
        (Arguments::from(Value::Null), "add()", "null"),
        (Arguments::from("42"), "add(42)", "integer"),
        (Arguments::from(json!(4.5)), "add(4.5)", "number"),
        (Arguments::from("true"), "add(true)", "boolean"),
    ] {
        let e = invalid("add", args.clone());
        let message = format!("the arguments must be a JSON object, got {got}");
        assert_eq!(
            e.to_json(),
            json!({
                "type": "error",
                "error_type": "validation_error",
                "error": format!("{sig}: {message}"),
                "example": "add(a=1, b=1)",
                "problems": [{"path": "", "message": message, "expected": "object"}],
                "suggestion": "Example: add(a=1, b=1)"
            }),
            "{args:?}"
        );
    }
}

// 9. ----------------------------------------------------------------------------------------

#[test]
fn empty_string_arguments_are_an_empty_object() {
    for text in ["", "   ", "\n"] {
        let e = invalid("add", text);
        assert_eq!(
            problems(&e),
            pairs(&[
                ("/a", "missing required parameter `a`"),
                ("/b", "missing required parameter `b`"),
            ]),
            "{text:?}"
        );
        assert_eq!(e.signature(), Some("add()"));
    }
    // A tool without parameters accepts the empty string.
    let registry = Registry::builder()
        .register(Waiter::default())
        .build()
        .unwrap();
    let entry = registry.get("waiter").unwrap();
    assert!(
        entry
            .tool()
            .decode(&Arguments::from(""), entry.schema())
            .is_ok()
    );
    assert!(
        entry
            .tool()
            .decode(&Arguments::from("{}"), entry.schema())
            .is_ok()
    );
    let e = entry
        .tool()
        .decode(&Arguments::from(r#"{"x": 1}"#), entry.schema())
        .err()
        .unwrap();
    assert_eq!(problems(&e), pairs(&[("/x", "unknown parameter `x`")]));
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
            ("/limit", "`limit`: 0 is less than the minimum of 1"),
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

// 12. ---------------------------------------------------------------------------------------

#[test]
fn oversize_arguments_are_refused_before_parsing() {
    let big = format!(
        r#"{{"a": 1, "b": 2, "pad": "{}"}}"#,
        "x".repeat(MAX_ARGUMENTS_BYTES)
    );
    let len = big.len();
    let e = invalid("add", big.as_str());
    let message =
        format!("the arguments are {len} bytes of JSON; the limit is {MAX_ARGUMENTS_BYTES}");
    assert_eq!(
        e.to_json(),
        json!({
            "type": "error",
            "error_type": "validation_error",
            "error": format!("add(…): {message}"),
            "example": "add(a=1, b=1)",
            "problems": [{"path": "", "message": message, "expected": format!("at most {MAX_ARGUMENTS_BYTES} bytes of JSON")}],
            "suggestion": "Send less data in one call, or split the work into several calls. Example: add(a=1, b=1)"
        })
    );
    // The polymorphic path (which reads the action first) enforces the limit as well.
    let big = format!(
        r#"{{"action": "view", "prompt_type": "system", "content": "{}"}}"#,
        "x".repeat(MAX_ARGUMENTS_BYTES)
    );
    let e = invalid("prompt_manager", big.as_str());
    assert!(
        e.message().starts_with("the arguments are "),
        "{}",
        e.message()
    );
}

#[tokio::test]
async fn oversize_arguments_through_the_runtime() {
    let session = tool_core::Runtime::builder(all_tools()).build().session();
    let big = format!(
        r#"{{"action": "view", "prompt_type": "system", "content": "{}"}}"#,
        "x".repeat(MAX_ARGUMENTS_BYTES)
    );
    let out = session.call(call_text("big", "prompt_manager", &big)).await;
    let e = expect_err(&out);
    assert_kind(e, ErrorKind::ValidationError);
    assert_eq!(e.signature(), Some("prompt_manager(…)"));
    assert!(
        e.message().starts_with("the arguments are "),
        "{}",
        e.message()
    );
    // The activity record does not keep the oversize input.
    let record = session
        .runtime()
        .activities()
        .get(&out.activity_id)
        .await
        .unwrap();
    assert!(
        record.input.to_string().len() < 1024,
        "{}",
        record.input.to_string().len()
    );
}

// 13/14. --------------------------------------------------------------------------------------

#[tokio::test]
async fn the_runtime_prefixes_every_error_with_the_call_signature() {
    let session = tool_core::Runtime::builder(all_tools()).build().session();
    let out = session
        .call(call("c1", "add", json!({"a": "two", "b": 2})))
        .await;
    let e = expect_err(&out);
    assert_eq!(
        e.to_json()["error"],
        r#"add(a="two", b=2): `a` must be integer, got string"#
    );
    let out = session.call(call_text("c2", "add", r#"{"a": 2"#)).await;
    assert_eq!(
        expect_err(&out).to_json()["error"],
        "add(…): Invalid JSON arguments: EOF while parsing an object at line 1 column 7"
    );
    // Long values are cut in the signature.
    let long = "y".repeat(100);
    let out = session
        .call(call("c3", "add", json!({"a": long, "b": 2})))
        .await;
    let e = expect_err(&out);
    assert_eq!(
        e.signature(),
        Some(format!("add(a=\"{}…, b=2)", "y".repeat(59)).as_str())
    );
    // Long keys are cut as well.
    let key = "k".repeat(10_000);
    let out = session
        .call(call("c4", "add", json!({key: 1, "a": 1, "b": 2})))
        .await;
    let e = expect_err(&out);
    assert!(
        e.signature().unwrap().len() < 400,
        "{}",
        e.signature().unwrap().len()
    );
}

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
            entry
                .tool()
                .decode(&Arguments::from(ok.clone()), entry.schema())
                .is_ok(),
            "{ok}"
        );
        assert!(
            entry
                .tool()
                .decode(&Arguments::from(ok.to_string()), entry.schema())
                .is_ok(),
            "{ok}"
        );
    }
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

// The fast path (typed decode from text) and the slow path (schema validation of a value) must
// agree on every input.
#[test]
fn the_fast_and_slow_paths_agree() {
    let registry = all_tools();
    let cases: Vec<(&str, Value)> = vec![
        ("add", json!({"a": 1, "b": 2})),
        ("add", json!({"a": 1})),
        ("add", json!({"a": 1, "b": 2, "c": 3})),
        ("add", json!([1, 2])),
        ("add", json!({"a": 1.0, "b": 2})),
        ("add", json!({"a": 9_223_372_036_854_775_807u64, "b": 2})),
        ("add", json!({"a": 9_223_372_036_854_775_808u64, "b": 2})),
        (
            "search",
            json!({"query": "q", "corpus": "docs", "limit": 100}),
        ),
        (
            "search",
            json!({"query": "q", "corpus": "docs", "limit": 101}),
        ),
        (
            "search",
            json!({"query": "q", "corpus": "docs", "limit": 1, "sort": null}),
        ),
        (
            "search",
            json!({"query": "q", "corpus": "docs", "limit": 1, "filters": [{"name": "n"}]}),
        ),
        (
            "search",
            json!({"query": "q", "corpus": {"docs": null}, "limit": 1}),
        ),
        (
            "prompt_manager",
            json!({"action": "view", "prompt_type": "name"}),
        ),
        (
            "prompt_manager",
            json!({"action": "update", "prompt_type": "name"}),
        ),
        (
            "prompt_manager",
            json!({"action": "view", "prompt_type": "name", "content": "c"}),
        ),
        ("notes", json!({"action": "nope"})),
        ("notes", json!({"action": "add", "text": "t"})),
    ];
    for (tool, value) in cases {
        let entry = registry.get(tool).unwrap();
        let text = entry
            .tool()
            .decode(&Arguments::Text(value.to_string()), entry.schema());
        let tree = entry
            .tool()
            .decode(&Arguments::Value(value.clone()), entry.schema());
        match (text, tree) {
            (Ok(_), Ok(_)) => {}
            (Err(a), Err(b)) => assert_eq!(a.to_json(), b.to_json(), "{tool} {value}"),
            (a, b) => panic!(
                "{tool} {value}: text {:?} vs value {:?}",
                a.map(|_| ()).map_err(|e| e.to_json()),
                b.map(|_| ()).map_err(|e| e.to_json())
            ),
        }
    }
}

#[test]
fn valid_calls_decode_into_the_typed_input() {
    let registry = all_tools();
    let entry = registry.get("search").unwrap();
    for args in [
        Arguments::from(
            r#"{"query": "q", "corpus": "issues", "limit": 7, "sort": "oldest", "filters": [{"name": "n", "value": null}]}"#,
        ),
        Arguments::from(
            json!({"query": "q", "corpus": "issues", "limit": 7, "sort": "oldest", "filters": [{"name": "n", "value": null}]}),
        ),
    ] {
        let input = entry.tool().decode(&args, entry.schema()).unwrap();
        let input = input.downcast::<SearchArgs>().unwrap();
        assert_eq!(input.query, "q");
        assert_eq!(input.corpus, Corpus::Issues);
        assert_eq!(input.limit, 7);
        assert_eq!(input.sort, Some(SortOrder::Oldest));
        assert_eq!(input.filters.len(), 1);
        assert_eq!(input.filters[0].name, "n");
    }
}

/// Parameters named like schema keywords.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct KeywordArgs {
    /// Named `properties`.
    properties: Option<Inner>,
    /// Named `default`.
    default: Option<Inner>,
}

/// A nested object.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Inner {
    /// A flag.
    on: bool,
}

// Regression: closing objects walked the `properties` map as if it were a schema, so a
// parameter named `properties` got a bogus `additionalProperties: false` member injected into
// the map, and a parameter named `default` (or `enum`, `const`, `examples`) was never closed.
#[test]
fn parameters_named_like_schema_keywords_are_closed_like_any_other() {
    let s = tool_core::schema::input_schema_for::<KeywordArgs>();
    let props = s["properties"].as_object().unwrap();
    assert_eq!(
        props.keys().collect::<Vec<_>>(),
        vec!["properties", "default"]
    );
    assert_eq!(s["$defs"]["Inner"]["additionalProperties"], false);
    assert_eq!(s["additionalProperties"], false);
    // Inline objects are closed too.
    let closed = tool_core::schema::canonicalize_input(json!({
        "type": "object",
        "properties": {
            "default": {"type": "object", "properties": {"x": {"type": "string"}}},
            "enum": {"type": "object", "properties": {"y": {"type": "string"}}}
        }
    }));
    assert_eq!(
        closed["properties"]["default"]["additionalProperties"],
        false
    );
    assert_eq!(closed["properties"]["enum"]["additionalProperties"], false);
    assert!(closed["properties"].get("additionalProperties").is_none());
}

/// Arguments of `paged`: integers, one nested in a list.
#[derive(Debug, Deserialize, JsonSchema)]
struct PagedArgs {
    /// The most results.
    max_results: u32,
    /// Pages to read.
    pages: Option<Vec<u64>>,
    /// An offset that may be negative.
    shift: Option<i64>,
}

/// Echoes its integers.
struct Paged;

#[async_trait::async_trait]
impl Tool for Paged {
    type Input = PagedArgs;
    type Output = Value;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("paged", "Integers.")
    }
    async fn call(&self, _: &ToolContext, a: PagedArgs) -> Result<Value, ToolError> {
        Ok(json!({"max_results": a.max_results, "pages": a.pages, "shift": a.shift}))
    }
}

// Regression: Gemini sends `5.0` for an integer; JSON Schema counts it as one, so validation
// passed, and then decoding failed with "invalid type: floating point `5.0`, expected u32".
#[tokio::test]
async fn integral_floats_decode_as_integers() {
    let registry = Registry::builder()
        .register(Paged)
        .register(Add)
        .register(Search)
        .build()
        .unwrap();
    let session = tool_core::Runtime::builder(registry).build().session();
    for args in [
        Arguments::from(json!({"max_results": 5.0, "pages": [1.0, 2.0], "shift": -3.0})),
        Arguments::from(r#"{"max_results": 5.0, "pages": [1.0, 2.0], "shift": -3.0}"#),
    ] {
        let out = session
            .call(tool_core::ToolCall::new("p", "paged", args.clone()))
            .await;
        assert_eq!(
            out.to_json(),
            json!({"max_results": 5, "pages": [1, 2], "shift": -3}),
            "{args:?}"
        );
        session.clear_current_turn();
    }
    let out = session
        .call(call("a", "add", json!({"a": 2.0, "b": 3})))
        .await;
    assert_eq!(out.to_json(), json!({"sum": 5}));
    // Through the validator's slow path (a range serde does not check) as well.
    let out = session
        .call(call(
            "s",
            "search",
            json!({"query": "q", "corpus": "code", "limit": 7.0}),
        ))
        .await;
    assert_eq!(out.to_json()["limit"], 7, "{}", out.to_json());

    // A fraction is still not an integer (the schema says so)...
    let out = session
        .call(call("bad", "paged", json!({"max_results": 5.5})))
        .await;
    let e = expect_err(&out);
    assert_kind(e, ErrorKind::ValidationError);
    assert_eq!(e.problems()[0].path, "/max_results", "{}", e.to_json());
    // ...and a float too large for 64 bits is not made an integer: the error names it, not
    // the float that was read as one.
    let out = session
        .call(call(
            "big",
            "paged",
            json!({"max_results": 1.0, "pages": [1e300]}),
        ))
        .await;
    let e = expect_err(&out);
    assert_kind(e, ErrorKind::ValidationError);
    assert!(e.message().contains("`1e+300`"), "{}", e.to_json());
    assert!(!e.message().contains("`1.0`"), "{}", e.to_json());
}

// Regression: the errors for malformed JSON and oversize arguments lacked the allowed values
// every other validation error of the tool carries (seed 000: every validation error of
// prompt_manager lists allowed_actions and allowed_prompt_types).
#[test]
fn malformed_and_oversize_errors_carry_the_allowed_values() {
    let big = format!(
        r#"{{"action": "view", "prompt_type": "system", "content": "{}"}}"#,
        "x".repeat(MAX_ARGUMENTS_BYTES)
    );
    for text in ["{not json", r#"{"action": "view","#, big.as_str()] {
        let e = invalid("prompt_manager", text);
        let json = e.to_json();
        assert_eq!(json["allowed_actions"], json!(["view", "update"]), "{json}");
        assert_eq!(
            json["allowed_prompt_types"],
            json!([
                "system",
                "conversation_consolidation",
                "memory_management",
                "name"
            ]),
            "{json}"
        );
        assert_eq!(
            json["allowed_values"],
            json!({
                "action": json["allowed_actions"],
                "prompt_type": json["allowed_prompt_types"]
            })
        );
    }
    // A string discriminator's values come from the action set.
    let e = invalid("notes", "[1,");
    assert_eq!(
        e.to_json()["allowed_actions"],
        json!(["add", "list", "remove"])
    );
    // The shared function keeps what an error already says.
    let registry = all_tools();
    let schema = registry.get("notes").unwrap().schema();
    let e = schema.with_allowed_values(
        ToolError::validation("custom").with_field("allowed_actions", json!(["add"])),
    );
    assert_eq!(e.to_json()["allowed_actions"], json!(["add"]));
    assert_eq!(
        e.to_json()["allowed_values"],
        json!({"action": ["add", "list", "remove"]})
    );
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

#[async_trait::async_trait]
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
        entry
            .tool()
            .decode(&Arguments::from(v), entry.schema())
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
