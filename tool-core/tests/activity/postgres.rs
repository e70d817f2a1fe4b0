//! The Postgres store on a real server (a throwaway cluster, or a fresh database on the server
//! `TOOLSMITH_TEST_POSTGRES` names): the records the memory store keeps, two replicas on one
//! database seeing each other's writes as they happen, a dead replica's calls closed when its
//! lease runs out, the server stopped under load, retention, a newer schema refused, the
//! shared rate window and used approvals, and errors that say what to do.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tool_core::postgres::{
    PostgresActivityConfig, PostgresActivityStore, PostgresConfig, PostgresStore,
};
use tool_core::testing::postgres::TestDatabase;
use tool_core::{
    ABANDONED, ActivityRecord, ActivityStart, ActivityStatus, ActivityStore, Arguments,
    Conversation, InMemoryActivityStore, Runtime, SessionConfig,
};

use crate::support::*;

/// A fresh database, or `None` (printed) where no Postgres server can be had.
pub(super) async fn database(test: &str) -> Option<TestDatabase> {
    match TestDatabase::create().await {
        Ok(db) => Some(db),
        Err(why) => {
            eprintln!("skipping {test}: {why}");
            None
        }
    }
}

fn args(v: Value) -> Arc<Arguments> {
    Arc::new(Arguments::Value(v))
}

pub(super) fn small() -> PostgresConfig {
    PostgresConfig::default().pool_size(4)
}

pub(super) async fn replica(
    url: &str,
    config: PostgresConfig,
) -> (PostgresStore, PostgresActivityStore) {
    let store = PostgresStore::connect(url, config)
        .await
        .expect("the store connects");
    let activity = store.activity(PostgresActivityConfig::default());
    (store, activity)
}

fn comparable(r: &ActivityRecord) -> Value {
    json!({
        "name": r.name, "status": r.status, "input": r.input, "data": r.data,
        "error": r.error, "user_facing": r.user_facing, "finished": r.finished_at_ms.is_some(),
        "status_line": r.status_line, "preview": r.preview, "conversation": r.conversation,
    })
}

#[tokio::test]
async fn the_postgres_store_keeps_what_the_memory_store_keeps() {
    let Some(db) = database("the_postgres_store_keeps_what_the_memory_store_keeps").await else {
        return;
    };
    let (_store, pg) = replica(db.url(), small()).await;
    let pg = Arc::new(pg);
    let memory = Arc::new(InMemoryActivityStore::new());
    let conversation = Conversation::new("chat-1").client("test-client", "1.0");
    let session = |store: Arc<dyn ActivityStore>| {
        Runtime::builder(registry(|b| b.register(Add).register(Echo)))
            .activity_store(store)
            .build()
            .session_with(SessionConfig::default().conversation(conversation.clone()))
    };
    let (a, b) = (session(pg.clone()), session(memory.clone()));
    let calls = [
        call_text("1", "add", r#"{"a": 2, "b": 3}"#),
        call_text("2", "add", r#"{"a": 2,"#),
        call("3", "nope", json!({"x": 1})),
        call("4", "add", json!({"a": i64::MAX, "b": 1})),
        call("5", "echo", json!({"text": "y".repeat(200_000)})),
    ];
    for c in calls {
        let (x, y) = (a.call(c.clone()).await, b.call(c).await);
        assert_eq!(x.is_success(), y.is_success());
        let kept = pg.get(&x.activity_id).await.expect("the record is kept");
        let expected = memory.get(&y.activity_id).await.expect("memory record");
        assert_eq!(
            comparable(&kept),
            comparable(&expected),
            "{}",
            x.activity_id
        );
    }
    let listed = pg.list().await;
    assert_eq!(listed.len(), 5);
    assert!(
        listed
            .windows(2)
            .all(|w| w[0].started_at_ms <= w[1].started_at_ms)
    );
    assert_eq!(pg.recent(2).await.expect("recent").len(), 2);
    assert_eq!(pg.stats().dropped, 0);
}

#[tokio::test]
async fn replicas_see_each_others_writes_as_they_happen() {
    let Some(db) = database("replicas_see_each_others_writes_as_they_happen").await else {
        return;
    };
    let (a_store, a) = replica(db.url(), small()).await;
    let (_b_store, b) = replica(db.url(), small()).await;
    assert_ne!(a_store.replica(), _b_store.replica());
    let mut changes = b.changes();
    let cursor = b.cursor().await.expect("cursor");
    let session = Runtime::builder(registry(|b| b.register(Add)))
        .activity_store(Arc::new(a.clone()))
        .build()
        .session();
    let out = session
        .call(call("1", "add", json!({"a": 1, "b": 2})))
        .await;
    assert!(out.is_success());
    // Woken by the notification, not by polling.
    tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            changes.changed().await.expect("the store lives");
            let (seen, _) = b.changed_since(cursor).await.expect("read");
            if seen
                .iter()
                .any(|r| *r.id == *out.activity_id && r.status.is_terminal())
            {
                return;
            }
        }
    })
    .await
    .expect("replica b sees a's call within 5 s");
    let (elsewhere, _) = b.changed_elsewhere_since(cursor).await.expect("read");
    assert_eq!(elsewhere.len(), 1);
    let (own, _) = a.changed_elsewhere_since(cursor).await.expect("read");
    assert!(own.is_empty(), "a's own writes are not elsewhere: {own:?}");
    let record = b.get(&out.activity_id).await.expect("b reads a's record");
    assert_eq!(record.status, ActivityStatus::Success);
}

#[tokio::test]
async fn a_dead_replicas_open_calls_are_closed_when_its_lease_runs_out() {
    let Some(db) = database("a_dead_replicas_open_calls_are_closed").await else {
        return;
    };
    let lease = PostgresConfig::default()
        .pool_size(2)
        .lease(Duration::from_secs(1));
    let (_survivor, b) = replica(db.url(), lease.clone()).await;
    let id = {
        let (dead, a) = replica(db.url(), lease).await;
        let start = ActivityStart::new("act_dead_1", "sleepy", args(json!({"ms": 60_000})), true);
        a.begin(start);
        a.flush().await;
        let record = b.get("act_dead_1").await.expect("the call is recorded");
        assert_eq!(record.status, ActivityStatus::InProgress);
        drop((dead, a));
        "act_dead_1"
    };
    let began = std::time::Instant::now();
    let closed = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            if let Some(r) = b.get(id).await
                && r.status.is_terminal()
            {
                return r;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await
    .expect("closed within 10 s");
    assert_eq!(closed.status, ActivityStatus::Failure);
    assert_eq!(closed.error.as_deref(), Some(ABANDONED));
    assert!(closed.finished_at_ms.is_some());
    // The lease (1 s) and a renewal round (a third of it) at most, with some slack.
    assert!(
        began.elapsed() < Duration::from_secs(5),
        "{:?}",
        began.elapsed()
    );
}

#[tokio::test]
async fn a_closed_record_stays_closed() {
    let Some(db) = database("a_closed_record_stays_closed").await else {
        return;
    };
    let (_s, a) = replica(db.url(), small()).await;
    let client = _s.client().await.expect("client");
    a.begin(ActivityStart::new("act_x_1", "t", args(json!({})), true));
    a.flush().await;
    client
        .execute(
            "UPDATE toolsmith_activity SET status = 'failure', error = 'closed' WHERE id = $1",
            &[&"act_x_1"],
        )
        .await
        .expect("close");
    // A late write of the same record (a replica cut off for longer than its lease) does not
    // reopen it.
    a.begin(ActivityStart::new("act_x_1", "t", args(json!({})), true));
    a.flush().await;
    let r = a.get("act_x_1").await.expect("kept");
    assert_eq!(r.status, ActivityStatus::Failure);
    assert_eq!(r.error.as_deref(), Some("closed"));
}

#[tokio::test]
async fn pages_of_the_newest_records_read_only_the_page() {
    let Some(db) = database("pages_of_the_newest_records").await else {
        return;
    };
    let (_s, pg) = replica(db.url(), small()).await;
    let memory = InMemoryActivityStore::new();
    for i in 0..7 {
        let start = || ActivityStart::new(format!("act_p_{i}"), "t", args(json!({"i": i})), true);
        pg.begin(start());
        memory.begin(start());
    }
    let ids = |page: &tool_core::ActivityPage| -> Vec<String> {
        page.records.iter().map(|r| r.id.clone()).collect()
    };
    for store in [&pg as &dyn ActivityStore, &memory] {
        let first = store.newest(None, 0, 3).await.expect("a page");
        assert_eq!(ids(&first), ["act_p_6", "act_p_5", "act_p_4"]);
        assert_eq!((first.offset, first.total), (0, 7));
        let next = store.newest(Some("act_p_4"), 0, 3).await.expect("a page");
        assert_eq!(ids(&next), ["act_p_3", "act_p_2", "act_p_1"]);
        assert_eq!((next.offset, next.total), (3, 7));
        let by_offset = store.newest(None, 6, 3).await.expect("a page");
        assert_eq!(ids(&by_offset), ["act_p_0"]);
        assert!(store.newest(Some("act_gone"), 0, 3).await.is_none());
    }
}
