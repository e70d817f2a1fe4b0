//! `update_plan` through `toolsmith serve` on stdio: a plan written, then written again with a
//! step completed, each answered as a checklist; two steps in progress refused with the steps
//! named. No server state: a new connection answers the same.

use serde_json::{Value, json};

use crate::support::stdio::{StdioServe, Version, text_of};

fn plan_call(id: u64, plan: Value) -> Value {
    Version::V2026.request(
        &json!(id),
        "tools/call",
        json!({"name": "update_plan", "arguments": {"plan": plan}}),
    )
}

#[test]
fn a_plan_is_written_then_rewritten_with_a_step_completed() {
    let dir = tempfile::tempdir().expect("dir");
    let root = dir.path().to_str().expect("utf-8");
    let mut server = StdioServe::start(dir.path(), &["--root", root]);
    let first = server.ask(plan_call(
        1,
        json!([
            {"step": "Read the failing test", "status": "in_progress"},
            {"step": "Fix the parser", "status": "pending"},
        ]),
    ));
    assert_eq!(
        text_of(&first),
        "Plan updated (0 of 2 completed):\n[>] Read the failing test\n[ ] Fix the parser\n"
    );
    assert_eq!(
        first["result"]["structuredContent"]["completed"], 0,
        "{first}"
    );
    let second = server.ask(plan_call(
        2,
        json!([
            {"step": "Read the failing test", "status": "completed"},
            {"step": "Fix the parser", "status": "in_progress"},
        ]),
    ));
    assert_eq!(
        text_of(&second),
        "Plan updated (1 of 2 completed):\n[x] Read the failing test\n[>] Fix the parser\n"
    );
    let refused = server.ask(plan_call(
        3,
        json!([
            {"step": "a", "status": "in_progress"},
            {"step": "b", "status": "in_progress"},
        ]),
    ));
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    let text = text_of(&refused);
    assert!(text.contains("steps 1, 2 are all in_progress"), "{text}");
    let bad_status = server.ask(plan_call(4, json!([{"step": "a", "status": "done"}])));
    let text = text_of(&bad_status);
    assert!(
        text.contains("pending") && text.contains("in_progress") && text.contains("completed"),
        "the allowed values: {text}"
    );
    assert!(server.close(std::time::Duration::from_secs(10)));
}
