//! Export: every tool of every registry in every format validates against the JSON Schema
//! meta-schema, satisfies the provider's rules (`fixtures/rules.rs`) and matches its golden
//! snapshot (`tests/snapshots/`, rewritten with `UPDATE_SNAPSHOTS=1`); plus the constructs a
//! format cannot state, which must be errors naming the tool and the construct.

use serde_json::json;
use tool_core::ToolSpec;
use tool_core::provider::{
    self, ExportCache, ExportError, Exported, Format, export_all, gemini, openai,
};

use crate::support::fixtures;
use crate::support::fixtures::checks::{meta_errors, specs};

#[test]
fn every_tool_in_every_format_is_valid_and_matches_its_snapshot() {
    let mut failures: Vec<String> = Vec::new();
    let mut checked = 0;
    for (label, registry) in fixtures::registries() {
        // The fixtures include constructs some formats cannot state: errors are expected.
        checked +=
            fixtures::checks::check_exports(label, &specs(&registry), |_, _| true, &mut failures);
    }
    assert!(checked >= 11 * Format::ALL.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_cache_gives_the_same_text_as_an_uncached_export() {
    for (_, registry) in fixtures::registries() {
        let specs = specs(&registry);
        let cache = ExportCache::new();
        for &format in Format::ALL {
            let fresh = export_all(&specs, format);
            for _ in 0..2 {
                let cached = cache.export_all(&specs, format);
                match (&fresh, cached) {
                    (Ok(Exported::Json(v)), Ok(text)) => {
                        assert_eq!(serde_json::to_string(v).unwrap(), text, "{format}")
                    }
                    (Ok(Exported::Text(t)), Ok(text)) => assert_eq!(t, &text, "{format}"),
                    (Err(a), Err(b)) => assert_eq!(a, &b, "{format}"),
                    (a, b) => panic!("{format}: {a:?} vs {b:?}"),
                }
            }
        }
        // A changed spec with the same name is exported again, not served stale.
        let mut changed = specs.clone();
        changed[0].description = "Changed.".into();
        let text = cache.export_all(&changed, Format::Anthropic).unwrap();
        assert!(text.contains("Changed."));
    }
}

fn spec_of(name: &str) -> ToolSpec {
    let registry = fixtures::fixture_registry();
    (**registry.get(name).expect("fixture").spec()).clone()
}

fn unsupported(e: &ExportError) -> (&str, &str, &str) {
    match e {
        ExportError::Unsupported {
            tool,
            path,
            construct,
            ..
        } => (tool, path, construct),
        other => panic!("expected Unsupported, got {other:?}"),
    }
}

#[test]
fn maps_are_refused_by_strict_mode_and_gemini_naming_tool_and_construct() {
    let spec = spec_of("configure");
    let e = openai::chat_tool_strict(&spec).unwrap_err();
    assert_eq!(
        unsupported(&e),
        (
            "configure",
            "/properties/env",
            "a map (`additionalProperties` with a schema)"
        )
    );
    assert_eq!(
        e.to_string(),
        "tool `configure` cannot be exported to openai-strict: a map (`additionalProperties` \
         with a schema) at `/properties/env` is not supported; strict mode needs every object \
         key listed; use a list of {key, value} objects or export in plain mode (`openai`)"
    );
    let e = gemini::function_declaration(&spec).unwrap_err();
    assert_eq!(
        unsupported(&e),
        (
            "configure",
            "/properties/env",
            "a map (`additionalProperties` with a schema)"
        )
    );
    assert_eq!(e.format(), Format::Gemini);
    // Plain formats keep the map.
    let plain = openai::chat_tool(&spec).unwrap();
    assert_eq!(
        plain["function"]["parameters"]["properties"]["env"]["additionalProperties"],
        json!({"type": "string"})
    );
    // The Responses format falls back to plain, and says so.
    let r = openai::responses_tool_auto(&spec).unwrap();
    assert_eq!(r["strict"], false);
    assert!(openai::responses_tool(&spec, true).is_err());
}

#[test]
fn recursive_types_are_refused_where_refs_must_be_inlined() {
    let spec = spec_of("outline");
    for e in [
        openai::strict_schema(&spec).unwrap_err(),
        gemini::function_declaration(&spec).unwrap_err(),
    ] {
        match &e {
            ExportError::Recursive {
                tool, reference, ..
            } => {
                assert_eq!(tool, "outline");
                assert_eq!(reference, "#/$defs/Node");
            }
            other => panic!("expected Recursive, got {other:?}"),
        }
        assert!(e.to_string().contains("its schema is recursive"));
    }
    // Anthropic, MCP and plain OpenAI take `$defs` and recursion as they are.
    let a = provider::anthropic::tool(&spec).unwrap();
    assert!(a["input_schema"]["$defs"]["Node"].is_object());
}

#[test]
fn gemini_refuses_a_name_starting_with_a_digit() {
    let e = gemini::function_declaration(&spec_of("3d_render")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "tool `3d_render` cannot be exported to gemini: a tool name starting with `3` at the \
         root is not supported; Gemini function names start with a letter or an underscore"
    );
}

#[test]
fn strict_mode_requires_everything_and_makes_optional_fields_nullable() {
    let s = openai::strict_schema(&spec_of("grep")).unwrap();
    assert_eq!(
        s["required"],
        json!([
            "pattern",
            "path",
            "max_results",
            "case_sensitive",
            "context"
        ])
    );
    assert_eq!(s["properties"]["path"]["type"], json!(["string", "null"]));
    assert_eq!(
        s["properties"]["case_sensitive"],
        json!({"type": ["boolean", "null"], "description": "Match case."})
    );
    // `format: uint32` is not a strict-mode format; `minimum` is kept.
    assert_eq!(
        s["properties"]["max_results"],
        json!({"type": ["integer", "null"], "minimum": 0, "description": "The most matches to return."})
    );

    let p = openai::strict_schema(&spec_of("paint")).unwrap();
    // An optional enum: a null branch.
    assert_eq!(p["properties"]["size"]["anyOf"][1], json!({"type": "null"}));
    // A documented unit enum: its value docs stay beside the field's own description.
    assert_eq!(
        p["properties"]["color"]["description"],
        "The colour to paint with.\n\nA colour.\n\n- `red`: The red one.\n- `green`: The green one."
    );
    // schemars' `oneOf` of constants (hand-written here) becomes `anyOf`; an optional
    // constant becomes an enum with null; formats and keywords strict mode lacks go.
    let t = openai::strict_schema(&spec_of("tune")).unwrap();
    let mode = &t["properties"]["mode"];
    assert!(mode.get("oneOf").is_none());
    assert_eq!(
        mode["anyOf"][0],
        json!({"type": "string", "const": "fast", "description": "Quick and loose."})
    );
    assert_eq!(
        t["properties"]["version"],
        json!({"enum": ["v2", null], "type": ["string", "null"]})
    );
    assert_eq!(
        t["properties"]["id"],
        json!({"type": ["string", "null"], "format": "uuid"})
    );
    assert_eq!(
        t["properties"]["ratio"],
        json!({"type": ["number", "null"], "exclusiveMinimum": 0})
    );
    assert_eq!(
        t["properties"]["labels"],
        json!({"type": ["array", "null"], "items": {"type": "string"}, "maxItems": 5})
    );
    assert_eq!(
        t["properties"]["profile"]["anyOf"][0]["required"],
        json!(["name", "level"])
    );
    // Nested objects are closed and fully required.
    let n = openai::strict_schema(&spec_of("create_user")).unwrap();
    let address = &n["properties"]["user"]["properties"]["address"];
    assert_eq!(address["required"], json!(["street", "city", "zip"]));
    assert_eq!(address["additionalProperties"], false);
    assert_eq!(
        n["properties"]["billing"]["anyOf"][1],
        json!({"type": "null"})
    );
}

#[test]
fn gemini_collapses_enums_and_nulls() {
    let d = gemini::function_declaration(&spec_of("paint")).unwrap();
    let color = &d["parameters"]["properties"]["color"];
    assert_eq!(color["type"], "string");
    assert_eq!(color["enum"], json!(["blue", "red", "green"]));
    assert_eq!(
        color["description"],
        "The colour to paint with.\n\nA colour.\n\n- `red`: The red one.\n- `green`: The green one."
    );
    // schemars' `oneOf` of constants collapses into one string enum, docs kept.
    let t = gemini::function_declaration(&spec_of("tune")).unwrap();
    assert_eq!(
        t["parameters"]["properties"]["mode"],
        json!({"type": "string", "description": "How to run.\n\n- `fast`: Quick and loose.\n- `safe`: Slow and careful.", "enum": ["fast", "safe", "auto"]})
    );
    assert_eq!(
        t["parameters"]["properties"]["speed"],
        json!({"type": "string", "description": "Speed to use.\n\nA speed.\n\n- `slow`: Walk.\n- `quick`: Run.", "enum": ["slow", "quick"]})
    );
    // Formats Gemini lacks are dropped; `float` for a number is kept.
    assert_eq!(
        t["parameters"]["properties"]["id"],
        json!({"type": "string", "minLength": 36, "maxLength": 36})
    );
    assert_eq!(
        t["parameters"]["properties"]["ratio"],
        json!({"type": "number", "format": "float"})
    );
    // An integer enum and a type union cannot be said.
    let e = gemini::function_declaration(&spec_of("pick_level")).unwrap_err();
    assert_eq!(
        unsupported(&e),
        (
            "pick_level",
            "/properties/level",
            "an enum with a value that is not a string (1)"
        )
    );
    let size = &d["parameters"]["properties"]["size"];
    assert_eq!(size["nullable"], true);
    assert_eq!(size["enum"], json!(["small", "medium", "large"]));
    let g = gemini::function_declaration(&spec_of("grep")).unwrap();
    assert_eq!(
        g["parameters"]["properties"]["path"],
        json!({"type": "string", "description": "Where to search; the project root when absent.", "nullable": true})
    );
    // A tool without parameters has no `parameters`.
    let ping = gemini::function_declaration(&spec_of("ping")).unwrap();
    assert_eq!(ping, json!({"name": "ping", "description": "Answer pong."}));
}

#[test]
fn mcp_entries_carry_annotations_and_object_output_schemas_only() {
    let r = provider::mcp::tool(&spec_of("read_file")).unwrap();
    assert_eq!(r["outputSchema"]["type"], "object");
    assert_eq!(
        r["annotations"],
        json!({"readOnlyHint": true, "destructiveHint": false, "idempotentHint": false, "openWorldHint": false})
    );
    let c = provider::mcp::tool(&spec_of("configure")).unwrap();
    assert!(
        c.get("outputSchema").is_none(),
        "a string output has no outputSchema"
    );
    assert_eq!(c["annotations"]["destructiveHint"], true);
    let p = provider::mcp::tool(&spec_of("paint")).unwrap();
    assert_eq!(p["title"], "Painter");
    assert_eq!(p["annotations"]["title"], "Painter");
}

#[test]
fn the_xml_block_groups_categories_in_seed_003_order() {
    let registry = fixtures::fixture_registry();
    let specs = specs(&registry);
    let block = provider::xml::prompt_block(&specs).unwrap();
    let headings: Vec<&str> = block.lines().filter(|l| l.starts_with("## ")).collect();
    assert_eq!(
        headings,
        [
            "## Search & Discovery",
            "## File Reading",
            "## File Writing",
            "## File Management",
            "## Web",
            "## Writing Aids",
            "## Other Tools",
        ]
    );
    assert!(block.contains(
        "- `paths` (array of string, required; repeat the tag for each element): Files to read."
    ));
    assert!(block.contains("Actions (`action` picks one):\n- `search`: Search the web."));
}

#[test]
fn format_names_are_the_cli_names() {
    let names: Vec<&str> = Format::ALL.iter().map(|f| f.as_str()).collect();
    assert_eq!(
        names,
        [
            "json",
            "openai",
            "openai-strict",
            "openai-responses",
            "anthropic",
            "anthropic-strict",
            "gemini",
            "mcp",
            "xml",
            "typescript"
        ]
    );
    assert_eq!(
        "OpenAI".parse::<Format>().unwrap_err().to_string(),
        "unknown format \"OpenAI\"; expected one of: json, openai, openai-strict, \
         openai-responses, anthropic, anthropic-strict, gemini, mcp, xml, typescript"
    );
}

#[test]
fn export_all_fails_on_the_first_tool_it_cannot_export() {
    let registry = fixtures::fixture_registry();
    let specs = specs(&registry);
    let e = export_all(&specs, Format::OpenaiStrict).unwrap_err();
    // Registry order is by name: `3d_render`, `configure`, ...
    assert_eq!(e.tool(), "configure");
    let e = export_all(&specs, Format::Gemini).unwrap_err();
    assert_eq!(e.tool(), "3d_render");
    assert_eq!(specs.len(), 11);
    assert!(export_all(&specs, Format::Anthropic).is_ok());
}

#[test]
fn the_rule_checker_catches_what_providers_refuse() {
    use fixtures::rules::entry_problems;
    let strict = json!({"type": "function", "function": {"name": "t", "strict": true,
        "parameters": {"type": "object", "properties": {
            "a": {"type": "string", "default": "x"},
            "b": {"$ref": "#/$defs/B"},
            "c": {"type": "object", "properties": {"d": {"type": "integer", "format": "int32"}}}
        }, "required": ["a"], "additionalProperties": false}}});
    let found = entry_problems(Format::OpenaiStrict, &strict);
    for needle in [
        "keyword `default` is forbidden",
        "keyword `$ref` is forbidden",
        "required [\"a\"] must list every property",
        "/properties/c: object must have additionalProperties: false",
        "format `int32` is not accepted",
    ] {
        assert!(
            found.iter().any(|f| f.contains(needle)),
            "{needle}: {found:?}"
        );
    }
    let gemini = json!({"name": "1x", "description": "", "parameters": {"type": "object",
        "properties": {"a": {"type": ["string", "null"]}, "b": {"type": "integer", "enum": [1]},
                       "c": {"type": "object", "properties": {}}, "d": {"type": "array"}},
        "additionalProperties": false}});
    let found = entry_problems(Format::Gemini, &gemini);
    for needle in [
        "breaks the format's name rule",
        "keyword `additionalProperties` is forbidden",
        "`type` must be a single type",
        "enums must be strings",
        "/properties/c: an object needs at least one property",
        "/properties/d: an array needs `items`",
    ] {
        assert!(
            found.iter().any(|f| f.contains(needle)),
            "{needle}: {found:?}"
        );
    }
    let mcp = json!({"name": "t", "inputSchema": {"type": "object"}, "annotations": {"readOnly": true},
                     "outputSchema": {"type": "string"}});
    let found = entry_problems(Format::Mcp, &mcp);
    assert!(
        found
            .iter()
            .any(|f| f.contains("annotations.readOnly is not an MCP annotation"))
    );
    assert!(
        found
            .iter()
            .any(|f| f.contains("outputSchema must be an object schema"))
    );
    assert!(!meta_errors(&json!({"type": "strnig"})).is_empty());
}
