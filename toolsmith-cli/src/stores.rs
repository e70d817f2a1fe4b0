//! Where the command keeps its state: the agent store (an SQLite file, or Postgres), and with
//! `--store postgres://...` (`[store] url`, `TOOLSMITH_STORE`) one Postgres database for the
//! agents, the activity records, the used approvals and the search window, which replicas on
//! several machines share.

use std::path::Path;
use std::sync::Arc;

use tool_core::postgres::{PostgresActivityStore, PostgresConfig, PostgresStore};
use tool_std::prompt::{AgentStore, PostgresAgentStore, SqliteAgentStore};

use crate::args::GlobalOptions;
use crate::host::{self, Root};

/// The Postgres URL `--store` gives, if it gives one (`postgres://` or `postgresql://`, or
/// libpq's `key=value` form starting with `host=` / `dbname=`).
pub(crate) fn postgres_url(options: &GlobalOptions) -> Option<&str> {
    let store = options.store.as_ref()?.to_str()?.trim();
    is_postgres_url(store).then_some(store)
}

/// Whether `store` names a Postgres server rather than a file.
pub(crate) fn is_postgres_url(store: &str) -> bool {
    let lower = store.to_ascii_lowercase();
    lower.starts_with("postgres://")
        || lower.starts_with("postgresql://")
        || ["host=", "dbname=", "user="]
            .iter()
            .any(|k| lower.starts_with(k) && lower.contains(' '))
}

/// This process's connection to the shared database, made on first use (one pool and one
/// lease per process, whatever asks for it).
static POSTGRES: tokio::sync::OnceCell<PostgresStore> = tokio::sync::OnceCell::const_new();

/// The shared Postgres store, when `--store` names one: connected, its tables brought to
/// this build's schema. The error says what to do.
pub(crate) async fn postgres(options: &GlobalOptions) -> Result<Option<PostgresStore>, String> {
    let Some(url) = postgres_url(options) else {
        return Ok(None);
    };
    let store = POSTGRES
        .get_or_try_init(|| async {
            let mut config = PostgresConfig::default();
            if let Some(secs) = options.store_lease {
                if !(secs.is_finite() && (1.0..=3600.0).contains(&secs)) {
                    return Err(format!(
                        "the store's lease (--store-lease, or lease in [store]) is {secs} \
                         seconds; give 1 to 3600 (such as 15)"
                    ));
                }
                config = config.lease(std::time::Duration::from_secs_f64(secs));
            }
            PostgresStore::connect(url, config)
                .await
                .map_err(|e| format!("--store: {e}"))
        })
        .await?;
    Ok(Some(store.clone()))
}

/// The connected shared store, if one was opened (for shutting down).
pub(crate) fn opened_postgres() -> Option<PostgresStore> {
    POSTGRES.get().cloned()
}

/// The agent store: Postgres, or the SQLite file (`--store PATH`, else
/// `.toolsmith/agents.db`). With `existing`, `None` when that file does not exist yet, so
/// that reading commands create nothing.
pub(crate) async fn agents(
    options: &GlobalOptions,
    roots: &[Root],
    existing: bool,
) -> Result<Option<Arc<dyn AgentStore>>, String> {
    if let Some(shared) = postgres(options).await? {
        let store = PostgresAgentStore::open(&shared)
            .await
            .map_err(|e| format!("cannot open the agent store in Postgres: {e}"))?;
        return Ok(Some(Arc::new(store)));
    }
    let path = host::store_path(options, roots);
    if existing && !path.exists() {
        return Ok(None);
    }
    open_sqlite_agents(&path).await.map(Some)
}

/// Opens the SQLite agent store at `path`.
async fn open_sqlite_agents(path: &Path) -> Result<Arc<dyn AgentStore>, String> {
    let store = SqliteAgentStore::open(path)
        .await
        .map_err(|e| format!("cannot open the agent store at {}: {e}", path.display()))?;
    host::ignore_own_dir(path);
    Ok(Arc::new(store))
}

/// The Postgres activity store, when `--store` names Postgres and `--activity-store` names
/// no other place.
pub(crate) async fn postgres_activity(
    options: &GlobalOptions,
) -> Result<Option<PostgresActivityStore>, String> {
    if options.activity_store.is_some() {
        return Ok(None);
    }
    let Some(shared) = postgres(options).await? else {
        return Ok(None);
    };
    let mut config = tool_core::postgres::PostgresActivityConfig::default();
    if let Some(n) = options.activity_max_records {
        config = config.max_records(n);
    }
    if let Some(days) = options.activity_max_age_days {
        config = config.max_age(std::time::Duration::from_secs_f64(days * 86_400.0));
    }
    Ok(Some(shared.activity(config)))
}

/// Where `serve` records its calls.
#[derive(Clone)]
pub(crate) enum Records {
    /// An SQLite file.
    Sqlite(tool_core::SqliteActivityStore),
    /// The shared Postgres database.
    Postgres(PostgresActivityStore),
}

impl Records {
    /// The store, for the runtime.
    pub(crate) fn store(&self) -> Arc<dyn tool_core::ActivityStore> {
        match self {
            Records::Sqlite(s) => Arc::new(s.clone()),
            Records::Postgres(s) => Arc::new(s.clone()),
        }
    }

    /// Waits until what was queued is written (or, for Postgres, found unwritable for now).
    pub(crate) async fn flush(&self) {
        match self {
            Records::Sqlite(s) => s.flush().await,
            Records::Postgres(s) => s.flush().await,
        }
    }

    /// The record changes dropped so far, and those still held unwritten (Postgres away).
    pub(crate) fn lost(&self) -> (u64, u64) {
        match self {
            Records::Sqlite(s) => (s.stats().dropped, 0),
            Records::Postgres(s) => {
                let stats = s.stats();
                (stats.dropped, stats.held)
            }
        }
    }
}

/// Shows on `feed` (the activity page of this replica) the calls the other replicas record,
/// as they are written: woken by the database's notifications, never by a timer. Stops with
/// `stop`.
pub(crate) fn follow_replicas(
    feed: tool_core::http::activity::ActivityFeed,
    store: PostgresActivityStore,
    stop: tokio_util::sync::CancellationToken,
) {
    tokio::spawn(async move {
        let mut changes = store.changes();
        let mut cursor = store.cursor().await.unwrap_or(0);
        loop {
            tokio::select! {
                () = stop.cancelled() => return,
                changed = changes.changed() => if changed.is_err() { return },
            }
            // Read until caught up (one read holds at most 10,000 records).
            while let Ok((records, next)) = store.changed_elsewhere_since(cursor).await {
                if next == cursor {
                    break;
                }
                cursor = next;
                for record in &records {
                    feed.push_record(record);
                }
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::is_postgres_url;

    #[test]
    fn urls_and_paths_are_told_apart() {
        for url in [
            "postgres://u:p@db:5432/toolsmith",
            "postgresql://db/toolsmith",
            "POSTGRES://db/x",
            "host=db dbname=toolsmith",
        ] {
            assert!(is_postgres_url(url), "{url}");
        }
        for path in [
            ".toolsmith/agents.db",
            "/var/lib/toolsmith/agents.db",
            "postgres.db",
            "host=file",
            "C:\\agents.db",
        ] {
            assert!(!is_postgres_url(path), "{path}");
        }
    }
}
