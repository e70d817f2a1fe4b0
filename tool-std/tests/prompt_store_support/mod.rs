//! What the `prompt_store_*` tests share: a fresh SQLite store in a temporary directory, a
//! compare-and-set append, and `both_stores!`, which runs each behaviour (written once,
//! against `&dyn AgentStore`) on a fresh memory store and on a fresh SQLite file.
#![allow(dead_code, unreachable_pub)]

use tempfile::TempDir;
use tool_std::prompt::{AgentStore, SqliteAgentStore, SwapOutcome};

/// Appends `tool` to the agent's list with a compare-and-set loop.
pub async fn append_tool(store: &dyn AgentStore, id: i64, tool: String) {
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

pub fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// `50000` as `"50,000"`, for the expected messages.
pub fn group(n: usize) -> String {
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

pub async fn sqlite_store() -> (TempDir, SqliteAgentStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteAgentStore::open(dir.path().join("agents.db"))
        .await
        .unwrap();
    (dir, store)
}

/// Runs each behaviour against a fresh memory store and a fresh SQLite file.
#[allow(unused_macros)]
macro_rules! both_stores {
    (borrowed: [$($name:ident),* $(,)?], shared: [$($shared:ident),* $(,)?]) => {
        mod memory {
            use super::*;
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $name() {
                    behaviour::$name(&::tool_std::prompt::MemoryAgentStore::new()).await;
                }
            )*
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $shared() {
                    behaviour::$shared(::std::sync::Arc::new(::tool_std::prompt::MemoryAgentStore::new())).await;
                }
            )*
        }
        mod sqlite {
            use super::*;
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $name() {
                    let (_dir, store) = crate::prompt_store_support::sqlite_store().await;
                    behaviour::$name(&store).await;
                }
            )*
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $shared() {
                    let (_dir, store) = crate::prompt_store_support::sqlite_store().await;
                    behaviour::$shared(::std::sync::Arc::new(store)).await;
                }
            )*
        }
    };
}

#[allow(unused_imports)]
pub(crate) use both_stores;
