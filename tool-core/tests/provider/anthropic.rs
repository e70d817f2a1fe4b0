//! Anthropic's 2026 tool fields: strict tool use (`anthropic-strict`), `input_examples` from
//! the examples parameters declare, and `allowed_callers` for programmatic tool calling.

use serde_json::{Value, json};
use tool_core::ToolSpec;
use tool_core::input_examples;
use tool_core::provider::{
    ANTHROPIC_CALLER_CODE_EXECUTION, ANTHROPIC_CALLER_DIRECT, ExportError, ExportOptions, Format,
    anthropic, export_all, export_all_with,
};

use crate::support::fixtures;
use crate::support::fixtures::checks::specs;

fn spec_of(name: &str) -> ToolSpec {
    let all: Vec<ToolSpec> = fixtures::registries()
        .into_iter()
        .flat_map(|(_, r)| specs(&r))
        .collect();
    all.into_iter().find(|s| s.name == name).unwrap()
}

/// A tool with `n` optional string parameters.
fn optional_params(name: &str, n: usize) -> ToolSpec {
    let props: serde_json::Map<String, Value> = (0..n)
        .map(|i| (format!("p{i}"), json!({"type": "string"})))
        .collect();
    ToolSpec::new(name.to_owned(), "Take options.")
        .input_schema(json!({"type": "object", "properties": props}))
}

#[test]
fn strict_keeps_optional_fields_optional_and_closes_every_object() {
    let s = anthropic::strict_schema(&spec_of("grep")).unwrap();
    assert_eq!(s["required"], json!(["pattern"]));
    assert_eq!(s["additionalProperties"], false);
    // No `null` added to an optional field (Anthropic needs no nullable rewrite), and
    // schemars' `uint32` and its natural `minimum: 0` go without a word.
    assert_eq!(
        s["properties"]["max_results"],
        json!({"type": ["integer", "null"], "description": "The most matches to return."})
    );
    let n = anthropic::strict_schema(&spec_of("create_user")).unwrap();
    let address = &n["properties"]["user"]["properties"]["address"];
    assert_eq!(address["additionalProperties"], false);
    assert!(n.to_string().find("$ref").is_none(), "{n}");
}

#[test]
fn strict_says_a_dropped_range_in_the_description() {
    let spec = ToolSpec::new("pace", "Set the pace.").input_schema(json!({
        "type": "object",
        "properties": {
            "target": {"type": "number", "minimum": 5, "maximum": 30, "description": "Minutes per lap."},
            "tags": {"type": "array", "items": {"type": "string", "maxLength": 9}, "minItems": 2},
            "when": {"type": "string", "format": "date"}
        },
        "required": ["target"]
    }));
    let s = anthropic::strict_schema(&spec).unwrap();
    assert_eq!(
        s["properties"]["target"],
        json!({"type": "number", "description": "Minutes per lap. Must be a number from 5 to 30."})
    );
    // `minItems` past 1 and `maxLength` are not in the subset; a standard format stays.
    assert_eq!(
        s["properties"]["tags"],
        json!({"type": "array", "items": {"type": "string"}})
    );
    assert_eq!(s["properties"]["when"]["format"], "date");
    let entry = anthropic::strict_tool(&spec).unwrap();
    assert_eq!(entry["strict"], true);
    assert!(
        tool_core::testing::entry_problems(Format::AnthropicStrict, &entry).is_empty(),
        "{entry}"
    );
}

#[test]
fn strict_refuses_what_the_grammar_cannot_say() {
    let err = anthropic::strict_tool(&spec_of("configure")).unwrap_err();
    assert!(
        err.to_string()
            .contains("a map (`additionalProperties` with a schema)"),
        "{err}"
    );
    assert!(
        err.to_string().contains("plain mode (`anthropic`)"),
        "{err}"
    );
}

#[test]
fn strict_lists_keep_a_requests_limits() {
    let limit = |e: ExportError| match e {
        ExportError::LimitExceeded {
            limit, value, max, ..
        } => (limit, value, max),
        other => panic!("{other}"),
    };
    let many: Vec<ToolSpec> = (0..21)
        .map(|i| ToolSpec::new(format!("t{i}"), "One tool."))
        .collect();
    assert!(export_all(&many[..20], Format::AnthropicStrict).is_ok());
    let e = export_all(&many, Format::AnthropicStrict).unwrap_err();
    assert_eq!(limit(e), ("strict tools in one request", 21, 20));

    // 24 optional properties over the whole list, not per tool.
    let two = [optional_params("a", 12), optional_params("b", 13)];
    let e = export_all(&two, Format::AnthropicStrict).unwrap_err();
    assert_eq!(limit(e), ("optional properties in strict schemas", 25, 24));
    assert!(export_all(&two[..1], Format::AnthropicStrict).is_ok());
}

#[test]
fn input_examples_pass_the_tools_own_validation() {
    let spec = ToolSpec::new("pace", "Set the pace.").input_schema(json!({
        "type": "object",
        "properties": {
            "target": {"type": "number", "minimum": 5, "maximum": 30, "examples": [12.5, 20]},
            "laps": {"type": "integer", "minimum": 1},
            "note": {"type": "string", "examples": ["easy"]},
            "quiet": {"type": "boolean"}
        },
        "required": ["target", "laps"]
    }));
    let examples = input_examples(&spec);
    assert_eq!(
        examples,
        vec![
            json!({"target": 12.5, "laps": 1, "note": "easy"}),
            json!({"target": 20, "laps": 1, "note": "easy"}),
        ]
    );
    let validator = jsonschema::validator_for(&spec.input_schema).unwrap();
    for e in &examples {
        assert!(validator.is_valid(e), "{e}");
    }
    for format in [Format::Anthropic, Format::AnthropicStrict] {
        let list = export_all(std::slice::from_ref(&spec), format).unwrap();
        assert_eq!(
            list.as_json().unwrap()[0]["input_examples"],
            json!(examples)
        );
    }
    // No declared example: no field (a placeholder would teach the model nothing).
    let plain = anthropic::tool(&spec_of("grep")).unwrap();
    assert!(plain.get("input_examples").is_none());
}

#[test]
fn allowed_callers_for_every_tool_or_one() {
    let specs = [spec_of("grep"), spec_of("3d_render")];
    let options = ExportOptions::new()
        .allowed_callers([ANTHROPIC_CALLER_DIRECT, ANTHROPIC_CALLER_CODE_EXECUTION])
        .tool_callers("3d_render", [ANTHROPIC_CALLER_DIRECT]);
    for format in [Format::Anthropic, Format::AnthropicStrict] {
        let list = export_all_with(&specs, format, &options).unwrap();
        let list = list.as_json().unwrap();
        assert_eq!(
            list[0]["allowed_callers"],
            json!(["direct", "code_execution_20260120"])
        );
        assert_eq!(list[1]["allowed_callers"], json!(["direct"]));
        for entry in list.as_array().unwrap() {
            assert!(
                tool_core::testing::entry_problems(format, entry).is_empty(),
                "{entry}"
            );
        }
    }
    // Without the option: no field, the provider's default.
    let list = export_all_with(&specs, Format::Anthropic, &ExportOptions::new()).unwrap();
    assert!(list.as_json().unwrap()[0].get("allowed_callers").is_none());
}
