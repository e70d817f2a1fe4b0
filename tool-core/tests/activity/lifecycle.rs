//! Point 8: the activity lifecycle: a record per call going in_progress -> success/failure,
//! updated by the tool while it runs, kept in a bounded store.

use std::sync::Arc;

use serde_json::{Map, json};
use tool_core::{
    ActivityStart, ActivityStatus, ActivityStore, ActivityUpdate, Arguments, InMemoryActivityStore,
    Runtime, Tool, ToolContext, ToolError, ToolSpec,
};

use crate::support::*;

#[tokio::test]
async fn a_record_goes_from_in_progress_to_success_with_live_updates() {
    let waiter = Waiter::default();
    let store = Arc::new(InMemoryActivityStore::new());
    let runtime = Runtime::builder(registry(|b| b.register(waiter.clone())))
        .activity_store(store.clone())
        .build();
    let session = runtime.session();
    let running = {
        let s = session.clone();
        tokio::spawn(async move { s.call(call("c1", "waiter", json!({}))).await })
    };
    waiter.started.notified().await;

    // Mid-run: in progress, with the tool's message and data.
    let live = store.list().await;
    assert_eq!(live.len(), 1);
    let r = &live[0];
    assert_eq!(r.name, "waiter");
    assert_eq!(r.status, ActivityStatus::InProgress);
    assert_eq!(r.input, json!({}));
    assert_eq!(r.display_message.as_deref(), Some("Waiting for release"));
    assert_eq!(r.data, json!({"step": 1}).as_object().unwrap().clone());
    assert_eq!(r.error, None);
    assert!(r.user_facing);
    assert_eq!(r.finished_at_ms, None);
    let id = r.id.clone();

    waiter.release.notify_one();
    let out = running.await.unwrap();
    assert_eq!(*out.activity_id, *id);

    // Done: success, result merged into data, message cleared.
    let r = store.get(&id).await.unwrap();
    assert_eq!(r.status, ActivityStatus::Success);
    assert_eq!(
        r.data,
        json!({"step": 1, "released": true})
            .as_object()
            .unwrap()
            .clone()
    );
    assert_eq!(r.display_message, None);
    assert_eq!(r.error, None);
    assert!(r.finished_at_ms.is_some_and(|f| f >= r.started_at_ms));
    // The seed-002 wire form.
    let wire = serde_json::to_value(&r).unwrap();
    assert_eq!(wire["id"], id.as_str());
    assert_eq!(wire["status"], "success");
    assert!(wire.get("display_message").is_none());
    assert!(wire.get("error").is_none());
}

#[tokio::test]
async fn a_failed_call_records_its_error() {
    let session = session_of(|b| b.register(Counted::default()));
    let out = session
        .call(call("c1", "counted", json!({"key": "k", "fail": true})))
        .await;
    let r = session
        .runtime()
        .activities()
        .get(&out.activity_id)
        .await
        .unwrap();
    assert_eq!(r.status, ActivityStatus::Failure);
    assert_eq!(
        r.error.as_deref(),
        Some(r#"counted(key="k", fail=true): asked to fail for k"#)
    );
    assert_eq!(r.input, json!({"key": "k", "fail": true}));
    assert!(r.data.is_empty());
    assert_eq!(serde_json::to_value(&r).unwrap()["status"], "failure");

    // A rejected call gets a failed record too.
    let out = session
        .call(call("c2", "counted", json!({"kee": "k"})))
        .await;
    let r = session
        .runtime()
        .activities()
        .get(&out.activity_id)
        .await
        .unwrap();
    assert_eq!(r.status, ActivityStatus::Failure);
    assert_eq!(r.name, "counted");
    assert_eq!(r.input, json!({"kee": "k"}));
    assert_eq!(
        r.error.as_deref(),
        Some(expect_err(&out).full_message().as_str())
    );
}

/// A tool the UI does not show.
struct Hidden;

impl Tool for Hidden {
    type Input = tool_core::NoArgs;
    type Output = serde_json::Value;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("hidden", "Internal.").user_facing(false)
    }
    async fn call(
        &self,
        _: &ToolContext,
        _: tool_core::NoArgs,
    ) -> Result<serde_json::Value, ToolError> {
        Ok(json!(42))
    }
}

#[tokio::test]
async fn user_facing_is_carried_and_scalar_results_land_in_data() {
    let session = session_of(|b| b.register(Hidden).register(Add));
    let out = session.call(call("c1", "hidden", json!({}))).await;
    let r = session
        .runtime()
        .activities()
        .get(&out.activity_id)
        .await
        .unwrap();
    assert!(!r.user_facing);
    assert_eq!(r.data, json!({"result": 42}).as_object().unwrap().clone());
    let out = session
        .call(call("c2", "add", json!({"a": 1, "b": 1})))
        .await;
    let r = session
        .runtime()
        .activities()
        .get(&out.activity_id)
        .await
        .unwrap();
    assert!(r.user_facing);
}

fn start(id: &str) -> ActivityStart {
    ActivityStart::new(id, "t", Arc::new(Arguments::Text("{}".into())), true)
}

fn finish() -> ActivityUpdate {
    ActivityUpdate::Finish {
        status: ActivityStatus::Success,
        data: None,
        error: None,
    }
}

async fn ids(store: &InMemoryActivityStore) -> Vec<String> {
    store.list().await.into_iter().map(|r| r.id).collect()
}

#[tokio::test]
async fn the_in_memory_store_evicts_the_oldest_finished_first() {
    let store = InMemoryActivityStore::with_capacity(3);
    store.begin(start("a"));
    store.begin(start("b"));
    store.begin(start("c"));
    store.update("b", finish());
    store.update("c", finish());
    // Full: "a" is oldest but running; "b" is the oldest finished.
    store.begin(start("d"));
    assert_eq!(ids(&store).await, vec!["a", "c", "d"]);
    store.begin(start("e"));
    assert_eq!(ids(&store).await, vec!["a", "d", "e"]);
    // Nothing finished: the oldest of all goes.
    store.begin(start("f"));
    assert_eq!(ids(&store).await, vec!["d", "e", "f"]);
    assert!(store.get("a").await.is_none());
    // Re-creating a record that is already there does not evict another.
    store.begin(start("e"));
    assert_eq!(ids(&store).await, vec!["d", "e", "f"]);
    // Capacity at least 1.
    let one = InMemoryActivityStore::with_capacity(0);
    one.begin(start("x"));
    one.begin(start("y"));
    assert_eq!(ids(&one).await, vec!["y"]);
}

#[tokio::test]
async fn updates_apply_in_progress_only() {
    let store = InMemoryActivityStore::new();
    store.begin(start("a"));
    let mut m = Map::new();
    m.insert("x".into(), json!(1));
    m.insert("y".into(), json!(2));
    store.update("a", ActivityUpdate::MergeData(m));
    store.update("a", ActivityUpdate::DeleteData(vec!["y".into()]));
    store.update("a", ActivityUpdate::DisplayMessage(Some("busy".into())));
    let r = store.get("a").await.unwrap();
    assert_eq!(r.data, json!({"x": 1}).as_object().unwrap().clone());
    assert_eq!(r.display_message.as_deref(), Some("busy"));
    store.update(
        "a",
        ActivityUpdate::Finish {
            status: ActivityStatus::Failure,
            data: None,
            error: Some("bad".into()),
        },
    );
    store.update("a", ActivityUpdate::DisplayMessage(Some("late".into())));
    let r = store.get("a").await.unwrap();
    assert_eq!(r.status, ActivityStatus::Failure);
    assert_eq!(r.display_message, None);
    assert_eq!(r.error.as_deref(), Some("bad"));
    store.update("missing", finish());
    assert!(store.get("missing").await.is_none());
    assert!(ActivityStatus::Success.is_terminal());
    assert!(ActivityStatus::Failure.is_terminal());
    assert!(!ActivityStatus::InProgress.is_terminal());
}

#[tokio::test]
async fn runtimes_sharing_a_store_do_not_overwrite_each_others_records() {
    let store = Arc::new(InMemoryActivityStore::new());
    let a = Runtime::builder(registry(|b| b.register(Add)))
        .activity_store(store.clone())
        .build();
    let b = Runtime::builder(registry(|b| b.register(Add)))
        .activity_store(store.clone())
        .build();
    let x = a
        .session()
        .call(call("1", "add", json!({"a": 1, "b": 1})))
        .await;
    let y = b
        .session()
        .call(call("1", "add", json!({"a": 2, "b": 2})))
        .await;
    assert_ne!(x.activity_id, y.activity_id);
    assert_eq!(store.get(&x.activity_id).await.unwrap().data["sum"], 2);
    assert_eq!(store.get(&y.activity_id).await.unwrap().data["sum"], 4);
}
