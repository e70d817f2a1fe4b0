//! Point 7: the event stream: subscribe to one type or all, unsubscribe by handle or drop, a
//! slow subscriber never blocks a tool, chunk and progress events from a tool.

use std::time::Duration;

use serde_json::json;
use tool_core::{DEFAULT_SUBSCRIPTION_CAPACITY, EventFilter};
use tool_core::{Event, EventData, EventKind, EventStream, Runtime};

use crate::support::*;

fn ev(kind: EventKind, id: &str) -> Event {
    Event::new(kind, id, "t", EventData::Chunk { text: id.into() })
}

#[tokio::test]
async fn subscribe_to_one_kind_or_to_all() {
    let stream = EventStream::new();
    let mut starts = stream.subscribe(EventKind::ToolCallStart).unwrap();
    let mut all = stream.subscribe(EventFilter::All).unwrap();
    assert_eq!(stream.subscriber_count(), 2);
    stream.emit(ev(EventKind::ToolCallStart, "1"));
    stream.emit(ev(EventKind::ToolOutputChunk, "2"));
    stream.emit(ev(EventKind::ToolCallEnd, "3"));
    assert_eq!(starts.try_recv().map(|e| e.call_id), Some("1".into()));
    assert_eq!(starts.try_recv(), None);
    let ids: Vec<_> = std::iter::from_fn(|| all.try_recv())
        .map(|e| e.call_id)
        .collect();
    assert_eq!(ids, vec!["1", "2", "3"]);
}

#[tokio::test]
async fn unsubscribe_by_handle_and_by_drop() {
    let stream = EventStream::new();
    let mut a = stream.subscribe(EventFilter::All).unwrap();
    let b = stream.subscribe(EventFilter::All).unwrap();
    stream.emit(ev(EventKind::Progress, "before"));
    assert!(stream.unsubscribe(a.id()));
    assert!(
        !stream.unsubscribe(a.id()),
        "unsubscribing twice says it was gone"
    );
    stream.emit(ev(EventKind::Progress, "after"));
    // What was queued before is still delivered, then the stream ends.
    assert_eq!(a.recv().await.map(|e| e.call_id), Some("before".into()));
    assert_eq!(a.recv().await, None);
    assert_eq!(stream.subscriber_count(), 1);
    drop(b);
    assert_eq!(stream.subscriber_count(), 0);
    stream.emit(ev(EventKind::Progress, "nobody"));
}

#[tokio::test]
async fn subscribe_fn_calls_back_until_unsubscribed() {
    let stream = EventStream::new();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let id = stream
        .subscribe_fn(EventKind::Error, move |e| {
            let _ = tx.send(e.call_id);
        })
        .unwrap();
    stream.emit(ev(EventKind::Error, "e1"));
    stream.emit(ev(EventKind::ToolCallEnd, "skip"));
    assert_eq!(rx.recv().await.as_deref(), Some("e1"));
    assert!(stream.unsubscribe(id));
    stream.emit(ev(EventKind::Error, "e2"));
    // The callback task ends with the subscription and drops the sender.
    assert_eq!(rx.recv().await, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_subscriber_does_not_block_tools_and_counts_its_drops() {
    let runtime = Runtime::builder(registry(|b| b.register(Add))).build();
    let slow = runtime
        .events()
        .subscribe_with_capacity(EventFilter::All, 1)
        .unwrap();
    let mut fast = runtime.events().subscribe(EventFilter::All).unwrap();
    let session = runtime.session();
    let work = async {
        for i in 0..50 {
            let out = session
                .call(call(&format!("c{i}"), "add", json!({"a": i, "b": 1})))
                .await;
            assert!(out.is_success());
        }
    };
    tokio::time::timeout(Duration::from_secs(10), work)
        .await
        .expect("a subscriber that never reads does not block the calls");
    // Two events per call: the first went into the queue, the other 99 were dropped.
    assert_eq!(slow.dropped(), 99);
    let mut n = 0;
    while fast.try_recv().is_some() {
        n += 1;
    }
    assert_eq!(n, 100);
    assert_eq!(fast.dropped(), 0);
    assert_eq!(DEFAULT_SUBSCRIPTION_CAPACITY, 4096);
}

#[tokio::test]
async fn a_tool_streams_chunks_and_progress_between_start_and_end() {
    let waiter = Waiter::default();
    let runtime = Runtime::builder(registry(|b| b.register(waiter.clone()))).build();
    let mut all = runtime.events().subscribe(EventFilter::All).unwrap();
    let mut chunks = runtime
        .events()
        .subscribe(EventKind::ToolOutputChunk)
        .unwrap();
    let session = runtime.session();
    let running = {
        let s = session.clone();
        tokio::spawn(async move { s.call(call("c1", "waiter", json!({}))).await })
    };
    waiter.started.notified().await;
    waiter.release.notify_one();
    let out = running.await.unwrap();
    let mut events: Vec<Event> = std::iter::from_fn(|| all.try_recv()).collect();
    let kinds: Vec<EventKind> = events.iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        vec![
            EventKind::ToolCallStart,
            EventKind::Progress,
            EventKind::ActivityUpdate,
            EventKind::ToolOutputChunk,
            EventKind::ToolCallEnd
        ]
    );
    // `update_data` reaches subscribers at once, as a page shows it.
    let update = events.remove(2);
    assert_eq!(
        update.data,
        EventData::Update {
            set: json!({"step": 1}).as_object().unwrap().clone(),
            deleted: vec![],
            display_message_cleared: false,
        }
    );
    // Every event names the session's conversation.
    for e in &events {
        assert_eq!(e.conversation.as_deref(), Some(&**session.conversation()));
    }
    for e in &events {
        assert_eq!(*e.call_id, *out.activity_id);
        assert_eq!(e.tool, "waiter");
        assert!(e.timestamp_ms > 0);
    }
    assert_eq!(
        events[0].data,
        EventData::Start {
            arguments: json!({})
        }
    );
    assert_eq!(
        events[1].data,
        EventData::Progress {
            message: "Waiting for release".into()
        }
    );
    assert_eq!(
        events[2].data,
        EventData::Chunk {
            text: "first chunk\n".into()
        }
    );
    assert_eq!(
        events[3].data,
        EventData::End {
            success: true,
            result: json!({"released": true}),
            status_line: None,
            preview: Some(r#"{"released":true}"#.into()),
            error: None,
        }
    );
    let chunk = chunks.try_recv().unwrap();
    assert_eq!(chunk.kind, EventKind::ToolOutputChunk);
    assert_eq!(chunks.try_recv(), None);
    // The wire form.
    assert_eq!(
        serde_json::to_value(&events[2]).unwrap(),
        json!({
            "type": "TOOL_OUTPUT_CHUNK",
            "call_id": &*out.activity_id,
            "tool": "waiter",
            "timestamp_ms": events[2].timestamp_ms,
            "data": {"kind": "chunk", "text": "first chunk\n"},
            "conversation": {"key": &events[2].conversation.as_ref().unwrap().key},
        })
    );
}

#[tokio::test]
async fn rejected_calls_pair_start_with_error() {
    let runtime = Runtime::builder(registry(|b| b.register(Add))).build();
    let mut all = runtime.events().subscribe(EventFilter::All).unwrap();
    let session = runtime.session();
    let bad = session.call(call("c1", "add", json!({"a": 1}))).await;
    let unknown = session.call(call("c2", "nope", json!({}))).await;
    let events: Vec<Event> = std::iter::from_fn(|| all.try_recv()).collect();
    let seen: Vec<(String, EventKind)> =
        events.iter().map(|e| (e.call_id.clone(), e.kind)).collect();
    assert_eq!(
        seen,
        vec![
            (bad.activity_id.to_string(), EventKind::ToolCallStart),
            (bad.activity_id.to_string(), EventKind::Error),
            (unknown.activity_id.to_string(), EventKind::ToolCallStart),
            (unknown.activity_id.to_string(), EventKind::Error),
        ]
    );
    assert_eq!(
        events[1].data,
        EventData::Error {
            error: expect_err(&bad).to_json()
        }
    );
    assert_eq!(events[3].tool, "nope");
}
