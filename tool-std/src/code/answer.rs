//! What the `code` tool answers: [`CodeResults`], compact `path:line: text` lines as `grep`
//! answers them, with the same lines as structured items beside them, bounded and paged.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use lsp_types::Url;
use schemars::JsonSchema;
use serde::Serialize;
use tool_core::{Render, ResourcesTracker, ToolError};

use super::source::{Source, char_column, cut, path_of};
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
/// line's text read through the workspace. The files cited are read first, each once, several
/// together off the async threads ([`Places::read`]); the file given to the server is not
/// read again, its text is the one the server answered about. A file the workspace hides is
/// left out, and counted; a file outside the roots is named by its host path, without text.
pub(crate) struct Places<'a> {
    ws: &'a Workspace,
    max_line_chars: usize,
    /// The cited files by host path: `None` for one that could not be read (hidden,
    /// protected, gone).
    files: HashMap<PathBuf, Option<Cited<'a>>>,
    /// Places in hidden files, left out.
    pub(crate) hidden: usize,
}

/// A cited file: its path as shown and its text.
struct Cited<'a> {
    shown: String,
    text: Cow<'a, str>,
    /// Where each line starts in `text`, found when a line is first asked for.
    starts: OnceCell<Vec<usize>>,
}

impl<'a> Cited<'a> {
    fn new(shown: String, text: Cow<'a, str>) -> Self {
        Cited {
            shown,
            text,
            starts: OnceCell::new(),
        }
    }

    /// Line `i` (0-based) without its line end (`\n`, or `\r\n`); empty past the end.
    fn line(&self, i: usize) -> &str {
        let starts = self.starts.get_or_init(|| {
            std::iter::once(0)
                .chain(self.text.match_indices('\n').map(|(at, _)| at + 1))
                .collect()
        });
        let Some(&start) = starts.get(i) else {
            return "";
        };
        let end = starts.get(i + 1).map_or(self.text.len(), |next| next - 1);
        let line = &self.text[start..end];
        line.strip_suffix('\r').unwrap_or(line)
    }
}

/// The most files one answer reads lines from; past it lines are shown without text.
const MAX_FILES_READ: usize = 200;

/// The most files an answer reads in place, on the async thread. A trip to the blocking
/// threads costs more than reading one source file (about 25 µs against 20 µs on 2 shared
/// cores, and much more when the cores are busy), so a single file is read in place; more
/// go to the blocking threads together.
const READ_IN_PLACE: usize = 1;

impl<'a> Places<'a> {
    /// Reads the files of `uris` (the first [`MAX_FILES_READ`], each once): none when every
    /// place is in `given`, the file given to the server; one in place; more in one trip to
    /// the blocking threads.
    pub(crate) async fn read(
        ws: &'a Arc<Workspace>,
        max_file_bytes: u64,
        max_line_chars: usize,
        given: &'a Source,
        uris: impl IntoIterator<Item = &Url>,
    ) -> Result<Places<'a>, ToolError> {
        let mut files = HashMap::new();
        if let Some(host) = path_of(&given.uri) {
            let text = Cow::Borrowed(given.text.as_str());
            files.insert(host, Some(Cited::new(given.path.to_string(), text)));
        }
        let mut wanted: Vec<PathBuf> = Vec::new();
        for host in uris.into_iter().filter_map(path_of) {
            if files.len() + wanted.len() < MAX_FILES_READ
                && !files.contains_key(&host)
                && !wanted.contains(&host)
            {
                wanted.push(host);
            }
        }
        let others = if wanted.len() <= READ_IN_PLACE {
            read_all(ws, wanted, max_file_bytes)
        } else {
            let ws = ws.clone();
            tokio::task::spawn_blocking(move || read_all(&ws, wanted, max_file_bytes))
                .await
                .map_err(|e| {
                    ToolError::system(format!(
                        "reading the answer's files stopped unexpectedly: {e}"
                    ))
                })?
        };
        files.extend(others);
        Ok(Places {
            ws,
            max_line_chars,
            files,
            hidden: 0,
        })
    }

    /// The answer line of `uri` at `line` and `character` (0-based, UTF-16), with `text`
    /// in place of the source line when given; `None` when the place is hidden.
    pub(crate) fn item(
        &mut self,
        uri: &Url,
        line: u32,
        character: Option<u32>,
        text: Option<String>,
    ) -> Option<CodeItem> {
        let number = line as usize + 1;
        let Some(host) = path_of(uri) else {
            return Some(CodeItem {
                path: uri.to_string(),
                line: number,
                column: None,
                text: text.unwrap_or_default(),
            });
        };
        if let Some(Some(file)) = self.files.get(&host) {
            let source_line = file.line(line as usize);
            return Some(CodeItem {
                path: file.shown.clone(),
                line: number,
                column: character.map(|c| char_column(source_line, c)),
                text: text.unwrap_or_else(|| cut(source_line.trim(), self.max_line_chars)),
            });
        }
        let Some(p) = self.ws.from_host_path(&host) else {
            return Some(CodeItem {
                path: host.display().to_string(),
                line: number,
                column: None,
                text: text.unwrap_or_else(|| "(outside the roots)".to_owned()),
            });
        };
        // Past the files read, one tools may read is shown without its text; one read and
        // refused (hidden, protected, gone) is left out.
        let unread = !self.files.contains_key(&host);
        if unread && self.ws.check_readable(&p).is_ok() {
            return Some(CodeItem {
                path: p.to_string(),
                line: number,
                column: None,
                text: text.unwrap_or_default(),
            });
        }
        self.hidden += 1;
        None
    }
}

/// The files of `hosts`, each as [`read_cited`] reads it (blocking).
fn read_all(
    ws: &Workspace,
    hosts: Vec<PathBuf>,
    max_file_bytes: u64,
) -> Vec<(PathBuf, Option<Cited<'static>>)> {
    hosts
        .into_iter()
        .map(|host| {
            let cited = read_cited(ws, &host, max_file_bytes);
            (host, cited)
        })
        .collect()
}

/// A file of the roots the workspace lets tools read, as shown and its text (blocking).
fn read_cited(ws: &Workspace, host: &Path, max_file_bytes: u64) -> Option<Cited<'static>> {
    let p = ws.from_host_path(host).or_else(|| {
        std::fs::canonicalize(host)
            .ok()
            .and_then(|c| ws.from_host_path(&c))
    })?;
    let opened = ws.open_file(&p).ok()?;
    let size = opened.info.len.min(max_file_bytes);
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0).saturating_add(1));
    (&opened.file)
        .take(max_file_bytes)
        .read_to_end(&mut bytes)
        .ok()?;
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    };
    Some(Cited::new(p.to_string(), Cow::Owned(text)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cited_lines_are_split_as_source_lines_are() {
        let text = "int a;\r\n\nint b;\nlast";
        let cited = Cited::new("x.c".into(), Cow::Borrowed(text));
        let split: Vec<&str> = super::super::source::lines(text).collect();
        for (i, line) in split.iter().enumerate() {
            assert_eq!(cited.line(i), *line, "line {i}");
        }
        assert_eq!(cited.line(split.len()), "");
        let ended = Cited::new("y.c".into(), Cow::Borrowed("a\n"));
        assert_eq!((ended.line(0), ended.line(1), ended.line(2)), ("a", "", ""));
    }

    #[tokio::test]
    async fn places_take_the_given_text_read_the_others_and_leave_hidden_ones_out() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let files = [
            ("main.c", "int main(void) {\n  return add(1, 2);\n}\n"),
            ("util.c", "int add(int a, int b) {\n  return a + b;\n}\n"),
            ("secret.c", "int key;\n"),
        ];
        for (name, text) in files {
            std::fs::write(root.join(name), text).unwrap();
        }
        let ws = Arc::new(Workspace::builder().root("main", &root).build().unwrap());
        ws.hide(&["secret.c".to_owned()]).unwrap();
        let uri = |name: &str| Url::from_file_path(root.join(name)).unwrap();
        // The server was given a text the disk no longer has: the answer shows that one.
        let given = Source {
            path: ws.resolve("main.c").unwrap(),
            shown: "main.c".into(),
            uri: uri("main.c"),
            language: "c".into(),
            text: "int main(void) {\n  return add(3, 4);\n}\n".into(),
        };
        let outside = Url::from_file_path("/nowhere/x.c").unwrap();
        let cited = [
            uri("util.c"),
            uri("secret.c"),
            outside.clone(),
            uri("util.c"),
        ];
        let mut places = Places::read(&ws, 1 << 20, 300, &given, &cited)
            .await
            .unwrap();
        let main = places.item(&uri("main.c"), 1, Some(9), None).unwrap();
        assert_eq!(
            (
                main.path.as_str(),
                main.line,
                main.column,
                main.text.as_str()
            ),
            ("main.c", 2, Some(10), "return add(3, 4);")
        );
        let util = places.item(&uri("util.c"), 0, Some(4), None).unwrap();
        assert_eq!(
            (util.path.as_str(), util.column, util.text.as_str()),
            ("util.c", Some(5), "int add(int a, int b) {")
        );
        assert!(places.item(&uri("secret.c"), 0, Some(4), None).is_none());
        assert_eq!(places.hidden, 1);
        let far = places.item(&outside, 0, Some(0), None).unwrap();
        assert_eq!(
            (far.path.as_str(), far.text.as_str()),
            ("/nowhere/x.c", "(outside the roots)")
        );
    }
}
