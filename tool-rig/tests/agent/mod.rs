//! A rig agent calling the standard tools through the session: a read, a bad call, approval,
//! and the definitions rig sends the model.

use rig_core::test_utils::MockTurn;
use rig_core::tool::ToolErrorKind;
use serde_json::{Value, json};
use tool_core::ActivityStatus;
use tool_core::provider::neutral_schema;
use tool_core::testing::ScriptedApprover;
use tool_std::testing::TestWorkspace;

use crate::support::{self, model, records, results_sent, run, text};

#[tokio::test]
async fn an_agent_reads_a_file_through_the_session() {
    let ws = TestWorkspace::with_files([("notes.txt", "alpha line\nbeta line\n")]);
    let (harness, tools) = support::tools(&ws, ScriptedApprover::never());
    let model = model([
        MockTurn::tool_call("c1", "read_file", json!({"paths": ["notes.txt"]})),
        MockTurn::text("It says alpha, then beta."),
    ]);

    let response = run(&tools, &model, "What does notes.txt say?").await;

    assert_eq!(response.output(), "It says alpha, then beta.");
    assert_eq!(model.request_count(), 2);
    let results = results_sent(&model, 1);
    assert_eq!(results.len(), 1, "{results:?}");
    let result = &results[0];
    assert!(!result.is_error, "{result:?}");
    assert_eq!(result.call.wire(), "c1");
    assert_eq!(result.name.as_str(), "read_file");
    let read = text(result);
    assert!(
        read.contains("alpha line") && read.contains("beta line"),
        "{read}"
    );

    let records = records(&harness).await;
    assert_eq!(records.len(), 1, "{records:?}");
    let record = &records[0];
    assert_eq!(record.name, "read_file");
    assert_eq!(record.status, ActivityStatus::Success);
    assert_eq!(record.input, json!({"paths": ["notes.txt"]}));
    assert_eq!(
        record.conversation.as_deref(),
        Some(&**harness.session().conversation())
    );
}

#[tokio::test]
async fn a_bad_call_is_answered_with_the_correctable_error_and_the_run_goes_on() {
    let ws = TestWorkspace::with_files([("src/lib.rs", "pub fn answer() -> u32 { 42 }\n")]);
    let (harness, tools) = support::tools(&ws, ScriptedApprover::never());
    let model = model([
        MockTurn::tool_call(
            "c1",
            "grep",
            json!({"pattern": "answer", "output_mode": "everything"}),
        ),
        MockTurn::tool_call("c2", "grep", json!({"pattern": "answer"})),
        MockTurn::text("found it"),
    ]);

    let response = run(&tools, &model, "Where is answer defined?").await;

    assert_eq!(response.output(), "found it");
    let bad = &results_sent(&model, 1)[0];
    assert!(bad.is_error, "{bad:?}");
    let error: Value = serde_json::from_str(&text(bad)).unwrap_or_default();
    assert_eq!(error["type"], "error", "{error}");
    assert_eq!(error["error_type"], "validation_error", "{error}");
    let said = error.to_string();
    for value in ["content", "files_with_matches", "count"] {
        assert!(
            said.contains(value),
            "the allowed value {value} is missing: {said}"
        );
    }
    assert!(said.contains("grep("), "no example call: {said}");

    let good = &results_sent(&model, 2)[1];
    assert!(!good.is_error, "{good:?}");
    assert!(text(good).contains("src/lib.rs"), "{}", text(good));
    let records = records(&harness).await;
    let statuses: Vec<_> = records.iter().map(|r| r.status).collect();
    assert_eq!(
        statuses,
        [ActivityStatus::Failure, ActivityStatus::Success],
        "{records:?}"
    );
}

#[tokio::test]
async fn a_denied_approval_is_an_error_the_model_reads() {
    let ws = TestWorkspace::with_files([("README.md", "# hi\n")]);
    let (harness, tools) = support::tools(&ws, ScriptedApprover::never());
    let model = model([
        MockTurn::tool_call(
            "c7",
            "create_file",
            json!({"path": "new.txt", "content": "fresh\n"}),
        ),
        MockTurn::text("could not"),
    ]);

    let response = run(&tools, &model, "Create new.txt").await;

    assert_eq!(response.output(), "could not");
    let denied = &results_sent(&model, 1)[0];
    assert!(denied.is_error, "{denied:?}");
    let error: Value = serde_json::from_str(&text(denied)).unwrap_or_default();
    assert_eq!(error["error_type"], "approval_denied", "{error}");
    assert!(!ws.exists("new.txt"));
    let asked = harness.asked();
    assert_eq!(asked.len(), 1, "{asked:?}");
    // The approver is asked about the model's own call.
    assert_eq!(asked[0].call_id, "c7");
    assert_eq!(asked[0].tool, "create_file");
}

#[tokio::test]
async fn an_allowed_approval_runs_the_call() {
    let ws = TestWorkspace::with_files([("README.md", "# hi\n")]);
    let (harness, tools) = support::tools(&ws, ScriptedApprover::always());
    let model = model([
        MockTurn::tool_call(
            "c8",
            "create_file",
            json!({"path": "new.txt", "content": "fresh\n"}),
        ),
        MockTurn::text("created"),
    ]);

    run(&tools, &model, "Create new.txt").await;

    let created = &results_sent(&model, 1)[0];
    assert!(!created.is_error, "{created:?}");
    assert_eq!(ws.read("new.txt"), "fresh\n");
    assert_eq!(harness.asked().len(), 1);
    let records = records(&harness).await;
    assert_eq!(records[0].status, ActivityStatus::Success, "{records:?}");
    assert!(records[0].allowed.is_some(), "{records:?}");
}

#[tokio::test]
async fn the_errors_reach_rig_with_their_kind_and_code() {
    let ws = TestWorkspace::with_files([("README.md", "# hi\n")]);
    let (_harness, tools) = support::tools(&ws, ScriptedApprover::never());
    let find = |name: &str| {
        tools
            .tools()
            .into_iter()
            .find(|t| t.name().as_str() == name)
    };
    let Some(create) = find("create_file") else {
        panic!("no create_file among the tools");
    };
    let Some(grep) = find("grep") else {
        panic!("no grep among the tools");
    };

    let denied = create
        .execute(json!({"path": "x.txt", "content": "x"}))
        .await
        .err();
    let invalid = grep
        .execute(json!({"pattern": 5, "bogus": true}))
        .await
        .err();

    let denied = denied.unwrap_or_else(|| panic!("a denied call succeeded"));
    assert_eq!(denied.kind(), ToolErrorKind::PermissionDenied);
    assert_eq!(denied.code(), Some("approval_denied"));
    assert!(
        denied
            .model_feedback()
            .is_some_and(|t| t.contains("approval_denied")),
        "{:?}",
        denied.model_feedback()
    );
    let invalid = invalid.unwrap_or_else(|| panic!("a bad call succeeded"));
    assert_eq!(invalid.kind(), ToolErrorKind::InvalidArgs);
    assert_eq!(invalid.code(), Some("validation_error"));
    assert!(
        invalid
            .model_feedback()
            .is_some_and(|t| t.contains("bogus")),
        "{:?}",
        invalid.model_feedback()
    );
}

/// Every `format` in a schema.
fn formats(schema: &Value, out: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            if let Some(Value::String(f)) = map.get("format") {
                out.push(f.clone());
            }
            map.values().for_each(|v| formats(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| formats(v, out)),
        _ => {}
    }
}

#[tokio::test]
async fn the_model_is_sent_toolsmiths_definitions() {
    let ws = TestWorkspace::with_files([("README.md", "# hi\n")]);
    let (harness, tools) = support::tools(&ws, ScriptedApprover::never());
    let model = model([MockTurn::text("nothing to do")]);

    run(&tools, &model, "Hello").await;

    let requests = model.requests();
    let sent = &requests[0].tools;
    let offered: Vec<_> = harness.session().offered().collect();
    assert!(offered.len() > 10, "{} tools offered", offered.len());
    assert_eq!(sent.len(), offered.len());
    for entry in offered {
        let spec = entry.spec();
        let Some(definition) = sent.iter().find(|d| d.name.as_str() == spec.name) else {
            panic!("{} was not sent", spec.name);
        };
        assert_eq!(definition.description, spec.description, "{}", spec.name);
        assert_eq!(definition.parameters, neutral_schema(spec), "{}", spec.name);
        assert!(
            definition.parameters.get("$schema").is_none(),
            "{}",
            spec.name
        );
        assert_eq!(definition.parameters["type"], "object", "{}", spec.name);
        let mut found = Vec::new();
        formats(&definition.parameters, &mut found);
        assert!(
            !found.iter().any(|f| f.starts_with("uint")
                || f.starts_with("int")
                || f == "double"
                || f == "float"),
            "{}: {found:?}",
            spec.name
        );
    }
    // The canonical schemas do carry what the definitions leave out.
    let read = harness.runtime().registry().get("read_file");
    let canonical = read
        .map(|e| e.spec().input_schema.to_string())
        .unwrap_or_default();
    assert!(canonical.contains("$schema"), "{canonical}");
}
