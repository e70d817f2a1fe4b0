//! Decoding valid arguments: the fast path (typed decode from text) and the slow path (schema
//! validation of a value) agree on every input, valid calls decode into the typed input,
//! parameters named like schema keywords are closed like any other, and integral floats
//! decode as integers.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tool_core::{Arguments, ErrorKind, Registry, Tool, ToolContext, ToolError, ToolSpec};

use crate::support::validation::*;
use crate::support::*;

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
        let text = validate(entry, &Arguments::Text(value.to_string()));
        let tree = validate(entry, &Arguments::Value(value.clone()));
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
        let input: <Search as tool_core::Tool>::Input = entry.schema().decode(&args).unwrap();
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
    let s = tool_core::input_schema_for::<KeywordArgs>();
    let props = s["properties"].as_object().unwrap();
    assert_eq!(
        props.keys().collect::<Vec<_>>(),
        vec!["properties", "default"]
    );
    assert_eq!(s["$defs"]["Inner"]["additionalProperties"], false);
    assert_eq!(s["additionalProperties"], false);
    // Inline objects are closed too.
    let closed = tool_core::canonicalize_input(json!({
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
