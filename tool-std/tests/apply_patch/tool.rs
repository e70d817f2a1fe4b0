//! `apply_patch` as a registered tool behind the runtime: its spec (permissions, approval,
//! annotations, schema), the gates the runtime puts in front of it, and its answers.

use std::sync::Arc;

use serde_json::json;
use tool_core::{
    ApproveAll, Approver, CallOutcome, DenyAll, ErrorKind, Permission, PermissionSet,
    ResourcesTracker, Runtime, Session, SessionConfig, ToolCall,
};
use tool_std::file::apply_patch::ApplyPatchTool;
use tool_std::workspace::Version;

use crate::support::patch::{Fx, fixture, patch};
use crate::support::registry_of;

/// A runtime over the `apply_patch` tool alone with `approver`, and the workspace of `fx` if
/// one is given.
fn runtime(fx: Option<&Fx>, approver: impl Approver) -> Runtime {
    let mut builder = Runtime::builder(registry_of(ApplyPatchTool)).approver(approver);
    if let Some(fx) = fx {
        builder = builder.service(Arc::new(fx.ws.clone()));
    }
    builder.build()
}

/// Calls `apply_patch` with `patch`.
async fn call(session: &Session, patch: &str) -> CallOutcome {
    session
        .call(ToolCall::new("1", "apply_patch", json!({ "patch": patch })))
        .await
}

#[test]
fn the_spec_declares_a_destructive_file_tool_needing_approval() {
    let registry = registry_of(ApplyPatchTool);
    let spec = registry
        .get("apply_patch")
        .expect("registered")
        .spec()
        .clone();
    assert_eq!(spec.category.as_deref(), Some("file_writing"));
    assert!(spec.toolsets.iter().any(|t| t == "file"));
    assert!(spec.requires_approval);
    assert!(spec.annotations.destructive);
    assert!(!spec.annotations.read_only);
    let perms: Vec<&str> = spec.permissions.iter().map(|p| p.as_str()).collect();
    assert_eq!(perms, ["write_files", "delete_files"]);
    assert_eq!(spec.input_schema["required"], json!(["patch"]));
    assert_eq!(
        spec.input_schema["properties"]["overwrite"]["default"],
        json!(false)
    );
    assert!(spec.description.contains("*** Begin Patch"));
}

#[tokio::test]
async fn an_approved_call_applies_and_answers_per_file() {
    let fx = fixture();
    fx.write("a.txt", "one\ntwo\n");
    let session = runtime(Some(&fx), ApproveAll).session();
    let body = patch("*** Update File: a.txt\n@@\n one\n-two\n+2\n*** Add File: b.txt\n+b");
    let out = call(&session, &body).await;
    assert!(out.is_success(), "{}", out.to_json());
    let value = out.to_json();
    assert_eq!(value["type"], "patch_applied");
    assert_eq!(value["files"][0]["action"], "updated");
    assert_eq!(
        value["files"][0]["hunks"],
        json!([{"hunk": 1, "line": 1, "level": "exact"}])
    );
    assert_eq!(value["files"][1]["action"], "added");
    // Each file's version after the patch: the hash of its new content.
    let (a, b) = (Version::of(b"one\n2\n"), Version::of(b"b\n"));
    assert_eq!(value["files"][0]["version"], a.to_string());
    assert_eq!(value["files"][1]["version"], b.to_string());
    assert_eq!(
        out.model_text(&mut ResourcesTracker::new()),
        format!(
            "Patch applied: 2 file operation(s), +2 -1 lines.\nM a.txt (+1 -1, version {a}): hunk 1 at line 1 (exact)\nA b.txt (+1, version {b})"
        )
    );
    assert_eq!(fx.read("a.txt"), "one\n2\n");
    assert_eq!(fx.read("b.txt"), "b\n");
}

#[tokio::test]
async fn a_denied_call_writes_nothing() {
    let fx = fixture();
    let session = runtime(Some(&fx), DenyAll).session();
    let before = fx.snapshot();
    let out = call(&session, &patch("*** Add File: x\n+x")).await;
    assert!(!out.is_success());
    assert_eq!(fx.snapshot(), before);
}

#[tokio::test]
async fn a_role_without_delete_files_is_refused_every_patch() {
    let fx = fixture();
    let runtime = runtime(Some(&fx), ApproveAll);
    let session = runtime.session_with(
        SessionConfig::default().permissions(
            PermissionSet::EMPTY
                .with(Permission::ReadFiles)
                .with(Permission::WriteFiles),
        ),
    );
    let out = call(&session, &patch("*** Add File: x\n+x")).await;
    let err = out.error().expect("refused");
    assert_eq!(err.kind(), ErrorKind::PermissionError, "{}", out.to_json());
    assert_eq!(
        out.to_json()["missing_permissions"],
        json!(["delete_files"])
    );
    assert!(!fx.exists("x"));
}

#[tokio::test]
async fn a_malformed_patch_is_a_validation_error_the_model_can_fix() {
    let fx = fixture();
    let session = runtime(Some(&fx), ApproveAll).session();
    let out = call(
        &session,
        "*** Begin Patch\n*** Add File: n.txt\nhello\n*** End Patch",
    )
    .await;
    let value = out.to_json();
    assert_eq!(value["type"], "error");
    assert_eq!(value["error_type"], "validation_error");
    assert_eq!(value["line"], 3);
    assert!(
        value["error"]
            .as_str()
            .unwrap()
            .contains("invalid patch, line 3 `hello`: every line of an added file starts with `+`"),
        "{value}"
    );
    assert!(
        value["suggestion"]
            .as_str()
            .unwrap()
            .contains("+first line"),
        "{value}"
    );
}

#[tokio::test]
async fn without_a_workspace_the_tool_says_what_is_missing() {
    let session = runtime(None, ApproveAll).session();
    let out = call(&session, &patch("*** Add File: x\n+x")).await;
    let err = out.error().expect("an error");
    assert_eq!(err.kind(), ErrorKind::SystemError);
    assert!(err.message().contains("Workspace"), "{}", err.message());
}
