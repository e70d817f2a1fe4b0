//! Round trips: a call written in every provider's format (OpenAI Chat and Responses,
//! Anthropic, Gemini, MCP, the neutral JSON form and XML) parses back to the same `ToolCall`
//! and runs.

use serde_json::json;
use tool_core::ToolCall;
use tool_core::provider::{self, Imported, Importer, RepairKind, xml};

use crate::support::fixtures;
use crate::support::fixtures::checks::{args, import_in_every_format, one};
use crate::support::provider::{registry, session};

/// A valid call of every fixture tool, with values that stress each format: line breaks,
/// unicode, markup, negative and fractional numbers, nested objects and arrays.
fn samples() -> Vec<ToolCall> {
    let calls = [
        (
            "grep",
            json!({"pattern": "fn main\\(\\)", "path": "src/ü/日本.rs", "max_results": 10,
                   "case_sensitive": true, "context": -2}),
        ),
        (
            "create_user",
            json!({"user": {"name": "Ada </param:user> Lovelace", "age": 36,
                            "address": {"street": "1 Main St", "city": "London", "zip": "N1"}},
                   "billing": {"street": "2 Side St", "city": "Paris"}}),
        ),
        (
            "paint",
            json!({"color": "green", "size": "large", "shape": {"kind": "square", "side": 2.5}}),
        ),
        (
            "read_file",
            json!({"paths": ["a.rs", "b c.rs", "[x]"], "ranges": [{"start": 1, "end": 5}],
                   "weights": [0.5, 0.001], "grid": [[1, 2], [3]]}),
        ),
        (
            "configure",
            json!({"env": {"A": "1", "PATH": "/bin:/usr/bin"}, "limits": {"cpu": 2}}),
        ),
        (
            "outline",
            json!({"root": {"label": "Intro", "children": [{"label": "Sub", "children": []}]}}),
        ),
        (
            "web",
            json!({"action": "search", "query_or_url": "rust <xml> & \"quotes\" ]]>", "max_results": 5}),
        ),
        ("ping", json!({})),
        ("3d_render", json!({"scene": "\nline one\n  line two\n\n"})),
        (
            "tune",
            json!({"mode": "safe", "speed": "quick", "profile": {"name": "p", "level": 3},
                   "version": "v2", "start": "2024-01-01T00:00:00Z",
                   "id": "123e4567-e89b-12d3-a456-426614174000", "ratio": 0.25, "labels": ["x"]}),
        ),
        (
            "pick_level",
            json!({"level": 2, "value": "name", "scale": 2}),
        ),
    ];
    calls
        .into_iter()
        .enumerate()
        .map(|(i, (name, args))| ToolCall::new(format!("call_{i}"), name, args))
        .collect()
}

#[tokio::test]
async fn a_call_in_every_provider_format_parses_to_the_same_tool_call() {
    let registry = registry();
    let importer = Importer::new(&registry);
    let session = session(fixtures::fixture_registry());
    let samples = samples();
    assert_eq!(samples.len(), registry.len(), "one sample per fixture tool");
    let mut checked = 0;
    for call in &samples {
        for (format, imported) in import_in_every_format(&importer, call) {
            let outcome = provider::dispatch(&session, imported).await;
            assert!(
                outcome.is_success(),
                "{format} {}: {:?}",
                call.name,
                outcome
            );
            checked += 1;
        }
        session.clear_current_turn();
    }
    assert_eq!(checked, samples.len() * 7);
}

#[test]
fn xml_conversions_of_a_round_trip_are_reported() {
    let registry = registry();
    let importer = Importer::new(&registry);
    let call = &samples()[0];
    let text = xml::tool_call(call);
    assert_eq!(
        text,
        "<tool:grep>\n<param:pattern>fn main\\(\\)</param:pattern>\n\
         <param:path>src/ü/日本.rs</param:path>\n<param:max_results>10</param:max_results>\n\
         <param:case_sensitive>true</param:case_sensitive>\n<param:context>-2</param:context>\n\
         </tool:grep>"
    );
    let imported = one(importer.xml_calls(&text));
    let kinds: Vec<(&str, RepairKind)> = imported
        .repairs
        .iter()
        .map(|r| (r.path.as_str(), r.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            ("/max_results", RepairKind::NumberFromString),
            ("/case_sensitive", RepairKind::BoolFromString),
            ("/context", RepairKind::NumberFromString),
        ]
    );
}

#[test]
fn several_xml_calls_among_prose() {
    let registry = registry();
    let importer = Importer::new(&registry);
    let message = "I'll search first.\n\n<tool:grep>\n<param:pattern>TODO</param:pattern>\n\
                   </tool:grep>\n\nThen read:\n<tool:read_file>\n<param:paths>a.rs</param:paths>\n\
                   <param:paths>b.rs</param:paths>\n</tool:read_file>\nDone.";
    let calls: Vec<Imported> = importer
        .xml_calls(message)
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(calls.len(), 2);
    assert_eq!(args(&calls[0].call), json!({"pattern": "TODO"}));
    assert_eq!(args(&calls[1].call), json!({"paths": ["a.rs", "b.rs"]}));
    assert!(calls.iter().all(|c| c.repairs.is_empty()));
    assert_ne!(calls[0].call.id, calls[1].call.id);
}
