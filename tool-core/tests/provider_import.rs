//! Import of malformed and borderline calls: each gets the exact repair or error expected
//! (bad JSON strings, wrong types in XML, unknown parameters, duplicate XML parameters, ...).

mod fixtures;

use serde_json::{Value, json};
use tool_core::provider::{
    self, Format, ImportError, ImportOptions, Imported, Importer, RepairKind,
};
use tool_core::{Arguments, Registry, Runtime, Session, ToolCall};

fn args(call: &ToolCall) -> Value {
    call.arguments.to_value().expect("valid JSON arguments")
}

fn one(results: Vec<Result<Imported, ImportError>>) -> Imported {
    assert_eq!(results.len(), 1, "{results:?}");
    results.into_iter().next().unwrap().expect("imports")
}

fn registry() -> Registry {
    fixtures::fixture_registry()
}

fn session(registry: Registry) -> Session {
    Runtime::builder(registry).build().session()
}

// ---- malformed and borderline calls -----------------------------------------------------

async fn answer(imported: Imported) -> Value {
    let session = session(registry());
    provider::dispatch(&session, imported).await.to_json()
}

fn openai_call(name: &str, arguments: Value) -> Value {
    json!({"id": "call_x", "type": "function", "function": {"name": name, "arguments": arguments}})
}

fn problem_paths(answer: &Value) -> Vec<String> {
    answer["problems"]
        .as_array()
        .map(|ps| {
            ps.iter()
                .map(|p| p["path"].as_str().unwrap_or("").to_owned())
                .collect()
        })
        .unwrap_or_default()
}

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

#[tokio::test]
async fn case_12_unknown_tool_in_xml_is_still_a_call() {
    let registry = registry();
    let i = one(Importer::new(&registry)
        .xml_calls("<tool:gerp><param:pattern>x</param:pattern></tool:gerp>"));
    assert_eq!(i.call.name, "gerp");
    assert_eq!(args(&i.call), json!({"pattern": "x"}));
    let a = answer(i).await;
    assert_eq!(a["error_type"], "not_found");
    assert_eq!(a["did_you_mean"], "grep");
}

#[tokio::test]
async fn case_13_duplicate_xml_param_is_a_problem_not_an_overwrite() {
    let registry = registry();
    let i = one(Importer::new(&registry).xml_calls(
        "<tool:grep>\n<param:pattern>a</param:pattern>\n<param:pattern>b</param:pattern>\n</tool:grep>",
    ));
    assert_eq!(args(&i.call), json!({"pattern": ["a", "b"]}));
    assert_eq!(i.problems.len(), 1);
    assert_eq!(
        i.problems[0].message,
        "parameter `pattern` was given 2 times; it takes one value"
    );
    let a = answer(i.clone()).await;
    assert_eq!(a["error_type"], "validation_error");
    assert_eq!(
        a["error"],
        "grep(pattern=[\"a\",\"b\"]): parameter `pattern` was given 2 times; it takes one value"
    );
    // Even run directly, validation refuses the array.
    let direct = session(registry).call(i.call).await.to_json();
    assert_eq!(direct["error_type"], "validation_error");
    assert_eq!(problem_paths(&direct), ["/pattern"]);
}

#[tokio::test]
async fn case_14_wrong_types_in_xml_stay_text_for_validation() {
    let registry = registry();
    let i = one(Importer::new(&registry).xml_calls(
        "<tool:grep><param:pattern>x</param:pattern><param:max_results>many</param:max_results>\
         <param:case_sensitive>yes</param:case_sensitive></tool:grep>",
    ));
    assert_eq!(
        args(&i.call),
        json!({"pattern": "x", "max_results": "many", "case_sensitive": "yes"})
    );
    assert!(i.repairs.is_empty());
    let a = answer(i).await;
    assert_eq!(problem_paths(&a), ["/max_results", "/case_sensitive"]);
}

#[test]
fn case_15_unclosed_tool_tag() {
    let registry = registry();
    let r =
        Importer::new(&registry).xml_calls("ok\n<tool:grep>\n<param:pattern>x</param:pattern>\n");
    let e = r.into_iter().next().unwrap().unwrap_err();
    assert_eq!(
        e.to_string(),
        "the XML call of `grep` is malformed: the call is not closed: `</tool:grep>` is missing \
         (at byte 3)"
    );
    let err = e.to_tool_error().to_json();
    assert_eq!(err["error_type"], "validation_error");
    assert_eq!(provider::rejected_import(&e).tool, "grep");
}

#[test]
fn case_16_unclosed_param_tag() {
    let registry = registry();
    let r = Importer::new(&registry).xml_calls("<tool:grep><param:pattern>x</tool:grep>");
    assert_eq!(
        r[0].as_ref().unwrap_err().to_string(),
        "the XML call of `grep` is malformed: parameter `pattern` is not closed: \
         `</param:pattern>` is missing (at byte 11)"
    );
}

#[test]
fn case_17_cdata_holds_closing_tags_and_entities_stay_literal() {
    let registry = registry();
    let i = one(Importer::new(&registry).xml_calls(
        "<tool:grep><param:pattern><![CDATA[a</param:pattern>b]]></param:pattern>\
         <param:path>x &lt;&amp;&gt; y</param:path></tool:grep>",
    ));
    assert_eq!(
        args(&i.call),
        json!({"pattern": "a</param:pattern>b", "path": "x &lt;&amp;&gt; y"})
    );
}

#[test]
fn case_18_unicode_values_and_a_non_ascii_param_name() {
    let registry = registry();
    let importer = Importer::new(&registry);
    let i =
        one(importer
            .xml_calls("<tool:grep><param:pattern>日本語 🦀 naïve</param:pattern></tool:grep>"));
    assert_eq!(args(&i.call), json!({"pattern": "日本語 🦀 naïve"}));
    let r = importer.xml_calls("<tool:grep><param:naïve>x</param:naïve></tool:grep>");
    assert_eq!(
        r[0].as_ref().unwrap_err().to_string(),
        "the XML call of `grep` is malformed: a parameter tag must be `<param:NAME>`: the name \
         right after `param:`, then `>` (at byte 11)"
    );
}

#[test]
fn case_19_xml_arrays_from_json_text_and_objects_from_json_text() {
    let registry = registry();
    let importer = Importer::new(&registry);
    let i = one(importer.xml_calls(
        "<tool:read_file><param:paths>[\"a.rs\", \"b.rs\"]</param:paths>\
         <param:ranges>{\"start\": 1, \"end\": 2}</param:ranges></tool:read_file>",
    ));
    assert_eq!(
        args(&i.call),
        json!({"paths": ["a.rs", "b.rs"], "ranges": [{"start": 1, "end": 2}]})
    );
    let kinds: Vec<(&str, RepairKind)> = i
        .repairs
        .iter()
        .map(|r| (r.path.as_str(), r.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            ("/paths", RepairKind::StringifiedJsonParsed),
            ("/ranges/0", RepairKind::StringifiedJsonParsed),
        ]
    );
}

#[tokio::test]
async fn case_20_bad_json_text_for_an_object_stays_text() {
    let registry = registry();
    let i = one(Importer::new(&registry)
        .xml_calls("<tool:create_user><param:user>{name: Ada}</param:user></tool:create_user>"));
    assert_eq!(args(&i.call), json!({"user": "{name: Ada}"}));
    let a = answer(i).await;
    assert_eq!(problem_paths(&a), ["/user"]);
}

#[test]
fn case_21_empty_string_for_an_object_and_stray_text() {
    let registry = registry();
    let i = one(Importer::new(&registry).xml_calls(
        "<tool:configure>\nsetting env now\n<param:env></param:env>\n</tool:configure>",
    ));
    assert_eq!(args(&i.call), json!({"env": {}}));
    let got: Vec<(&str, RepairKind, &str)> = i
        .repairs
        .iter()
        .map(|r| (r.path.as_str(), r.kind, r.detail.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (
                "",
                RepairKind::StrayTextIgnored,
                "text outside the parameter tags: \"setting env now\""
            ),
            (
                "/env",
                RepairKind::EmptyStringAsEmptyObject,
                "an empty string"
            ),
        ]
    );
}

#[test]
fn case_22_anthropic_input_as_a_string_and_missing() {
    let registry = registry();
    let importer = Importer::new(&registry);
    let i = importer
        .anthropic_tool_use(&json!({"type": "tool_use", "id": "tu_1", "name": "grep",
            "input": "{\"pattern\": \"x\"}"}))
        .unwrap();
    assert_eq!(args(&i.call), json!({"pattern": "x"}));
    assert_eq!(i.repairs[0].kind, RepairKind::StringifiedJsonParsed);
    let i = importer
        .anthropic_tool_use(&json!({"type": "tool_use", "id": "tu_2", "name": "ping"}))
        .unwrap();
    assert_eq!(args(&i.call), json!({}));
    assert_eq!(i.repairs[0].kind, RepairKind::MissingArguments);
    assert_eq!(i.repairs[0].detail, "no `input`");
}

#[test]
fn case_23_openai_shape_errors_keep_the_call_id() {
    let registry = registry();
    let importer = Importer::new(&registry);
    let e = importer
        .openai_tool_call(
            &json!({"id": "call_9", "type": "function", "function": {"arguments": "{}"}}),
        )
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "malformed openai tool call: `function.name` is missing"
    );
    assert_eq!(e.call_id(), Some("call_9"));
    assert_eq!(provider::rejected_import(&e).call_id, "call_9");
    let e = importer
        .openai_tool_call(&json!({"id": "call_8", "type": "custom", "custom": {"name": "x"}}))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "malformed openai tool call: `type` is \"custom\", not \"function\""
    );
    assert!(importer.openai_tool_call(&json!("grep")).is_err());
}

#[test]
fn case_24_limits() {
    let registry = registry();
    let opts = ImportOptions::default;
    let small = Importer::new(&registry).options(opts().max_xml_bytes(64));
    let big = format!(
        "<tool:grep><param:pattern>{}</param:pattern></tool:grep>",
        "x".repeat(64)
    );
    assert_eq!(
        small.xml_calls(&big)[0].as_ref().unwrap_err().to_string(),
        format!(
            "the tool call has {} bytes of XML; the limit is 64",
            big.len()
        )
    );
    let few = Importer::new(&registry).options(opts().max_xml_params(2));
    let many =
        "<tool:grep><param:a>1</param:a><param:b>2</param:b><param:c>3</param:c></tool:grep>";
    assert_eq!(
        few.xml_calls(many)[0].as_ref().unwrap_err().to_string(),
        "the tool call has 3 parameters in one call; the limit is 2"
    );
    let one_call = Importer::new(&registry).options(opts().max_xml_calls(1));
    let two = "<tool:ping></tool:ping><tool:ping></tool:ping>";
    let r = one_call.xml_calls(two);
    assert!(r[0].is_ok());
    assert_eq!(
        r[1].as_ref().unwrap_err().to_string(),
        "the tool call has 2 tool calls in one message; the limit is 1"
    );
}

#[tokio::test]
async fn case_25_deeply_nested_arguments_do_not_overflow() {
    let registry = registry();
    let deep = format!(
        "{{\"pattern\": \"x\", \"path\": {}1{}}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let i = Importer::new(&registry)
        .openai_tool_call(&openai_call("grep", json!(deep)))
        .unwrap();
    let a = answer(i).await;
    assert_eq!(a["error_type"], "validation_error");
    assert!(
        a["error"]
            .as_str()
            .unwrap()
            .contains("recursion limit exceeded"),
        "{a}"
    );
}

#[test]
fn case_26_bad_opening_tags() {
    let registry = registry();
    let importer = Importer::new(&registry);
    let r =
        importer.xml_calls("<tool:grep mode=\"x\"><param:pattern>x</param:pattern></tool:grep>");
    assert_eq!(
        r[0].as_ref().unwrap_err().to_string(),
        "the XML call of `grep` is malformed: an opening tag must be `<tool:NAME>`: the name \
         right after `tool:`, then `>` (at byte 0)"
    );
    assert!(
        importer
            .xml_calls("no calls here, not even <tool")
            .is_empty()
    );
}

#[test]
fn case_27_json_messages_of_each_provider() {
    let registry = registry();
    let importer = Importer::new(&registry);
    // Chat Completions assistant message with two calls.
    let msg = json!({"role": "assistant", "content": null, "tool_calls": [
        openai_call("grep", json!("{\"pattern\":\"a\"}")),
        openai_call("ping", json!("{}")),
    ]});
    let r = importer.import(Format::Openai, &msg.to_string());
    assert_eq!(r.len(), 2);
    // Anthropic content: text blocks are skipped.
    let content = json!({"role": "assistant", "content": [
        {"type": "text", "text": "Let me look."},
        {"type": "tool_use", "id": "tu_1", "name": "ping", "input": {}}
    ]});
    assert_eq!(
        importer
            .import(Format::Anthropic, &content.to_string())
            .len(),
        1
    );
    // Gemini candidate: text parts are skipped; an id is kept.
    let cand = json!({"content": {"role": "model", "parts": [
        {"text": "ok"},
        {"functionCall": {"id": "fc_1", "name": "ping", "args": {}}}
    ]}});
    let r = importer.import(Format::Gemini, &cand.to_string());
    assert_eq!(r[0].as_ref().unwrap().call.id, "fc_1");
    // Responses output: reasoning items skipped.
    let out = json!({"output": [
        {"type": "reasoning", "summary": []},
        {"type": "function_call", "call_id": "fc_2", "name": "ping", "arguments": "{}"}
    ]});
    assert_eq!(
        importer.import(Format::OpenaiResponses, &out.to_string())[0]
            .as_ref()
            .unwrap()
            .call
            .id,
        "fc_2"
    );
    // Not JSON at all.
    let r = importer.import(Format::Anthropic, "{oops");
    assert_eq!(
        r[0].as_ref().unwrap_err().to_string(),
        "malformed anthropic tool call: the message is not JSON: key must be a string at line 1 \
         column 2"
    );
}

#[tokio::test]
async fn case_28_polymorphic_strict_nulls_and_action_rules() {
    let registry = registry();
    let importer = Importer::new(&registry);
    // Strict mode makes the model send every parameter; the nulls are dropped.
    let i = importer
        .openai_tool_call(&openai_call(
            "web",
            json!(
                r#"{"action": "fetch", "query_or_url": "https://example.com", "max_results": null}"#
            ),
        ))
        .unwrap();
    assert_eq!(i.repairs[0].kind, RepairKind::NullDropped);
    assert_eq!(answer(i).await, json!({"type": "done"}));
    // A bad action is answered with the allowed ones.
    let i = importer
        .openai_tool_call(&openai_call(
            "web",
            json!(r#"{"action": "crawl", "query_or_url": "x"}"#),
        ))
        .unwrap();
    let a = answer(i).await;
    assert_eq!(a["allowed_actions"], json!(["search", "fetch"]));
}

#[test]
fn imports_never_panic_on_odd_shapes() {
    let registry = registry();
    let importer = Importer::new(&registry);
    for v in [
        json!(null),
        json!([]),
        json!([1, "x", null]),
        json!({"tool_calls": 5}),
        json!({"function": {"name": 5}}),
        json!({"functionCall": []}),
        json!({"content": [{"type": "tool_use"}]}),
    ] {
        let _ = importer.openai_tool_calls(&v);
        let _ = importer.anthropic_content(&v);
        let _ = importer.gemini_parts(&v);
        let _ = importer.responses_output(&v);
        let _ = importer.mcp_call(&v, None);
    }
    let none = Importer::without_registry();
    let i = one(none.xml_calls("<tool:grep><param:n>5</param:n><param:n>6</param:n></tool:grep>"));
    assert_eq!(args(&i.call), json!({"n": ["5", "6"]}));
}

#[test]
fn case_29_a_schema_whose_union_refers_to_itself_does_not_loop() {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/A"}},
        "$defs": {"A": {"anyOf": [
            {"$ref": "#/$defs/A"},
            {"type": "array", "items": {"$ref": "#/$defs/A"}},
            {"type": "object", "properties": {"x": {"type": "integer"}}}
        ]}}
    });
    let (value, repairs) = provider::repair_arguments(&schema, json!({"a": {"x": "5"}, "b": "[]"}));
    assert_eq!(value, json!({"a": {"x": 5}, "b": "[]"}));
    assert_eq!(repairs.len(), 1);
    let spec = tool_core::ToolSpec::new("cyclic", "Cycles.").input_schema(schema);
    assert!(matches!(
        provider::gemini::function_declaration(&spec),
        Err(provider::ExportError::Recursive { .. })
    ));
    assert!(provider::xml::tool_section(&spec).is_ok());
}

#[test]
fn case_30_an_mcp_request_keeps_its_json_rpc_id() {
    let registry = registry();
    let importer = Importer::new(&registry);
    let req = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                     "params": {"name": "grep", "arguments": {"pattern": "x", "max_results": "3"}}});
    let i = one(importer.import(Format::Mcp, &req.to_string()));
    assert_eq!(i.call.id, "7");
    assert_eq!(args(&i.call), json!({"pattern": "x", "max_results": 3}));
    assert_eq!(i.repairs[0].kind, RepairKind::NumberFromString);
}
