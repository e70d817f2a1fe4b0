//! The pipeline `grep` and `search` share: resolve the path, build the matcher, walk, scan
//! with early stop, pick the page, fetch its lines, and say what was found.

use std::time::Instant;

use tool_core::ToolError;

use super::config::SearchConfig;
use super::detail::{DetailSpec, matches_of};
use super::matcher::{self, Pattern, Stop, watched};
use super::results::{BUDGET_CUT, GrepResults, Skipped, SummaryOf, grouped, summary, walk_capped};
use super::scan::{ScanSpec, Unit, scan};
use super::walk::{Scope, WalkOptions, walk};
use crate::workspace::Workspace;

/// What `grep` (or `search`) shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Output {
    /// Matching lines with context.
    Content,
    /// Paths of files with matches.
    FilesWithMatches,
    /// Paths with their match counts.
    Count,
}

impl Output {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Output::Content => "content",
            Output::FilesWithMatches => "files_with_matches",
            Output::Count => "count",
        }
    }
}

/// A content search, as a tool call asks for it.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    /// `grep_results` or `file_search_results`.
    pub(crate) kind: &'static str,
    pub(crate) path: String,
    pub(crate) pattern: Pattern,
    pub(crate) walk: WalkOptions,
    pub(crate) output: Output,
    pub(crate) max_results: Option<usize>,
    pub(crate) offset: usize,
    pub(crate) before: usize,
    pub(crate) after: usize,
    /// Also list files whose path contains the pattern (the `search` tool).
    pub(crate) path_matches: bool,
}

/// Runs a content search (see the [module documentation](self)).
/// Runs `req` for a call on a blocking thread, with the call's cancellation, deadline,
/// progress reports and streamed findings: the body of `grep` and `search`.
pub(crate) async fn run_for(
    ctx: &tool_core::ToolContext,
    ws: std::sync::Arc<Workspace>,
    config: std::sync::Arc<SearchConfig>,
    req: Request,
) -> Result<GrepResults, ToolError> {
    let ctx = ctx.clone();
    let deadline = ctx.deadline();
    super::blocking(move || {
        let report = super::progress(&ctx);
        let found = super::stream(&ctx);
        run(
            &ws,
            &config,
            req,
            &|| ctx.is_cancelled(),
            &report,
            &found,
            deadline,
        )
    })
    .await
}

pub(crate) fn run(
    ws: &Workspace,
    config: &SearchConfig,
    req: Request,
    cancelled: &(dyn Fn() -> bool + Sync),
    report: matcher::Report<'_>,
    found: matcher::Found<'_>,
    deadline: Option<Instant>,
) -> Result<GrepResults, ToolError> {
    let matcher = matcher::build(&req.pattern, config)?;
    let scope = Scope::resolve(ws, &req.path)?;
    let max_results = req
        .max_results
        .unwrap_or(config.default_grep_results)
        .clamp(1, config.max_grep_results);
    let before = req.before.min(config.max_context);
    let after = req.after.min(config.max_context);
    let mut walk_opts = req.walk.clone();
    walk_opts.max_files = config.max_files_scanned;
    walk_opts.threads = config.thread_count();
    let root = ws.roots()[scope.path.root()].dir();
    let stop = Stop::default();
    let until = matcher::soft_deadline(deadline);
    watched(&stop, cancelled, until, report, || {
        let walked = walk(ws, &scope, &walk_opts, &stop, None)?;
        let shown_of = |i: usize| {
            ws.make(scope.path.root(), walked.files[i].rel.clone())
                .to_string()
        };
        let unit = match req.output {
            Output::Content => Unit::Matches,
            Output::FilesWithMatches => Unit::Files,
            Output::Count => Unit::CountedFiles,
        };
        let need = (req.offset.saturating_add(max_results)) as u64;
        let scanned = scan(&ScanSpec {
            root,
            files: &walked.files,
            matcher: &matcher,
            multiline: req.pattern.multiline,
            unit,
            need,
            max_file_bytes: config.max_file_bytes,
            threads: walk_opts.threads,
            stop: &stop,
            found,
        });
        let exact = scanned.complete && !walked.capped;
        let total_files = scanned.hits.len() as u64;
        let total: u64 = scanned.hits.iter().map(|h| h.1).sum();
        let mut matches = Vec::new();
        let mut files = Vec::new();
        let mut counts = std::collections::BTreeMap::new();
        let mut budget_cut = false;
        let shown;
        let window_end = req.offset.saturating_add(max_results);
        match req.output {
            Output::Content => {
                let spec = DetailSpec {
                    root,
                    matcher: &matcher,
                    stop: &stop,
                    multiline: req.pattern.multiline,
                    before,
                    after,
                    max_line_chars: config.max_line_chars,
                    max_file_bytes: config.max_file_bytes,
                };
                let mut buf = Vec::new();
                let mut used = 0usize;
                let mut at = 0usize;
                'files: for &(i, count) in &scanned.hits {
                    let count = usize::try_from(count).unwrap_or(usize::MAX);
                    let (from, to) = (at, at.saturating_add(count));
                    at = to;
                    if to <= req.offset {
                        continue;
                    }
                    if from >= window_end {
                        break;
                    }
                    let skip = req.offset.saturating_sub(from);
                    let take = to.min(window_end) - from.max(req.offset);
                    for m in matches_of(
                        &spec,
                        &walked.files[i].rel,
                        &shown_of(i),
                        skip,
                        take,
                        &mut buf,
                    ) {
                        let cost = m.text.len()
                            + m.path.len()
                            + m.before
                                .iter()
                                .chain(&m.after)
                                .map(|c| c.text.len() + 8)
                                .sum::<usize>()
                            + 16;
                        if used + cost > config.max_output_chars && !matches.is_empty() {
                            budget_cut = true;
                            break 'files;
                        }
                        used += cost;
                        matches.push(m);
                    }
                }
                shown = matches.len();
            }
            Output::FilesWithMatches | Output::Count => {
                for &(i, count) in scanned.hits.iter().skip(req.offset).take(max_results) {
                    if req.output == Output::Count {
                        counts.insert(shown_of(i), count);
                    } else {
                        files.push(shown_of(i));
                    }
                }
                shown = files.len() + counts.len();
            }
        }
        let units = match req.output {
            Output::Content => total,
            _ => total_files,
        };
        let next = req.offset + shown;
        let next_offset = ((next as u64) < units || (!exact && shown > 0)).then_some(next);
        let path_matches = req.path_matches.then(|| {
            walked
                .files
                .iter()
                .filter(|c| {
                    let rel = c.rel.as_os_str().as_encoded_bytes();
                    grep_matcher::Matcher::is_match(&matcher, rel).unwrap_or(false)
                })
                .take(max_results)
                .map(|c| ws.make(scope.path.root(), c.rel.clone()).to_string())
                .collect::<Vec<_>>()
        });
        let skipped = Skipped {
            binary: scanned.binary,
            too_large: scanned.too_large,
            unreadable: scanned.unreadable,
        };
        let interrupted = stop.interrupted().then(|| {
            format!(
                "The search stopped at the call's deadline after {} of {} files; results are partial. Narrow the path, glob or file_type, or simplify the pattern.",
                scanned.searched + scanned.binary + scanned.too_large + scanned.unreadable,
                walked.files.len()
            )
        });
        let what = format!("`{}` in `{}`", req.pattern.text, scope.path);
        let mut text = summary(&SummaryOf {
            what: &what,
            mode: req.output.name(),
            total_matches: (req.output != Output::FilesWithMatches).then_some(total),
            total_files,
            exact,
            offset: req.offset,
            shown,
            next_offset,
            skipped: &skipped,
            max_file_bytes: config.max_file_bytes,
            interrupted: interrupted.is_some(),
            budget_cut,
        });
        let mut notes = Vec::new();
        if budget_cut {
            notes.push(BUDGET_CUT.to_owned());
        }
        if walked.capped {
            let capped = walk_capped(config.max_files_scanned);
            text.push(' ');
            text.push_str(&capped);
            notes.push(capped);
        }
        if let Some(paths) = &path_matches {
            let q = &req.pattern.text;
            let lead = match paths.len() {
                0 => format!("No file path contains `{q}`."),
                1 => format!("1 file path contains `{q}`."),
                n => format!("{n} file paths contain `{q}`."),
            };
            text = format!("{lead} {text}");
        }
        Ok(GrepResults {
            r#type: req.kind,
            matches: grouped(&matches),
            files,
            counts,
            path_matches,
            total_matches: (req.output != Output::FilesWithMatches).then_some(total),
            total_files,
            exact,
            offset: req.offset,
            next_offset,
            skipped,
            interrupted,
            note: (!notes.is_empty()).then(|| notes.join(" ")),
            summary: text,
            context: before > 0 || after > 0,
        })
    })
}
