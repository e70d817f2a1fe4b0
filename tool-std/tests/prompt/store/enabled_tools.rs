//! The agent stores' enabled tools, on the memory store and on a real SQLite file
//! (`both_stores!`): the list round-trips, compare-and-set refuses a stale list, and concurrent
//! updates are all applied.

use std::sync::Arc;

use tool_std::prompt::{AgentStore, NewAgent, PromptField, SwapOutcome};

use crate::support::prompt::*;

/// Behaviours every store must show, written against the trait only.
mod behaviour {
    use super::*;

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
}

both_stores! {
    borrowed: [
        enabled_tools_round_trip,
        compare_and_set_refuses_stale_lists,
    ],
    shared: [
        concurrent_updates_are_all_applied,
    ]
}
