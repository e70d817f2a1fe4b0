//! Import of each provider's message shapes: Anthropic input given as a string or missing,
//! OpenAI shape errors that keep the call id, the limits, deep nesting, each provider's JSON
//! messages, polymorphic strict nulls, odd shapes that never panic, a self-referring schema
//! union, and the JSON-RPC id of an MCP request.

use serde_json::json;
use tool_core::provider::{self, Format, ImportOptions, Importer, RepairKind};

use crate::support::provider::*;

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
