//! `workspace_symbols`: a name looked for in a whole project, by the server's
//! `workspace/symbol`; for a server without it (pylsp), by the symbols of the project's files
//! of the language, each asked with `textDocument/documentSymbol` ([`MAX_FALLBACK_FILES`] at
//! most).

use std::time::{Duration, Instant};

use lsp_types::request::{DocumentSymbolRequest, WorkspaceSymbolRequest};
use lsp_types::{
    DocumentSymbolParams, DocumentSymbolResponse, OneOf, TextDocumentIdentifier, Url,
    WorkspaceSymbolParams, WorkspaceSymbolResponse,
};
use tool_core::ToolError;

use super::actions::{Page, flat_symbol, flatten, symbol_text};
use super::answer::{CodeItem, CodeResults};
use super::call::{Call, Opened};

/// The most files whose symbols are asked for when the server has no `workspace/symbol`.
pub const MAX_FALLBACK_FILES: usize = 100;

/// Entries looked at when looking for a project's files.
const MAX_WALK_ENTRIES: usize = 20_000;

/// Directory levels looked into.
const MAX_WALK_DEPTH: usize = 8;

/// Time kept before the deadline when going through files one by one.
const FALLBACK_MARGIN: Duration = Duration::from_secs(1);

impl Call<'_> {
    /// `workspace_symbols`: `query` in the project of `path` (a file of the language, or a
    /// directory with `language`).
    pub(crate) async fn workspace_symbols(
        &mut self,
        query: String,
        path: String,
        language: Option<String>,
        page: Page,
    ) -> Result<CodeResults, ToolError> {
        let mut opened = self.project_file(&path, language).await?;
        let supported = match &opened.server.capabilities.workspace_symbol_provider {
            None | Some(OneOf::Left(false)) => false,
            Some(_) => true,
        };
        let what = format!("symbol(s) matching `{query}`");
        if !supported {
            return self.by_files(&opened, &query, page, &what).await;
        }
        let answer = self
            .ask::<WorkspaceSymbolRequest>(&mut opened, |_| WorkspaceSymbolParams {
                query: query.clone(),
                work_done_progress_params: Default::default(),
                partial_result_params: Default::default(),
            })
            .await?;
        let cited: Vec<&Url> = match &answer {
            None => Vec::new(),
            Some(WorkspaceSymbolResponse::Flat(list)) => {
                list.iter().map(|s| &s.location.uri).collect()
            }
            Some(WorkspaceSymbolResponse::Nested(list)) => list
                .iter()
                .map(|s| match &s.location {
                    OneOf::Left(l) => &l.uri,
                    OneOf::Right(w) => &w.uri,
                })
                .collect(),
        };
        let mut places = self.places(&opened, cited).await?;
        let mut items = Vec::new();
        match answer {
            None => {}
            Some(WorkspaceSymbolResponse::Flat(list)) => {
                items.extend(list.iter().filter_map(|s| flat_symbol(&mut places, s)));
            }
            Some(WorkspaceSymbolResponse::Nested(list)) => {
                for s in list {
                    let text = symbol_text(s.kind, &s.name, s.container_name.as_deref(), None);
                    let (uri, at) = match &s.location {
                        OneOf::Left(l) => (&l.uri, Some(l.range.start)),
                        OneOf::Right(w) => (&w.uri, None),
                    };
                    let line = at.map_or(0, |p| p.line);
                    items.extend(places.item(uri, line, at.map(|p| p.character), Some(text)));
                }
            }
        }
        let hidden = places.hidden;
        self.finish("workspace_symbols", &opened, items, page, &what, hidden)
    }

    /// The symbols matching `query` (case-insensitively, in the name) of the project's files
    /// of the opened file's language, for a server without `workspace/symbol`.
    async fn by_files(
        &mut self,
        first: &Opened,
        query: &str,
        page: Page,
        what: &str,
    ) -> Result<CodeResults, ToolError> {
        let root = self.ws.roots()[first.source.path.root()].name().to_owned();
        let files = self
            .files_of(
                &format!("{root}:."),
                &first.source.language,
                MAX_FALLBACK_FILES,
            )
            .await?;
        let wanted = query.to_lowercase();
        let stop = self
            .deadline
            .checked_sub(FALLBACK_MARGIN)
            .unwrap_or(self.deadline);
        let mut items: Vec<CodeItem> = Vec::new();
        let mut hidden = 0;
        let mut searched = 0;
        for file in &files {
            if Instant::now() >= stop {
                break;
            }
            let Ok(mut opened) = self.open(file).await else {
                continue;
            };
            let answer = self
                .ask::<DocumentSymbolRequest>(&mut opened, |o| DocumentSymbolParams {
                    text_document: TextDocumentIdentifier::new(o.source.uri.clone()),
                    work_done_progress_params: Default::default(),
                    partial_result_params: Default::default(),
                })
                .await?;
            searched += 1;
            let mut places = self.places(&opened, []).await?;
            match answer {
                None => {}
                Some(DocumentSymbolResponse::Flat(list)) => {
                    let matching = list
                        .iter()
                        .filter(|s| s.name.to_lowercase().contains(&wanted));
                    items.extend(matching.filter_map(|s| flat_symbol(&mut places, s)));
                }
                Some(DocumentSymbolResponse::Nested(list)) => {
                    let mut flat = Vec::new();
                    flatten(&list, "", &mut flat, 0);
                    for (s, container) in flat {
                        if !s.name.to_lowercase().contains(&wanted) {
                            continue;
                        }
                        let text = symbol_text(s.kind, &s.name, Some(&container), None);
                        let at = s.selection_range.start;
                        items.extend(places.item(
                            &opened.source.uri,
                            at.line,
                            Some(at.character),
                            Some(text),
                        ));
                    }
                }
            }
            hidden += places.hidden;
        }
        let mut note = format!(
            "`{}` has no workspace/symbol, so the symbols of {searched} {} file(s) of the \
             project were searched",
            first.server.key.program(),
            first.source.language
        );
        if searched < files.len() || files.len() >= MAX_FALLBACK_FILES {
            note.push_str(&format!(
                " (at most {MAX_FALLBACK_FILES}, within the call's time; grep finds the rest)"
            ));
        }
        note.push('.');
        Ok(self
            .finish("workspace_symbols", first, items, page, what, hidden)?
            .note(Some(note)))
    }

    /// The file a `workspace_symbols` call opens to reach its project's server: `path`
    /// when it is a source file, else the first file of `language` under the directory.
    async fn project_file(
        &mut self,
        path: &str,
        language: Option<String>,
    ) -> Result<Opened, ToolError> {
        if self.config.language_for(path).is_some() {
            return self.open(path).await;
        }
        let language = language.ok_or_else(|| {
            ToolError::validation(
                "workspace_symbols needs a source file of the project as path (its language \
                 picks the server), or language with a directory",
            )
            .with_suggestion(
                r#"Example: code(action="workspace_symbols", query="parse", path="src/main.c")"#,
            )
        })?;
        let file = self.files_of(path, &language, 1).await?;
        match file.first() {
            Some(f) => self.open(f).await,
            None => Err(
                ToolError::user(format!("no {language} file found under `{path}`"))
                    .with_suggestion("Give a source file of the project as path."),
            ),
        }
    }

    /// At most `max` source files of `language` under the directory `dir`, by name,
    /// shallow ones first, hidden directories left out, as the model writes paths.
    async fn files_of(
        &self,
        dir: &str,
        language: &str,
        max: usize,
    ) -> Result<Vec<String>, ToolError> {
        let ws = self.ws.clone();
        let config = self.config.clone();
        let (dir, language) = (dir.to_owned(), language.to_owned());
        tokio::task::spawn_blocking(move || -> Result<Vec<String>, ToolError> {
            let p = ws.resolve(&dir)?;
            let host = ws.host_path(&ws.canonical(&p)?);
            let mut queue = std::collections::VecDeque::from([(host, 0)]);
            let (mut seen, mut found) = (0, Vec::new());
            while let Some((d, depth)) = queue.pop_front() {
                let Ok(read) = std::fs::read_dir(&d) else {
                    continue;
                };
                let mut entries: Vec<_> = read.flatten().collect();
                entries.sort_by_key(std::fs::DirEntry::file_name);
                for e in entries {
                    seen += 1;
                    if seen > MAX_WALK_ENTRIES || found.len() >= max {
                        return Ok(found);
                    }
                    let name = e.file_name().to_string_lossy().into_owned();
                    let Ok(kind) = e.file_type() else { continue };
                    if name.starts_with('.') || kind.is_symlink() {
                        continue;
                    }
                    if kind.is_dir() {
                        if depth < MAX_WALK_DEPTH {
                            queue.push_back((e.path(), depth + 1));
                        }
                    } else if config.language_for(&name).as_deref() == Some(&language)
                        && let Some(wp) = ws.from_host_path(&e.path())
                        && ws.check_readable(&wp).is_ok()
                    {
                        found.push(wp.to_string());
                    }
                }
            }
            Ok(found)
        })
        .await
        .map_err(|e| ToolError::system(format!("the search for source files stopped: {e}")))?
    }
}
