//! The SQLite activity store on a real file: the same records as the in-memory store, a
//! history that survives a restart, one file shared by two stores (as two processes share
//! it), retention by count, age and size, and bad input (a file that is not a database, a
//! directory that cannot be written, a size limit too small), each a clear error at open or
//! a counted drop, never a failed call.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tool_core::{
    ActivityRecord, ActivityStatus, ActivityStore, InMemoryActivityStore, Runtime, Session,
    SessionConfig, ToolCall,
};
use tool_core::{ActivityStoreError, Conversation, SqliteActivityConfig, SqliteActivityStore};

use crate::support::*;

fn session_with(store: Arc<dyn ActivityStore>) -> Session {
    Runtime::builder(registry(|b| b.register(Add).register(Echo)))
        .activity_store(store)
        .build()
        .session()
}

fn open(path: &std::path::Path) -> SqliteActivityStore {
    SqliteActivityStore::open(path, SqliteActivityConfig::default()).expect("the store opens")
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
        "status_line": r.status_line,
        "preview": r.preview,
        "conversation": r.conversation,
    })
}

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
        call("9", "echo", json!({"text": "y".repeat(200_000)})),
    ]
}

#[tokio::test]
async fn the_sqlite_store_keeps_what_the_memory_store_keeps() {
    let dir = tempfile::tempdir().unwrap();
    let sqlite = Arc::new(open(&dir.path().join("activity.db")));
    let memory = Arc::new(InMemoryActivityStore::new());
    let conversation = Conversation::new("chat-1").client("test-client", "1.0");
    let runtime = |store: Arc<dyn ActivityStore>| {
        Runtime::builder(registry(|b| b.register(Add).register(Echo)))
            .activity_store(store)
            .build()
            .session_with(SessionConfig::default().conversation(conversation.clone()))
    };
    let (a, b) = (runtime(sqlite.clone()), runtime(memory.clone()));
    for c in calls() {
        let (x, y) = (a.call(c.clone()).await, b.call(c).await);
        assert_eq!(x.is_success(), y.is_success());
        let from_sqlite = sqlite.get(&x.activity_id).await.expect("sqlite record");
        let from_memory = memory.get(&y.activity_id).await.expect("memory record");
        assert_eq!(
            comparable(&from_sqlite),
            comparable(&from_memory),
            "call {}",
            x.call_id
        );
    }
    let records = sqlite.list().await;
    assert_eq!(records.len(), calls().len());
    let echo = &records[7];
    assert_eq!(echo.status_line.as_deref(), Some("Echoed 2 byte(s)"));
    assert_eq!(echo.preview.as_deref(), Some("ECHO: hi"));
    assert_eq!(echo.conversation.as_ref().unwrap().key, "chat-1");
    let big = &records[8];
    assert!(
        big.data.contains_key("result_truncated"),
        "{:?}",
        big.data.keys()
    );
    assert!(big.preview.as_ref().unwrap().len() <= tool_core::MAX_PREVIEW_BYTES + 3);
    assert_eq!(sqlite.stats().dropped, 0);
}

#[tokio::test]
async fn fifty_calls_survive_a_restart_with_inputs_results_and_durations() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested").join("activity.db");
    let mut ids = Vec::new();
    {
        let store = Arc::new(open(&path));
        let session = session_with(store.clone());
        for i in 0..50 {
            let out = session
                .call(call(&i.to_string(), "add", json!({"a": i, "b": 1})))
                .await;
            assert!(out.is_success());
            ids.push(out.activity_id.to_string());
        }
        // Dropping the last handle writes what is queued.
    }
    let store = open(&path);
    let records = store.list().await;
    assert_eq!(records.len(), 50);
    for (i, (record, id)) in records.iter().zip(&ids).enumerate() {
        assert_eq!(&record.id, id);
        assert_eq!(record.status, ActivityStatus::Success);
        assert_eq!(record.input, json!({"a": i, "b": 1}));
        assert_eq!(record.data["sum"], json!(i + 1));
        assert!(record.duration_ms().is_some(), "{record:?}");
    }
}

#[tokio::test]
async fn two_stores_on_one_file_share_one_history() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("activity.db");
    let (one, two) = (Arc::new(open(&path)), Arc::new(open(&path)));
    let (a, b) = (session_with(one.clone()), session_with(two.clone()));
    let mut tasks = Vec::new();
    for i in 0..20 {
        let (a, b) = (a.clone(), b.clone());
        tasks.push(tokio::spawn(async move {
            a.call(call("a", "add", json!({"a": i, "b": 0}))).await;
            b.call(call("b", "echo", json!({"text": format!("t{i}")})))
                .await;
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    one.flush().await;
    two.flush().await;
    for store in [&one, &two] {
        let records = store.list().await;
        assert_eq!(records.len(), 40);
        let keys: std::collections::BTreeSet<_> = records
            .iter()
            .map(|r| r.conversation.as_ref().unwrap().key.clone())
            .collect();
        assert_eq!(keys.len(), 2, "one conversation per session");
    }
    // What one store wrote, the other follows.
    let (all, cursor) = two.changed_since(0).await;
    assert_eq!(all.len(), 40);
    a.call(call("c", "add", json!({"a": 1, "b": 2}))).await;
    one.flush().await;
    let (new, _) = two.changed_since(cursor).await;
    assert_eq!(new.len(), 1);
    assert_eq!(new[0].data["sum"], 3);
}

#[tokio::test]
async fn retention_keeps_the_newest_records_by_count_and_age() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(
        SqliteActivityStore::open(
            dir.path().join("a.db"),
            SqliteActivityConfig::default().max_records(10),
        )
        .unwrap(),
    );
    let session = session_with(store.clone());
    for i in 0..25 {
        session
            .call(call("x", "add", json!({"a": i, "b": 0})))
            .await;
        // Retention runs at most once a second; the last write runs it for the rest.
        if i == 12 {
            tokio::time::sleep(Duration::from_millis(1100)).await;
        }
    }
    tokio::time::sleep(Duration::from_millis(1100)).await;
    session
        .call(call("x", "add", json!({"a": 100, "b": 0})))
        .await;
    let records = store.list().await;
    assert_eq!(records.len(), 10);
    assert_eq!(records.last().unwrap().data["sum"], 100);
    assert_eq!(records[0].data["sum"], 16, "the oldest went first");

    let aged = Arc::new(
        SqliteActivityStore::open(
            dir.path().join("b.db"),
            SqliteActivityConfig::default().max_age(Duration::from_millis(300)),
        )
        .unwrap(),
    );
    let session = session_with(aged.clone());
    session
        .call(call("old", "add", json!({"a": 1, "b": 0})))
        .await;
    tokio::time::sleep(Duration::from_millis(1200)).await;
    session
        .call(call("new", "add", json!({"a": 2, "b": 0})))
        .await;
    let records = aged.list().await;
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0].data["sum"], 2);
}

#[test]
fn a_file_that_is_not_a_database_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("activity.db");
    std::fs::write(&path, "these are my notes, not a database\n".repeat(200)).unwrap();
    let err = SqliteActivityStore::open(&path, SqliteActivityConfig::default()).unwrap_err();
    assert!(
        matches!(err, ActivityStoreError::NotADatabase { .. }),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(
        text.contains("is not an SQLite database") && text.contains("move it aside"),
        "{text}"
    );
    // The file is left as it was.
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .starts_with("these are my notes")
    );
}

#[tokio::test]
async fn a_damaged_database_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("activity.db");
    {
        let store = Arc::new(open(&path));
        let session = session_with(store.clone());
        for i in 0..20 {
            session
                .call(call("x", "add", json!({"a": i, "b": 0})))
                .await;
        }
    }
    // The header and schema page stay; every page after them is overwritten.
    let mut bytes = std::fs::read(&path).unwrap();
    assert!(bytes.len() > 8192, "{}", bytes.len());
    for b in &mut bytes[4096..] {
        *b = 0xA5;
    }
    std::fs::write(&path, bytes).unwrap();
    let err = SqliteActivityStore::open(&path, SqliteActivityConfig::default()).unwrap_err();
    assert!(matches!(err, ActivityStoreError::Corrupt { .. }), "{err:?}");
    assert!(err.to_string().contains("is damaged"), "{err}");
}

#[cfg(unix)]
#[test]
fn a_directory_that_cannot_be_written_is_a_clear_error() {
    use std::os::unix::fs::PermissionsExt;
    use std::path::Path;
    let dir = tempfile::tempdir().unwrap();
    // Whoever runs the test: a directory no process may create files in (sysfs), and a
    // "directory" that is a file.
    let file = dir.path().join("plain.txt");
    std::fs::write(&file, "x").unwrap();
    let mut unwritable = vec![file.join("activity.db")];
    if Path::new("/sys/kernel").is_dir() {
        unwritable.push(Path::new("/sys/kernel/toolsmith-activity.db").to_path_buf());
    }
    for path in unwritable {
        let err = SqliteActivityStore::open(&path, SqliteActivityConfig::default()).unwrap_err();
        assert!(
            matches!(err, ActivityStoreError::Unwritable { .. }),
            "{}: {err:?}",
            path.display()
        );
        assert!(
            err.to_string().contains("cannot be created or written"),
            "{err}"
        );
    }
    // A read-only directory (root writes into it anyway).
    let locked = dir.path().join("locked");
    std::fs::create_dir(&locked).unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o555)).unwrap();
    if std::fs::write(locked.join("probe"), "x").is_ok() {
        eprintln!("skipped: this user (root?) writes into read-only directories");
        return;
    }
    for path in [
        locked.join("activity.db"),
        locked.join("sub").join("activity.db"),
    ] {
        let err = SqliteActivityStore::open(&path, SqliteActivityConfig::default()).unwrap_err();
        assert!(
            matches!(err, ActivityStoreError::Unwritable { .. }),
            "{err:?}"
        );
        assert!(
            err.to_string().contains("cannot be created or written"),
            "{err}"
        );
    }
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn a_size_limit_below_the_tables_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let err = SqliteActivityStore::open(
        dir.path().join("a.db"),
        SqliteActivityConfig::default().max_bytes(4096),
    )
    .unwrap_err();
    assert!(
        matches!(err, ActivityStoreError::TooSmall { .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("give at least"), "{err}");
}

// A full disk, simulated by a tiny size limit: records that do not fit are dropped and
// counted, the file stays under the limit, and every call still succeeds.
#[tokio::test]
async fn a_full_store_drops_and_counts_records_and_the_calls_go_on() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.db");
    let limit = 96 * 1024;
    let store = Arc::new(
        SqliteActivityStore::open(&path, SqliteActivityConfig::default().max_bytes(limit)).unwrap(),
    );
    let session = session_with(store.clone());
    let big = "z".repeat(60_000);
    for i in 0..6 {
        let out = session
            .call(call(&i.to_string(), "echo", json!({"text": big})))
            .await;
        assert!(out.is_success(), "call {i}: {:?}", out.result);
    }
    // Small records still fit, making room from the oldest.
    for i in 0..20 {
        let out = session
            .call(call("s", "add", json!({"a": i, "b": 0})))
            .await;
        assert!(out.is_success());
    }
    store.flush().await;
    let stats = store.stats();
    assert!(stats.dropped > 0, "{stats:?}");
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size <= limit, "{size} bytes, limit {limit}");
    let records = store.list().await;
    assert!(
        records
            .iter()
            .any(|r| r.data.get("sum") == Some(&json!(19))),
        "the newest small record is kept"
    );
}

#[tokio::test]
async fn pages_of_the_newest_records_match_the_memory_stores() {
    let dir = tempfile::tempdir().unwrap();
    let sqlite = open(&dir.path().join("activity.db"));
    let memory = InMemoryActivityStore::new();
    for i in 0..7 {
        let args = Arc::new(tool_core::Arguments::Value(json!({"i": i})));
        let start = || tool_core::ActivityStart::new(format!("act_p_{i}"), "t", args.clone(), true);
        sqlite.begin(start());
        memory.begin(start());
    }
    let ids = |page: &tool_core::ActivityPage| -> Vec<String> {
        page.records.iter().map(|r| r.id.clone()).collect()
    };
    for (after, offset) in [
        (None, 0),
        (Some("act_p_4"), 0),
        (None, 6),
        (None, 9),
        (Some("act_p_0"), 0),
    ] {
        let (x, y) = (
            sqlite.newest(after, offset, 3).await.expect("a page"),
            memory.newest(after, offset, 3).await.expect("a page"),
        );
        assert_eq!(ids(&x), ids(&y), "{after:?} {offset}");
        assert_eq!(
            (x.offset, x.total),
            (y.offset, y.total),
            "{after:?} {offset}"
        );
    }
    assert!(sqlite.newest(Some("act_gone"), 0, 3).await.is_none());
}
