//! [`LanguageServers`]: the servers of one tool host, started lazily per root and command,
//! kept while used, shut down when idle, when there are too many, and when the host stops.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use tool_core::{ToolContext, ToolError};

use super::config::{CodeConfig, DEFAULT_SERVERS};
use super::server::{Failure, Key, Server};
use crate::workspace::Workspace;

/// One place in the table: the server of a key, once started. The lock is held while it
/// starts, so two calls never start the same server twice.
type Slot = Arc<tokio::sync::Mutex<Option<Arc<Server>>>>;

/// The language servers of one host. The `code` tool uses the host's (a runtime service) or
/// else one table shared by the whole program ([`LanguageServers::global`]).
///
/// A server belongs to the server process that started it, like a background process: a
/// replica that did not start it starts its own.
#[derive(Debug, Default)]
pub struct LanguageServers {
    slots: Mutex<HashMap<Key, Slot>>,
    reaper: OnceLock<()>,
    /// This table, for the reaper and the workspaces' edit watchers.
    me: OnceLock<Weak<LanguageServers>>,
}

/// A running server, as [`LanguageServers::running`] lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunningServer {
    /// The root directory it serves.
    pub root: PathBuf,
    /// Its command.
    pub command: Vec<String>,
    /// Its process id (the leader of its process group).
    pub pid: u32,
}

impl LanguageServers {
    /// An empty table.
    pub fn new() -> Arc<LanguageServers> {
        let table = Arc::new(LanguageServers::default());
        let _ = table.me.set(Arc::downgrade(&table));
        table
    }

    /// The table of the whole program, used when the host put none in the runtime's services.
    pub fn global() -> Arc<LanguageServers> {
        static GLOBAL: OnceLock<Arc<LanguageServers>> = OnceLock::new();
        GLOBAL.get_or_init(LanguageServers::new).clone()
    }

    /// The table a call uses: the host's, or the program's.
    pub fn of(ctx: &ToolContext) -> Arc<LanguageServers> {
        ctx.service::<LanguageServers>()
            .unwrap_or_else(LanguageServers::global)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Key, Slot>> {
        self.slots.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The servers running now.
    pub fn running(&self) -> Vec<RunningServer> {
        self.servers()
            .into_iter()
            .filter(|s| s.alive())
            .map(|s| RunningServer {
                root: s.key.root.clone(),
                command: s.key.command.clone(),
                pid: s.pid,
            })
            .collect()
    }

    /// Every server started and not forgotten (running or not).
    fn servers(&self) -> Vec<Arc<Server>> {
        let slots: Vec<Slot> = self.lock().values().cloned().collect();
        slots
            .iter()
            .filter_map(|slot| slot.try_lock().ok().and_then(|s| s.clone()))
            .collect()
    }

    /// The running server of `key`, if one runs (nothing is started).
    pub(crate) fn find(&self, key: &Key) -> Option<Arc<Server>> {
        let slot = self.lock().get(key).cloned()?;
        let server = slot.try_lock().ok()?.clone()?;
        server.alive().then_some(server)
    }

    /// The command of the default server of `language` that already runs for `root` (the
    /// first in [`DEFAULT_SERVERS`]' order), when the host configures none for the language:
    /// a call to a running server need not look for its program on the `PATH` again.
    pub(crate) fn running_default(
        &self,
        config: &CodeConfig,
        language: &str,
        root: &Path,
    ) -> Option<Vec<String>> {
        if config.servers.contains_key(language) {
            return None;
        }
        let (_, candidates) = DEFAULT_SERVERS.iter().find(|(l, _)| *l == language)?;
        candidates
            .iter()
            .map(|c| Key {
                root: root.to_path_buf(),
                command: c.iter().map(|s| (*s).to_owned()).collect(),
            })
            .find(|key| self.find(key).is_some())
            .map(|key| key.command)
    }

    /// The server of `key`: the running one, or one started now (restarting one that
    /// stopped). `restarted` says whether a stopped one was replaced.
    pub(crate) async fn get(
        &self,
        config: &Arc<CodeConfig>,
        ws: &Workspace,
        key: &Key,
        deadline: Instant,
    ) -> Result<(Arc<Server>, bool), ToolError> {
        self.start_reaper();
        let slot = self.lock().entry(key.clone()).or_default().clone();
        let mut held = slot.lock().await;
        if let Some(server) = held.as_ref()
            && server.alive()
        {
            server.touch();
            return Ok((server.clone(), false));
        }
        let restarted = held.is_some();
        *held = None;
        self.make_room(key, config.max_servers).await;
        let server = Server::start(config.clone(), ws, key.clone(), deadline).await?;
        *held = Some(server.clone());
        drop(held);
        if let Some(me) = self.me.get().and_then(Weak::upgrade) {
            ws.watch_edits(me);
        }
        Ok((server, restarted))
    }

    /// Shuts down the least recently used servers (other than `key`'s) until fewer than
    /// `max` run.
    async fn make_room(&self, key: &Key, max: usize) {
        loop {
            let mut running: Vec<Arc<Server>> = self
                .servers()
                .into_iter()
                .filter(|s| s.alive() && s.key != *key)
                .collect();
            if running.len() < max.max(1) {
                return;
            }
            running.sort_by_key(|s| s.last_used());
            let oldest = running.swap_remove(0);
            self.forget(&oldest.key);
            oldest.shutdown().await;
        }
    }

    fn forget(&self, key: &Key) {
        self.lock().remove(key);
    }

    /// Shuts every server down (`shutdown`, `exit`, then its group ended): for a host that
    /// stops. Returns how many were running.
    pub async fn shutdown_all(&self) -> usize {
        let servers = self.servers();
        self.lock().clear();
        let running: Vec<Arc<Server>> = servers.into_iter().filter(|s| s.alive()).collect();
        let n = running.len();
        let stops: Vec<_> = running
            .into_iter()
            .map(|s| tokio::spawn(async move { s.shutdown().await }))
            .collect();
        for stop in stops {
            let _ = stop.await;
        }
        n
    }

    /// Shuts down the servers unused for `idle` or longer; returns how many.
    pub async fn shutdown_idle(&self, idle: Duration) -> usize {
        let idle_ones: Vec<Arc<Server>> = self
            .servers()
            .into_iter()
            .filter(|s| s.alive() && s.last_used().elapsed() >= idle)
            .collect();
        for s in &idle_ones {
            self.forget(&s.key);
            s.shutdown().await;
        }
        idle_ones.len()
    }

    /// Starts, once, the task that shuts idle servers down (each after its own
    /// configuration's [`CodeConfig::idle_timeout`]); it ends with the table.
    fn start_reaper(&self) {
        let Some(me) = self.me.get().cloned() else {
            return;
        };
        if self.reaper.set(()).is_err() {
            return;
        }
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_secs(5)).await;
                let Some(table) = me.upgrade() else { return };
                let idle: Vec<Arc<Server>> = table
                    .servers()
                    .into_iter()
                    .filter(|s| s.alive() && s.last_used().elapsed() >= s.config.idle_timeout)
                    .collect();
                for s in idle {
                    table.forget(&s.key);
                    s.shutdown().await;
                }
            }
        });
    }

    /// Sends a request as it is to the running server whose process id is `pid` and waits
    /// at most `timeout` for its answer: the same server the `code` tool speaks to, without
    /// the tool (a host's own requests; the benchmark's baseline).
    ///
    /// # Errors
    ///
    /// A `not_found` error when no server of that pid runs, a `timeout` when it did not
    /// answer in time, a `system_error` when it answered with an error or stopped.
    pub async fn request<R: lsp_types::request::Request>(
        &self,
        pid: u32,
        params: R::Params,
        timeout: Duration,
    ) -> Result<R::Result, ToolError> {
        let server = self
            .servers()
            .into_iter()
            .find(|s| s.pid == pid && s.alive())
            .ok_or_else(|| ToolError::not_found(format!("no language server of pid {pid} runs")))?;
        let never = tokio_util::sync::CancellationToken::new();
        server
            .request::<R>(params, Instant::now() + timeout, &never)
            .await
            .map_err(|f| match f {
                Failure::Timeout => ToolError::new(
                    tool_core::ErrorKind::Timeout,
                    format!(
                        "the language server did not answer {} within {timeout:?}",
                        R::METHOD
                    ),
                ),
                Failure::Cancelled => ToolError::new(tool_core::ErrorKind::Cancelled, "cancelled"),
                Failure::Ended(why) | Failure::Refused(why) => ToolError::system(why),
                Failure::Unsupported(method) => {
                    ToolError::user(format!("the language server does not answer {method}"))
                }
            })
    }
}
