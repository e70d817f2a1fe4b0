//! Point 5: `ToolError`: every kind's JSON form, the round trip, and the unknown-tool answer.

use serde_json::{Value, json};
use tool_core::{ErrorKind, Mode, Problem, Registry, Runtime, SessionConfig, ToolError, ToolSpec};

use crate::support::*;

const KINDS: [(ErrorKind, &str); 10] = [
    (ErrorKind::ValidationError, "validation_error"),
    (ErrorKind::UserError, "user_error"),
    (ErrorKind::SystemError, "system_error"),
    (ErrorKind::PermissionError, "permission_error"),
    (ErrorKind::SecurityError, "security_error"),
    (ErrorKind::NotFound, "not_found"),
    (ErrorKind::ApprovalDenied, "approval_denied"),
    (ErrorKind::Timeout, "timeout"),
    (ErrorKind::Cancelled, "cancelled"),
    (ErrorKind::RateLimited, "rate_limited"),
];

#[test]
fn every_kind_has_its_json_form() {
    for (kind, name) in KINDS {
        assert_eq!(kind.as_str(), name);
        assert_eq!(kind.to_string(), name);
        assert_eq!(serde_json::to_value(kind).unwrap(), json!(name));
        let err = ToolError::new(kind, "went wrong")
            .with_signature(r#"web(action="crawl")"#)
            .with_suggestion("Try again.")
            .with_field("allowed_actions", json!(["search", "fetch"]))
            .with_field("query_or_url", "x");
        assert_eq!(
            err.to_json(),
            json!({
                "type": "error",
                "error_type": name,
                "error": r#"web(action="crawl"): went wrong"#,
                "allowed_actions": ["search", "fetch"],
                "query_or_url": "x",
                "suggestion": "Try again."
            })
        );
        assert_eq!(
            err.to_string(),
            format!(r#"{name}: web(action="crawl"): went wrong"#)
        );
        assert_eq!(serde_json::to_value(&err).unwrap(), err.to_json());
        let back = ToolError::from_json(&err.to_json()).expect("round trip");
        assert_eq!(back.kind(), kind);
        assert_eq!(back.to_json(), err.to_json());
        assert_eq!(back.suggestion(), Some("Try again."));
        assert_eq!(back.fields()["query_or_url"], "x");
    }
}

#[test]
fn constructors_pick_their_kind() {
    assert_eq!(
        ToolError::validation("m").kind(),
        ErrorKind::ValidationError
    );
    assert_eq!(ToolError::user("m").kind(), ErrorKind::UserError);
    assert_eq!(ToolError::system("m").kind(), ErrorKind::SystemError);
    assert_eq!(
        ToolError::permission("m").kind(),
        ErrorKind::PermissionError
    );
    assert_eq!(ToolError::security("m").kind(), ErrorKind::SecurityError);
    assert_eq!(ToolError::not_found("m").kind(), ErrorKind::NotFound);
}

#[test]
fn minimal_error_and_reserved_fields() {
    let err = ToolError::user("File not found: a.rs")
        .with_field("type", "x")
        .with_field("error_type", "x")
        .with_field("error", "x")
        .with_field("suggestion", "x")
        .with_field("problems", "x");
    assert_eq!(
        err.to_json(),
        json!({"type": "error", "error_type": "user_error", "error": "File not found: a.rs"})
    );
    assert!(err.fields().is_empty());
    // A signature set once is kept.
    let err = err.with_signature("a()").with_signature("b()");
    assert_eq!(err.full_message(), "a(): File not found: a.rs");
    assert_eq!(err.signature(), Some("a()"));
    assert_eq!(err.message(), "File not found: a.rs");
}

#[test]
fn problems_round_trip() {
    let err = ToolError::validation("2 problems")
        .with_signature("t()")
        .with_problems(vec![
            Problem::new("/a", "missing").expected("string"),
            Problem::new("/k", "Invalid k 'x'")
                .allowed(vec![json!("y"), json!("z")])
                .did_you_mean(Some("y".into())),
        ]);
    let j = err.to_json();
    assert_eq!(
        j["problems"],
        json!([
            {"path": "/a", "message": "missing", "expected": "string"},
            {"path": "/k", "message": "Invalid k 'x'", "allowed": ["y", "z"], "did_you_mean": "y"}
        ])
    );
    let back = ToolError::from_json(&j).unwrap();
    assert_eq!(back.problems(), err.problems());
    assert_eq!(back.to_json(), j);
}

#[test]
fn from_json_refuses_what_is_not_an_error() {
    for v in [
        json!({"type": "search_results"}),
        json!({"type": "error", "error_type": "bogus", "error": "x"}),
        json!({"type": "error", "error": "x"}),
        json!({"type": "error", "error_type": "user_error"}),
        json!("error"),
        Value::Null,
    ] {
        assert!(ToolError::from_json(&v).is_none(), "{v}");
    }
}

fn mode_registry() -> Registry {
    Registry::builder()
        .register(Add)
        .register(Echo)
        .register(Search)
        .register(PromptManager::default())
        .register(Mcp)
        .build()
        .unwrap()
}

/// Only offered in MCP mode.
struct Mcp;

impl tool_core::Tool for Mcp {
    type Input = tool_core::NoArgs;
    type Output = Value;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("mcp_only", "MCP only.")
            .modes([Mode::Mcp])
            .alias("mcp_old")
    }
    async fn call(
        &self,
        _: &tool_core::ToolContext,
        _: tool_core::NoArgs,
    ) -> Result<Value, ToolError> {
        Ok(json!({"ok": true}))
    }
}

#[tokio::test]
async fn unknown_tool_lists_the_tools_of_this_mode_and_the_nearest_name() {
    let session = Runtime::builder(mode_registry()).build().session();
    let out = session
        .call(call("c1", "serach", json!({"query": "x"})))
        .await;
    assert_eq!(out.tool, "serach");
    assert_eq!(
        expect_err(&out).to_json(),
        json!({
            "type": "error",
            "error_type": "not_found",
            "error": r#"serach(query="x"): Unknown tool 'serach'"#,
            "available_tools": ["add", "echo", "prompt_manager", "search"],
            "did_you_mean": "search",
            "suggestion": "Did you mean `search`? Tools available: add, echo, prompt_manager, search"
        })
    );
    // Nothing near.
    let out = session.call(call("c2", "frobnicate", json!({}))).await;
    assert_eq!(
        expect_err(&out).to_json(),
        json!({
            "type": "error",
            "error_type": "not_found",
            "error": "frobnicate(): Unknown tool 'frobnicate'",
            "available_tools": ["add", "echo", "prompt_manager", "search"],
            "suggestion": "Tools available: add, echo, prompt_manager, search"
        })
    );
    // A misspelt alias points to the tool it names.
    let out = session
        .call(call("c3", "view_system_promt", json!({})))
        .await;
    assert_eq!(expect_err(&out).fields()["did_you_mean"], "prompt_manager");
    // An alias resolves.
    let out = session
        .call(call(
            "c4",
            "view_system_prompt",
            json!({"action": "view", "prompt_type": "system"}),
        ))
        .await;
    assert_eq!(out.tool, "prompt_manager");
    assert!(out.is_success(), "{}", out.to_json());
}

#[tokio::test]
async fn a_tool_outside_the_sessions_mode_is_a_permission_error() {
    let runtime = Runtime::builder(mode_registry()).build();
    let agent = runtime.session();
    for name in ["mcp_only", "mcp_old"] {
        let out = agent.call(call("c1", name, json!({}))).await;
        let err = expect_err(&out);
        assert_eq!(
            err.to_json(),
            json!({
                "type": "error",
                "error_type": "permission_error",
                "error": format!("{name}(): tool `mcp_only` is not available in mode `agent`"),
                "available_tools": ["add", "echo", "prompt_manager", "search"]
            })
        );
    }
    let mcp = runtime.session_with(SessionConfig::default().mode(Mode::Mcp));
    let out = mcp.call(call("c2", "mcp_only", json!({}))).await;
    assert_eq!(out.to_json(), json!({"ok": true}));
    let out = mcp.call(call("c3", "nope", json!({}))).await;
    assert_eq!(
        expect_err(&out).fields()["available_tools"],
        json!(["add", "echo", "mcp_only", "prompt_manager", "search"])
    );
}
