//! The `code` tool's language servers as the command hosts them: each runtime gets the
//! configuration `[code]` and `[bash]` give and a table of servers of its own (a principal's
//! servers are confined to its roots, so they are never shared with another's), and every
//! table is shut down when the command ends (`serve` stopping, `call` done).

use std::sync::{Arc, Mutex};

use tool_std::code::{CodeConfig, LanguageServers};
use tool_std::shell::ShellConfig;

use crate::config::Config;

/// Every table this process made, for [`shutdown_all`].
static TABLES: Mutex<Vec<Arc<LanguageServers>>> = Mutex::new(Vec::new());

/// The `code` tool's services for a runtime whose commands run under `shell`: its
/// configuration (servers confined by `shell`'s sandbox) and a new table of servers.
pub(crate) fn services(
    config: &Config,
    shell: &ShellConfig,
) -> (Arc<CodeConfig>, Arc<LanguageServers>) {
    let table = LanguageServers::new();
    TABLES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(table.clone());
    (Arc::new(config.code_config(&shell.sandbox)), table)
}

/// Shuts down every server of every table (`shutdown`, `exit`, then its process group
/// ended); how many were running.
pub(crate) async fn shutdown_all() -> usize {
    let tables: Vec<Arc<LanguageServers>> =
        std::mem::take(&mut *TABLES.lock().unwrap_or_else(|e| e.into_inner()));
    let mut stopped = 0;
    for table in tables {
        stopped += table.shutdown_all().await;
    }
    stopped
}
