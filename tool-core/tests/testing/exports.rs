//! Export validity (`testing::assert_exports`): simple tools export to every format within
//! the providers' rules; a map parameter is named, per format that cannot state it, by tool
//! and format; a tool name Gemini refuses is named.

use serde_json::json;
use tool_core::ToolSpec;
use tool_core::provider::Format;
use tool_core::testing::{assert_exports, export_problems};

use crate::support::*;

#[test]
fn simple_tools_pass_and_problems_name_the_tool_and_format() {
    assert_exports(&registry(|b| b.register(Add).register(Echo)));

    let map = ToolSpec::new("configure", "Sets variables.").input_schema(json!({
        "type": "object",
        "properties": {"env": {"type": "object", "additionalProperties": {"type": "string"}}},
        "required": ["env"]
    }));
    let found = export_problems(&[map], Format::ALL);
    let formats: Vec<Format> = found.iter().map(|p| p.format).collect();
    assert!(
        formats.contains(&Format::OpenaiStrict) && formats.contains(&Format::Gemini),
        "{found:?}"
    );
    assert!(
        found[0]
            .to_string()
            .starts_with("tool `configure`, format `"),
        "{}",
        found[0]
    );

    // A name starting with a digit: Gemini's rule (the export itself refuses it).
    let digit = ToolSpec::new("3d_render", "Renders.");
    let found = export_problems(&[digit], &[Format::Gemini]);
    assert!(
        found.iter().any(|p| p
            .problem
            .contains("Gemini function names start with a letter")),
        "{found:?}"
    );
    let panic = std::panic::catch_unwind(|| {
        assert_exports(&registry(|b| {
            b.register(Named(ToolSpec::new("3d_render", "R.")))
        }))
    })
    .unwrap_err();
    let text = panic.downcast_ref::<String>().unwrap();
    assert!(text.contains("tool `3d_render`, format `gemini`"), "{text}");
}
