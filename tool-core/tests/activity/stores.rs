//! The two ways a store may keep a call's activity: a store implementing only the required
//! methods gets whole records through `begin` and the default `succeed`, and the in-memory
//! store, which keeps the arguments and the output as they came and makes their JSON when a
//! record is read, answers with the very same records. A store whose writes are slow (queued
//! to a task of its own, as a database's are) does not shorten a call's deadline.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};
use tool_core::{
    ActivityRecord, ActivityStart, ActivityStatus, ActivityStore, ActivityUpdate,
    InMemoryActivityStore, Runtime, Session, ToolCall,
};

use crate::support::*;

/// A store with only the required methods, keeping records as they are handed over.
#[derive(Default)]
struct Plain {
    records: Mutex<Vec<ActivityRecord>>,
    begins: Mutex<HashMap<String, usize>>,
}

#[async_trait]
impl ActivityStore for Plain {
    fn begin(&self, start: ActivityStart) {
        let record = start.into_record();
        *self
            .begins
            .lock()
            .unwrap()
            .entry(record.id.clone())
            .or_default() += 1;
        self.records.lock().unwrap().push(record);
    }
    fn update(&self, id: &str, update: ActivityUpdate) {
        let mut records = self.records.lock().unwrap();
        if let Some(r) = records.iter_mut().find(|r| r.id == id)
            && !r.status.is_terminal()
        {
            r.apply(update);
        }
    }
    async fn get(&self, id: &str) -> Option<ActivityRecord> {
        self.records
            .lock()
            .unwrap()
            .iter()
            .find(|r| r.id == id)
            .cloned()
    }
    async fn list(&self) -> Vec<ActivityRecord> {
        self.records.lock().unwrap().clone()
    }
}

fn session_with(store: Arc<dyn ActivityStore>) -> Session {
    Runtime::builder(registry(|b| b.register(Add).register(Echo)))
        .activity_store(store)
        .build()
        .session()
}

/// The parts of a record that do not depend on the store or the clock.
fn comparable(r: &ActivityRecord) -> Value {
    json!({
        "name": r.name,
        "status": r.status,
        "input": r.input,
        "data": r.data,
        "error": r.error,
        "user_facing": r.user_facing,
        "finished": r.finished_at_ms.is_some(),
    })
}

/// Calls that end every way a record can: success with an object, failure by validation
/// with text arguments that parse, that do not, that are empty, that are over the limit,
/// an unknown tool, a tool error.
fn calls() -> Vec<ToolCall> {
    let oversize = format!(
        "{{\"a\": \"{}\"}}",
        "x".repeat(tool_core::MAX_ARGUMENTS_BYTES)
    );
    vec![
        call_text("1", "add", r#"{"a": 2, "b": 3}"#),
        call("2", "add", json!({"a": 1, "b": 1})),
        call_text("3", "add", r#"{"a": 2,"#),
        call_text("4", "add", "  "),
        call_text("5", "add", &oversize),
        call("6", "nope", json!({"x": 1})),
        call("7", "add", json!({"a": i64::MAX, "b": 1})),
        call("8", "echo", json!({"text": "hi"})),
    ]
}

#[tokio::test]
async fn both_stores_keep_the_same_records() {
    let plain = Arc::new(Plain::default());
    let memory = Arc::new(InMemoryActivityStore::new());
    let (a, b) = (session_with(plain.clone()), session_with(memory.clone()));
    for c in calls() {
        let (x, y) = (a.call(c.clone()).await, b.call(c).await);
        assert_eq!(x.is_success(), y.is_success());
        let from_plain = plain.get(&x.activity_id).await.expect("plain record");
        let from_memory = memory.get(&y.activity_id).await.expect("memory record");
        assert_eq!(
            comparable(&from_plain),
            comparable(&from_memory),
            "call {}",
            x.call_id
        );
        assert!(from_memory.status.is_terminal());
    }
    // The first call's record in full: input parsed from the text, the output in data.
    let first = &memory.list().await[0];
    assert_eq!(first.input, json!({"a": 2, "b": 3}));
    assert_eq!(first.data, *json!({"sum": 5}).as_object().unwrap());
    assert_eq!(first.status, ActivityStatus::Success);
    // Unparsable text is kept as text; empty text as `{}`; oversize text as a marker.
    let records = memory.list().await;
    assert_eq!(records[2].input, json!(r#"{"a": 2,"#));
    assert_eq!(records[3].input, json!({}));
    let note = records[4].input.as_str().unwrap_or_default();
    assert!(
        note.starts_with("(4194313 bytes of arguments, more than a record keeps")
            && note.len() < 1024,
        "{:.200}",
        records[4].input
    );
    // Every call was one `begin`.
    assert!(plain.begins.lock().unwrap().values().all(|&n| n == 1));
    assert_eq!(plain.list().await.len(), calls().len());
}

#[tokio::test]
async fn a_record_read_twice_is_the_same_and_reading_does_not_change_it() {
    let memory = Arc::new(InMemoryActivityStore::new());
    let session = session_with(memory.clone());
    let out = session
        .call(call_text("1", "add", r#"{"a": 40, "b": 2}"#))
        .await;
    let once = memory.get(&out.activity_id).await.expect("record");
    let twice = memory.get(&out.activity_id).await.expect("record");
    assert_eq!(once, twice);
    assert_eq!(memory.list().await, vec![once.clone()]);
    assert_eq!(once.data, *json!({"sum": 42}).as_object().unwrap());
    // A finished record takes no more updates, read or not.
    memory.update(
        &out.activity_id,
        ActivityUpdate::DisplayMessage(Some("late".into())),
    );
    assert_eq!(memory.get(&out.activity_id).await, Some(once));
}

/// A write to the in-memory store, as [`Queued`] hands it to its task.
enum Write {
    Begin(ActivityStart),
    Update(String, ActivityUpdate),
}

/// The in-memory store behind a queue whose task takes its time over each write (a database
/// far away): the write side returns at once, as the trait asks.
struct Queued {
    queue: tokio::sync::mpsc::UnboundedSender<Write>,
    store: Arc<InMemoryActivityStore>,
}

impl Queued {
    fn new(delay: Duration) -> Self {
        let store = Arc::new(InMemoryActivityStore::new());
        let (queue, mut writes) = tokio::sync::mpsc::unbounded_channel();
        let kept = store.clone();
        tokio::spawn(async move {
            while let Some(write) = writes.recv().await {
                tokio::time::sleep(delay).await;
                match write {
                    Write::Begin(start) => kept.begin(start),
                    Write::Update(id, update) => kept.update(&id, update),
                }
            }
        });
        Queued { queue, store }
    }
}

#[async_trait]
impl ActivityStore for Queued {
    fn begin(&self, start: ActivityStart) {
        let _ = self.queue.send(Write::Begin(start));
    }
    fn update(&self, id: &str, update: ActivityUpdate) {
        let _ = self.queue.send(Write::Update(id.to_owned(), update));
    }
    async fn get(&self, id: &str) -> Option<ActivityRecord> {
        self.store.get(id).await
    }
    async fn list(&self) -> Vec<ActivityRecord> {
        self.store.list().await
    }
}

// The store's write side never waits, so a store slow to write does not eat into the tool's
// time; its records land when its queue gets to them.
#[tokio::test]
async fn a_store_slow_to_write_does_not_shorten_the_deadline() {
    let sleepy = Sleepy {
        timeout: Some(Duration::from_millis(1500)),
        ..Sleepy::default()
    };
    let store = Arc::new(Queued::new(Duration::from_millis(1000)));
    let session = Runtime::builder(registry(|b| b.register(sleepy.clone())))
        .activity_store(store.clone())
        .build()
        .session();
    let out = session
        .call(ToolCall::new("c1", "sleepy", json!({"ms": 800})))
        .await;
    assert_eq!(out.to_json(), json!({"slept_ms": 800}));
    let record = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match store.get(&out.activity_id).await {
                Some(r) if r.status.is_terminal() => return r,
                _ => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        }
    })
    .await
    .expect("the queued writes land");
    assert_eq!(record.status, ActivityStatus::Success);
    assert_eq!(record.data["slept_ms"], 800);
}
