//! What the file tools tell of their edits, and what they hear back: a workspace keeps the
//! [`EditWatcher`]s that want to know of changed files (the `code` tool's language servers),
//! and an edit's answer carries what they say of the files it changed ([`EditDiagnostics`]:
//! the errors a language server finds in them now). The families meet here, in the
//! workspace they share, and never import each other.

use std::sync::{Arc, Mutex, Weak};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Workspace, WsPath};

/// The most watchers one workspace keeps.
pub const MAX_EDIT_WATCHERS: usize = 8;

/// What a watcher says of one changed file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct EditDiagnostics {
    /// The file, as the model writes paths.
    pub path: String,
    /// Who says it (`clangd`).
    pub source: String,
    /// The file's errors now, `path:line: message`, at most the watcher's limit.
    pub errors: Vec<String>,
    /// Errors past those listed.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub more: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl EditDiagnostics {
    /// A report on `path` by `source`.
    pub fn new(path: impl Into<String>, source: impl Into<String>, errors: Vec<String>) -> Self {
        EditDiagnostics {
            path: path.into(),
            source: source.into(),
            errors,
            more: 0,
        }
    }

    /// Sets the number of errors past those listed.
    pub fn with_more(mut self, more: usize) -> Self {
        self.more = more;
        self
    }

    /// The lines an edit's text ends with: the errors, or that there are none.
    pub fn render(reports: &[EditDiagnostics]) -> String {
        let mut out = String::new();
        for r in reports {
            if r.errors.is_empty() {
                out.push_str(&format!(
                    "\n{} reports no errors in `{}` now.",
                    r.source, r.path
                ));
                continue;
            }
            out.push_str(&format!(
                "\n{} reports {} error(s) in `{}` now:",
                r.source,
                r.errors.len() + r.more,
                r.path
            ));
            for e in &r.errors {
                out.push('\n');
                out.push_str(e);
            }
            if r.more > 0 {
                out.push_str(&format!(
                    "\n… and {} more (code with action diagnostics lists them all)",
                    r.more
                ));
            }
        }
        out
    }
}

/// Something that wants to hear of the files the file tools change, and may answer with what
/// it finds in them: a language server's new errors.
#[async_trait::async_trait]
pub trait EditWatcher: Send + Sync + std::fmt::Debug {
    /// `files` of `ws` were just written. Answers within its own short wait (an edit waits
    /// for it); a file it has nothing to say of is left out.
    async fn edited(&self, ws: &Workspace, files: &[WsPath]) -> Vec<EditDiagnostics>;
}

/// The watchers of one workspace (shared by its clones).
#[derive(Debug, Default)]
pub(crate) struct Watchers(Mutex<Vec<Weak<dyn EditWatcher>>>);

impl Watchers {
    fn live(&self) -> Vec<Arc<dyn EditWatcher>> {
        let mut list = self.0.lock().unwrap_or_else(|e| e.into_inner());
        list.retain(|w| w.strong_count() > 0);
        list.iter().filter_map(Weak::upgrade).collect()
    }
}

impl Workspace {
    /// Tells this workspace (and its clones) to let `watcher` hear of the files the file
    /// tools change. It is held weakly, so dropping it ends the watching; adding one already
    /// watching does nothing; at most [`MAX_EDIT_WATCHERS`] are kept.
    pub fn watch_edits(&self, watcher: Arc<dyn EditWatcher>) {
        let mut list = self.inner.edits.0.lock().unwrap_or_else(|e| e.into_inner());
        list.retain(|w| w.strong_count() > 0);
        let same = list
            .iter()
            .any(|w| std::ptr::addr_eq(w.as_ptr(), Arc::as_ptr(&watcher)));
        if !same && list.len() < MAX_EDIT_WATCHERS {
            list.push(Arc::downgrade(&watcher));
        }
    }

    /// Tells the watchers that `files` were written, and gathers what they say of them.
    pub async fn edited(&self, files: &[WsPath]) -> Vec<EditDiagnostics> {
        let mut out = Vec::new();
        for watcher in self.inner.edits.live() {
            out.extend(watcher.edited(self, files).await);
        }
        out
    }
}
