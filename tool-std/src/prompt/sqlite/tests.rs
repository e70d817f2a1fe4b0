//! Unit tests of the SQLite store's internals: the raw connection, the schema and its checks.

use super::*;

#[test]
fn works_without_a_tokio_runtime() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.db");
    let future = async {
        let store = SqliteAgentStore::open(&path).await?;
        store.get_or_create("x", "a").await
    };
    // A trivial executor: every future here completes without ever returning Pending.
    let agent = poll_to_completion(future).unwrap();
    assert_eq!(agent.name, "a");
}

fn poll_to_completion<F: std::future::Future>(future: F) -> F::Output {
    use std::task::{Context, Poll, Waker};
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
    }
}

#[test]
fn corrupt_enabled_tools_is_reported_not_panicked() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.db");
    let conn = open_connection(&path).unwrap();
    // Bypass the CHECK constraint the way a careless external writer could.
    conn.execute_batch(
        "PRAGMA ignore_check_constraints = ON;
         INSERT INTO agents (account, name, enabled_tools) VALUES ('x', 'a', '{\"no\": 1}');",
    )
    .unwrap();
    let err = select_by_id(&conn, "reading", 1).unwrap_err();
    assert!(matches!(err, StoreError::Corrupt { id: 1, .. }), "{err}");
}

#[test]
fn a_newer_schema_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.db");
    let conn = open_connection(&path).unwrap();
    conn.pragma_update(None, "user_version", SCHEMA_VERSION + 1)
        .unwrap();
    drop(conn);
    let err = open_connection(&path).unwrap_err();
    assert!(
        matches!(err, StoreError::SchemaTooNew { found, .. } if found == SCHEMA_VERSION + 1),
        "{err}"
    );
}

#[test]
fn the_database_rejects_over_long_rows_too() {
    let dir = tempfile::tempdir().unwrap();
    let conn = open_connection(&dir.path().join("a.db")).unwrap();
    let err = conn
        .execute(
            "INSERT INTO agents (account, name, system_prompt) VALUES ('x', 'a', ?1)",
            params!["x".repeat(50_001)],
        )
        .unwrap_err();
    assert_eq!(
        err.sqlite_error_code(),
        Some(ErrorCode::ConstraintViolation)
    );
}
