//! Results: a call's outcome rendered into each provider's tool-result message.

use serde_json::{Value, json};
use tool_core::provider::{self, Format};
use tool_core::{ResourcesTracker, ToolCall};

use crate::support::fixtures;
use crate::support::provider::session;

#[tokio::test]
async fn a_success_in_every_format() {
    let s = session(fixtures::fixture_registry());
    let ok = s
        .call(ToolCall::new(
            "call_1",
            "read_file",
            r#"{"paths": ["a.rs"]}"#,
        ))
        .await;
    assert!(ok.is_success());
    let mut t = ResourcesTracker::new();
    assert_eq!(
        provider::openai_message(&ok, &mut t),
        json!({"role": "tool", "tool_call_id": "call_1", "content": "a.rs:\ncontent"})
    );
    // The resource was shown once; the tracker now points to it.
    assert_eq!(
        provider::responses_output(&ok, &mut t),
        json!({"type": "function_call_output", "call_id": "call_1", "output": "a.rs: (shown above)"})
    );
    let mut t = ResourcesTracker::new();
    assert_eq!(
        provider::anthropic_block(&ok, &mut t),
        json!({"type": "tool_result", "tool_use_id": "call_1", "content": "a.rs:\ncontent", "is_error": false})
    );
    let mut t = ResourcesTracker::new();
    assert_eq!(
        provider::gemini_part(&ok, &mut t),
        json!({"functionResponse": {"id": "call_1", "name": "read_file",
                                    "response": {"output": "a.rs:\ncontent"}}})
    );
    let mut t = ResourcesTracker::new();
    assert_eq!(
        provider::mcp_result(&ok, &mut t),
        json!({"content": [{"type": "text", "text": "a.rs:\ncontent"}],
               "structuredContent": {"type": "file_content", "path": "a.rs"},
               "isError": false})
    );
    let mut t = ResourcesTracker::new();
    assert_eq!(
        provider::xml_result(&ok, &mut t),
        "<tool_result tool=\"read_file\">a.rs:\ncontent</tool_result>"
    );
    let mut t = ResourcesTracker::new();
    assert_eq!(
        provider::render_result(Format::Json, &ok, &mut t).as_json(),
        Some(&json!({"call_id": "call_1", "tool": "read_file",
                     "result": {"type": "file_content", "path": "a.rs"}}))
    );
}

#[tokio::test]
async fn an_error_in_every_format() {
    let s = session(fixtures::fixture_registry());
    let bad = s
        .call(ToolCall::new("call_2", "grep", r#"{"pattern": 5}"#))
        .await;
    let err = bad.error().expect("invalid").to_json();
    let text = err.to_string();
    let mut t = ResourcesTracker::new();
    for format in Format::ALL {
        let rendered = provider::render_result(*format, &bad, &mut t);
        match format {
            Format::Openai | Format::OpenaiStrict => {
                assert_eq!(
                    rendered.as_json().unwrap()["content"],
                    Value::String(text.clone())
                )
            }
            Format::OpenaiResponses => {
                assert_eq!(
                    rendered.as_json().unwrap()["output"],
                    Value::String(text.clone())
                )
            }
            Format::Anthropic | Format::AnthropicStrict => {
                let v = rendered.as_json().unwrap();
                assert_eq!(v["is_error"], true);
                assert_eq!(v["content"], Value::String(text.clone()));
            }
            Format::Gemini => assert_eq!(
                rendered.as_json().unwrap()["functionResponse"]["response"],
                json!({ "error": err })
            ),
            Format::Mcp => {
                let v = rendered.as_json().unwrap();
                assert_eq!(v["isError"], true);
                assert!(v.get("structuredContent").is_none());
                assert_eq!(v["content"][0]["text"], Value::String(text.clone()));
            }
            Format::Xml => assert_eq!(
                rendered.as_text().unwrap(),
                format!("<tool_result tool=\"grep\">{text}</tool_result>")
            ),
            _ => assert_eq!(rendered.as_json().unwrap()["result"], err),
        }
    }
}

#[tokio::test]
async fn generated_ids_are_not_echoed_to_gemini() {
    let registry = fixtures::fixture_registry();
    let importer = provider::Importer::new(&registry);
    let imported = importer
        .gemini_function_call(&json!({"functionCall": {"name": "ping"}}))
        .unwrap();
    let outcome = provider::dispatch(&session(fixtures::fixture_registry()), imported).await;
    let part = provider::gemini_part(&outcome, &mut ResourcesTracker::new());
    assert_eq!(
        part,
        json!({"functionResponse": {"name": "ping", "response": {"output": "{\"type\":\"done\"}"}}})
    );
}

#[test]
fn import_errors_are_answered_in_the_provider_shape() {
    let registry = fixtures::fixture_registry();
    let importer = provider::Importer::new(&registry);
    let e = importer
        .openai_tool_call(&json!({"id": "call_7", "function": {}}))
        .unwrap_err();
    let outcome = provider::rejected_import(&e);
    let msg = provider::openai_message(&outcome, &mut ResourcesTracker::new());
    assert_eq!(msg["tool_call_id"], "call_7");
    let content: Value = serde_json::from_str(msg["content"].as_str().unwrap()).unwrap();
    assert_eq!(content["type"], "error");
    assert_eq!(content["error_type"], "validation_error");
    assert_eq!(
        content["error"],
        "malformed openai tool call: `function.name` is missing"
    );
    // An unknown tool name with markup in it is escaped in the XML attribute.
    let odd = provider::rejected(
        &ToolCall::new("x", "a\"<b", json!({})),
        tool_core::ToolError::not_found("no such tool"),
    );
    assert!(
        provider::xml_result(&odd, &mut ResourcesTracker::new())
            .starts_with("<tool_result tool=\"a&quot;&lt;b\">")
    );
}

/// A hand-written tool whose result is text by nature.
struct Shout;

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Shouted {
    r#type: &'static str,
    text: String,
}

impl tool_core::Render for Shouted {
    fn render(&self, _: &mut ResourcesTracker) -> Option<String> {
        Some(self.text.clone())
    }
}

impl tool_core::Tool for Shout {
    type Input = tool_core::NoArgs;
    type Output = Shouted;
    fn spec(&self) -> tool_core::ToolSpec {
        tool_core::ToolSpec::new("shout", "Shout.").text_output(true)
    }
    async fn call(
        &self,
        _: &tool_core::ToolContext,
        _: tool_core::NoArgs,
    ) -> Result<Shouted, tool_core::ToolError> {
        Ok(Shouted {
            r#type: "shouted",
            text: "HEY".to_owned(),
        })
    }
}

#[tokio::test]
async fn a_text_output_tool_is_answered_with_text_alone() {
    let spec = tool_core::DynTool::spec(&Shout);
    assert!(spec.text_output && spec.output_schema.is_none());
    let registry = tool_core::Registry::builder()
        .register(Shout)
        .build()
        .unwrap();
    let s = session(registry);
    let ok = s.call(ToolCall::new("call_1", "shout", "{}")).await;
    assert!(ok.text_output);
    let mut t = ResourcesTracker::new();
    assert_eq!(
        provider::mcp_result(&ok, &mut t),
        json!({"content": [{"type": "text", "text": "HEY"}], "isError": false})
    );
    // toolsmith's own form and the process keep the typed output.
    assert_eq!(
        provider::render_result(Format::Json, &ok, &mut t).as_json(),
        Some(&json!({"call_id": "call_1", "tool": "shout",
                     "result": {"type": "shouted", "text": "HEY"}}))
    );
    // An output schema beside text_output is refused at registration.
    struct Both;
    impl tool_core::Tool for Both {
        type Input = tool_core::NoArgs;
        type Output = Shouted;
        fn spec(&self) -> tool_core::ToolSpec {
            tool_core::ToolSpec::new("both", "Both.")
                .text_output(true)
                .output::<Shouted>()
        }
        async fn call(
            &self,
            _: &tool_core::ToolContext,
            _: tool_core::NoArgs,
        ) -> Result<Shouted, tool_core::ToolError> {
            Err(tool_core::ToolError::user("never runs"))
        }
    }
    let err = tool_core::Registry::builder()
        .register(Both)
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("text_output"), "{err}");
}

/// An output that carries an image beside its text.
#[derive(serde::Serialize)]
struct Shot;

impl tool_core::Render for Shot {
    fn render(&self, _: &mut ResourcesTracker) -> Option<String> {
        Some("IMAGE: shot.png".to_owned())
    }
    fn images(&self) -> Vec<tool_core::Image> {
        vec![tool_core::Image::new("image/png", b"PNG!".to_vec())]
    }
}

#[tokio::test]
async fn images_go_beside_the_text_where_the_provider_carries_them() {
    let s = session(fixtures::fixture_registry());
    let mut ok = s
        .call(ToolCall::new(
            "call_1",
            "read_file",
            r#"{"paths": ["a.rs"]}"#,
        ))
        .await;
    ok.result = Ok(tool_core::ToolOutput::new(Shot));
    let data = "UE5HIQ==";
    let mut t = ResourcesTracker::new();
    assert_eq!(
        provider::anthropic_block(&ok, &mut t),
        json!({"type": "tool_result", "tool_use_id": "call_1", "is_error": false, "content": [
            {"type": "text", "text": "IMAGE: shot.png"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}},
        ]})
    );
    assert_eq!(
        provider::responses_output(&ok, &mut t),
        json!({"type": "function_call_output", "call_id": "call_1", "output": [
            {"type": "input_text", "text": "IMAGE: shot.png"},
            {"type": "input_image", "image_url": format!("data:image/png;base64,{data}")},
        ]})
    );
    assert_eq!(
        provider::gemini_part(&ok, &mut t),
        json!({"functionResponse": {"id": "call_1", "name": "read_file",
            "response": {"output": "IMAGE: shot.png"},
            "parts": [{"inlineData": {"mimeType": "image/png", "data": data}}]}})
    );
    assert_eq!(
        provider::mcp_result(&ok, &mut t)["content"],
        json!([{"type": "text", "text": "IMAGE: shot.png"},
               {"type": "image", "data": data, "mimeType": "image/png"}])
    );
    // Chat Completions and the XML form carry the text alone, which says what the image is.
    assert_eq!(
        provider::openai_message(&ok, &mut t)["content"],
        json!("IMAGE: shot.png")
    );
    assert_eq!(
        provider::xml_result(&ok, &mut t),
        "<tool_result tool=\"read_file\">IMAGE: shot.png</tool_result>"
    );
}
