//! The walk: which files a search looks at.
//!
//! ripgrep's [`ignore`] walker, in parallel, rooted at the directory searched, with ripgrep's
//! rules and `--no-require-git`: `.gitignore`, `.ignore` and `.git/info/exclude` apply inside
//! and outside git repositories, hidden entries are left out, links are not followed (a link
//! is neither entered nor searched), and `glob` / `file_type` filters are ripgrep's `-g` /
//! `-t`. The host's global git excludes do not apply (they are not part of the workspace).
//!
//! Ignore rules never come from above the workspace root: the walker's own parent rules are
//! off, and the ignore files of the directories between the root and the searched directory
//! are read through the root's directory handle and applied to what the walker finds. (While
//! it sets up, `ignore` still opens the ignore files of every ancestor of the searched
//! directory, as ripgrep does; with parent rules off they are not used, and no file content
//! reaches the answer.) One difference from ripgrep follows: when a subdirectory is searched,
//! an entry that a rule above it ignores stays out even if a deeper ignore file re-includes
//! it with `!`; searched from the root, ripgrep's precedence holds exactly. Protected paths
//! (`.git`, `.env`) are left out unless the workspace makes them readable. Files are opened by the
//! searcher beneath the root's handle, never by a host path, so a directory swapped for a link
//! mid-walk cannot lead a read outside the root.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::SystemTime;

use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt, OpenOptionsSyncExt};
use cap_std::fs::OpenOptions;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::overrides::{Override, OverrideBuilder};
use ignore::types::{Types, TypesBuilder};
use ignore::{DirEntry, Match, ParallelVisitor, ParallelVisitorBuilder, WalkBuilder, WalkState};
use tool_core::ToolError;

use super::matcher::Stop;
use crate::workspace::{EntryKind, Workspace, WsPath};

/// The largest ignore file read.
const MAX_IGNORE_FILE_BYTES: u64 = 1024 * 1024;

/// What a call searches: a directory or one file, inside one root.
#[derive(Debug, Clone)]
pub(crate) struct Scope {
    /// The canonical path (links inside the root resolved).
    pub(crate) path: WsPath,
    /// Its host path.
    pub(crate) host: PathBuf,
    /// The root's host path.
    pub(crate) root_host: PathBuf,
    /// A single file rather than a directory.
    pub(crate) is_file: bool,
}

impl Scope {
    /// Resolves what the model wrote: a path outside the roots, through a link leading out,
    /// or protected is refused with the workspace's `security_error`; a missing one is
    /// `not_found`.
    pub(crate) fn resolve(ws: &Workspace, path: &str) -> Result<Scope, ToolError> {
        let p = ws.resolve(path)?;
        ws.check_readable(&p)?;
        let canonical = ws.canonical(&p)?;
        ws.check_readable(&canonical)?;
        let kind = ws.metadata(&canonical)?.map(|m| m.kind);
        let is_file = match kind {
            Some(EntryKind::Dir) => {
                ws.open_dir(&canonical)?;
                false
            }
            Some(EntryKind::File) => {
                ws.open_file(&canonical)?;
                true
            }
            _ => {
                return Err(ToolError::user(format!(
                    "`{path}` is not a regular file or a directory"
                )));
            }
        };
        let root_host = ws.roots()[canonical.root()].path().to_path_buf();
        Ok(Scope {
            host: ws.host_path(&canonical),
            path: canonical,
            root_host,
            is_file,
        })
    }
}

/// The walk's options.
#[derive(Debug, Clone, Default)]
pub(crate) struct WalkOptions {
    /// Hidden files and directories too.
    pub(crate) include_hidden: bool,
    /// `.gitignore`, `.ignore` and `.git/info/exclude` apply.
    pub(crate) respect_ignore: bool,
    /// An extension or a ripgrep type name.
    pub(crate) file_type: Option<String>,
    /// ripgrep `-g` globs, relative to the searched directory; `!` excludes.
    pub(crate) globs: Vec<String>,
    /// Record each file's modification time.
    pub(crate) modified: bool,
    /// Files looked at before the walk stops.
    pub(crate) max_files: usize,
    /// Walker threads.
    pub(crate) threads: usize,
}

/// A file the walk found.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    /// Relative to the root.
    pub(crate) rel: PathBuf,
    /// Last modification, when asked for.
    pub(crate) modified: Option<SystemTime>,
}

/// What a walk found, sorted by path.
#[derive(Debug, Default)]
pub(crate) struct Walked {
    /// The files, sorted by path.
    pub(crate) files: Vec<Candidate>,
    /// The walk stopped at `max_files` (so there may be more).
    pub(crate) capped: bool,
}

/// The `file_type` filter: a ripgrep type name (`rust`, `py`) or an extension (`rs`, `.tsx`).
fn types(file_type: Option<&str>) -> Result<Types, ToolError> {
    let mut b = TypesBuilder::new();
    b.add_defaults();
    if let Some(t) = file_type.map(str::trim).filter(|t| !t.is_empty()) {
        let name = t.trim_start_matches("*.").trim_start_matches('.');
        let known = b.definitions().iter().any(|d| d.name() == name);
        if known {
            b.select(name);
        } else {
            let ext = name;
            let plain = !ext.is_empty()
                && ext
                    .chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '+' | '.'));
            if !plain {
                return Err(ToolError::validation(format!(
                    "file_type `{t}` is neither a file extension nor a known type"
                ))
                .with_suggestion(
                    "Give an extension (\"rs\", \"tsx\") or a ripgrep type name (\"rust\", \"py\", \"js\", \"ts\", \"go\", \"java\", \"c\", \"cpp\", \"md\").",
                ));
            }
            b.add("extension", &format!("*.{ext}"))
                .map_err(|e| ToolError::validation(format!("file_type `{t}`: {e}")))?;
            b.select("extension");
        }
    }
    b.build()
        .map_err(|e| ToolError::validation(format!("file_type: {e}")))
}

/// The glob filters, ripgrep `-g` style, relative to `base`.
pub(crate) fn overrides(base: &Path, globs: &[String], what: &str) -> Result<Override, ToolError> {
    let mut b = OverrideBuilder::new(base);
    for g in globs {
        let g = g.trim();
        if g.is_empty() || g == "!" {
            continue;
        }
        b.add(g).map_err(|e| {
            ToolError::validation(format!("invalid {what} `{g}`: {e}")).with_suggestion(
                "Globs: `*` and `?` match within one path component, `**` across directories, `[abc]` a character class, `{a,b}` alternatives, a leading `!` excludes. Examples: \"*.rs\", \"src/**/*.test.ts\", \"!**/vendor/**\".",
            )
        })?;
    }
    b.build()
        .map_err(|e| ToolError::validation(format!("invalid {what}: {e}")))
}

/// Reads one ignore file of a directory beneath the root's handle.
fn ignore_file(ws: &Workspace, dir: &WsPath, host_dir: &Path, name: &str) -> Option<Gitignore> {
    let opened = ws.open_dir(dir).ok()?;
    let meta = opened.dir.symlink_metadata(name).ok()?;
    if !meta.is_file() {
        return None;
    }
    let mut options = OpenOptions::new();
    options.read(true).follow(FollowSymlinks::No).nonblock(true);
    let file = opened.dir.open_with(name, &options).ok()?;
    let mut text = String::new();
    file.take(MAX_IGNORE_FILE_BYTES)
        .read_to_string(&mut text)
        .ok()?;
    let mut b = GitignoreBuilder::new(host_dir);
    for line in text.lines() {
        let _ = b.add_line(None, line);
    }
    b.build().ok().filter(|g| !g.is_empty())
}

/// The ignore files of the directories from the root down to the searched directory's
/// parent, deepest first: `.ignore` files, then `.gitignore` files (ripgrep's precedence).
fn ancestor_rules(ws: &Workspace, scope: &Scope) -> Vec<Gitignore> {
    let mut dirs = Vec::new();
    let mut at = scope.path.parent();
    while let Some(dir) = at {
        at = dir.parent();
        dirs.push(dir);
    }
    let mut rules = Vec::new();
    for name in [".ignore", ".gitignore"] {
        for dir in &dirs {
            let host = ws.host_path(dir);
            if let Some(g) = ignore_file(ws, dir, &host, name) {
                rules.push(g);
            }
        }
    }
    rules
}

/// Walks the scope (see the [module documentation](self)).
pub(crate) fn walk(
    ws: &Workspace,
    scope: &Scope,
    opts: &WalkOptions,
    stop: &Stop,
    found: Option<super::matcher::Found<'_>>,
) -> Result<Walked, ToolError> {
    if scope.is_file {
        let modified = if opts.modified {
            ws.metadata(&scope.path)?.and_then(|m| m.modified)
        } else {
            None
        };
        return Ok(Walked {
            files: vec![Candidate {
                rel: scope.path.relative().to_path_buf(),
                modified,
            }],
            capped: false,
        });
    }
    let types = types(opts.file_type.as_deref())?;
    let overrides = overrides(&scope.host, &opts.globs, "glob")?;
    let ancestors = if opts.respect_ignore {
        ancestor_rules(ws, scope)
    } else {
        Vec::new()
    };
    let mut b = WalkBuilder::new(&scope.host);
    b.hidden(!opts.include_hidden)
        .parents(false)
        .ignore(opts.respect_ignore)
        .git_ignore(opts.respect_ignore)
        .git_exclude(opts.respect_ignore)
        .git_global(false)
        .require_git(false)
        .follow_links(false)
        .same_file_system(false)
        .overrides(overrides)
        .types(types)
        .threads(opts.threads.max(1));
    let filter_ws = ws.clone();
    let root = scope.path.root();
    let root_host = scope.root_host.clone();
    b.filter_entry(move |entry| keep(&filter_ws, root, &root_host, &ancestors, entry));

    let shared = Shared {
        out: Mutex::new(Vec::new()),
        seen: AtomicUsize::new(0),
        capped: AtomicBool::new(false),
        root_host: scope.root_host.clone(),
        max_files: opts.max_files,
        modified: opts.modified,
        stop,
        found,
    };
    b.build_parallel()
        .visit(&mut VisitorBuilder { shared: &shared });
    let mut files = shared.out.into_inner().unwrap_or_else(|e| e.into_inner());
    files.sort_unstable_by(|a, b| a.rel.cmp(&b.rel));
    Ok(Walked {
        files,
        capped: shared.capped.load(Ordering::Relaxed),
    })
}

/// The entries the walker would keep that the workspace leaves out: protected paths, and
/// what the ignore files above the searched directory (inside the root) ignore.
fn keep(
    ws: &Workspace,
    root: usize,
    root_host: &Path,
    ancestors: &[Gitignore],
    e: &DirEntry,
) -> bool {
    if e.depth() == 0 {
        return true;
    }
    let Ok(rel) = e.path().strip_prefix(root_host) else {
        return false;
    };
    let path = ws.make(root, rel.to_path_buf());
    if ws.hidden_by(&path).is_some() {
        return false;
    }
    if !ws.protected_readable() && ws.is_protected(&path) {
        return false;
    }
    if !ancestors.is_empty() {
        let is_dir = e.file_type().is_some_and(|t| t.is_dir());
        for g in ancestors {
            match g.matched(e.path(), is_dir) {
                Match::Ignore(_) => return false,
                Match::Whitelist(_) => return true,
                Match::None => {}
            }
        }
    }
    true
}

struct Shared<'a> {
    out: Mutex<Vec<Candidate>>,
    seen: AtomicUsize,
    capped: AtomicBool,
    root_host: PathBuf,
    max_files: usize,
    modified: bool,
    stop: &'a Stop,
    /// Told each file as it is listed, when the walk's files are the answer (`glob`).
    found: Option<super::matcher::Found<'a>>,
}

struct VisitorBuilder<'a, 's> {
    shared: &'a Shared<'s>,
}

impl<'a, 's> ParallelVisitorBuilder<'a> for VisitorBuilder<'a, 's> {
    fn build(&mut self) -> Box<dyn ParallelVisitor + 'a> {
        Box::new(Visitor {
            shared: self.shared,
            found: Vec::new(),
        })
    }
}

/// One walker thread: collects its files and hands them over when done.
struct Visitor<'a, 's> {
    shared: &'a Shared<'s>,
    found: Vec<Candidate>,
}

impl ParallelVisitor for Visitor<'_, '_> {
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        let s = self.shared;
        if s.stop.is_set() {
            return WalkState::Quit;
        }
        let Ok(entry) = entry else {
            return WalkState::Continue;
        };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            return WalkState::Continue;
        }
        if s.seen.fetch_add(1, Ordering::Relaxed) >= s.max_files {
            s.capped.store(true, Ordering::Relaxed);
            return WalkState::Quit;
        }
        let Ok(rel) = entry.path().strip_prefix(&s.root_host) else {
            return WalkState::Continue;
        };
        let modified = if s.modified {
            entry.metadata().ok().and_then(|m| m.modified().ok())
        } else {
            None
        };
        if let Some(found) = s.found {
            found(rel, 0);
        }
        self.found.push(Candidate {
            rel: rel.to_path_buf(),
            modified,
        });
        s.stop.listed.fetch_add(1, Ordering::Relaxed);
        WalkState::Continue
    }
}

impl Drop for Visitor<'_, '_> {
    fn drop(&mut self) {
        let mut out = self.shared.out.lock().unwrap_or_else(|e| e.into_inner());
        out.append(&mut self.found);
    }
}
