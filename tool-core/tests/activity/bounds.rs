//! What a record keeps is bounded in bytes, whatever a caller sends: arguments and results
//! past their limits are kept as a marker that says how large they were and how they began, a
//! failed call keeps a summary of its arguments, the START event carries the same bounded
//! arguments, and the in-memory store stays within its budget, the oldest finished records
//! going first.

use std::sync::Arc;

use serde_json::{Value, json};
use tool_core::EventFilter;
use tool_core::{
    ActivityStart, ActivityStatus, ActivityStore, Arguments, EventData, EventKind,
    InMemoryActivityStore, Runtime, Session,
};
use tool_core::{MAX_FAILED_INPUT_BYTES, MAX_RECORD_INPUT_BYTES, MAX_RECORD_RESULT_BYTES};

use crate::support::*;

fn runtime_with(store: Arc<InMemoryActivityStore>) -> Runtime {
    Runtime::builder(registry(|b| b.register(Add).register(Echo)))
        .activity_store(store)
        .build()
}

fn session_with(store: Arc<InMemoryActivityStore>) -> Session {
    runtime_with(store).session()
}

fn text_of(v: &Value) -> &str {
    v.as_str()
        .unwrap_or_else(|| panic!("a marker string, got {v}"))
}

#[tokio::test]
async fn large_arguments_are_kept_as_a_marker_that_shows_how_they_began() {
    let store = Arc::new(InMemoryActivityStore::new());
    let session = session_with(store.clone());
    let big = "é".repeat(MAX_RECORD_INPUT_BYTES);
    // As text (OpenAI's form) and as a tree (MCP's, Anthropic's).
    let as_text = format!(r#"{{"text": "{big}"}}"#);
    let a = session.call(call_text("t", "echo", &as_text)).await;
    let b = session
        .call(call("v", "echo", json!({ "text": big })))
        .await;
    assert!(a.result.is_ok() && b.result.is_ok());
    let records = store.list().await;
    let input = text_of(&records[0].input);
    assert!(
        input.starts_with(&format!(
            "({} bytes of arguments, more than a record keeps ({MAX_RECORD_INPUT_BYTES} bytes); cut. It began: {{\"text\": \"éé",
            as_text.len()
        )),
        "{}",
        &input[..200]
    );
    assert!(input.len() < 1024, "{}", input.len());
    let input = text_of(&records[1].input);
    assert!(
        input.starts_with("(arguments over 65536 bytes") && input.contains("{\"text\":\"éé"),
        "{}",
        &input[..200]
    );
    // Small arguments are kept whole.
    session
        .call(call("s", "add", json!({"a": 1, "b": 2})))
        .await;
    let last = store.list().await.pop().unwrap();
    assert_eq!(last.input, json!({"a": 1, "b": 2}));
}

#[tokio::test]
async fn a_large_result_is_kept_as_a_marker_and_the_caller_gets_it_whole() {
    let store = Arc::new(InMemoryActivityStore::new());
    let session = session_with(store.clone());
    // Under the arguments' limit as text, over the result's limit as the echo's JSON.
    let text = "x".repeat(MAX_RECORD_INPUT_BYTES - 100);
    let mut twice = text.clone();
    twice.push_str(&text);
    let outcome = session
        .call(call("1", "echo", json!({ "text": twice })))
        .await;
    let output = outcome.result.as_ref().expect("echoed");
    assert_eq!(
        output.to_value().unwrap()["text"].as_str().unwrap().len(),
        twice.len()
    );
    let record = store.list().await.pop().unwrap();
    assert_eq!(record.status, ActivityStatus::Success);
    let marker = text_of(&record.data["result_truncated"]);
    assert!(
        marker.starts_with(&format!(
            "(result over {MAX_RECORD_RESULT_BYTES} bytes, more than a record keeps"
        )) && marker.contains("{\"type\":\"echoed\",\"text\":\"xxx"),
        "{}",
        &marker[..200]
    );
    assert!(!record.data.contains_key("text"));
    assert!(store.bytes() < 8 * 1024, "{}", store.bytes());
}

#[tokio::test]
async fn a_refused_call_keeps_a_summary_of_its_arguments() {
    let store = Arc::new(InMemoryActivityStore::new());
    let session = session_with(store.clone());
    let extra = "y".repeat(10_000);
    // A validation error, an unknown tool, each with an extra field of 10 kB.
    session
        .call(call(
            "1",
            "add",
            json!({"a": 1, "b": "two", "extra": extra}),
        ))
        .await;
    session
        .call(call_text(
            "2",
            "nope",
            &format!(r#"{{"extra": "{extra}"}}"#),
        ))
        .await;
    for record in store.list().await {
        assert_eq!(record.status, ActivityStatus::Failure);
        let input = text_of(&record.input);
        assert!(
            input.contains(&format!(
                "more than a record keeps ({MAX_FAILED_INPUT_BYTES} bytes)"
            )),
            "{input}"
        );
        assert!(input.len() < 1024, "{}", input.len());
    }
    // A failed call with small arguments keeps them as they came.
    session.call(call("3", "add", json!({"a": 1}))).await;
    let last = store.list().await.pop().unwrap();
    assert_eq!(last.input, json!({"a": 1}));
}

#[tokio::test]
async fn the_start_event_carries_the_bounded_arguments() {
    let store = Arc::new(InMemoryActivityStore::new());
    let runtime = runtime_with(store);
    let mut starts = runtime.events().subscribe(EventFilter::All).unwrap();
    let session = runtime.session();
    let big = "z".repeat(1 << 20);
    session
        .call(call("1", "echo", json!({ "text": big })))
        .await;
    let start = std::iter::from_fn(|| starts.try_recv())
        .find(|e| e.kind == EventKind::ToolCallStart)
        .expect("a START");
    let EventData::Start { arguments } = &start.data else {
        panic!("START data");
    };
    assert!(text_of(arguments).starts_with("(arguments over 65536 bytes"));
}

#[tokio::test]
async fn the_store_stays_within_its_budget_the_oldest_finished_going_first() {
    let budget = 1024 * 1024;
    let store = Arc::new(InMemoryActivityStore::new().with_budget(budget));
    let session = session_with(store.clone());
    // 200 calls, each with arguments just under the record's limit: 12 MB in all.
    let text = "w".repeat(MAX_RECORD_INPUT_BYTES - 1000);
    for i in 0..200 {
        let args = format!(r#"{{"text": "{i} {text}"}}"#);
        session.call(call_text(&i.to_string(), "echo", &args)).await;
        assert!(store.bytes() <= budget, "after {i}: {}", store.bytes());
    }
    let records = store.list().await;
    assert!(store.bytes() <= budget, "{}", store.bytes());
    assert!(
        (4..=16).contains(&records.len()),
        "{} records within 1 MiB",
        records.len()
    );
    // The newest are the ones kept.
    let last = text_of(&records.last().unwrap().input["text"]).to_owned();
    assert!(last.starts_with("199 "), "{}", &last[..10]);
}

#[tokio::test]
async fn text_that_grows_when_parsed_is_cut_when_the_record_is_read() {
    // 30,000 zeros: 60 kB of text, about a megabyte as a tree.
    let zeros = vec!["0"; 30_000].join(",");
    let args = format!(r#"{{"pad": [{zeros}]}}"#);
    assert!(args.len() < MAX_RECORD_INPUT_BYTES);
    let store = InMemoryActivityStore::new();
    let start = ActivityStart::new("act_1", "pad", Arc::new(Arguments::Text(args)), true);
    store.begin(start);
    let counted_before_read = store.bytes();
    let record = store.get("act_1").await.expect("kept");
    let input = text_of(&record.input);
    assert!(input.starts_with("(60010 bytes of arguments"), "{input}");
    assert!(
        store.bytes() < counted_before_read,
        "{counted_before_read} then {}",
        store.bytes()
    );
    // Read again: the same record, the same count.
    let counted = store.bytes();
    assert_eq!(store.get("act_1").await.unwrap(), record);
    assert_eq!(store.bytes(), counted);
}

#[tokio::test]
async fn a_field_updated_again_and_again_is_counted_once() {
    let store = InMemoryActivityStore::new();
    let args = Arc::new(Arguments::Text("{}".into()));
    store.begin(ActivityStart::new("act_1", "progress", args, true));
    let update = |big: bool| {
        let mut data = serde_json::Map::new();
        let value = if big {
            "b".repeat(200_000)
        } else {
            "small".into()
        };
        data.insert("progress".into(), json!(value));
        tool_core::ActivityUpdate::MergeData(data)
    };
    // A field over the limit (kept as a marker) and one under it, each replaced 50 times.
    for big in [true, false] {
        store.update("act_1", update(big));
        let once = store.bytes();
        for _ in 0..50 {
            store.update("act_1", update(big));
        }
        assert_eq!(store.bytes(), once, "big: {big}");
    }
    let record = store.get("act_1").await.unwrap();
    assert_eq!(record.data["progress"], json!("small"));
}
