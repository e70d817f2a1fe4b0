//! `glob`: find files by name pattern (seed 003's Decision 2), on the same walk as `grep`:
//! ripgrep's `--files -g` semantics, `.gitignore` and hidden-file rules, sorted by path or by
//! modification time.

use serde::Serialize;
use tool_core::{Render, ResourcesTracker, ToolContext, ToolError, ToolResult};
use tool_macros::{Action, tool};

use super::blocking;
use super::config::SearchConfig;
use super::matcher::{self, Stop, watched};
use super::walk::{Scope, WalkOptions, walk};
use crate::workspace::Workspace;

/// How `glob` orders its files.
#[derive(Action, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GlobSort {
    /// By path (default).
    Path,
    /// Most recently modified first.
    Modified,
}

/// The answer of `glob`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct GlobResults {
    /// Always `glob_results`.
    pub r#type: &'static str,
    /// The pattern (for the status line; the caller has it).
    #[serde(skip)]
    pub(crate) pattern: String,
    /// The files shown, as the model writes paths.
    pub files: Vec<String>,
    /// Files that match.
    pub total: usize,
    /// Whether `total` is exact (`false` when the walk stopped at the deadline or its file cap).
    pub exact: bool,
    /// The offset of the first file shown (absent for 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub offset: usize,
    /// The offset that shows the next files, when there are more.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<usize>,
    /// What was found and shown, and how to see more.
    pub summary: String,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Render for GlobResults {
    fn status(&self) -> Option<String> {
        Some(format!(
            "Found {} files matching {}",
            self.total, self.pattern
        ))
    }

    fn render(&self, _: &mut ResourcesTracker) -> Option<String> {
        let mut out = String::new();
        for f in &self.files {
            out.push_str(f);
            out.push('\n');
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&self.summary);
        out.push('\n');
        Some(out)
    }
}

/// Find files by glob pattern.
#[tool(
    name = "glob",
    description_file = "src/search/glob.md",
    category = "search",
    toolsets(search),
    permissions(read_files),
    read_only
)]
#[allow(clippy::too_many_arguments)]
pub async fn glob(
    ctx: &ToolContext,
    /// e.g. "**/*.tsx", "src/**/*.test.ts"; a leading ! excludes.
    pattern: String,
    /// Directory (`project:path` for another project).
    #[param(default = ".")]
    path: String,
    /// Globs to leave out: ["node_modules", "dist/**"].
    exclude: Option<Vec<String>>,
    /// Default 100, at most 5000.
    max_results: Option<usize>,
    /// path (default) or modified (newest first).
    sort: Option<GlobSort>,
    /// Files to skip.
    #[param(default)]
    offset: usize,
    /// Include dot files.
    #[param(default)]
    include_hidden: bool,
    /// Skip what .gitignore ignores.
    #[param(default = true)]
    respect_gitignore: bool,
) -> ToolResult<GlobResults> {
    let ws = ctx.require_service::<Workspace>()?;
    let config = SearchConfig::of(ctx);
    let q = GlobQuery {
        pattern,
        path,
        exclude: exclude.unwrap_or_default(),
        max_results,
        sort: sort.unwrap_or(GlobSort::Path),
        offset,
        include_hidden,
        respect_gitignore,
    };
    let ctx = ctx.clone();
    let deadline = ctx.deadline();
    blocking(move || {
        let report = super::progress(&ctx);
        let found = super::stream(&ctx);
        find(
            &ws,
            &config,
            &q,
            &|| ctx.is_cancelled(),
            &report,
            &found,
            deadline,
        )
    })
    .await
}

/// A `glob` call's parameters.
#[derive(Debug, Clone)]
struct GlobQuery {
    pattern: String,
    path: String,
    exclude: Vec<String>,
    max_results: Option<usize>,
    sort: GlobSort,
    offset: usize,
    include_hidden: bool,
    respect_gitignore: bool,
}

fn find(
    ws: &Workspace,
    config: &SearchConfig,
    q: &GlobQuery,
    cancelled: &(dyn Fn() -> bool + Sync),
    report: matcher::Report<'_>,
    found: matcher::Found<'_>,
    deadline: Option<std::time::Instant>,
) -> Result<GlobResults, ToolError> {
    let pattern = q.pattern.trim();
    if pattern.is_empty() || pattern == "!" {
        return Err(ToolError::validation("the glob pattern is empty")
            .with_suggestion(r#"Example: {"pattern": "**/*.rs"}"#));
    }
    let scope = Scope::resolve(ws, &q.path)?;
    if scope.is_file {
        return Err(ToolError::user(format!(
            "`{}` is a file; glob searches a directory (give its parent as path)",
            q.path
        )));
    }
    let mut globs = vec![pattern.to_owned()];
    for e in &q.exclude {
        let e = e.trim();
        if e.is_empty() {
            continue;
        }
        globs.push(if e.starts_with('!') {
            e.to_owned()
        } else {
            format!("!{e}")
        });
    }
    let opts = WalkOptions {
        include_hidden: q.include_hidden,
        respect_ignore: q.respect_gitignore,
        file_type: None,
        globs,
        modified: q.sort == GlobSort::Modified,
        max_files: config.max_files_scanned,
        threads: config.thread_count(),
    };
    let max = q
        .max_results
        .unwrap_or(config.default_glob_results)
        .clamp(1, config.max_glob_results);
    let stop = Stop::default();
    let root = ws.roots()[scope.path.root()].dir();
    // A name is streamed only once its directory is checked beneath the root's handle, as
    // the answer's names are below: a directory swapped for a link while the walk runs cannot
    // have a name from outside the root shown.
    let checked_found = |rel: &std::path::Path, count: u64| {
        let dir = rel.parent().unwrap_or(std::path::Path::new(""));
        if dir.as_os_str().is_empty() || root.symlink_metadata(dir).is_ok_and(|m| m.is_dir()) {
            found(rel, count);
        }
    };
    let walked = watched(
        &stop,
        cancelled,
        matcher::soft_deadline(deadline),
        report,
        || walk(ws, &scope, &opts, &stop, Some(&checked_found)),
    )?;
    let mut files = walked.files;
    if q.sort == GlobSort::Modified {
        files.sort_by(|a, b| b.modified.cmp(&a.modified).then_with(|| a.rel.cmp(&b.rel)));
    }
    let total = files.len();
    // The walker reads directories by host path. Each directory of a file shown is checked
    // again beneath the root's handle (once per directory): a directory swapped for a link
    // while the walk ran cannot have a name from outside the root listed.
    let mut checked: Option<(&std::path::Path, bool)> = None;
    let shown: Vec<String> = files
        .iter()
        .skip(q.offset)
        .take(max)
        .filter(|c| {
            let dir = c.rel.parent().unwrap_or(std::path::Path::new(""));
            match checked {
                Some((d, ok)) if d == dir => ok,
                _ => {
                    let ok = dir.as_os_str().is_empty()
                        || root.symlink_metadata(dir).is_ok_and(|m| m.is_dir());
                    checked = Some((dir, ok));
                    ok
                }
            }
        })
        .map(|c| ws.make(scope.path.root(), c.rel.clone()).to_string())
        .collect();
    let exact = !walked.capped && !stop.interrupted();
    let end = q.offset + shown.len();
    let next_offset = (end < total).then_some(end);
    let at_least = if exact { "" } else { "at least " };
    let mut summary = if total == 0 {
        format!("No files match `{pattern}` in `{}`.", scope.path)
    } else {
        let files_word = if total == 1 { "file" } else { "files" };
        let showing = if q.offset == 0 && next_offset.is_none() {
            String::new()
        } else if shown.is_empty() {
            format!(", none shown at offset {}", q.offset)
        } else if q.offset == 0 {
            format!(", showing first {}", shown.len())
        } else {
            format!(", showing {}-{end}", q.offset + 1)
        };
        format!(
            "Found {at_least}{total} {files_word} matching `{pattern}` in `{}`{showing}.",
            scope.path
        )
    };
    if let Some(next) = next_offset {
        summary.push_str(&format!(
            " To see more, call again with offset: {next}, or narrow the pattern or path."
        ));
    }
    if stop.interrupted() {
        summary.push_str(" The walk stopped at the call's deadline; the list is partial.");
    } else if walked.capped {
        summary.push_str(&format!(
            " The walk stopped after {} files; search a subdirectory.",
            config.max_files_scanned
        ));
    }
    Ok(GlobResults {
        r#type: "glob_results",
        pattern: pattern.to_owned(),
        files: shown,
        total,
        exact,
        offset: q.offset,
        next_offset,
        summary,
    })
}
