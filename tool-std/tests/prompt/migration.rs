//! The tool-name migration (seed 000's data migration and its rollback), run against both the
//! memory store and a real SQLite file.

use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use tool_std::prompt::{
    Agent, AgentStore, Direction, MemoryAgentStore, NewAgent, STANDARD_RENAMES, SqliteAgentStore,
    StoreError, SwapOutcome, ToolRenames, migrate_enabled_tools, preview_enabled_tools,
};

use crate::support::prompt::{Hooked, Hooks, both_stores, strings};

async fn agent_with(store: &dyn AgentStore, name: &str, tools: &[&str]) -> Agent {
    store
        .create(NewAgent::new("default", name).with_enabled_tools(tools.iter().copied()))
        .await
        .unwrap()
}

async fn tools_of(store: &dyn AgentStore, id: i64) -> Vec<String> {
    store.get_by_id(id).await.unwrap().unwrap().enabled_tools
}

mod behaviour {
    use super::*;

    pub(crate) async fn forward_maps_every_old_name(store: &dyn AgentStore) {
        let mut expected = Vec::new();
        for (new_name, aliases) in STANDARD_RENAMES {
            for alias in *aliases {
                let agent = agent_with(store, &format!("uses {alias}"), &[alias]).await;
                expected.push((agent.id, *new_name));
            }
        }
        // The seed's class names, the snake_case names and the class-style new names.
        assert_eq!(expected.len(), 10);
        let report = migrate_enabled_tools(store, &ToolRenames::standard(), Direction::Forward)
            .await
            .unwrap();
        assert_eq!(report.changes.len(), 10);
        for (id, new_name) in expected {
            assert_eq!(tools_of(store, id).await, [new_name]);
        }
    }

    pub(crate) async fn forward_deduplicates_keeping_first_positions(store: &dyn AgentStore) {
        let agent = agent_with(
            store,
            "Sage",
            &[
                "grep",
                "ViewSystemPromptTool",
                "WebFetchTool",
                "UpdateSystemPromptTool",
                "read_file",
                "view_system_prompt",
                "web_search",
                "grep",
            ],
        )
        .await;
        migrate_enabled_tools(store, &ToolRenames::standard(), Direction::Forward)
            .await
            .unwrap();
        assert_eq!(
            tools_of(store, agent.id).await,
            ["grep", "prompt_manager", "web", "read_file"]
        );
    }

    pub(crate) async fn forward_is_idempotent(store: &dyn AgentStore) {
        agent_with(store, "a", &["WebSearchTool", "web_fetch"]).await;
        agent_with(store, "b", &["prompt_manager", "PromptManagerTool"]).await;
        let renames = ToolRenames::standard();
        let first = migrate_enabled_tools(store, &renames, Direction::Forward)
            .await
            .unwrap();
        assert_eq!(first.changes.len(), 2);
        let after_first = store.list().await.unwrap();

        let second = migrate_enabled_tools(store, &renames, Direction::Forward)
            .await
            .unwrap();
        assert!(second.changes.is_empty(), "{second}");
        assert_eq!(second.agents_checked, 2);
        assert_eq!(store.list().await.unwrap(), after_first);
        assert_eq!(
            second.to_string(),
            "forward migration complete: 0 of 2 agents changed, 2 unchanged"
        );
    }

    pub(crate) async fn rollback_restores_the_old_names(store: &dyn AgentStore) {
        let agent = agent_with(
            store,
            "Sage",
            &["ViewSystemPromptTool", "grep", "WebSearchTool"],
        )
        .await;
        let renames = ToolRenames::standard();
        migrate_enabled_tools(store, &renames, Direction::Forward)
            .await
            .unwrap();
        assert_eq!(
            tools_of(store, agent.id).await,
            ["prompt_manager", "grep", "web"]
        );

        let report = migrate_enabled_tools(store, &renames, Direction::Rollback)
            .await
            .unwrap();
        assert_eq!(report.direction, Direction::Rollback);
        let restored = [
            "view_system_prompt",
            "update_system_prompt",
            "grep",
            "web_search",
            "web_fetch",
        ];
        assert_eq!(tools_of(store, agent.id).await, restored);

        // Rollback is idempotent too, and forward after rollback is back where it was.
        let again = migrate_enabled_tools(store, &renames, Direction::Rollback)
            .await
            .unwrap();
        assert!(again.changes.is_empty(), "{again}");
        migrate_enabled_tools(store, &renames, Direction::Forward)
            .await
            .unwrap();
        assert_eq!(
            tools_of(store, agent.id).await,
            ["prompt_manager", "grep", "web"]
        );
    }

    pub(crate) async fn rollback_deduplicates(store: &dyn AgentStore) {
        let agent = agent_with(store, "Sage", &["update_system_prompt", "prompt_manager"]).await;
        migrate_enabled_tools(store, &ToolRenames::standard(), Direction::Rollback)
            .await
            .unwrap();
        assert_eq!(
            tools_of(store, agent.id).await,
            ["update_system_prompt", "view_system_prompt"]
        );
    }

    pub(crate) async fn agents_without_old_names_are_untouched(store: &dyn AgentStore) {
        let plain = agent_with(store, "plain", &["grep", "bash", "read_file"]).await;
        let empty = agent_with(store, "empty", &[]).await;
        let modern = agent_with(store, "modern", &["web", "prompt_manager"]).await;
        let renames = ToolRenames::standard();
        let report = migrate_enabled_tools(store, &renames, Direction::Forward)
            .await
            .unwrap();
        assert!(report.changes.is_empty());
        assert_eq!(report.unchanged(), 3);
        assert_eq!(
            store.get_by_id(plain.id).await.unwrap(),
            Some(plain.clone())
        );
        assert_eq!(store.get_by_id(empty.id).await.unwrap(), Some(empty));
        assert_eq!(store.get_by_id(modern.id).await.unwrap(), Some(modern));

        let report = migrate_enabled_tools(store, &renames, Direction::Rollback)
            .await
            .unwrap();
        assert_eq!(report.changes.len(), 1, "only 'modern' has new names");
        assert_eq!(store.get_by_id(plain.id).await.unwrap(), Some(plain));
    }

    pub(crate) async fn the_report_lists_each_change(store: &dyn AgentStore) {
        let untouched = agent_with(store, "Plain", &["grep"]).await;
        let sage = agent_with(store, "Sage", &["ViewSystemPromptTool", "WebSearchTool"]).await;
        let oracle = store
            .create(NewAgent::new("team", "Oracle").with_enabled_tools([
                "web_fetch",
                "web_search",
                "bash",
            ]))
            .await
            .unwrap();
        let report = migrate_enabled_tools(store, &ToolRenames::standard(), Direction::Forward)
            .await
            .unwrap();

        assert!(report.applied);
        assert_eq!(report.agents_checked, 3);
        assert_eq!(report.unchanged(), 1);
        assert!(report.changes.iter().all(|c| c.id != untouched.id));
        let [first, second] = &report.changes[..] else {
            panic!("expected two changes: {report}");
        };
        assert_eq!((first.id, first.name.as_str()), (sage.id, "Sage"));
        assert_eq!(first.account, "default");
        assert_eq!(first.before, ["ViewSystemPromptTool", "WebSearchTool"]);
        assert_eq!(first.after, ["prompt_manager", "web"]);
        assert_eq!((second.id, second.account.as_str()), (oracle.id, "team"));
        assert_eq!(second.after, ["web", "bash"]);

        let text = report.to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                format!(
                    "agent {} \"Sage\" (account \"default\"): \
                     [\"ViewSystemPromptTool\", \"WebSearchTool\"] -> [\"prompt_manager\", \"web\"]",
                    sage.id
                )
                .as_str(),
                format!(
                    "agent {} \"Oracle\" (account \"team\"): \
                     [\"web_fetch\", \"web_search\", \"bash\"] -> [\"web\", \"bash\"]",
                    oracle.id
                )
                .as_str(),
                "forward migration complete: 2 of 3 agents changed, 1 unchanged",
            ]
        );

        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["direction"], "forward");
        assert_eq!(json["applied"], true);
        assert_eq!(json["agents_checked"], 3);
        assert_eq!(json["changes"][0]["id"], sage.id);
        assert_eq!(json["changes"][0]["name"], "Sage");
        assert_eq!(
            json["changes"][0]["before"],
            serde_json::json!(["ViewSystemPromptTool", "WebSearchTool"])
        );
        assert_eq!(
            json["changes"][0]["after"],
            serde_json::json!(["prompt_manager", "web"])
        );
    }

    pub(crate) async fn preview_writes_nothing(store: &dyn AgentStore) {
        let agent = agent_with(store, "Sage", &["WebSearchTool"]).await;
        let renames = ToolRenames::standard();
        let preview = preview_enabled_tools(store, &renames, Direction::Forward)
            .await
            .unwrap();
        assert!(!preview.applied);
        assert_eq!(preview.changes[0].after, ["web"]);
        assert!(preview.to_string().ends_with("nothing was written"));
        assert_eq!(tools_of(store, agent.id).await, ["WebSearchTool"]);

        let applied = migrate_enabled_tools(store, &renames, Direction::Forward)
            .await
            .unwrap();
        assert_eq!(applied.changes, preview.changes);
    }

    pub(crate) async fn renames_from_declared_aliases(store: &dyn AgentStore) {
        // What a registry hands over: each tool's name and its declared aliases.
        let declared = vec![
            ("read_file", vec!["read", "read_files", "ReadFileTool"]),
            ("grep", vec![]),
        ];
        let renames = ToolRenames::new(declared).unwrap();
        let agent = agent_with(store, "Sage", &["ReadFileTool", "grep", "read"]).await;
        migrate_enabled_tools(store, &renames, Direction::Forward)
            .await
            .unwrap();
        assert_eq!(tools_of(store, agent.id).await, ["read_file", "grep"]);
        migrate_enabled_tools(store, &renames, Direction::Rollback)
            .await
            .unwrap();
        assert_eq!(
            tools_of(store, agent.id).await,
            ["read", "read_files", "grep"]
        );
    }

    pub(crate) async fn other_fields_are_left_alone(store: &dyn AgentStore) {
        let agent = store
            .create(
                NewAgent::new("default", "Sage")
                    .with_system_prompt("keep me")
                    .with_enabled_tools(["WebTool"]),
            )
            .await
            .unwrap();
        migrate_enabled_tools(store, &ToolRenames::standard(), Direction::Forward)
            .await
            .unwrap();
        let after = store.get_by_id(agent.id).await.unwrap().unwrap();
        assert_eq!(after.system_prompt.as_deref(), Some("keep me"));
        assert_eq!(after.name, "Sage");
        assert_eq!(after.enabled_tools, ["web"]);
    }
}

both_stores! {
    borrowed: [
        forward_maps_every_old_name,
        forward_deduplicates_keeping_first_positions,
        forward_is_idempotent,
        rollback_restores_the_old_names,
        rollback_deduplicates,
        agents_without_old_names_are_untouched,
        the_report_lists_each_change,
        preview_writes_nothing,
        renames_from_declared_aliases,
        other_fields_are_left_alone,
    ],
    shared: []
}

#[tokio::test]
async fn a_migrated_sqlite_file_stays_migrated_after_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agents.db");
    let store = SqliteAgentStore::open(&path).await.unwrap();
    let agent = agent_with(&store, "Sage", &["UpdateSystemPromptTool", "WebFetchTool"]).await;
    migrate_enabled_tools(&store, &ToolRenames::standard(), Direction::Forward)
        .await
        .unwrap();
    drop(store);
    let store = SqliteAgentStore::open(&path).await.unwrap();
    assert_eq!(tools_of(&store, agent.id).await, ["prompt_manager", "web"]);
}

/// Writes whose agent's tools are changed by "someone else" just before the migration's first
/// `changes` compare-and-set calls, and which can report the agent deleted.
struct Interfering {
    /// How many compare-and-set calls to interfere with.
    changes: usize,
    calls: AtomicUsize,
    deleted: bool,
}

#[async_trait]
impl Hooks for Interfering {
    async fn compare_and_set_enabled_tools(
        &self,
        inner: &MemoryAgentStore,
        id: i64,
        expected: &[String],
        new: &[String],
    ) -> Result<SwapOutcome, StoreError> {
        if self.deleted {
            return Err(StoreError::NotFound { id });
        }
        let call = self.calls.fetch_add(1, Ordering::SeqCst);
        if call < self.changes {
            let mut tools = tools_of(inner, id).await;
            tools.push(format!("added-meanwhile-{call}"));
            inner.set_enabled_tools(id, &tools).await?;
        }
        inner.compare_and_set_enabled_tools(id, expected, new).await
    }
}

fn interfering(changes: usize, deleted: bool) -> Hooked<Interfering> {
    Hooked::new(Interfering {
        changes,
        calls: AtomicUsize::new(0),
        deleted,
    })
}

#[tokio::test]
async fn a_concurrent_edit_is_kept_not_overwritten() {
    let store = interfering(2, false);
    let agent = agent_with(&store, "Sage", &["WebSearchTool"]).await;
    let report = migrate_enabled_tools(&store, &ToolRenames::standard(), Direction::Forward)
        .await
        .unwrap();
    let expected = strings(&["web", "added-meanwhile-0", "added-meanwhile-1"]);
    assert_eq!(tools_of(&store, agent.id).await, expected);
    assert_eq!(
        report.changes[0].before,
        ["WebSearchTool", "added-meanwhile-0", "added-meanwhile-1"]
    );
    assert_eq!(report.changes[0].after, expected);
}

#[tokio::test]
async fn an_agent_that_never_settles_is_reported_as_contended() {
    let store = interfering(usize::MAX, false);
    let agent = agent_with(&store, "Sage", &["WebSearchTool"]).await;
    let err = migrate_enabled_tools(&store, &ToolRenames::standard(), Direction::Forward)
        .await
        .unwrap_err();
    assert!(
        matches!(err, StoreError::Contended { id } if id == agent.id),
        "{err:?}"
    );
    assert!(err.to_string().contains("run it again"));
}

#[tokio::test]
async fn an_agent_deleted_during_the_migration_is_skipped() {
    let store = interfering(0, true);
    agent_with(&store, "Sage", &["WebSearchTool"]).await;
    let report = migrate_enabled_tools(&store, &ToolRenames::standard(), Direction::Forward)
        .await
        .unwrap();
    assert!(report.changes.is_empty());
    assert_eq!(report.agents_checked, 1);
}
