//! The answer every writing tool gives: [`FileWritten`].

use serde::Serialize;
use tool_core::{Render, ResourcesTracker};

use crate::workspace::{EditDiagnostics, Workspace};

/// What a write did: `create_file`, `update_file`, `append_file`, `replace_in_file`,
/// `edit_lines`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct FileWritten {
    /// `file_created`, `file_updated`, `file_appended`, `replaced`, `lines_edited`, or
    /// `preview` when nothing was written.
    pub r#type: &'static str,
    /// The path written, as shown to the model.
    pub path: String,
    /// Whether the file was written (false for a preview or 0 replacements).
    pub written: bool,
    /// Bytes of the file now (or, for a preview, after the change).
    pub bytes: u64,
    /// Lines of the file now (or, for a preview, after the change).
    pub line_count: usize,
    /// The file's version now (for a preview, as it still is): pass it as `expected_version`
    /// to the next edit.
    pub version: String,
    /// Replacements made (`replace_in_file` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replacements: Option<usize>,
    /// A unified diff of the change (edits; cut at the configured size).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// One sentence saying what happened.
    pub message: String,
    /// What the language server of the file's language says of it now (its errors), when
    /// one runs and answered within its short wait (`replace_in_file`, `edit_lines`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<EditDiagnostics>,
}

impl FileWritten {
    /// Adds what the workspace's edit watchers say of the written file.
    pub(crate) async fn with_diagnostics(mut self, ws: &Workspace) -> FileWritten {
        if !self.written {
            return self;
        }
        if let Ok(p) = ws.resolve(&self.path) {
            self.diagnostics = ws.edited(&[p]).await;
        }
        self
    }
}

impl Render for FileWritten {
    fn status(&self) -> Option<String> {
        Some(self.message.clone())
    }

    fn render(&self, _: &mut ResourcesTracker) -> Option<String> {
        let mut out = format!("{}; version: {}", self.message, self.version);
        if let Some(diff) = self.diff.as_deref().filter(|d| !d.is_empty()) {
            out.push('\n');
            out.push_str(diff);
        }
        out.push_str(&EditDiagnostics::render(&self.diagnostics));
        Some(out)
    }
}
