//! Point 10: session and turn state in the context: per-turn counters, `clear_current_turn`,
//! `clear_state`, and typed services from the runtime and the session.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tool_core::{
    ErrorKind, MAX_TURN_COUNTERS, Runtime, Services, SessionConfig, Tool, ToolContext, ToolError,
    ToolSpec,
};

use crate::support::*;

/// A search limited to `LIMIT` calls per turn, like the web tool.
struct Limited;

const LIMIT: u64 = 3;

#[derive(Debug, Deserialize, JsonSchema)]
struct LimitedArgs {
    /// The query.
    q: String,
}

impl Tool for Limited {
    type Input = LimitedArgs;
    type Output = Value;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("limited", "Search, at most three times a turn.")
    }
    async fn call(&self, ctx: &ToolContext, a: LimitedArgs) -> Result<Value, ToolError> {
        let n = ctx.session().increment("searches");
        if n > LIMIT {
            return Err(ToolError::new(
                ErrorKind::RateLimited,
                format!("the search limit of {LIMIT} per turn is reached"),
            )
            .with_suggestion("Use the results you have, or wait for the next turn."));
        }
        ctx.session().set_value("last_query", json!(a.q));
        Ok(json!({"q": a.q, "n": n}))
    }
}

#[tokio::test]
async fn a_per_turn_limit_resets_with_the_turn() {
    let session = session_of(|b| b.register(Limited));
    for i in 1..=LIMIT {
        let out = session
            .call(call(
                &format!("c{i}"),
                "limited",
                json!({"q": format!("q{i}")}),
            ))
            .await;
        assert_eq!(out.to_json(), json!({"q": format!("q{i}"), "n": i}));
    }
    let out = session
        .call(call("c4", "limited", json!({"q": "q4"})))
        .await;
    assert_eq!(
        expect_err(&out).to_json(),
        json!({
            "type": "error",
            "error_type": "rate_limited",
            "error": r#"limited(q="q4"): the search limit of 3 per turn is reached"#,
            "suggestion": "Use the results you have, or wait for the next turn."
        })
    );
    assert_eq!(session.state().count("searches"), 4);
    assert_eq!(session.state().turn_number(), 0);

    session.clear_current_turn();
    assert_eq!(session.state().count("searches"), 0);
    assert_eq!(session.state().turn_number(), 1);
    // Session values survive a new turn.
    assert_eq!(session.state().value("last_query"), Some(json!("q3")));
    let out = session
        .call(call("c5", "limited", json!({"q": "q4"})))
        .await;
    assert_eq!(out.to_json(), json!({"q": "q4", "n": 1}));

    session.clear_state();
    assert_eq!(session.state().value("last_query"), None);
    assert_eq!(session.state().count("searches"), 0);
    assert_eq!(session.state().turn_number(), 2);
}

#[test]
fn counters_are_bounded_and_fail_closed() {
    let state = tool_core::SessionState::default();
    for i in 0..MAX_TURN_COUNTERS {
        assert_eq!(state.increment(&format!("k{i}")), 1);
    }
    assert_eq!(state.increment("one_too_many"), u64::MAX);
    assert_eq!(state.count("one_too_many"), 0);
    assert_eq!(state.increment("k0"), 2, "existing counters still count");
    state.set_value("v", json!(1));
    assert_eq!(state.value("v"), Some(json!(1)));
}

#[derive(Debug)]
struct Greeting(&'static str);
#[derive(Debug)]
struct Missing;

/// Reads services.
struct Greeter;

impl Tool for Greeter {
    type Input = tool_core::NoArgs;
    type Output = Value;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("greeter", "Greets with the host's greeting.")
    }
    async fn call(&self, ctx: &ToolContext, _: tool_core::NoArgs) -> Result<Value, ToolError> {
        let g = ctx.require_service::<Greeting>()?;
        assert!(ctx.service::<Missing>().is_none());
        if ctx.service::<u32>().is_some() {
            ctx.require_service::<Missing>()?;
        }
        Ok(json!({"greeting": g.0, "tool": ctx.tool_name(), "mode": ctx.mode().as_str()}))
    }
}

#[tokio::test]
async fn services_from_the_runtime_and_the_session_which_shadows_it() {
    let runtime = Runtime::builder(registry(|b| b.register(Greeter)))
        .service(Arc::new(Greeting("runtime")))
        .build();
    let plain = runtime.session();
    let out = plain.call(call("c1", "greeter", json!({}))).await;
    assert_eq!(
        out.to_json(),
        json!({"greeting": "runtime", "tool": "greeter", "mode": "agent"})
    );

    let shadowed =
        runtime.session_with(SessionConfig::default().service(Arc::new(Greeting("session"))));
    let out = shadowed.call(call("c2", "greeter", json!({}))).await;
    assert_eq!(out.to_json()["greeting"], "session");

    // A missing service is a system error naming the type.
    let bare = Runtime::builder(registry(|b| b.register(Greeter)))
        .build()
        .session();
    let out = bare.call(call("c3", "greeter", json!({}))).await;
    assert_eq!(
        expect_err(&out).to_json(),
        json!({
            "type": "error",
            "error_type": "system_error",
            "error": "greeter(): the host did not configure `tests::tool::context::Greeting`, which this tool needs"
        })
    );
    let needs_missing = runtime.session_with(SessionConfig::default().service(Arc::new(7u32)));
    let out = needs_missing.call(call("c4", "greeter", json!({}))).await;
    assert_eq!(
        expect_err(&out).message(),
        "the host did not configure `tests::tool::context::Missing`, which this tool needs"
    );
}

#[tokio::test]
async fn a_detached_context_for_unit_tests() {
    let ctx = ToolContext::detached("greeter", Services::new().with(Greeting("detached")));
    assert_eq!(ctx.tool_name(), "greeter");
    assert_eq!(ctx.call_id(), "detached");
    assert_eq!(ctx.deadline(), None);
    assert!(!ctx.is_cancelled());
    let out = Tool::call(&Greeter, &ctx, tool_core::NoArgs {})
        .await
        .unwrap();
    assert_eq!(out["greeting"], "detached");
    assert_eq!(ctx.session().increment("x"), 1);
    let mut services = Services::new();
    assert!(!services.contains::<Greeting>());
    services.insert(Arc::new(Greeting("a")));
    services.insert(Arc::new(Greeting("b")));
    assert_eq!(
        services.get::<Greeting>().unwrap().0,
        "b",
        "one value per type"
    );
}

#[tokio::test]
async fn the_context_knows_its_call() {
    struct Who;
    impl Tool for Who {
        type Input = tool_core::NoArgs;
        type Output = Value;
        fn spec(&self) -> ToolSpec {
            ToolSpec::new("who", "Who am I.").alias("whoami")
        }
        async fn call(&self, ctx: &ToolContext, _: tool_core::NoArgs) -> Result<Value, ToolError> {
            Ok(
                json!({"call_id": ctx.call_id(), "tool": ctx.tool_name(), "deadline": ctx.deadline().is_some()}),
            )
        }
    }
    let session = session_of(|b| b.register(Who));
    let out = session.call(call("c1", "whoami", json!({}))).await;
    assert_eq!(
        out.to_json(),
        json!({"call_id": &*out.activity_id, "tool": "who", "deadline": true})
    );
}
