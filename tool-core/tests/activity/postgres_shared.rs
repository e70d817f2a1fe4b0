//! The Postgres store under trouble and limits: the server stopped under load, retention,
//! a newer schema refused, URLs and servers that do not answer, and the trust state replicas
//! share (the rate window, used approvals).

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tool_core::postgres::{PostgresActivityConfig, PostgresConfig, PostgresError, PostgresStore};
use tool_core::testing::postgres::TestCluster;
use tool_core::{ActivityStore, RateDecision, Runtime};

use super::postgres::{database, replica, small};
use crate::support::*;

#[tokio::test]
async fn calls_go_on_while_the_server_is_stopped_and_their_records_catch_up() {
    let test = "calls_go_on_while_the_server_is_stopped";
    // A cluster of its own, to stop.
    let mut cluster = match TestCluster::start() {
        Ok(c) => c,
        Err(why) => return eprintln!("skipping {test}: {why}"),
    };
    let url = cluster.url("postgres");
    let store = PostgresStore::connect(
        &url,
        PostgresConfig::default()
            .pool_size(4)
            .connect_timeout(Duration::from_millis(500)),
    )
    .await
    .expect("connects");
    let activity = store.activity(PostgresActivityConfig::default());
    let session = Runtime::builder(registry(|b| b.register(Add)))
        .activity_store(Arc::new(activity.clone()))
        .build()
        .session();
    let mut ids = Vec::new();
    let mut n = 0;
    let mut run = |count: usize| {
        let session = session.clone();
        let start = n;
        n += count;
        async move {
            let mut ids = Vec::new();
            for i in start..start + count {
                let out = session
                    .call(call(&i.to_string(), "add", json!({"a": i, "b": 1})))
                    .await;
                assert!(out.is_success(), "call {i} failed: {out:?}");
                ids.push(out.activity_id);
            }
            ids
        }
    };
    ids.extend(run(50).await);
    activity.flush().await;
    cluster.stop().expect("the server stops");
    // Ten seconds of calls with the server away: every one succeeds, promptly.
    let away = std::time::Instant::now();
    while away.elapsed() < Duration::from_secs(10) {
        let began = std::time::Instant::now();
        ids.extend(run(20).await);
        assert!(
            began.elapsed() < Duration::from_secs(2),
            "20 calls took {:?} with the database away",
            began.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(activity.stats().outages >= 1, "{:?}", activity.stats());
    assert!(activity.stats().held > 0, "{:?}", activity.stats());
    cluster.start_again().expect("the server starts again");
    // Caught up: every call's record is there and finished.
    let caught_up = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            activity.flush().await;
            if activity.stats().held == 0 {
                let kept = activity.recent(10_000).await.unwrap_or_default();
                if kept.len() == ids.len() && kept.iter().all(|r| r.status.is_terminal()) {
                    return kept;
                }
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    })
    .await
    .expect("caught up within 30 s of the server's return");
    assert_eq!(caught_up.len(), ids.len());
    assert_eq!(activity.stats().dropped, 0, "{:?}", activity.stats());
}

#[tokio::test]
async fn retention_keeps_the_newest_records() {
    let Some(db) = database("retention_keeps_the_newest_records").await else {
        return;
    };
    let store = PostgresStore::connect(db.url(), small())
        .await
        .expect("connects");
    let activity = store.activity(PostgresActivityConfig::default().max_records(5));
    let session = Runtime::builder(registry(|b| b.register(Add)))
        .activity_store(Arc::new(activity.clone()))
        .build()
        .session();
    let mut last = None;
    for i in 0..30 {
        let out = session
            .call(call(&i.to_string(), "add", json!({"a": i, "b": 1})))
            .await;
        last = Some(out.activity_id);
    }
    activity.flush().await;
    // Retention runs at most every 5 seconds: the next write after that trims the table.
    tokio::time::sleep(Duration::from_millis(5200)).await;
    session
        .call(call("x", "add", json!({"a": 0, "b": 0})))
        .await;
    activity.flush().await;
    let kept = activity.list().await;
    assert!(kept.len() <= 6, "{} kept", kept.len());
    assert!(kept.iter().any(|r| Some(r.id.as_str()) == last.as_deref()));
    assert!(activity.stats().evicted >= 24, "{:?}", activity.stats());
}

#[tokio::test]
async fn a_database_from_a_newer_version_is_refused() {
    let Some(db) = database("a_database_from_a_newer_version_is_refused").await else {
        return;
    };
    let store = PostgresStore::connect(db.url(), small())
        .await
        .expect("connects");
    // A second start applies nothing and agrees.
    assert_eq!(
        store
            .migrate("tool-core-test", &["SELECT 1"])
            .await
            .unwrap(),
        1
    );
    assert_eq!(
        store
            .migrate("tool-core-test", &["SELECT 1"])
            .await
            .unwrap(),
        1
    );
    let client = store.client().await.expect("client");
    client
        .execute(
            "UPDATE toolsmith_schema SET version = 99 WHERE component = 'tool-core'",
            &[],
        )
        .await
        .expect("update");
    let err = PostgresStore::connect(db.url(), small()).await.unwrap_err();
    assert!(
        matches!(err, PostgresError::NewerSchema { found: 99, .. }),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(
        text.contains("newer toolsmith") && text.contains("upgrade"),
        "{text}"
    );
}

#[tokio::test]
async fn urls_and_servers_that_do_not_answer_say_what_to_do() {
    let err = PostgresStore::connect("mysql://x@y/z", small())
        .await
        .unwrap_err();
    assert!(matches!(err, PostgresError::BadUrl { .. }), "{err:?}");
    assert!(
        err.to_string().contains("postgres://USER:PASSWORD@HOST"),
        "{err}"
    );
    let err = PostgresStore::connect("postgres://u@127.0.0.1/db?sslmode=require", small())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("sslmode=require"), "{err}");
    // A loopback port nothing listens on.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let url = format!("postgres://toolsmith:s3cret@127.0.0.1:{port}/toolsmith");
    let err = PostgresStore::connect(&url, small()).await.unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, PostgresError::Unreachable { .. }), "{err:?}");
    assert!(
        text.contains(&format!("127.0.0.1:{port}/toolsmith")),
        "{text}"
    );
    assert!(!text.contains("s3cret"), "the password leaks: {text}");
}

#[tokio::test]
async fn the_rate_window_and_used_approvals_hold_across_replicas() {
    let Some(db) = database("the_rate_window_and_used_approvals_hold_across_replicas").await else {
        return;
    };
    let (a, _) = replica(db.url(), small()).await;
    let (b, _) = replica(db.url(), small()).await;
    let window = Duration::from_secs(60);
    let mut allowed = 0;
    for i in 0..10 {
        let store = if i % 2 == 0 { &a } else { &b };
        assert_eq!(
            store.take_window("web.search", 10, window).await.unwrap(),
            RateDecision::Allowed
        );
        allowed += 1;
    }
    assert_eq!(allowed, 10);
    for store in [&a, &b] {
        match store.take_window("web.search", 10, window).await.unwrap() {
            RateDecision::Refused { retry_in } => {
                assert!(
                    retry_in <= window && retry_in > Duration::from_secs(50),
                    "{retry_in:?}"
                )
            }
            other => panic!("the 11th search was {other:?}"),
        }
    }
    // Another key counts apart; a short window empties.
    assert_eq!(
        a.take_window("other", 1, Duration::from_millis(200))
            .await
            .unwrap(),
        RateDecision::Allowed
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        b.take_window("other", 1, Duration::from_millis(200))
            .await
            .unwrap(),
        RateDecision::Allowed
    );
    // An approval state used through one replica is refused through the other.
    let expires = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 600;
    assert!(a.use_approval("00ff", expires).await.unwrap());
    assert!(!b.use_approval("00ff", expires).await.unwrap());
    assert!(!a.use_approval("00ff", expires).await.unwrap());
    assert!(b.use_approval("00fe", expires).await.unwrap());
}
