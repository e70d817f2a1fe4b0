//! `list_directory` (aliases `ls`, `list_files`): a directory's entries with type and size,
//! sorted, to a `depth`, at most `limit` of them with "N more" when there are more.
//!
//! The walk happens on directory handles: each subdirectory is opened beneath its parent
//! without following links, so a directory swapped for a link mid-walk is not entered.
//! Links are listed as `symlink` and never followed; protected directories (`.git`) are listed
//! but not entered unless the workspace makes them readable. `.gitignore` files (of the
//! listed directory, its parents up to the root, and every directory entered) are respected by
//! default, with ripgrep's matcher.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use cap_fs_ext::{DirExt, FollowSymlinks, OpenOptionsFollowExt, OpenOptionsSyncExt};
use cap_std::fs::{Dir, OpenOptions};
use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use serde::Serialize;
use tool_core::{Render, ResourcesTracker, ToolContext, ToolError, ToolResult};
use tool_macros::tool;

use super::config::FileConfig;
use super::edit::blocking;
use crate::workspace::{Workspace, WsPath};

/// The largest `.gitignore` read.
const MAX_GITIGNORE_BYTES: u64 = 1024 * 1024;

/// One entry of a listing, as the walk finds it.
#[derive(Debug, Clone)]
struct DirEntry {
    /// The path as the model writes it (relative to the root, or `name:path`).
    path: String,
    /// `file`, `directory`, `symlink` or `other`.
    r#type: &'static str,
    /// Size in bytes (files only).
    size: Option<u64>,
    /// 1 for the directory's own entries, 2 for theirs...
    depth: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The answer of `list_directory`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct DirListing {
    /// Always `directory_listing`.
    pub r#type: &'static str,
    /// The directory listed.
    pub path: String,
    /// The entries, by their path relative to the listed directory: a directory's ends in
    /// `/`, a symbolic link's in `@`; the value is a file's size in bytes, `null` for the
    /// others. One map rather than an object per entry, so the structured answer costs no
    /// more than the text.
    pub entries: BTreeMap<String, Option<u64>>,
    /// Entries found but not shown (past `limit` or the output cap; absent for 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub more: usize,
    /// Whether the walk stopped counting, so there may be more than `more` (absent when
    /// false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub more_uncounted: bool,
    /// Entries left out because a `.gitignore` ignores them (absent for 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub ignored: usize,
    /// What was left out and how to see it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The entries in the walk's order, for the text.
    #[serde(skip)]
    walked: Vec<DirEntry>,
}

impl Render for DirListing {
    fn status(&self) -> Option<String> {
        Some(format!(
            "Listed {} entries of {}",
            self.walked.len(),
            self.path
        ))
    }

    fn render(&self, _: &mut ResourcesTracker) -> Option<String> {
        let mut out = format!("{}:\n", self.path);
        for e in &self.walked {
            let indent = "  ".repeat(e.depth.saturating_sub(1));
            let name = e.path.rsplit('/').next().unwrap_or(&e.path);
            match (e.r#type, e.size) {
                ("directory", _) => out.push_str(&format!("{indent}{name}/\n")),
                ("symlink", _) => out.push_str(&format!("{indent}{name}@ (symlink)\n")),
                (_, Some(size)) => out.push_str(&format!("{indent}{name} ({size} bytes)\n")),
                (kind, None) => out.push_str(&format!("{indent}{name} ({kind})\n")),
            }
        }
        if let Some(note) = &self.note {
            out.push_str(note);
            out.push('\n');
        }
        Some(out)
    }
}

/// `path` relative to the listed directory `base` (both as the model writes paths: a root
/// is `.`, `name:` or `name:.`, what is beneath it `a/b` or `name:a/b`).
fn relative_to<'a>(base: &str, path: &'a str) -> &'a str {
    let root = match base {
        "." | "" => Some(""),
        b if b.ends_with(":.") => Some(&b[..b.len() - 1]),
        b if b.ends_with(':') => Some(b),
        _ => None,
    };
    match root {
        Some(prefix) => path.strip_prefix(prefix).unwrap_or(path),
        None => path
            .strip_prefix(base)
            .and_then(|r| r.strip_prefix('/'))
            .unwrap_or(path),
    }
}

/// A directory's `.gitignore`, compiled.
struct Ignores(Vec<Gitignore>);

impl Ignores {
    /// Whether `rel` (relative to the root) is ignored: the deepest file that has a say wins.
    fn ignored(&self, rel: &Path, is_dir: bool) -> bool {
        for gi in self.0.iter().rev() {
            match gi.matched(rel, is_dir) {
                Match::Ignore(_) => return true,
                Match::Whitelist(_) => return false,
                Match::None => {}
            }
        }
        false
    }
}

/// Reads and compiles `dir/.gitignore` (`rel` is the directory relative to the root).
fn gitignore_in(dir: &Dir, rel: &Path) -> Option<Gitignore> {
    let mut options = OpenOptions::new();
    options.read(true).follow(FollowSymlinks::No).nonblock(true);
    let meta = dir.symlink_metadata(".gitignore").ok()?;
    if !meta.is_file() {
        return None;
    }
    let file = dir.open_with(".gitignore", &options).ok()?;
    let mut text = String::new();
    file.take(MAX_GITIGNORE_BYTES)
        .read_to_string(&mut text)
        .ok()?;
    let mut builder = GitignoreBuilder::new(rel);
    for line in text.lines() {
        let _ = builder.add_line(None, line);
    }
    builder.build().ok()
}

struct Walk<'a> {
    ws: &'a Workspace,
    gitignore: bool,
    max_depth: usize,
    limit: usize,
    budget: usize,
    scan_limit: usize,
    entries: Vec<DirEntry>,
    used: usize,
    seen: usize,
    ignored: usize,
    capped: bool,
}

impl Walk<'_> {
    fn dir(&mut self, dir: &Dir, at: &WsPath, depth: usize, ignores: &mut Ignores) {
        let pushed = if self.gitignore {
            match gitignore_in(dir, at.relative()) {
                Some(gi) => {
                    ignores.0.push(gi);
                    true
                }
                None => false,
            }
        } else {
            false
        };
        let mut names: Vec<(String, cap_std::fs::FileType, Option<u64>)> = Vec::new();
        if let Ok(read) = dir.entries() {
            for entry in read.flatten() {
                if self.seen + names.len() >= self.scan_limit {
                    break;
                }
                let Ok(name) = entry.file_name().into_string() else {
                    continue;
                };
                let Ok(ft) = entry.file_type() else { continue };
                let size = if ft.is_file() {
                    entry.metadata().ok().map(|m| m.len())
                } else {
                    None
                };
                names.push((name, ft, size));
            }
        }
        names.sort_by(|a, b| a.0.cmp(&b.0));
        for (name, ft, size) in names {
            if self.seen >= self.scan_limit {
                self.capped = true;
                break;
            }
            let Ok(child) = at.join(&name) else { continue };
            // What the host hides is not there, for a listing.
            if self.ws.hidden_by(&child).is_some() {
                continue;
            }
            let rel: PathBuf = child.relative().to_path_buf();
            if self.gitignore && ignores.ignored(&rel, ft.is_dir()) {
                self.ignored += 1;
                continue;
            }
            self.seen += 1;
            let kind = if ft.is_symlink() {
                "symlink"
            } else if ft.is_dir() {
                "directory"
            } else if ft.is_file() {
                "file"
            } else {
                "other"
            };
            let entry = DirEntry {
                path: child.to_string(),
                r#type: kind,
                size,
                depth,
            };
            let cost = entry.path.len() + 32;
            if self.entries.len() < self.limit && self.used + cost <= self.budget {
                self.used += cost;
                self.entries.push(entry);
            } else if self.used + cost > self.budget {
                self.capped |= self.entries.len() < self.limit;
            }
            let readable = !self.ws.is_protected(&child) || self.ws.protected_readable();
            if ft.is_dir()
                && depth < self.max_depth
                && readable
                && let Ok(sub) = dir.open_dir_nofollow(&name)
            {
                self.dir(&sub, &child, depth + 1, ignores);
            }
        }
        if pushed {
            ignores.0.pop();
        }
    }
}

/// Lists a directory (see the [module documentation](self)).
pub fn list(
    ws: &Workspace,
    config: &FileConfig,
    path: &str,
    depth: Option<usize>,
    limit: Option<usize>,
    respect_gitignore: bool,
) -> Result<DirListing, ToolError> {
    let p = ws.resolve(path)?;
    let opened = ws.open_dir(&p)?;
    let max_depth = depth
        .unwrap_or(config.default_list_depth)
        .clamp(1, config.max_list_depth);
    let limit = limit
        .unwrap_or(config.default_list_limit)
        .clamp(1, config.max_list_limit);
    // The .gitignore files of the parents, root first.
    let mut ignores = Ignores(Vec::new());
    if respect_gitignore {
        let mut chain = Vec::new();
        let mut at = opened.path.parent();
        while let Some(dir) = at {
            at = dir.parent();
            chain.push(dir);
        }
        for dir in chain.into_iter().rev() {
            if let Ok(handle) = ws.open_dir(&dir)
                && let Some(gi) = gitignore_in(&handle.dir, dir.relative())
            {
                ignores.0.push(gi);
            }
        }
    }
    let mut walk = Walk {
        ws,
        gitignore: respect_gitignore,
        max_depth,
        limit,
        budget: config.max_output_chars,
        scan_limit: config.max_list_scan,
        entries: Vec::new(),
        used: 0,
        seen: 0,
        ignored: 0,
        capped: false,
    };
    walk.dir(&opened.dir, &opened.path, 1, &mut ignores);
    let more = walk.seen - walk.entries.len();
    let more_uncounted = walk.seen >= config.max_list_scan;
    let mut notes = Vec::new();
    if more > 0 {
        let at_least = if more_uncounted { "at least " } else { "" };
        let why = if walk.capped && walk.entries.len() < limit {
            format!(
                "the output cap of {} characters was reached",
                config.max_output_chars
            )
        } else {
            format!("limit is {limit}")
        };
        notes.push(format!(
            "{at_least}{more} more entries not shown ({why}). List a subdirectory, lower depth, or raise limit (at most {}).",
            config.max_list_limit
        ));
    }
    if walk.ignored > 0 {
        notes.push(format!(
            "{} entries ignored by .gitignore; pass respect_gitignore: false to list them.",
            walk.ignored
        ));
    }
    let base = opened.path.to_string();
    let entries = walk
        .entries
        .iter()
        .map(|e| {
            let rel = relative_to(&base, &e.path);
            let key = match e.r#type {
                "directory" => format!("{rel}/"),
                "symlink" => format!("{rel}@"),
                _ => rel.to_owned(),
            };
            (key, e.size)
        })
        .collect();
    Ok(DirListing {
        r#type: "directory_listing",
        path: base,
        entries,
        walked: walk.entries,
        more,
        more_uncounted,
        ignored: walk.ignored,
        note: (!notes.is_empty()).then(|| notes.join(" ")),
    })
}

/// List a directory's entries with type and size.
#[tool(
    name = "list_directory",
    description = "List a directory's entries with their sizes, sorted; the rest past limit counted as \"N more\". Symbolic links are listed, not followed.",
    category = "search",
    toolsets(file),
    permissions(read_files),
    read_only,
    aliases(ls, list_files)
)]
pub async fn list_directory(
    ctx: &ToolContext,
    /// Directory (`project:path` for another project).
    #[param(default = ".")]
    path: String,
    /// Default 1, at most 10.
    depth: Option<usize>,
    /// Default 500, at most 5,000.
    limit: Option<usize>,
    /// Skip what .gitignore ignores.
    #[param(default = true)]
    respect_gitignore: bool,
) -> ToolResult<DirListing> {
    let ws = ctx.require_service::<Workspace>()?;
    let config = FileConfig::of(ctx);
    blocking(move || list(&ws, &config, &path, depth, limit, respect_gitignore)).await
}
