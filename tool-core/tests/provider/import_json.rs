//! Import of malformed and borderline JSON arguments: each gets the exact repair or error
//! expected (bad JSON text left for validation, the empty string, arrays, arguments encoded
//! twice, nested stringified JSON, scalar repairs, Gemini's integral floats, unknown
//! parameters with the nearest name).

use serde_json::json;
use tool_core::Arguments;
use tool_core::provider::{self, Importer, RepairKind};

use crate::support::provider::*;

#[tokio::test]
async fn case_01_bad_json_arguments_reach_validation_as_text() {
    let registry = registry();
    let i = Importer::new(&registry)
        .openai_tool_call(&openai_call("grep", json!("{\"pattern\": \"x\"")))
        .unwrap();
    assert_eq!(
        i.call.arguments,
        Arguments::Text("{\"pattern\": \"x\"".into())
    );
    assert!(i.repairs.is_empty());
    let a = answer(i).await;
    assert_eq!(a["type"], "error");
    assert_eq!(a["error_type"], "validation_error");
    assert_eq!(
        a["error"],
        "grep(…): Invalid JSON arguments: EOF while parsing an object at line 1 column 15"
    );
}

#[tokio::test]
async fn case_02_empty_arguments_string_is_an_empty_object() {
    let registry = registry();
    let i = Importer::new(&registry)
        .openai_tool_call(&openai_call("ping", json!("")))
        .unwrap();
    assert_eq!(args(&i.call), json!({}));
    assert_eq!(i.repairs[0].kind, RepairKind::EmptyStringAsEmptyObject);
    assert_eq!(i.repairs[0].path, "");
    assert_eq!(answer(i).await, json!({"type": "done"}));
}

#[tokio::test]
async fn case_03_arguments_that_are_a_json_array() {
    let registry = registry();
    let i = Importer::new(&registry)
        .openai_tool_call(&openai_call("grep", json!("[\"x\"]")))
        .unwrap();
    assert!(i.repairs.is_empty());
    let a = answer(i).await;
    assert_eq!(a["error_type"], "validation_error");
    assert_eq!(
        a["problems"][0]["message"],
        "the arguments must be a JSON object, got array"
    );
}

#[tokio::test]
async fn case_04_arguments_encoded_twice() {
    let registry = registry();
    let twice = serde_json::to_string(&json!({"pattern": "x"}).to_string()).unwrap();
    let i = Importer::new(&registry)
        .openai_tool_call(&openai_call("grep", json!(twice)))
        .unwrap();
    assert_eq!(args(&i.call), json!({"pattern": "x"}));
    assert_eq!(i.repairs.len(), 1);
    assert_eq!(i.repairs[0].kind, RepairKind::StringifiedJsonParsed);
    assert_eq!(i.repairs[0].path, "");
    assert_eq!(answer(i).await, json!({"type": "done"}));
}

#[tokio::test]
async fn case_05_nested_stringified_json() {
    let registry = registry();
    let user = json!({"name": "A", "age": 3, "address": {"street": "s", "city": "c"}});
    let arguments = json!({"user": user.to_string()}).to_string();
    let i = Importer::new(&registry)
        .openai_tool_call(&openai_call("create_user", json!(arguments)))
        .unwrap();
    assert_eq!(args(&i.call), json!({"user": user}));
    assert_eq!(i.repairs[0].path, "/user");
    assert_eq!(i.repairs[0].kind, RepairKind::StringifiedJsonParsed);
    assert_eq!(i.repairs[0].detail, "a JSON object written as a string");
    assert_eq!(answer(i).await, json!({"type": "done"}));
}

#[test]
fn case_06_to_09_json_scalar_repairs() {
    let registry = registry();
    let importer = Importer::new(&registry);
    let i = importer
        .anthropic_tool_use(&json!({"type": "tool_use", "id": "tu_1", "name": "grep",
            "input": {"pattern": "x", "max_results": "5", "context": " -3 ",
                      "case_sensitive": null, "path": null}}))
        .unwrap();
    // `"5"` read as 5, `" -3 "` as -3; the null strict mode sends for an absent optional
    // parameter that takes no null (`case_sensitive: bool` with a default) is dropped, while
    // `path: Option<String>` takes null and keeps it.
    assert_eq!(
        args(&i.call),
        json!({"pattern": "x", "max_results": 5, "context": -3, "path": null})
    );
    let got: Vec<(&str, RepairKind, &str)> = i
        .repairs
        .iter()
        .map(|r| (r.path.as_str(), r.kind, r.detail.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (
                "/max_results",
                RepairKind::NumberFromString,
                "the string \"5\""
            ),
            (
                "/context",
                RepairKind::NumberFromString,
                "the string \" -3 \""
            ),
            (
                "/case_sensitive",
                RepairKind::NullDropped,
                "`null` for the optional parameter `case_sensitive`"
            ),
        ]
    );
    let i = importer
        .anthropic_tool_use(&json!({"type": "tool_use", "id": "tu_3", "name": "grep",
            "input": {"pattern": "x", "case_sensitive": "TRUE", "max_results": "5.5"}}))
        .unwrap();
    // `"TRUE"` is a boolean; `"5.5"` is no integer and stays text for validation.
    assert_eq!(
        args(&i.call),
        json!({"pattern": "x", "case_sensitive": true, "max_results": "5.5"})
    );
    assert_eq!(i.repairs.len(), 1);
    assert_eq!(i.repairs[0].kind, RepairKind::BoolFromString);
    // One path where a list is expected is wrapped.
    let i = importer
        .anthropic_tool_use(
            &json!({"type": "tool_use", "id": "tu_2", "name": "read_file",
            "input": {"paths": "a.rs"}}),
        )
        .unwrap();
    assert_eq!(args(&i.call), json!({"paths": ["a.rs"]}));
    assert_eq!(i.repairs[0].kind, RepairKind::ScalarWrappedInArray);
    assert_eq!(i.repairs[0].path, "/paths");
}

#[tokio::test]
async fn case_10_gemini_sends_integers_as_floats() {
    let registry = registry();
    let i = Importer::new(&registry)
        .gemini_function_call(&json!({"functionCall": {"name": "grep",
            "args": {"pattern": "x", "max_results": 5.0, "context": -1.0}}}))
        .unwrap();
    assert!(provider::is_generated_id(&i.call.id));
    assert_eq!(
        serde_json::to_string(&args(&i.call)).unwrap(),
        r#"{"pattern":"x","max_results":5,"context":-1}"#
    );
    assert_eq!(i.repairs.len(), 2);
    assert!(
        i.repairs
            .iter()
            .all(|r| r.kind == RepairKind::IntegerFromFloat)
    );
    assert_eq!(answer(i).await, json!({"type": "done"}));
}

#[tokio::test]
async fn case_11_unknown_parameter_gets_did_you_mean() {
    let registry = registry();
    let i = Importer::new(&registry)
        .openai_tool_call(&openai_call("grep", json!(r#"{"patern": "x"}"#)))
        .unwrap();
    let a = answer(i).await;
    assert_eq!(a["error_type"], "validation_error");
    let paths = problem_paths(&a);
    assert!(paths.contains(&"/patern".to_owned()), "{a}");
    assert!(
        a["suggestion"]
            .as_str()
            .unwrap()
            .contains("Did you mean `pattern`"),
        "{a}"
    );
}
