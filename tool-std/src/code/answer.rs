//! What the `code` tool answers: [`CodeResults`], compact `path:line: text` lines as `grep`
//! answers them, with the same lines as structured items beside them, bounded and paged.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Serialize;
use tool_core::{Render, ResourcesTracker};

use super::source::{char_column, cut, lines, path_of};
use crate::workspace::Workspace;

/// One line of an answer: a place in a file and what is there.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema)]
#[non_exhaustive]
pub struct CodeItem {
    /// The file, as the model writes paths (an absolute path for a file outside the roots).
    pub path: String,
    /// The line (1-based).
    pub line: usize,
    /// The column (1-based, characters), when it matters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// What the text shows after `path:line: `: the source line, a symbol's kind and name,
    /// a diagnostic's severity and message.
    pub text: String,
}

/// The answer of the `code` tool (`type: "code_results"`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[non_exhaustive]
pub struct CodeResults {
    /// Always `code_results`.
    pub r#type: &'static str,
    /// The action answered.
    pub action: &'static str,
    /// The lines shown (`path:line: text` in the text).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub results: Vec<CodeItem>,
    /// Lines found in all.
    pub total: usize,
    /// The offset of the first line shown (absent for 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub offset: usize,
    /// The offset that shows the next lines, when there are more.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<usize>,
    /// The hover text (`hover`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hover: Option<String>,
    /// The language server that answered.
    pub server: String,
    /// What else the model should know (a restarted server, results left out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The text's last line: what was found and how to see more.
    #[serde(skip)]
    pub summary: String,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl CodeResults {
    /// An answer of `action` by `server` showing `items` from `offset`, at most `max`.
    pub(crate) fn paged(
        action: &'static str,
        server: &str,
        mut items: Vec<CodeItem>,
        offset: usize,
        max: usize,
        what: &str,
    ) -> CodeResults {
        let total = items.len();
        let shown: Vec<CodeItem> = items.drain(..).skip(offset).take(max).collect();
        let next_offset = (offset + shown.len() < total).then_some(offset + shown.len());
        let mut summary = match (total, shown.len()) {
            (0, _) => format!("No {what}."),
            (t, n) if n == t => format!("Found {t} {what}."),
            (t, 0) => format!("Found {t} {what}, none shown at offset {offset}."),
            (t, n) if offset == 0 => format!("Found {t} {what}, showing first {n}."),
            (t, n) => format!("Found {t} {what}, showing {}-{}.", offset + 1, offset + n),
        };
        if let Some(next) = next_offset {
            summary.push_str(&format!(" To see more, call again with offset: {next}."));
        }
        CodeResults {
            r#type: "code_results",
            action,
            results: shown,
            total,
            offset,
            next_offset,
            hover: None,
            server: server.to_owned(),
            note: None,
            summary,
        }
    }

    /// Adds a sentence to the note.
    pub(crate) fn note(mut self, sentence: Option<String>) -> CodeResults {
        if let Some(s) = sentence {
            self.note = Some(match self.note.take() {
                Some(n) => format!("{n} {s}"),
                None => s,
            });
        }
        self
    }
}

impl Render for CodeResults {
    fn status(&self) -> Option<String> {
        Some(self.summary.trim_end_matches('.').to_owned())
    }

    fn render(&self, _: &mut ResourcesTracker) -> Option<String> {
        let mut out = String::new();
        for item in &self.results {
            out.push_str(&format!("{}:{}: {}\n", item.path, item.line, item.text));
        }
        if let Some(hover) = &self.hover {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(hover.trim_end());
            out.push('\n');
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&self.summary);
        if let Some(note) = &self.note {
            out.push(' ');
            out.push_str(note);
        }
        out.push('\n');
        Some(out)
    }
}

/// Places in files turned into answer lines: paths as the model writes them, the source
/// line's text read through the workspace (each file once). A file the workspace hides is
/// left out, and counted; a file outside the roots is named by its host path, without text.
pub(crate) struct Places<'a> {
    ws: &'a Workspace,
    max_file_bytes: u64,
    max_line_chars: usize,
    files: HashMap<PathBuf, Option<(String, Vec<String>)>>,
    /// Places in hidden files, left out.
    pub(crate) hidden: usize,
}

/// The most files one answer reads lines from; past it lines are shown without text.
const MAX_FILES_READ: usize = 200;

impl<'a> Places<'a> {
    pub(crate) fn new(ws: &'a Workspace, max_file_bytes: u64, max_line_chars: usize) -> Self {
        Places {
            ws,
            max_file_bytes,
            max_line_chars,
            files: HashMap::new(),
            hidden: 0,
        }
    }

    /// The answer line of `uri` at `line` and `character` (0-based, UTF-16), with `text`
    /// in place of the source line when given; `None` when the place is hidden.
    pub(crate) fn item(
        &mut self,
        uri: &lsp_types::Url,
        line: u32,
        character: Option<u32>,
        text: Option<String>,
    ) -> Option<CodeItem> {
        let max_line_chars = self.max_line_chars;
        let Some(host) = path_of(uri) else {
            return Some(CodeItem {
                path: uri.to_string(),
                line: line as usize + 1,
                column: None,
                text: text.unwrap_or_default(),
            });
        };
        let file = self.file(&host);
        let Some(file) = file else {
            if self.ws.from_host_path(&host).is_some() {
                self.hidden += 1;
                return None;
            }
            return Some(CodeItem {
                path: host.display().to_string(),
                line: line as usize + 1,
                column: None,
                text: text.unwrap_or_else(|| "(outside the roots)".to_owned()),
            });
        };
        let source_line = file.1.get(line as usize).map(String::as_str).unwrap_or("");
        let column = character.map(|c| char_column(source_line, c));
        let text = text.unwrap_or_else(|| cut(source_line.trim(), max_line_chars));
        Some(CodeItem {
            path: file.0.clone(),
            line: line as usize + 1,
            column,
            text,
        })
    }

    /// The shown path and lines of a file in the roots the workspace lets tools read.
    fn file(&mut self, host: &Path) -> Option<&(String, Vec<String>)> {
        if !self.files.contains_key(host) {
            let read = if self.files.len() < MAX_FILES_READ {
                self.read(host)
            } else {
                None
            };
            self.files.insert(host.to_path_buf(), read);
        }
        self.files.get(host).and_then(Option::as_ref)
    }

    fn read(&self, host: &Path) -> Option<(String, Vec<String>)> {
        let p = self.ws.from_host_path(host).or_else(|| {
            std::fs::canonicalize(host)
                .ok()
                .and_then(|c| self.ws.from_host_path(&c))
        })?;
        let opened = self.ws.open_file(&p).ok()?;
        let mut bytes = Vec::new();
        (&opened.file)
            .take(self.max_file_bytes)
            .read_to_end(&mut bytes)
            .ok()?;
        let text = String::from_utf8_lossy(&bytes);
        Some((p.to_string(), lines(&text).map(str::to_owned).collect()))
    }
}
