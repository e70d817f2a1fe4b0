//! Errors the runtime answers with: the parameters a tool names echoed into every error of
//! that tool, and a panicking tool reported as a system error.

use serde_json::json;
use tool_core::{
    ActivityStatus, ErrorKind, Permission, PermissionSet, Registry, SessionConfig, Tool,
    ToolContext, ToolError, ToolSpec,
};

use crate::support::*;

/// `counted` that echoes `key` into its errors and needs `read_files`.
#[derive(Clone, Default)]
struct Keyed {
    inner: Counted,
    context: Option<&'static str>,
}

impl Tool for Keyed {
    type Input = CountedArgs;
    type Output = CountedOut;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("keyed", "Count, echoing the key into errors.")
            .permission(Permission::ReadFiles)
            .error_context(self.context.unwrap_or("key"))
    }
    async fn call(&self, ctx: &ToolContext, a: CountedArgs) -> Result<CountedOut, ToolError> {
        Tool::call(&self.inner, ctx, a).await
    }
}

#[tokio::test]
async fn error_context_is_echoed_into_every_error_of_the_tool() {
    let session = session_of(|b| b.register(Keyed::default()));
    // The tool's own error, from value and from text arguments.
    let out = session
        .call(call("c1", "keyed", json!({"key": "k1", "fail": true})))
        .await;
    assert_eq!(expect_err(&out).fields()["key"], "k1");
    let out = session
        .call(call_text("c2", "keyed", r#"{"key": "k2", "fail": true}"#))
        .await;
    assert_eq!(expect_err(&out).fields()["key"], "k2");
    // A validation error (text arguments too) and a permission error.
    let out = session
        .call(call_text(
            "c3",
            "keyed",
            r#"{"key": "k3", "delay_ms": "soon"}"#,
        ))
        .await;
    assert_kind(expect_err(&out), ErrorKind::ValidationError);
    assert_eq!(out.to_json()["key"], "k3");
    let limited = session
        .runtime()
        .session_with(SessionConfig::default().permissions(PermissionSet::EMPTY));
    let out = limited
        .call(call("c4", "keyed", json!({"key": "k4"})))
        .await;
    assert_kind(expect_err(&out), ErrorKind::PermissionError);
    assert_eq!(out.to_json()["key"], "k4");
    // Not given (or null, or unreadable), not echoed; a success is left alone.
    let out = session
        .call(call("c5", "keyed", json!({"key": null})))
        .await;
    assert!(out.to_json().get("key").is_none(), "{}", out.to_json());
    let out = session.call(call_text("c6", "keyed", r#"{"key": "#)).await;
    assert!(out.to_json().get("key").is_none(), "{}", out.to_json());
    let out = session
        .call(call("c7", "keyed", json!({"key": "ok"})))
        .await;
    assert_eq!(out.to_json(), json!({"key": "ok", "run": 3}));

    // A name that is not a parameter is refused at registration.
    let err = Registry::builder()
        .register(Keyed {
            context: Some("kee"),
            ..Keyed::default()
        })
        .build()
        .unwrap_err();
    assert!(
        matches!(err, tool_core::RegistryError::Spec { .. }),
        "{err:?}"
    );
    assert!(
        err.to_string().contains(
            "error_context names `kee`, which is not a parameter of the tool; its parameters \
             are: key, delay_ms, fail"
        ),
        "{err}"
    );
}

#[tokio::test]
async fn a_panicking_tool_is_a_system_error() {
    let session = session_of(|b| b.register(Panicky));
    let out = session.call(call("c1", "panicky", json!({}))).await;
    assert_eq!(
        expect_err(&out).to_json(),
        json!({
            "type": "error",
            "error_type": "system_error",
            "error": "panicky(): the tool panicked; this is a bug in the tool, not in the call"
        })
    );
    let record = session
        .runtime()
        .activities()
        .get(&out.activity_id)
        .await
        .unwrap();
    assert_eq!(record.status, ActivityStatus::Failure);
    assert_eq!(
        record.error.as_deref(),
        Some("panicky(): the tool panicked; this is a bug in the tool, not in the call")
    );
}
