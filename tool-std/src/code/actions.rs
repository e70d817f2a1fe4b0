//! The actions of the `code` tool: each a request to the file's server, its answer turned
//! into [`CodeResults`].

use std::time::{Duration, Instant};

use lsp_types::request::{
    CallHierarchyIncomingCalls, CallHierarchyOutgoingCalls, CallHierarchyPrepare,
    DocumentSymbolRequest, GotoDefinition, HoverRequest, References,
};
use lsp_types::{
    CallHierarchyIncomingCallsParams, CallHierarchyItem, CallHierarchyOutgoingCallsParams,
    CallHierarchyPrepareParams, Diagnostic, DiagnosticSeverity, DocumentSymbol,
    DocumentSymbolParams, DocumentSymbolResponse, GotoDefinitionParams, GotoDefinitionResponse,
    HoverContents, HoverParams, Location, MarkedString, Position, ReferenceContext,
    ReferenceParams, SymbolInformation, SymbolKind, TextDocumentIdentifier,
    TextDocumentPositionParams, Url,
};
use tool_core::ToolError;

use super::answer::{CodeItem, CodeResults, Places};
use super::call::{Call, Opened};
use super::source::{cut, position};

/// Where a position-taking action points.
pub(crate) struct At {
    pub(crate) path: String,
    pub(crate) line: usize,
    pub(crate) symbol: Option<String>,
    pub(crate) column: Option<usize>,
}

/// Paging of an answer.
#[derive(Clone, Copy)]
pub(crate) struct Page {
    pub(crate) max_results: Option<usize>,
    pub(crate) offset: usize,
}

/// How long `diagnostics` waits for a server's first publication of a file.
const DIAGNOSTICS_WAIT: Duration = Duration::from_secs(10);

impl Call<'_> {
    fn max(&self, page: Page) -> Result<usize, ToolError> {
        let max = page.max_results.unwrap_or(self.config.default_results);
        if max == 0 || max > self.config.max_results {
            return Err(ToolError::validation(format!(
                "max_results is {max}; give 1 to {}",
                self.config.max_results
            )));
        }
        Ok(max)
    }

    /// The places of an answer: the files of `uris` read, `opened`'s text as given.
    pub(crate) async fn places<'u>(
        &'u self,
        opened: &'u Opened,
        uris: impl IntoIterator<Item = &Url>,
    ) -> Result<Places<'u>, ToolError> {
        let config = &self.config;
        Places::read(
            &self.ws,
            config.max_file_bytes,
            config.max_line_chars,
            &opened.source,
            uris,
        )
        .await
    }

    /// Opens `at.path` and finds the position; the protocol's form of it.
    async fn point(
        &mut self,
        at: &At,
    ) -> Result<(Opened, TextDocumentPositionParams, String), ToolError> {
        let source = self.load(&at.path).await?;
        let (pos, col) = position(&source, at.line, at.symbol.as_deref(), at.column)?;
        let place = match &at.symbol {
            Some(s) => format!("`{}` at {}:{}:{col}", s.trim(), source.shown, at.line),
            None => format!("{}:{}:{col}", source.shown, at.line),
        };
        let opened = self.give(source).await?;
        let params = TextDocumentPositionParams::new(
            TextDocumentIdentifier::new(opened.source.uri.clone()),
            pos,
        );
        Ok((opened, params, place))
    }

    pub(crate) fn finish(
        &self,
        action: &'static str,
        opened: &Opened,
        mut items: Vec<CodeItem>,
        page: Page,
        what: &str,
        hidden: usize,
    ) -> Result<CodeResults, ToolError> {
        items.sort();
        items.dedup();
        let hidden = (hidden > 0).then(|| {
            format!("{hidden} result(s) in files the host hides from tools were left out.")
        });
        Ok(CodeResults::paged(
            action,
            opened.server.key.program(),
            items,
            page.offset,
            self.max(page)?,
            what,
        )
        .note(hidden)
        .note(self.notes()))
    }

    /// `definition`.
    pub(crate) async fn definition(&mut self, at: At) -> Result<CodeResults, ToolError> {
        let (mut opened, pos, place) = self.point(&at).await?;
        let answer = self
            .ask::<GotoDefinition>(&mut opened, |_| GotoDefinitionParams {
                text_document_position_params: pos.clone(),
                work_done_progress_params: Default::default(),
                partial_result_params: Default::default(),
            })
            .await?;
        let locations: Vec<(lsp_types::Url, Position)> = match answer {
            None => Vec::new(),
            Some(GotoDefinitionResponse::Scalar(l)) => vec![(l.uri, l.range.start)],
            Some(GotoDefinitionResponse::Array(ls)) => {
                ls.into_iter().map(|l| (l.uri, l.range.start)).collect()
            }
            Some(GotoDefinitionResponse::Link(ls)) => ls
                .into_iter()
                .map(|l| (l.target_uri, l.target_selection_range.start))
                .collect(),
        };
        let mut places = self
            .places(&opened, locations.iter().map(|(u, _)| u))
            .await?;
        let items: Vec<CodeItem> = locations
            .iter()
            .filter_map(|(u, p)| places.item(u, p.line, Some(p.character), None))
            .collect();
        let hidden = places.hidden;
        let what = format!("definition(s) of {place}");
        self.finish(
            "definition",
            &opened,
            items,
            Page {
                max_results: None,
                offset: 0,
            },
            &what,
            hidden,
        )
    }

    /// `references`.
    pub(crate) async fn references(
        &mut self,
        at: At,
        page: Page,
    ) -> Result<CodeResults, ToolError> {
        let (mut opened, pos, place) = self.point(&at).await?;
        let answer = self
            .ask::<References>(&mut opened, |_| ReferenceParams {
                text_document_position: pos.clone(),
                context: ReferenceContext {
                    include_declaration: true,
                },
                work_done_progress_params: Default::default(),
                partial_result_params: Default::default(),
            })
            .await?
            .unwrap_or_default();
        let (items, hidden) = self.locations(&opened, &answer).await?;
        let what = format!("reference(s) to {place}");
        self.finish("references", &opened, items, page, &what, hidden)
    }

    async fn locations(
        &self,
        opened: &Opened,
        locations: &[Location],
    ) -> Result<(Vec<CodeItem>, usize), ToolError> {
        let mut places = self
            .places(opened, locations.iter().map(|l| &l.uri))
            .await?;
        let items = locations
            .iter()
            .filter_map(|l| {
                places.item(
                    &l.uri,
                    l.range.start.line,
                    Some(l.range.start.character),
                    None,
                )
            })
            .collect();
        Ok((items, places.hidden))
    }

    /// `hover`.
    pub(crate) async fn hover(&mut self, at: At) -> Result<CodeResults, ToolError> {
        let (mut opened, pos, place) = self.point(&at).await?;
        let answer = self
            .ask::<HoverRequest>(&mut opened, |_| HoverParams {
                text_document_position_params: pos.clone(),
                work_done_progress_params: Default::default(),
            })
            .await?;
        let text = answer.map(|h| hover_text(h.contents)).unwrap_or_default();
        let text = cut(text.trim(), self.config.max_hover_chars);
        let found = !text.is_empty();
        let mut results = self.finish(
            "hover",
            &opened,
            Vec::new(),
            Page {
                max_results: None,
                offset: 0,
            },
            "",
            0,
        )?;
        results.total = usize::from(found);
        results.summary = if found {
            format!("Hover for {place}.")
        } else {
            format!("The server has nothing to show for {place}.")
        };
        results.hover = found.then_some(text);
        Ok(results)
    }

    /// `symbols` of one file.
    pub(crate) async fn symbols(
        &mut self,
        path: String,
        page: Page,
    ) -> Result<CodeResults, ToolError> {
        let mut opened = self.open(&path).await?;
        let answer = self
            .ask::<DocumentSymbolRequest>(&mut opened, |o| DocumentSymbolParams {
                text_document: TextDocumentIdentifier::new(o.source.uri.clone()),
                work_done_progress_params: Default::default(),
                partial_result_params: Default::default(),
            })
            .await?;
        let uri = opened.source.uri.clone();
        let cited: Vec<&Url> = match &answer {
            Some(DocumentSymbolResponse::Flat(list)) => {
                list.iter().map(|s| &s.location.uri).collect()
            }
            _ => Vec::new(),
        };
        let mut places = self.places(&opened, cited).await?;
        let mut items = Vec::new();
        match answer {
            None => {}
            Some(DocumentSymbolResponse::Flat(list)) => {
                items.extend(list.iter().filter_map(|s| flat_symbol(&mut places, s)));
            }
            Some(DocumentSymbolResponse::Nested(list)) => {
                let mut flat = Vec::new();
                flatten(&list, "", &mut flat, 0);
                for (s, container) in flat {
                    let text = symbol_text(s.kind, &s.name, Some(&container), s.detail.as_deref());
                    let at = s.selection_range.start;
                    items.extend(places.item(&uri, at.line, Some(at.character), Some(text)));
                }
            }
        }
        let hidden = places.hidden;
        let what = format!("symbol(s) in {}", opened.source.shown);
        self.finish("symbols", &opened, items, page, &what, hidden)
    }

    /// `diagnostics` of one file: what its server publishes for it now.
    pub(crate) async fn diagnostics(
        &mut self,
        path: String,
        page: Page,
    ) -> Result<CodeResults, ToolError> {
        let opened = self.open(&path).await?;
        let until = self.deadline.min(Instant::now() + DIAGNOSTICS_WAIT);
        let current = (!opened.sent)
            .then(|| opened.server.published.of(&opened.source.uri))
            .flatten();
        let found = match current {
            Some(c) => Some(c.diagnostics),
            None => {
                opened
                    .server
                    .diagnostics_after(&opened.source.uri, opened.before, opened.version, until)
                    .await
            }
        };
        let waited = found.is_none();
        let mut places = self.places(&opened, []).await?;
        let items: Vec<CodeItem> = found
            .unwrap_or_default()
            .iter()
            .filter_map(|d| {
                let at = d.range.start;
                places.item(
                    &opened.source.uri,
                    at.line,
                    Some(at.character),
                    Some(diagnostic_text(d, self.config.max_line_chars)),
                )
            })
            .collect();
        let what = format!("diagnostic(s) in {}", opened.source.shown);
        let mut results = self.finish("diagnostics", &opened, items, page, &what, 0)?;
        if waited {
            results = results.note(Some(format!(
                "The server published no diagnostics for the file within {} s; it may still be reading the project.",
                DIAGNOSTICS_WAIT.as_secs()
            )));
        }
        Ok(results)
    }

    /// `calls`: the callers (`incoming`) or callees (`outgoing`) of the function at `at`.
    pub(crate) async fn calls(
        &mut self,
        at: At,
        outgoing: bool,
        page: Page,
    ) -> Result<CodeResults, ToolError> {
        let (mut opened, pos, place) = self.point(&at).await?;
        let prepared = self
            .ask::<CallHierarchyPrepare>(&mut opened, |_| CallHierarchyPrepareParams {
                text_document_position_params: pos.clone(),
                work_done_progress_params: Default::default(),
            })
            .await?
            .unwrap_or_default();
        let mut found: Vec<(CallHierarchyItem, Vec<lsp_types::Range>)> = Vec::new();
        for item in prepared.into_iter().take(10) {
            if outgoing {
                let calls = self
                    .ask::<CallHierarchyOutgoingCalls>(&mut opened, |_| {
                        CallHierarchyOutgoingCallsParams {
                            item: item.clone(),
                            work_done_progress_params: Default::default(),
                            partial_result_params: Default::default(),
                        }
                    })
                    .await?
                    .unwrap_or_default();
                found.extend(calls.into_iter().map(|c| (c.to, Vec::new())));
            } else {
                let calls = self
                    .ask::<CallHierarchyIncomingCalls>(&mut opened, |_| {
                        CallHierarchyIncomingCallsParams {
                            item: item.clone(),
                            work_done_progress_params: Default::default(),
                            partial_result_params: Default::default(),
                        }
                    })
                    .await?
                    .unwrap_or_default();
                found.extend(calls.into_iter().map(|c| (c.from, c.from_ranges)));
            }
        }
        let mut places = self
            .places(&opened, found.iter().map(|(item, _)| &item.uri))
            .await?;
        let mut items = Vec::new();
        for (item, ranges) in &found {
            let who = symbol_text(item.kind, &item.name, None, item.detail.as_deref());
            if ranges.is_empty() {
                let at = item.selection_range.start;
                items.extend(places.item(&item.uri, at.line, Some(at.character), Some(who)));
                continue;
            }
            for r in ranges {
                let call_site = places.item(&item.uri, r.start.line, Some(r.start.character), None);
                items.extend(call_site.map(|mut c| {
                    c.text = format!("{} (in {who})", c.text);
                    c
                }));
            }
        }
        let hidden = places.hidden;
        let what = if outgoing {
            format!("call(s) made by {place}")
        } else {
            format!("call(s) of {place}")
        };
        self.finish("calls", &opened, items, page, &what, hidden)
    }
}

/// A symbol of a flat list (`SymbolInformation`) as an item of the answer.
pub(crate) fn flat_symbol(places: &mut Places<'_>, s: &SymbolInformation) -> Option<CodeItem> {
    let text = symbol_text(s.kind, &s.name, s.container_name.as_deref(), None);
    let at = s.location.range.start;
    places.item(&s.location.uri, at.line, Some(at.character), Some(text))
}

/// A symbol as a line shows it: `function add`, `method Circle.area: (self) -> float`.
pub(crate) fn symbol_text(
    kind: SymbolKind,
    name: &str,
    container: Option<&str>,
    detail: Option<&str>,
) -> String {
    let kind = format!("{kind:?}").to_lowercase().replace('_', " ");
    let name = match container.filter(|c| !c.is_empty()) {
        Some(c) => format!("{c}.{name}"),
        None => name.to_owned(),
    };
    match detail.map(str::trim).filter(|d| !d.is_empty()) {
        Some(d) => format!("{kind} {name}: {}", cut(d, 120)),
        None => format!("{kind} {name}"),
    }
}

/// Nested symbols, depth first, each with its parents' names (`Circle`, `Outer.Inner`); at
/// most 10,000 and 32 levels.
pub(crate) fn flatten<'a>(
    list: &'a [DocumentSymbol],
    container: &str,
    out: &mut Vec<(&'a DocumentSymbol, String)>,
    depth: usize,
) {
    for s in list {
        if out.len() >= 10_000 {
            return;
        }
        out.push((s, container.to_owned()));
        if let Some(children) = &s.children
            && depth < 32
        {
            let inner = if container.is_empty() {
                s.name.clone()
            } else {
                format!("{container}.{}", s.name)
            };
            flatten(children, &inner, out, depth + 1);
        }
    }
}

/// `error: message [source]` of a diagnostic.
pub(crate) fn diagnostic_text(d: &Diagnostic, max: usize) -> String {
    let severity = match d.severity {
        Some(DiagnosticSeverity::WARNING) => "warning",
        Some(DiagnosticSeverity::INFORMATION) => "info",
        Some(DiagnosticSeverity::HINT) => "hint",
        _ => "error",
    };
    let message = d.message.lines().next().unwrap_or("").trim();
    let source = d
        .source
        .as_deref()
        .map(|s| format!(" [{s}]"))
        .unwrap_or_default();
    cut(&format!("{severity}: {message}{source}"), max)
}

/// Whether a diagnostic is an error (one without a severity counts as one).
pub(crate) fn is_error(d: &Diagnostic) -> bool {
    d.severity.is_none_or(|s| s == DiagnosticSeverity::ERROR)
}

/// A hover's contents as text.
fn hover_text(contents: HoverContents) -> String {
    let marked = |m: MarkedString| match m {
        MarkedString::String(s) => s,
        MarkedString::LanguageString(l) => format!("```{}\n{}\n```", l.language, l.value),
    };
    match contents {
        HoverContents::Scalar(m) => marked(m),
        HoverContents::Array(list) => list
            .into_iter()
            .map(marked)
            .collect::<Vec<_>>()
            .join("\n\n"),
        HoverContents::Markup(m) => m.value,
    }
}
