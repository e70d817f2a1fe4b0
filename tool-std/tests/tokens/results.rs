//! The token benchmark's typical results (the same calls on the same fixtures, see
//! [`calls`](super::calls)), checked rather than printed: each result's structured content
//! (MCP's `structuredContent`) is valid against its tool's `outputSchema` as `tools/list`
//! gives it, closed so that a field the schema does not declare fails too, and costs at most
//! 1.1x its text in `o200k_base` tokens (token counts are deterministic, so this is a
//! measurement, not a timing); a tool that sends no structured content declares
//! `text_output` and no output schema.

use serde_json::Value;
use tiktoken_rs::CoreBPE;
use tool_core::provider::McpParts;
use tool_core::provider::{Format, export};
use tool_core::{Registry, ResourcesTracker, ToolSpec};

use super::calls::{Fixtures, tokens};

/// The most a structured result may cost, as a multiple of its text.
const MAX_RATIO: f64 = 1.1;

/// `schema` closed to fields it does not declare: every object schema that lists
/// `properties` (and says nothing of others) gets `unevaluatedProperties: false`, which sees
/// the fields of what it applies in place (`$ref`, `oneOf`, `allOf`). A `$defs` entry that a
/// schema extends (`$ref` beside `properties`, a tagged enum's branch) is left to the one
/// extending it, which would otherwise refuse the tag.
fn closed(mut schema: Value) -> Value {
    fn extended(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                if let (Some(Value::String(r)), true) =
                    (m.get("$ref"), m.contains_key("properties"))
                    && let Some(name) = r.strip_prefix("#/$defs/")
                {
                    out.push(name.to_owned());
                }
                m.values().for_each(|v| extended(v, out));
            }
            Value::Array(a) => a.iter().for_each(|v| extended(v, out)),
            _ => {}
        }
    }
    fn close(v: &mut Value, skip: &[String]) {
        match v {
            Value::Object(m) => {
                if m.contains_key("properties")
                    && !m.contains_key("additionalProperties")
                    && !m.contains_key("unevaluatedProperties")
                {
                    m.insert("unevaluatedProperties".into(), Value::Bool(false));
                }
                for (k, v) in m.iter_mut() {
                    match (k.as_str(), v) {
                        ("$defs", Value::Object(defs)) => {
                            for (name, def) in defs.iter_mut() {
                                if !skip.contains(name) {
                                    close(def, skip);
                                }
                            }
                        }
                        (_, v) => close(v, skip),
                    }
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|v| close(v, skip)),
            _ => {}
        }
    }
    let mut skip = Vec::new();
    extended(&schema, &mut skip);
    close(&mut schema, &skip);
    schema
}

/// What is wrong with one result of the tool `spec`: structured content its listed
/// `outputSchema` refuses, costing more than `max_ratio` times the text, or structured
/// content where the tool declares none (and the other way round).
fn problems(
    label: &str,
    spec: &ToolSpec,
    parts: &McpParts,
    bpe: &CoreBPE,
    max_ratio: f64,
) -> Vec<String> {
    let listed = export(spec, Format::Mcp).expect("MCP export");
    let listed = listed.as_json().expect("an MCP entry is JSON");
    let mut out = Vec::new();
    match (listed.get("outputSchema"), &parts.structured) {
        (Some(schema), Some(value)) => {
            let validator = jsonschema::options()
                .with_draft(jsonschema::Draft::Draft202012)
                .build(&closed(schema.clone()))
                .unwrap_or_else(|e| panic!("{}'s output schema: {e}", spec.name));
            for e in validator.iter_errors(value) {
                out.push(format!(
                    "{label}: not what the output schema says at `{}`: {e}",
                    e.instance_path()
                ));
            }
            let (s, t) = (tokens(bpe, &value.to_string()), tokens(bpe, &parts.text));
            let ratio = s as f64 / t as f64;
            if ratio > max_ratio {
                out.push(format!(
                    "{label}: structured {s} tokens, text {t}: {ratio:.3}x, above {max_ratio}x"
                ));
            }
        }
        (None, None) if spec.text_output => {}
        (None, None) => out.push(format!(
            "{label}: no structured content and no output schema, but `{}` is not text_output",
            spec.name
        )),
        (Some(_), None) => out.push(format!(
            "{label}: `{}` lists an output schema but sent no structured content",
            spec.name
        )),
        (None, Some(_)) => out.push(format!(
            "{label}: `{}` sent structured content but lists no output schema",
            spec.name
        )),
    }
    out
}

/// Runs every typical call and hands each result's checks (with `max_ratio`) to `each`.
fn each_result(max_ratio: f64, mut each: impl FnMut(&str, &ToolSpec, &McpParts, Vec<String>)) {
    let bpe = tiktoken_rs::o200k_base().expect("o200k_base");
    let registry = Registry::builder()
        .with_inventory()
        .build()
        .expect("registry");
    let fixtures = Fixtures::new(registry);
    let registry = fixtures.session.runtime().registry();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio");
    for call in fixtures.calls() {
        let outcome = rt.block_on(fixtures.run(&call));
        assert!(
            outcome.is_success(),
            "{}: {}",
            call.label,
            outcome.to_json()
        );
        let spec = registry.get(call.tool).expect("a standard tool").spec();
        let parts = McpParts::of(&outcome, &mut ResourcesTracker::new());
        let found = problems(call.label, spec, &parts, &bpe, max_ratio);
        each(call.label, spec, &parts, found);
    }
}

#[test]
fn typical_results_match_their_output_schemas_within_1_1x_of_their_text() {
    let mut all = Vec::new();
    let mut rows = 0;
    each_result(MAX_RATIO, |_, _, _, found| {
        rows += 1;
        all.extend(found);
    });
    assert_eq!(rows, 12, "the benchmark's twelve calls");
    assert!(
        all.is_empty(),
        "typical results (the token benchmark's calls and fixtures):\n  {}",
        all.join("\n  ")
    );
}

#[test]
fn a_field_the_schema_does_not_declare_or_a_lower_limit_fails() {
    let bpe = tiktoken_rs::o200k_base().expect("o200k_base");
    let mut seen = 0;
    // With a limit every structured result exceeds, each row with structured content fails.
    each_result(0.5, |label, spec, parts, found| {
        if parts.structured.is_none() {
            assert!(found.is_empty(), "{label}: {found:?}");
            return;
        }
        assert!(
            found.iter().any(|p| p.contains("above 0.5x")),
            "{label}: {found:?}"
        );
        // A field the schema does not name (for grep and search, the summary sentence they
        // used to carry), and a field of the wrong type, fail the schema.
        let undeclared = if spec.name == "grep" || spec.name == "search" {
            "summary"
        } else {
            "undeclared"
        };
        let mut extra = parts.clone();
        let value = extra.structured.as_mut().expect("structured");
        value[undeclared] = Value::from("Found 9 matches in 5 files.");
        let found = problems(label, spec, &extra, &bpe, 100.0);
        assert!(
            found
                .iter()
                .any(|p| p.contains("not what the output schema says")),
            "{label}: {found:?}"
        );
        let mut wrong = parts.clone();
        wrong.structured.as_mut().expect("structured")["type"] = Value::from(5);
        assert!(
            !problems(label, spec, &wrong, &bpe, 100.0).is_empty(),
            "{label}"
        );
        // Structured content dropped from a tool that lists a schema fails too.
        let mut none = parts.clone();
        none.structured = None;
        assert!(
            !problems(label, spec, &none, &bpe, 100.0).is_empty(),
            "{label}"
        );
        seen += 1;
    });
    assert!(seen >= 10, "rows with structured content: {seen}");
}
