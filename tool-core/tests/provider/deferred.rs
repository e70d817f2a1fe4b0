//! Deferred loading and namespaces: the Anthropic export marks deferred tools
//! `defer_loading: true` and adds the tool search tool; the OpenAI Responses export marks
//! them too, groups tools in namespaces (per tool or per toolset, from the spec or the
//! options) and adds `tool_search`. Every list is checked against the providers' documented
//! shapes (`fixtures/tool_search.rs`) and every schema against the 2020-12 meta-schema.

use serde_json::{Value, json};
use tool_core::provider::{
    ExportOptions, Exported, Format, ToolSearch, export_all, export_all_with,
};
use tool_core::{SpecError, ToolSpec};

use crate::support::fixtures;
use crate::support::fixtures::checks::{meta_errors, schemas_of, specs};
use crate::support::fixtures::tool_search::check_tool_search_list;

fn list(specs: &[ToolSpec], format: Format, options: &ExportOptions) -> Value {
    match export_all_with(specs, format, options).expect("exports") {
        Exported::Json(v) => v,
        Exported::Text(_) => panic!("{format} is JSON"),
    }
}

/// The list passes the provider's documented rules, and every schema in it the meta-schema.
fn assert_valid(format: Format, list: &Value) {
    let mut failures = check_tool_search_list(format, list);
    let mut functions: Vec<&Value> = Vec::new();
    for entry in list.as_array().unwrap() {
        match entry.get("tools").and_then(Value::as_array) {
            Some(tools) => functions.extend(tools),
            None => functions.push(entry),
        }
    }
    for f in functions {
        for (at, schema) in schemas_of(format, f) {
            for e in meta_errors(schema) {
                failures.push(format!("{}{at}: {e}", f["name"]));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{format}: {}\n{list:#}",
        failures.join("\n")
    );
}

fn deferred_names(list: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for entry in list.as_array().unwrap() {
        let inner = entry.get("tools").and_then(Value::as_array);
        for t in inner.map_or_else(|| vec![entry], |ts| ts.iter().collect()) {
            if t.get("defer_loading") == Some(&Value::Bool(true)) {
                out.push(t["name"].as_str().unwrap().to_owned());
            }
        }
    }
    out
}

#[test]
fn without_options_every_format_is_the_plain_export() {
    let specs = specs(&fixtures::fixture_registry());
    for &format in Format::ALL {
        let plain = export_all(&specs, format);
        let with = export_all_with(&specs, format, &ExportOptions::new());
        assert_eq!(plain, with, "{format}");
    }
    // Formats without a tool search ignore the options.
    let options = ExportOptions::new().defer_all().namespace_by_toolset();
    for format in [
        Format::Openai,
        Format::OpenaiStrict,
        Format::Gemini,
        Format::Mcp,
        Format::Xml,
    ] {
        assert_eq!(
            export_all(&specs, format),
            export_all_with(&specs, format, &options),
            "{format}"
        );
    }
}

#[test]
fn anthropic_marks_deferred_tools_and_adds_the_tool_search_tool() {
    let mut specs = specs(&fixtures::fixture_registry());
    // From the spec (`#[tool(defer_loading)]`) and from the options.
    let at = specs.iter().position(|s| s.name == "paint").unwrap();
    specs[at] = specs[at].clone().defer_loading(true);
    let options = ExportOptions::new().defer_tool("grep");
    let tools = list(&specs, Format::Anthropic, &options);
    assert_valid(Format::Anthropic, &tools);
    assert_eq!(deferred_names(&tools), ["grep", "paint"]);
    let last = tools.as_array().unwrap().last().unwrap();
    assert_eq!(
        last,
        &json!({"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"})
    );
    assert_eq!(tools.as_array().unwrap().len(), specs.len() + 1);

    // The BM25 variant; every tool deferred (the search tool is the one loaded).
    let options = ExportOptions::new()
        .defer_all()
        .tool_search(ToolSearch::Bm25);
    let tools = list(&specs, Format::Anthropic, &options);
    assert_valid(Format::Anthropic, &tools);
    assert_eq!(deferred_names(&tools).len(), specs.len());
    assert_eq!(
        tools.as_array().unwrap().last().unwrap()["type"],
        "tool_search_tool_bm25_20251119"
    );

    // A host with its own search tool adds none.
    let options = ExportOptions::new()
        .defer_tool("grep")
        .tool_search(ToolSearch::None);
    let tools = list(&specs, Format::Anthropic, &options);
    assert_eq!(tools.as_array().unwrap().len(), specs.len());
    assert!(
        tools
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t.get("type").is_none())
    );
}

/// The fixtures with toolsets: grep and read_file in `files`, web in `net`, ping in `misc`.
fn with_toolsets() -> Vec<ToolSpec> {
    specs(&fixtures::fixture_registry())
        .into_iter()
        .map(|s| match s.name.as_ref() {
            "grep" | "read_file" => s.toolset("files"),
            "web" => s.toolset("net"),
            "ping" => s.toolset("misc").toolset("files"),
            _ => s,
        })
        .collect()
}

#[test]
fn responses_groups_tools_in_namespaces_per_toolset_and_per_tool() {
    let specs = with_toolsets();
    let options = ExportOptions::new()
        .namespace_by_toolset()
        .namespace("paint", "art")
        .namespace_description("files", "Read and search the workspace's files.")
        .defer_toolset("files");
    let tools = list(&specs, Format::OpenaiResponses, &options);
    assert_valid(Format::OpenaiResponses, &tools);
    let entries = tools.as_array().unwrap();
    let kinds: Vec<(&str, &str)> = entries
        .iter()
        .map(|e| {
            (
                e["type"].as_str().unwrap(),
                e.get("name").and_then(Value::as_str).unwrap_or(""),
            )
        })
        .collect();
    // Sorted by name as the registry gives them; a namespace stands where its first tool
    // would; `ping`'s first toolset is `misc`.
    assert_eq!(
        kinds,
        [
            ("function", "3d_render"),
            ("function", "configure"),
            ("function", "create_user"),
            ("namespace", "files"),
            ("function", "outline"),
            ("namespace", "art"),
            ("function", "pick_level"),
            ("namespace", "misc"),
            ("function", "tune"),
            ("namespace", "net"),
            ("tool_search", ""),
        ]
    );
    let files = &entries[3];
    assert_eq!(
        files["description"],
        "Read and search the workspace's files."
    );
    let members: Vec<&str> = files["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(members, ["grep", "read_file"]);
    // The default description names the namespace and its tools.
    assert_eq!(entries[5]["description"], "Tools of `art`: paint.");
    // Deferred by toolset: `ping` is in `files` too, though grouped in `misc`.
    assert_eq!(deferred_names(&tools), ["grep", "read_file", "ping"]);
    assert_eq!(entries.last().unwrap(), &json!({"type": "tool_search"}));
}

#[test]
fn the_spec_namespace_wins_and_nothing_deferred_adds_no_search_tool() {
    let specs: Vec<ToolSpec> = with_toolsets()
        .into_iter()
        .map(|s| {
            if s.name == "grep" {
                s.namespace("search")
            } else {
                s
            }
        })
        .collect();
    let options = ExportOptions::new()
        .namespace_by_toolset()
        .namespace("grep", "ignored");
    let tools = list(&specs, Format::OpenaiResponses, &options);
    assert_valid(Format::OpenaiResponses, &tools);
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "namespace")
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["search", "misc", "files", "net"]);
    assert!(!tools.to_string().contains("tool_search"));
    assert!(deferred_names(&tools).is_empty());
}

#[test]
fn the_spec_keys_are_checked_and_exported_in_the_canonical_form() {
    let spec = ToolSpec::new("grep", "Search.")
        .defer_loading(true)
        .namespace("files");
    assert!(spec.check().is_ok());
    let json = tool_core::provider::canonical(&spec);
    assert_eq!(json["defer_loading"], true);
    assert_eq!(json["namespace"], "files");
    // Unset, the canonical form does not mention them.
    let plain = tool_core::provider::canonical(&ToolSpec::new("grep", "Search."));
    assert!(plain.get("defer_loading").is_none() && plain.get("namespace").is_none());
    for bad in ["", "my files", "x".repeat(65).as_str()] {
        let err = ToolSpec::new("grep", "Search.")
            .namespace(bad.to_owned())
            .check();
        match err {
            Err(SpecError::Invalid { tool, reason }) => {
                assert_eq!(tool, "grep");
                assert!(
                    reason.starts_with(&format!("namespace `{bad}`: ")),
                    "{reason}"
                );
            }
            other => panic!("{bad:?}: {other:?}"),
        }
    }
}

#[test]
fn the_list_check_catches_shapes_the_providers_refuse() {
    // The checker must be able to fail: each of these breaks a documented rule.
    let cases = [
        (
            Format::Anthropic,
            json!([{"name": "a", "input_schema": {"type": "object"}, "defer_loading": true}]),
            "need exactly one tool search tool",
        ),
        (
            Format::Anthropic,
            json!([
                {"name": "a", "input_schema": {"type": "object"}, "defer_loading": true},
                {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex",
                 "defer_loading": true}
            ]),
            "must not be deferred",
        ),
        (
            Format::Anthropic,
            json!([{"type": "tool_search_tool_regex_20251119", "name": "search"}]),
            "must be named `tool_search_tool_regex`",
        ),
        (
            Format::OpenaiResponses,
            json!([{"type": "namespace", "name": "ns", "description": "", "tools": []}]),
            "non-empty description",
        ),
        (
            Format::OpenaiResponses,
            json!([{"type": "namespace", "name": "ns", "description": "d", "tools": [
                {"type": "namespace", "name": "inner", "description": "d", "tools": []}
            ]}]),
            "function tools only",
        ),
        (
            Format::OpenaiResponses,
            json!([{"type": "function", "name": "a", "parameters": {"type": "object"},
                    "strict": false, "defer_loading": "yes"}, {"type": "tool_search"}]),
            "defer_loading must be a boolean",
        ),
    ];
    for (format, list, expected) in cases {
        let failures = check_tool_search_list(format, &list);
        assert!(
            failures.iter().any(|f| f.contains(expected)),
            "{format} {list}: expected {expected:?} in {failures:?}"
        );
    }
}

#[test]
fn a_call_of_a_namespaced_tool_imports_by_its_function_name() {
    use tool_core::provider::Importer;
    let registry = fixtures::fixture_registry();
    let importer = Importer::new(&registry);
    let item = json!({
        "type": "function_call",
        "call_id": "fc_1",
        "namespace": "files",
        "name": "ping",
        "arguments": "{}"
    });
    let imported = importer.responses_function_call(&item).expect("imports");
    assert_eq!(imported.call.name, "ping");
    assert_eq!(imported.call.id, "fc_1");
}
