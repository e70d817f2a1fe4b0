//! Edits see their errors: the file tools tell the workspace which files they changed, and
//! [`LanguageServers`] answers with each file's new errors from the server of its language
//! and root, when one runs and publishes them within [`CodeConfig::edit_wait`](super::CodeConfig::edit_wait). No server is
//! started for an edit.

use std::time::Instant;

use tool_core::ToolError;

use super::actions::{diagnostic_text, is_error};
use super::server::Key;
use super::servers::LanguageServers;
use super::source::load;
use crate::workspace::{EditDiagnostics, EditWatcher, Workspace, WsPath};

#[async_trait::async_trait]
impl EditWatcher for LanguageServers {
    async fn edited(&self, ws: &Workspace, files: &[WsPath]) -> Vec<EditDiagnostics> {
        let mut out = Vec::new();
        // Every file's wait starts now: the edit waits for them together, once.
        let started = Instant::now();
        for file in files.iter().take(20) {
            if let Ok(Some(report)) = self.report(ws, file, started).await {
                out.push(report);
            }
        }
        out
    }
}

impl LanguageServers {
    /// The errors of `file` after an edit, from its running server.
    async fn report(
        &self,
        ws: &Workspace,
        file: &WsPath,
        started: Instant,
    ) -> Result<Option<EditDiagnostics>, ToolError> {
        let shown = file.to_string();
        // Which server runs for it: the language's configured command, as the tool's calls
        // found it (the server keeps the configuration it was started with).
        let Some(server) = self.running_for(ws, file, &shown) else {
            return Ok(None);
        };
        let config = server.config.clone();
        let source = {
            let (ws, config, shown) = (ws.clone(), config.clone(), shown.clone());
            tokio::task::spawn_blocking(move || load(&ws, &config, &shown))
                .await
                .map_err(|e| ToolError::system(e.to_string()))??
        };
        let before = server.generation(&source.uri);
        let Ok((version, sent)) = server
            .sync(&source.uri, &source.language, &source.text)
            .await
        else {
            return Ok(None);
        };
        let until = started + config.edit_wait;
        let found = match (!sent).then(|| server.published.of(&source.uri)).flatten() {
            Some(current) => Some(current.diagnostics),
            None => {
                server
                    .diagnostics_after(&source.uri, before, version, until)
                    .await
            }
        };
        let Some(found) = found else {
            return Ok(None);
        };
        server.touch();
        let errors: Vec<&lsp_types::Diagnostic> = found.iter().filter(|d| is_error(d)).collect();
        let listed: Vec<String> = errors
            .iter()
            .take(config.max_edit_diagnostics)
            .map(|d| {
                format!(
                    "{shown}:{}: {}",
                    d.range.start.line + 1,
                    diagnostic_text(d, config.max_line_chars)
                )
            })
            .collect();
        let more = errors.len() - listed.len();
        Ok(Some(
            EditDiagnostics::new(shown, server.key.program(), listed).with_more(more),
        ))
    }

    /// The running server a file of `ws` belongs to, by its language and root.
    fn running_for(
        &self,
        ws: &Workspace,
        file: &WsPath,
        shown: &str,
    ) -> Option<std::sync::Arc<super::server::Server>> {
        let root = ws.roots().get(file.root())?.path().to_path_buf();
        let running = self.running();
        running.into_iter().find_map(|r| {
            if r.root != root {
                return None;
            }
            let key = Key {
                root: r.root.clone(),
                command: r.command.clone(),
            };
            let server = self.find(&key)?;
            let language = server.config.language_for(shown)?;
            let command = server.config.server_for(&language)?;
            (command == key.command).then_some(server)
        })
    }
}
