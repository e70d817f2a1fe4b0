//! Behaviour of the agent stores.
//!
//! The behaviour tests are written once, against `&dyn AgentStore`, and run against both the
//! memory store and a real SQLite file in a temporary directory. The SQLite-only tests cover
//! what memory cannot show: the file and schema, persistence across reopen, and concurrent
//! writers on separate connections and in separate processes.

use std::sync::Arc;

use tempfile::TempDir;
use tool_std::prompt::{
    AgentStore, MAX_MEMORY_REFLECTION_PROMPT_CHARS, MAX_NAME_CHARS, MAX_REFLECTION_PROMPT_CHARS,
    MAX_SYSTEM_PROMPT_CHARS, MemoryAgentStore, NewAgent, PromptField, SqliteAgentStore, StoreError,
    SwapOutcome,
};

/// Behaviours every store must show, written against the trait only.
mod behaviour {
    use super::*;

    pub(crate) async fn create_then_get_by_id_and_by_name(store: &dyn AgentStore) {
        let created = store
            .create(
                NewAgent::new("default", "Sage")
                    .with_system_prompt("You are Sage.")
                    .with_reflection_prompt("Summarise.")
                    .with_memory_reflection_prompt("Remember.")
                    .with_enabled_tools(["prompt_manager", "web"]),
            )
            .await
            .unwrap();
        assert_eq!(created.account, "default");
        assert_eq!(created.name, "Sage");
        assert_eq!(created.system_prompt.as_deref(), Some("You are Sage."));
        assert_eq!(created.reflection_prompt.as_deref(), Some("Summarise."));
        assert_eq!(
            created.memory_reflection_prompt.as_deref(),
            Some("Remember.")
        );
        assert_eq!(created.enabled_tools, ["prompt_manager", "web"]);

        assert_eq!(
            store.get_by_id(created.id).await.unwrap(),
            Some(created.clone())
        );
        assert_eq!(
            store.get_by_name("default", "Sage").await.unwrap(),
            Some(created.clone())
        );
        assert_eq!(store.get_by_name("other", "Sage").await.unwrap(), None);
        assert_eq!(store.get_by_id(created.id + 1000).await.unwrap(), None);
    }

    pub(crate) async fn names_are_unique_per_account(store: &dyn AgentStore) {
        store
            .create(NewAgent::new("default", "Sage"))
            .await
            .unwrap();
        let err = store
            .create(NewAgent::new("default", "Sage"))
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::NameTaken { .. }), "{err:?}");
        assert!(err.is_user_error());
        assert_eq!(
            err.to_string(),
            "name 'Sage' is already taken in account 'default'; choose another name"
        );
        // The same name in another account, and another case, are different names.
        store.create(NewAgent::new("other", "Sage")).await.unwrap();
        store
            .create(NewAgent::new("default", "sage"))
            .await
            .unwrap();
        assert_eq!(store.list().await.unwrap().len(), 3);
    }

    pub(crate) async fn renaming_respects_uniqueness(store: &dyn AgentStore) {
        let sage = store
            .create(NewAgent::new("default", "Sage"))
            .await
            .unwrap();
        let oracle = store
            .create(NewAgent::new("default", "Oracle"))
            .await
            .unwrap();
        store.create(NewAgent::new("other", "Seer")).await.unwrap();

        let err = store
            .update_field(oracle.id, PromptField::Name, "Sage")
            .await
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "name 'Sage' is already taken in account 'default'; choose another name"
        );
        assert_eq!(
            store.get_by_id(oracle.id).await.unwrap().unwrap().name,
            "Oracle"
        );

        // Renaming to its own name, or to a name only used in another account, is fine.
        store
            .update_field(sage.id, PromptField::Name, "Sage")
            .await
            .unwrap();
        let seer = store
            .update_field(oracle.id, PromptField::Name, "Seer")
            .await
            .unwrap();
        assert_eq!(seer.name, "Seer");
        assert_eq!(store.get_by_name("default", "Oracle").await.unwrap(), None);
        assert_eq!(
            store.get_by_name("default", "Seer").await.unwrap(),
            Some(seer)
        );
    }

    pub(crate) async fn every_field_updates_its_own_column(store: &dyn AgentStore) {
        let agent = store
            .create(NewAgent::new("default", "Sage"))
            .await
            .unwrap();
        for field in PromptField::ALL {
            let value = format!("new {}", field.column());
            let updated = store.update_field(agent.id, field, &value).await.unwrap();
            assert_eq!(updated.field(field), Some(value.as_str()), "{field}");
            assert_eq!(store.get_by_id(agent.id).await.unwrap(), Some(updated));
        }
        let agent = store.get_by_id(agent.id).await.unwrap().unwrap();
        assert_eq!(agent.system_prompt.as_deref(), Some("new system_prompt"));
        assert_eq!(
            agent.reflection_prompt.as_deref(),
            Some("new reflection_prompt")
        );
        assert_eq!(
            agent.memory_reflection_prompt.as_deref(),
            Some("new memory_reflection_prompt")
        );
        assert_eq!(agent.name, "new name");
    }

    pub(crate) async fn limits_hold_at_the_boundary(store: &dyn AgentStore) {
        let agent = store
            .create(NewAgent::new("default", "Sage"))
            .await
            .unwrap();
        let cases = [
            (PromptField::SystemPrompt, MAX_SYSTEM_PROMPT_CHARS, 50_000),
            (
                PromptField::ReflectionPrompt,
                MAX_REFLECTION_PROMPT_CHARS,
                10_000,
            ),
            (
                PromptField::MemoryReflectionPrompt,
                MAX_MEMORY_REFLECTION_PROMPT_CHARS,
                10_000,
            ),
            (PromptField::Name, MAX_NAME_CHARS, 10_000),
        ];
        for (field, limit, expected) in cases {
            assert_eq!(limit, expected, "{field}");
            // Multi-byte characters: the limit counts characters, not bytes.
            let at_limit = "é".repeat(limit);
            let updated = store
                .update_field(agent.id, field, &at_limit)
                .await
                .unwrap();
            assert_eq!(updated.field(field), Some(at_limit.as_str()), "{field}");

            let err = store
                .update_field(agent.id, field, &"é".repeat(limit + 1))
                .await
                .unwrap_err();
            assert!(err.is_user_error());
            let expected_message = format!(
                "{} is too long: {} characters, the limit is {}",
                field.label(),
                group(limit + 1),
                group(limit)
            );
            assert_eq!(err.to_string(), expected_message);
            let stored = store.get_by_id(agent.id).await.unwrap().unwrap();
            assert_eq!(
                stored.field(field),
                Some(at_limit.as_str()),
                "refused, kept"
            );
        }
        let err = store
            .update_field(agent.id, PromptField::SystemPrompt, &"x".repeat(50_012))
            .await
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "system prompt is too long: 50,012 characters, the limit is 50,000"
        );
    }

    pub(crate) async fn limits_apply_on_create(store: &dyn AgentStore) {
        let ok = NewAgent::new("default", "x".repeat(MAX_NAME_CHARS))
            .with_system_prompt("s".repeat(MAX_SYSTEM_PROMPT_CHARS))
            .with_reflection_prompt("r".repeat(MAX_REFLECTION_PROMPT_CHARS))
            .with_memory_reflection_prompt("m".repeat(MAX_MEMORY_REFLECTION_PROMPT_CHARS));
        store.create(ok).await.unwrap();

        let too_long = [
            NewAgent::new("default", "a").with_system_prompt("s".repeat(50_001)),
            NewAgent::new("default", "b").with_reflection_prompt("r".repeat(10_001)),
            NewAgent::new("default", "c").with_memory_reflection_prompt("m".repeat(10_001)),
            NewAgent::new("default", "n".repeat(10_001)),
        ];
        for agent in too_long {
            let err = store.create(agent).await.unwrap_err();
            assert!(matches!(err, StoreError::TooLong { .. }), "{err:?}");
        }
        assert_eq!(store.list().await.unwrap().len(), 1);
    }

    pub(crate) async fn empty_names_are_refused(store: &dyn AgentStore) {
        let agent = store
            .create(NewAgent::new("default", "Sage"))
            .await
            .unwrap();
        for blank in ["", "   ", "\n\t"] {
            let err = store
                .create(NewAgent::new("default", blank))
                .await
                .unwrap_err();
            assert!(matches!(err, StoreError::EmptyName), "{err:?}");
            let err = store.get_or_create("default", blank).await.unwrap_err();
            assert!(matches!(err, StoreError::EmptyName), "{err:?}");
            let err = store
                .update_field(agent.id, PromptField::Name, blank)
                .await
                .unwrap_err();
            assert!(matches!(err, StoreError::EmptyName), "{err:?}");
            assert!(err.to_string().starts_with("name must not be empty"));
        }
        // Empty prompts are allowed: they are how a prompt is cleared.
        let cleared = store
            .update_field(agent.id, PromptField::SystemPrompt, "")
            .await
            .unwrap();
        assert_eq!(cleared.system_prompt.as_deref(), Some(""));
        assert_eq!(store.list().await.unwrap().len(), 1);
    }

    pub(crate) async fn unknown_ids_are_not_found(store: &dyn AgentStore) {
        let err = store
            .update_field(7, PromptField::SystemPrompt, "x")
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::NotFound { id: 7 }));
        assert_eq!(err.to_string(), "agent 7 not found");
        let err = store.set_enabled_tools(7, &[]).await.unwrap_err();
        assert!(matches!(err, StoreError::NotFound { id: 7 }));
        let err = store
            .compare_and_set_enabled_tools(7, &[], &[])
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::NotFound { id: 7 }));
        assert_eq!(store.get_by_id(-1).await.unwrap(), None);
        assert_eq!(store.get_by_id(i64::MAX).await.unwrap(), None);
    }

    pub(crate) async fn get_or_create_returns_the_same_agent(store: &dyn AgentStore) {
        let first = store.get_or_create("default", "Sage").await.unwrap();
        assert_eq!(first.system_prompt, None);
        assert!(first.enabled_tools.is_empty());
        let again = store.get_or_create("default", "Sage").await.unwrap();
        assert_eq!(first, again);
        let other = store.get_or_create("other", "Sage").await.unwrap();
        assert_ne!(first.id, other.id);
    }

    pub(crate) async fn list_orders_by_id_and_filters_by_account(store: &dyn AgentStore) {
        let a = store.create(NewAgent::new("one", "a")).await.unwrap();
        let b = store.create(NewAgent::new("two", "b")).await.unwrap();
        let c = store.create(NewAgent::new("one", "c")).await.unwrap();
        let ids: Vec<i64> = store.list().await.unwrap().iter().map(|x| x.id).collect();
        assert_eq!(ids, [a.id, b.id, c.id]);
        assert!(a.id < b.id && b.id < c.id);
        assert_eq!(store.list_account("one").await.unwrap(), [a, c]);
        assert_eq!(store.list_account("two").await.unwrap(), [b]);
        assert!(store.list_account("none").await.unwrap().is_empty());
    }

    pub(crate) async fn enabled_tools_round_trip(store: &dyn AgentStore) {
        let agent = store
            .create(NewAgent::new("default", "Sage"))
            .await
            .unwrap();
        let tools = strings(&["web", "prompt_manager", "weird \"name\" ✓", ""]);
        let updated = store.set_enabled_tools(agent.id, &tools).await.unwrap();
        assert_eq!(updated.enabled_tools, tools);
        assert_eq!(
            store
                .get_by_id(agent.id)
                .await
                .unwrap()
                .unwrap()
                .enabled_tools,
            tools
        );
        let cleared = store.set_enabled_tools(agent.id, &[]).await.unwrap();
        assert!(cleared.enabled_tools.is_empty());
    }

    pub(crate) async fn compare_and_set_refuses_stale_lists(store: &dyn AgentStore) {
        let agent = store
            .create(NewAgent::new("default", "Sage").with_enabled_tools(["a"]))
            .await
            .unwrap();
        let outcome = store
            .compare_and_set_enabled_tools(agent.id, &strings(&["stale"]), &strings(&["b"]))
            .await
            .unwrap();
        let SwapOutcome::Stale(current) = outcome else {
            panic!("expected a stale outcome, got {outcome:?}");
        };
        assert_eq!(current.enabled_tools, ["a"]);

        let outcome = store
            .compare_and_set_enabled_tools(agent.id, &strings(&["a"]), &strings(&["b"]))
            .await
            .unwrap();
        let SwapOutcome::Swapped(updated) = outcome else {
            panic!("expected a swap, got {outcome:?}");
        };
        assert_eq!(updated.enabled_tools, ["b"]);
        assert_eq!(store.get_by_id(agent.id).await.unwrap(), Some(updated));
    }

    pub(crate) async fn awkward_text_round_trips(store: &dyn AgentStore) {
        let awkward = [
            "Robert'); DROP TABLE agents;--",
            "line one\nline two\r\n\ttabbed",
            "nul \0 inside",
            "emoji 🦀 and 語",
            "%s %d {} $1 ?1",
        ];
        for (i, text) in awkward.iter().enumerate() {
            let agent = store
                .create(NewAgent::new(*text, format!("{text} {i}")).with_system_prompt(*text))
                .await
                .unwrap();
            let stored = store.get_by_name(text, &agent.name).await.unwrap().unwrap();
            assert_eq!(stored.system_prompt.as_deref(), Some(*text));
            let renamed = store
                .update_field(agent.id, PromptField::ReflectionPrompt, text)
                .await
                .unwrap();
            assert_eq!(renamed.reflection_prompt.as_deref(), Some(*text));
        }
        assert_eq!(store.list().await.unwrap().len(), awkward.len());
    }

    /// Two tasks each apply 50 read-modify-write updates to the same agent; none is lost.
    pub(crate) async fn concurrent_updates_are_all_applied(store: Arc<dyn AgentStore>) {
        let agent = store
            .create(NewAgent::new("default", "Sage"))
            .await
            .unwrap();
        let other = store
            .create(NewAgent::new("default", "Oracle"))
            .await
            .unwrap();
        let tasks: Vec<_> = ["left", "right"]
            .into_iter()
            .map(|label| {
                let store = Arc::clone(&store);
                tokio::spawn(async move {
                    for i in 0..50 {
                        append_tool(&*store, agent.id, format!("{label}-{i}")).await;
                        let field = PromptField::ALL[i % 3];
                        store
                            .update_field(other.id, field, &format!("{label} {i}"))
                            .await
                            .unwrap();
                    }
                })
            })
            .collect();
        for task in tasks {
            task.await.unwrap();
        }
        let tools = store
            .get_by_id(agent.id)
            .await
            .unwrap()
            .unwrap()
            .enabled_tools;
        assert_eq!(tools.len(), 100);
        for label in ["left", "right"] {
            let mine: Vec<_> = tools.iter().filter(|t| t.starts_with(label)).collect();
            let expected: Vec<_> = (0..50).map(|i| format!("{label}-{i}")).collect();
            assert_eq!(
                mine,
                expected.iter().collect::<Vec<_>>(),
                "in order, none lost"
            );
        }
    }

    /// Many tasks race to create the same agent; all of them get the one that won.
    pub(crate) async fn concurrent_get_or_create_agrees(store: Arc<dyn AgentStore>) {
        let tasks: Vec<_> = (0..8)
            .map(|_| {
                let store = Arc::clone(&store);
                tokio::spawn(async move { store.get_or_create("default", "Sage").await.unwrap() })
            })
            .collect();
        let mut ids = Vec::new();
        for task in tasks {
            ids.push(task.await.unwrap().id);
        }
        ids.dedup();
        assert_eq!(ids.len(), 1, "{ids:?}");
        assert_eq!(store.list().await.unwrap().len(), 1);
    }
}

/// Appends `tool` to the agent's list with a compare-and-set loop.
async fn append_tool(store: &dyn AgentStore, id: i64, tool: String) {
    let mut current = store.get_by_id(id).await.unwrap().unwrap();
    loop {
        let mut next = current.enabled_tools.clone();
        next.push(tool.clone());
        match store
            .compare_and_set_enabled_tools(id, &current.enabled_tools, &next)
            .await
            .unwrap()
        {
            SwapOutcome::Swapped(_) => return,
            SwapOutcome::Stale(latest) => current = latest,
        }
    }
}

fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// `50000` as `"50,000"`, for the expected messages.
fn group(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

async fn sqlite_store() -> (TempDir, SqliteAgentStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteAgentStore::open(dir.path().join("agents.db"))
        .await
        .unwrap();
    (dir, store)
}

/// Runs each behaviour against a fresh memory store and a fresh SQLite file.
macro_rules! both_stores {
    (borrowed: [$($name:ident),* $(,)?], shared: [$($shared:ident),* $(,)?]) => {
        mod memory {
            use super::*;
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $name() {
                    behaviour::$name(&MemoryAgentStore::new()).await;
                }
            )*
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $shared() {
                    behaviour::$shared(Arc::new(MemoryAgentStore::new())).await;
                }
            )*
        }
        mod sqlite {
            use super::*;
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $name() {
                    let (_dir, store) = sqlite_store().await;
                    behaviour::$name(&store).await;
                }
            )*
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $shared() {
                    let (_dir, store) = sqlite_store().await;
                    behaviour::$shared(Arc::new(store)).await;
                }
            )*
        }
    };
}

both_stores! {
    borrowed: [
        create_then_get_by_id_and_by_name,
        names_are_unique_per_account,
        renaming_respects_uniqueness,
        every_field_updates_its_own_column,
        limits_hold_at_the_boundary,
        limits_apply_on_create,
        empty_names_are_refused,
        unknown_ids_are_not_found,
        get_or_create_returns_the_same_agent,
        list_orders_by_id_and_filters_by_account,
        enabled_tools_round_trip,
        compare_and_set_refuses_stale_lists,
        awkward_text_round_trips,
    ],
    shared: [
        concurrent_updates_are_all_applied,
        concurrent_get_or_create_agrees,
    ]
}

/// Tests only the SQLite file can show.
mod sqlite_file {
    use super::*;
    use std::path::Path;

    fn raw(path: &Path) -> rusqlite::Connection {
        rusqlite::Connection::open(path).unwrap()
    }

    #[tokio::test]
    async fn first_open_creates_directory_file_and_schema() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested/deeper/agents.db");
        assert!(!path.exists());
        let store = SqliteAgentStore::open(&path).await.unwrap();
        assert!(path.is_file());
        assert_eq!(store.path(), path);
        assert!(store.list().await.unwrap().is_empty());

        let conn = raw(&path);
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .unwrap();
        assert_eq!(version, tool_std::prompt::sqlite::SCHEMA_VERSION);
        let mode: String = conn
            .query_row("PRAGMA journal_mode", [], |row| row.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        let columns: Vec<String> = conn
            .prepare("SELECT name FROM pragma_table_info('agents') ORDER BY cid")
            .unwrap()
            .query_map([], |row| row.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(
            columns,
            [
                "id",
                "account",
                "name",
                "system_prompt",
                "reflection_prompt",
                "memory_reflection_prompt",
                "enabled_tools"
            ]
        );
    }

    #[tokio::test]
    async fn reopening_keeps_agents_and_updates() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("agents.db");
        let store = SqliteAgentStore::open(&path).await.unwrap();
        let sage = store
            .create(NewAgent::new("default", "Sage").with_enabled_tools(["web"]))
            .await
            .unwrap();
        let doomed = store
            .create(NewAgent::new("default", "Doomed"))
            .await
            .unwrap();
        store
            .update_field(sage.id, PromptField::SystemPrompt, &"s".repeat(50_000))
            .await
            .unwrap();
        store
            .update_field(sage.id, PromptField::Name, "Sage II")
            .await
            .unwrap();
        drop(store);

        let store = SqliteAgentStore::open(&path).await.unwrap();
        let reopened = store.get_by_id(sage.id).await.unwrap().unwrap();
        assert_eq!(reopened.name, "Sage II");
        assert_eq!(
            reopened.system_prompt.map(|s| s.chars().count()),
            Some(50_000)
        );
        assert_eq!(reopened.enabled_tools, ["web"]);
        // Uniqueness survives reopening too.
        let err = store
            .create(NewAgent::new("default", "Sage II"))
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::NameTaken { .. }));

        // Ids are never reused, even for the highest id after it is deleted.
        raw(&path)
            .execute("DELETE FROM agents WHERE id = ?1", [doomed.id])
            .unwrap();
        let fresh = store
            .create(NewAgent::new("default", "Fresh"))
            .await
            .unwrap();
        assert!(fresh.id > doomed.id);
    }

    #[tokio::test]
    async fn a_second_handle_sees_writes_at_once() {
        let (dir, first) = sqlite_store().await;
        let second = SqliteAgentStore::open(dir.path().join("agents.db"))
            .await
            .unwrap();
        let agent = first.get_or_create("default", "Sage").await.unwrap();
        second
            .update_field(
                agent.id,
                PromptField::SystemPrompt,
                "from the second handle",
            )
            .await
            .unwrap();
        let seen = first.get_by_id(agent.id).await.unwrap().unwrap();
        assert_eq!(
            seen.system_prompt.as_deref(),
            Some("from the second handle")
        );
    }

    /// Two handles (two connections, as two processes would have), two tasks each: every
    /// update lands and none fails with "database is locked".
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn concurrent_writers_on_two_connections_all_succeed() {
        let (dir, first) = sqlite_store().await;
        let second = SqliteAgentStore::open(dir.path().join("agents.db"))
            .await
            .unwrap();
        let agent = first.get_or_create("default", "Sage").await.unwrap();
        let handles: Vec<Arc<dyn AgentStore>> = vec![Arc::new(first.clone()), Arc::new(second)];
        let mut tasks = Vec::new();
        for (h, store) in handles.iter().enumerate() {
            for t in 0..2 {
                let store = Arc::clone(store);
                tasks.push(tokio::spawn(async move {
                    for i in 0..25 {
                        append_tool(&*store, agent.id, format!("h{h}-t{t}-{i}")).await;
                        store
                            .update_field(agent.id, PromptField::ReflectionPrompt, "x")
                            .await
                            .unwrap();
                    }
                }));
            }
        }
        for task in tasks {
            task.await.unwrap();
        }
        let tools = first
            .get_by_id(agent.id)
            .await
            .unwrap()
            .unwrap()
            .enabled_tools;
        assert_eq!(tools.len(), 100);
        let mut unique = tools.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), 100);
    }

    const CHILD_DB: &str = "TOOLSMITH_TEST_PROMPT_STORE_DB";

    /// Run by `two_processes_write_the_same_file_safely` in a child process; does nothing alone.
    #[tokio::test]
    #[ignore = "helper: runs only as the child process of two_processes_write_the_same_file_safely"]
    async fn child_process_writer() {
        let Ok(path) = std::env::var(CHILD_DB) else {
            return;
        };
        let store = SqliteAgentStore::open(&path).await.unwrap();
        let agent = store.get_or_create("default", "Shared").await.unwrap();
        for i in 0..40 {
            append_tool(&store, agent.id, format!("child-{i}")).await;
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn two_processes_write_the_same_file_safely() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("agents.db");
        let store = SqliteAgentStore::open(&path).await.unwrap();
        let agent = store.get_or_create("default", "Shared").await.unwrap();

        let exe = std::env::current_exe().unwrap();
        let mut child = tokio::process::Command::new(exe)
            .args([
                "--exact",
                "sqlite_file::child_process_writer",
                "--ignored",
                "--test-threads=1",
            ])
            .env(CHILD_DB, &path)
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        for i in 0..40 {
            append_tool(&store, agent.id, format!("parent-{i}")).await;
        }
        assert!(child.wait().await.unwrap().success());

        let tools = store
            .get_by_id(agent.id)
            .await
            .unwrap()
            .unwrap()
            .enabled_tools;
        assert_eq!(
            tools.iter().filter(|t| t.starts_with("parent-")).count(),
            40
        );
        assert_eq!(tools.iter().filter(|t| t.starts_with("child-")).count(), 40);
    }

    #[tokio::test]
    async fn unusable_paths_are_errors_not_panics() {
        let dir = tempfile::tempdir().unwrap();
        // The path is a directory.
        let err = SqliteAgentStore::open(dir.path()).await.unwrap_err();
        assert!(matches!(err, StoreError::Backend { .. }), "{err:?}");
        // The parent "directory" is a file.
        let file = dir.path().join("file");
        std::fs::write(&file, "not a directory").unwrap();
        let err = SqliteAgentStore::open(file.join("agents.db"))
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::Io { .. }), "{err:?}");
        assert!(
            err.to_string()
                .starts_with("could not create the directory")
        );
        // The file is not a database.
        let junk = dir.path().join("junk.db");
        std::fs::write(&junk, vec![0xAB; 4096]).unwrap();
        let err = SqliteAgentStore::open(&junk).await.unwrap_err();
        assert!(matches!(err, StoreError::Backend { .. }), "{err:?}");
    }
}
