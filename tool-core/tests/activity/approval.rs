//! Approval in the stores: a record begun `awaiting_approval` goes on `in_progress` with how
//! it was allowed, or ends unanswered; a call continuing another's question goes on with its
//! record (begun anew where the store does not have it). The same for the in-memory store
//! and the SQLite file, where the record survives a reopening and passes between two stores
//! sharing the file, as between two processes.

use std::sync::Arc;

use tool_core::ActivityStart;
use tool_core::{
    ActivityStatus, ActivityStore, ActivityUpdate, Allowed, ApprovedBy, Arguments,
    InMemoryActivityStore, ToolOutput,
};

/// Milliseconds since the epoch, `ago` ms before now (a record older than the SQLite
/// store's retention would be evicted).
fn ms_ago(ago: u64) -> u64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    now - ago
}

fn waiting(id: &str, started_at_ms: u64) -> ActivityStart {
    let arguments = Arc::new(Arguments::Text(r#"{"command": "ls"}"#.into()));
    let mut start = ActivityStart::new(id, "bash", arguments, true);
    start.status = ActivityStatus::AwaitingApproval;
    start.started_at_ms = started_at_ms;
    start
}

async fn flushed(store: &dyn ActivityStore, id: &str) -> tool_core::ActivityRecord {
    store.get(id).await.expect("the record is kept")
}

/// One store through every step; `reopen` gives the store again (the SQLite file reopened).
async fn steps(store: Arc<dyn ActivityStore>, reopen: impl Fn() -> Arc<dyn ActivityStore>) {
    // Waiting, then allowed: it runs and says how; an unanswered end no longer applies.
    let (a, b) = (ms_ago(9_000), ms_ago(8_000));
    store.begin(waiting("a", a));
    let r = flushed(&*store, "a").await;
    assert_eq!(r.status, ActivityStatus::AwaitingApproval);
    assert_eq!(r.started_at_ms, a);
    let allowed = Allowed::new(ApprovedBy::UserSession, 4_000);
    store.update("a", ActivityUpdate::Approved(allowed.clone()));
    store.update(
        "a",
        ActivityUpdate::Unanswered {
            error: "too late".into(),
        },
    );
    let r = flushed(&*store, "a").await;
    assert_eq!(r.status, ActivityStatus::InProgress);
    assert_eq!(r.allowed.as_ref(), Some(&allowed));
    store.succeed("a", &ToolOutput::new(crate::support::Sum { sum: 1 }));
    let r = flushed(&*store, "a").await;
    assert_eq!(r.status, ActivityStatus::Success);
    assert_eq!(r.allowed.as_ref(), Some(&allowed));

    // A call continuing a question the store does not have: begun, waiting since the ask.
    store.resume(waiting("b", b));
    let r = flushed(&*store, "b").await;
    assert_eq!(
        (r.status, r.started_at_ms),
        (ActivityStatus::AwaitingApproval, b)
    );
    // Continued again: the record is kept as it was, not begun anew.
    store.resume(waiting("b", ms_ago(1)));
    assert_eq!(flushed(&*store, "b").await.started_at_ms, b);
    // Nobody answers: it ends `failure`; an approval after that changes nothing.
    store.update(
        "b",
        ActivityUpdate::Unanswered {
            error: "the user did not answer".into(),
        },
    );
    store.update("b", ActivityUpdate::Approved(allowed.clone()));
    let r = flushed(&*store, "b").await;
    assert_eq!(r.status, ActivityStatus::Failure);
    assert_eq!(r.error.as_deref(), Some("the user did not answer"));
    assert!(r.finished_at_ms.is_some());
    assert_eq!(r.allowed, None);

    // A finished record is not taken up again by a late continuation.
    store.resume(waiting("a", ms_ago(1)));
    assert_eq!(flushed(&*store, "a").await.status, ActivityStatus::Success);

    let again = reopen();
    let r = flushed(&*again, "a").await;
    assert_eq!(r.allowed, Some(allowed));
    assert_eq!(flushed(&*again, "b").await.status, ActivityStatus::Failure);
}

#[tokio::test]
async fn the_in_memory_store_keeps_approval() {
    let store: Arc<dyn ActivityStore> = Arc::new(InMemoryActivityStore::new());
    let same = store.clone();
    steps(store, move || same.clone()).await;
}

#[cfg(feature = "sqlite")]
#[tokio::test]
async fn the_sqlite_store_keeps_approval_across_a_reopening_and_between_processes() {
    use tool_core::{SqliteActivityConfig, SqliteActivityStore};
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("activity.db");
    let open = {
        let path = path.clone();
        move || -> Arc<dyn ActivityStore> {
            Arc::new(
                SqliteActivityStore::open(&path, SqliteActivityConfig::default()).expect("open"),
            )
        }
    };
    steps(open(), open.clone()).await;

    // One store asks, the other (another process sharing the file) continues and finishes.
    let asking = open();
    let answering = open();
    let c = ms_ago(3_000);
    asking.begin(waiting("c", c));
    assert_eq!(
        flushed(&*asking, "c").await.status,
        ActivityStatus::AwaitingApproval
    );
    answering.resume(waiting("c", c));
    answering.update(
        "c",
        ActivityUpdate::Approved(Allowed::new(ApprovedBy::UserOnce, 7)),
    );
    answering.succeed("c", &ToolOutput::new(crate::support::Sum { sum: 2 }));
    let _ = flushed(&*answering, "c").await;
    // The asking side's timer comes too late: the record stays as the answer made it.
    asking.update(
        "c",
        ActivityUpdate::Unanswered {
            error: "expired".into(),
        },
    );
    let r = flushed(&*asking, "c").await;
    assert_eq!(r.status, ActivityStatus::Success);
    assert_eq!(r.started_at_ms, c);
    assert_eq!(r.allowed.map(|a| a.by), Some(ApprovedBy::UserOnce));
}
