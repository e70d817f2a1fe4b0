//! Tool-surface snapshots (`testing::Surface`) on a temporary directory: the first run writes
//! a file per tool per format; *compatible* fails a parameter renamed, a parameter made
//! required, an enum narrowed, an output field removed and a tool removed, each naming the
//! tool, the format, the path and why, and passes an optional parameter, an action and an
//! output field added; *structural* ignores descriptions and *strict* does not.

use std::sync::Arc;

use serde_json::{Value, json};
use tool_core::ToolSpec;
use tool_core::provider::Format;
use tool_core::testing::{SnapshotMode, Surface, SurfaceReport};

/// `files` as it first was: a polymorphic tool with an action, a path, an optional mode of
/// two values and a limit, answering `{content, lines}`.
fn files() -> ToolSpec {
    let mut spec = ToolSpec::new("files", "Reads files.").input_schema(json!({
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["read"], "description": "What to do."},
            "path": {"type": "string", "description": "The file."},
            "mode": {"type": "string", "enum": ["text", "bytes"]},
            "limit": {"type": "integer", "minimum": 1}
        },
        "required": ["action", "path"],
        "additionalProperties": false
    }));
    spec.output_schema = Some(Arc::new(json!({
        "type": "object",
        "properties": {"content": {"type": "string"}, "lines": {"type": "integer"}},
        "required": ["content", "lines"]
    })));
    spec
}

fn input(spec: &mut ToolSpec) -> &mut Value {
    Arc::make_mut(&mut spec.input_schema)
}

fn output(spec: &mut ToolSpec) -> &mut Value {
    Arc::make_mut(spec.output_schema.as_mut().unwrap())
}

/// Checks `spec` against snapshots of [`files`] made in a new directory, in `mode`.
fn against_first(spec: ToolSpec, mode: SnapshotMode) -> SurfaceReport {
    let dir = tempfile::tempdir().unwrap();
    let first = Surface::from_specs([files()])
        .dir(dir.path())
        .check()
        .unwrap();
    assert_eq!(first.written.len(), 4, "one file per default format");
    assert!(dir.path().join("files.mcp.json").is_file());
    assert!(dir.path().join("files.openai-strict.json").is_file());
    Surface::from_specs([spec])
        .dir(dir.path())
        .mode(mode)
        .check()
        .unwrap()
}

/// The one failure of `report` in `format`, as text.
fn failure_in(report: &SurfaceReport, format: Format) -> String {
    let found: Vec<String> = report
        .failures
        .iter()
        .filter(|c| c.format == format)
        .map(ToString::to_string)
        .collect();
    assert!(!found.is_empty(), "no failure in {format}: {report}");
    found.join("\n")
}

#[test]
fn breaking_changes_fail_compatible_naming_the_path_and_why() {
    // A parameter renamed.
    let mut renamed = files();
    let path = input(&mut renamed)["properties"]["path"].take();
    let props = input(&mut renamed)["properties"].as_object_mut().unwrap();
    props.remove("path");
    props.insert("file".into(), path);
    input(&mut renamed)["required"] = json!(["action", "file"]);
    let report = against_first(renamed, SnapshotMode::Compatible);
    let mcp = failure_in(&report, Format::Mcp);
    assert!(
        mcp.contains(
            "tool `files`, format `mcp`, at `/inputSchema/properties/path`: the parameter `path` \
             was removed or renamed"
        ),
        "{mcp}"
    );
    assert!(mcp.contains("`file` is now required"), "{mcp}");
    // Every format sees it, at its own path.
    let anthropic = failure_in(&report, Format::Anthropic);
    assert!(
        anthropic.contains("at `/input_schema/properties/path`"),
        "{anthropic}"
    );

    // A parameter made required.
    let mut required = files();
    input(&mut required)["required"] = json!(["action", "path", "limit"]);
    let report = against_first(required, SnapshotMode::Compatible);
    let mcp = failure_in(&report, Format::Mcp);
    assert!(
        mcp.contains(
            "at `/inputSchema/properties/limit`: the parameter `limit` is now required: \
                      calls that leave it out are refused"
        ),
        "{mcp}"
    );

    // An enum narrowed.
    let mut narrowed = files();
    input(&mut narrowed)["properties"]["mode"]["enum"] = json!(["text"]);
    let report = against_first(narrowed, SnapshotMode::Compatible);
    let mcp = failure_in(&report, Format::Mcp);
    assert!(
        mcp.contains(
            "at `/inputSchema/properties/mode`: the enum was narrowed: calls sending \
                      \"bytes\" are refused"
        ),
        "{mcp}"
    );

    // An output field removed (only MCP carries the output schema).
    let mut fewer = files();
    output(&mut fewer)["properties"]
        .as_object_mut()
        .unwrap()
        .remove("lines");
    output(&mut fewer)["required"] = json!(["content"]);
    let report = against_first(fewer, SnapshotMode::Compatible);
    assert_eq!(report.failures.len(), 1, "{report}");
    assert_eq!(
        report.failures[0].to_string(),
        "tool `files`, format `mcp`, at `/outputSchema/properties/lines`: the field `lines` was \
         removed: callers reading it find nothing"
    );
    assert!(report.to_string().contains("TOOLSMITH_UPDATE_SNAPSHOTS=1"));
}

#[test]
fn additions_pass_compatible() {
    let mut added = files();
    input(&mut added)["properties"]["encoding"] =
        json!({"type": "string", "description": "An optional encoding."});
    input(&mut added)["properties"]["action"]["enum"] = json!(["read", "stat"]);
    output(&mut added)["properties"]["size"] = json!({"type": "integer"});
    added.description = "Reads and stats files.".into();
    let report = against_first(added, SnapshotMode::Compatible);
    assert!(report.is_ok(), "{report}");
    assert_eq!(report.passed_changes.len(), 4, "{report:?}");
}

#[test]
fn structural_ignores_descriptions_and_strict_does_not() {
    let mut worded = files();
    worded.description = "Reads a file.".into();
    input(&mut worded)["properties"]["path"]["description"] = json!("The file to read.");
    let report = against_first(worded.clone(), SnapshotMode::Structural);
    assert!(report.is_ok(), "{report}");
    let report = against_first(worded, SnapshotMode::Strict);
    let mcp = failure_in(&report, Format::Mcp);
    assert!(mcp.contains("at `/description`: changed from"), "{mcp}");

    // A new optional parameter passes compatible but fails structural.
    let mut added = files();
    input(&mut added)["properties"]["encoding"] = json!({"type": "string"});
    let report = against_first(added, SnapshotMode::Structural);
    assert!(
        failure_in(&report, Format::Mcp).contains("/inputSchema/properties/encoding`: added"),
        "{report}"
    );
}

#[test]
fn a_removed_tool_fails_and_updating_accepts_it() {
    let dir = tempfile::tempdir().unwrap();
    let other = ToolSpec::new("other", "Another tool.");
    Surface::from_specs([files(), other])
        .dir(dir.path())
        .check()
        .unwrap();
    let report = Surface::from_specs([files()])
        .dir(dir.path())
        .check()
        .unwrap();
    assert_eq!(report.failures.len(), 4, "{report}");
    assert!(
        report.failures[0]
            .to_string()
            .contains("tool `other`, format `")
            && report.failures[0].why.contains("the tool was removed"),
        "{report}"
    );
    // A new tool is written, not failed.
    let report = Surface::from_specs([
        files(),
        ToolSpec::new("other", "Another tool."),
        ToolSpec::new("third", "A third."),
    ])
    .dir(dir.path())
    .check()
    .unwrap();
    assert!(report.is_ok(), "{report}");
    assert_eq!(report.written.len(), 4);
}
