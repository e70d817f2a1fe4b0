//! Argument validation of the arguments as a whole: malformed JSON text, arguments that are
//! not an object, the empty string, oversize arguments refused before parsing (and kept out
//! of the activity record), the call signature that prefixes every error, and the allowed
//! values these errors carry like any other. Never a panic.

use serde_json::{Value, json};
use tool_core::MAX_ARGUMENTS_BYTES;
use tool_core::{Arguments, ErrorKind, Registry, ToolError};

use crate::support::validation::*;
use crate::support::*;

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
    assert!(validate(entry, &Arguments::from("")).is_ok());
    assert!(validate(entry, &Arguments::from("{}")).is_ok());
    let e = validate(entry, &Arguments::from(r#"{"x": 1}"#))
        .err()
        .unwrap();
    assert_eq!(problems(&e), pairs(&[("/x", "unknown parameter `x`")]));
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
