//! The feed's unit tests: ring limits, slow readers, resumption and records from elsewhere.

use super::*;
use crate::events::{EventData, EventKind};

fn chunk(i: usize) -> Event {
    Event::new(
        EventKind::ToolOutputChunk,
        "act_1",
        "t",
        EventData::Chunk {
            text: format!("line {i}"),
        },
    )
}

fn small() -> ActivityConfig {
    ActivityConfig::default().buffer_events(16)
}

#[test]
fn a_reader_that_falls_behind_is_dropped_and_can_resume_with_a_reset() {
    let feed = ActivityFeed::detached(None, small());
    let mut slow = feed.subscribe(None);
    for i in 0..40 {
        feed.push(&chunk(i));
    }
    match slow.try_next() {
        Some(FeedMessage::Dropped { missed, .. }) => assert_eq!(missed, 24),
        other => panic!("expected Dropped, got {other:?}"),
    }
    assert!(slow.try_next().is_none());
    let mut again = feed.subscribe(Some(&format!("{}.3", feed.epoch())));
    assert!(matches!(again.try_next(), Some(FeedMessage::Reset { .. })));
    match again.try_next() {
        Some(FeedMessage::Event(e)) => assert_eq!(e.seq, 25),
        other => panic!("expected the oldest event, got {other:?}"),
    }
}

#[test]
fn ids_from_elsewhere_reset() {
    let feed = ActivityFeed::detached(None, small());
    feed.push(&chunk(0));
    for bad in ["nonsense", "ffff.1", &format!("{}.99", feed.epoch())] {
        let mut s = feed.subscribe(Some(bad));
        assert!(
            matches!(s.try_next(), Some(FeedMessage::Reset { .. })),
            "{bad}"
        );
    }
    let mut ok = feed.subscribe(Some(&format!("{}.1", feed.epoch())));
    assert!(ok.try_next().is_none());
}

#[test]
fn long_payloads_are_cut_with_a_pointer_to_the_record() {
    let feed = ActivityFeed::detached(None, ActivityConfig::default());
    let big = Event::new(
        EventKind::ToolCallEnd,
        "act_9",
        "t",
        EventData::End {
            success: true,
            result: json!({"text": "x".repeat(200_000)}),
            status_line: None,
            preview: None,
            error: None,
        },
    );
    feed.push(&big);
    let Some(FeedMessage::Event(e)) = feed.subscribe(None).try_next() else {
        panic!("no event");
    };
    assert!(
        e.json.len() <= feed.config().max_event_bytes,
        "{}",
        e.json.len()
    );
    assert!(e.json.contains("activity/records?id=act_9"));
    let v: Value = serde_json::from_str(&e.json).unwrap();
    assert_eq!(v["data"]["result"]["truncated"], true);
}

#[test]
fn a_record_from_elsewhere_is_an_event_with_the_record() {
    let feed = ActivityFeed::detached(None, ActivityConfig::default());
    let mut record = ActivityRecord::new("act_r_1", "t", json!({"a": 1}), true);
    record.status = crate::activity::ActivityStatus::Success;
    feed.push_record(&record);
    record.id = "act_r_2".into();
    record.data.insert("big".into(), json!("x".repeat(200_000)));
    feed.push_record(&record);
    let mut sub = feed.subscribe(None);
    for (id, cut) in [("act_r_1", false), ("act_r_2", true)] {
        let Some(FeedMessage::Event(e)) = sub.try_next() else {
            panic!("no event");
        };
        assert!(e.json.len() <= feed.config().max_event_bytes);
        let v: Value = serde_json::from_str(&e.json).unwrap();
        assert_eq!(v["type"], "ACTIVITY_RECORD");
        assert_eq!(v["record"]["id"], id);
        assert_eq!(v["record"]["status"], "success");
        assert_eq!(v["record"]["toolsets"], json!([]));
        assert_eq!(v["record"]["data"]["truncated"] == true, cut, "{v}");
    }
}
