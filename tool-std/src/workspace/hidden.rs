//! Hidden paths: what the host's rules keep from every tool. A path hidden here is not listed
//! by `list_directory`, `glob`, `grep` or `search`, not read and not written by the file tools,
//! and not readable to `bash`'s commands (the sandbox denies it). Two sets: the host's own
//! ([`WorkspaceBuilder::hidden`](super::WorkspaceBuilder::hidden): the server's stores and
//! configuration), fixed when the workspace is built, and the rules' ([`Workspace::hide`]),
//! which a host replaces when it rereads its rules.

use std::path::PathBuf;
use std::sync::Arc;

use globset::{GlobBuilder, GlobMatcher, GlobSetBuilder};

use super::{Workspace, WsPath};

/// A path pattern: a glob over the path relative to its root (`src/**`, `*.md`), optionally
/// for one root only (`docs:**`), as the rules' specifiers of the file and search tools and
/// [`Workspace::hide`] take it. `dir/**` also matches `dir` itself.
#[derive(Debug, Clone)]
pub(crate) struct PathGlob {
    root: Option<String>,
    /// The glob as written, without its root.
    text: String,
    glob: GlobMatcher,
    /// For `dir/**`, `dir`.
    base: Option<GlobMatcher>,
}

impl PathGlob {
    /// `roots` are the workspace's root names, for the `name:` prefix.
    pub(crate) fn new(specifier: &str, roots: &[&str]) -> Result<PathGlob, String> {
        let (root, glob) = match specifier.split_once(':') {
            Some((name, rest)) if roots.contains(&name) => (Some(name.to_owned()), rest),
            Some((name, _)) if !name.contains(['*', '?', '[', '{', '/']) => {
                return Err(format!(
                    "`{name}` is not a root of this workspace (roots: {}); write `root:glob` \
                     with one of them, or a glob relative to any root",
                    roots.join(", ")
                ));
            }
            _ => (None, specifier),
        };
        let glob = glob.strip_prefix("./").unwrap_or(glob);
        if glob.starts_with('/') || glob.starts_with('~') {
            return Err(format!(
                "`{specifier}` is not relative to a root; write a glob relative to a root \
                 (`src/**`) or `root:glob`"
            ));
        }
        if glob.split('/').any(|part| part == "..") {
            return Err(format!(
                "`{specifier}` climbs with `..`; write a glob beneath a root (`src/**`)"
            ));
        }
        let compile = |glob: &str| {
            GlobBuilder::new(glob)
                .literal_separator(true)
                .backslash_escape(true)
                .case_insensitive(crate::workspace::CASE_INSENSITIVE_NAMES)
                .build()
                .map(|g| g.compile_matcher())
                .map_err(|e| format!("`{specifier}` is not a valid glob: {}", e.kind()))
        };
        // `dir/**` is everything beneath `dir`, and `dir` itself (a search scoped to it).
        let base = match glob.strip_suffix("/**") {
            Some(base) if !base.is_empty() => Some(compile(base)?),
            _ => None,
        };
        Ok(PathGlob {
            root,
            text: glob.to_owned(),
            glob: compile(glob)?,
            base,
        })
    }

    /// Whether it matches `relative` (the root itself is the empty path) in root `root`.
    pub(crate) fn matches(&self, root: &str, relative: &str) -> bool {
        self.root.as_deref().is_none_or(|r| r == root)
            && (self.glob.is_match(relative)
                || self.base.as_ref().is_some_and(|b| b.is_match(relative)))
    }
}

impl PathGlob {
    /// The root it is for, if one.
    pub(crate) fn root(&self) -> Option<&str> {
        self.root.as_deref()
    }

    /// The glob, without its root.
    pub(crate) fn text(&self) -> &str {
        &self.text
    }
}

/// `path` as a glob that matches it alone: the characters a glob reads specially (`*`, `?`,
/// `[`, `]`, `{`, `}`, `\`) escaped, as a rule's path specifier or [`Workspace::hide`] takes
/// it.
pub fn escape_glob(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// What the host hides in one root, for the sandbox.
#[derive(Debug)]
pub(crate) struct HiddenInRoot {
    /// The root's directory.
    pub(crate) root: PathBuf,
    /// The hidden paths written without wildcards.
    pub(crate) paths: Vec<PathBuf>,
    /// The globs with wildcards, to look for beneath the root.
    pub(crate) globs: Option<globset::GlobSet>,
}

/// A set of hidden path globs and the specifiers they were written as.
#[derive(Debug, Default)]
pub(crate) struct HiddenSet {
    globs: Vec<(String, PathGlob)>,
}

impl HiddenSet {
    /// The set of `specifiers` (each `glob` or `root:glob`) over roots named `roots`.
    pub(crate) fn new(specifiers: &[String], roots: &[&str]) -> Result<HiddenSet, String> {
        let mut globs = Vec::with_capacity(specifiers.len());
        for s in specifiers {
            globs.push((s.clone(), PathGlob::new(s, roots)?));
        }
        Ok(HiddenSet { globs })
    }

    fn matching(&self, root: &str, rel: &str) -> Option<&str> {
        self.globs
            .iter()
            .find(|(_, g)| g.matches(root, rel))
            .map(|(s, _)| s.as_str())
    }
}

impl Workspace {
    /// Replaces the paths the rules hide: each specifier is a glob over the path relative to
    /// its root, or `root:glob`, as a rule of a file tool writes it. A hidden path is not
    /// listed by `list_directory`, `glob`, `grep` or `search`, not read and not written by the
    /// file tools, and not readable to `bash`'s commands (the sandbox denies it). The host's
    /// own hidden paths ([`WorkspaceBuilder::hidden`](super::WorkspaceBuilder::hidden)) stay.
    ///
    /// # Errors
    ///
    /// The first specifier that is no glob, names no root or climbs out of one; the set is
    /// then left as it was.
    pub fn hide(&self, specifiers: &[String]) -> Result<(), String> {
        let names: Vec<&str> = self.roots().iter().map(|r| r.name()).collect();
        let set = HiddenSet::new(specifiers, &names)?;
        *self.inner.ruled.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(set);
        Ok(())
    }

    /// The rules' hidden paths as they stand now.
    fn ruled(&self) -> Arc<HiddenSet> {
        self.inner
            .ruled
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The specifier that hides `p` (the host's own, then the rules'), if one does.
    pub fn hidden_by(&self, p: &WsPath) -> Option<String> {
        if p.is_root() {
            return None;
        }
        let root = self.roots()[p.root].name();
        let rel = p.rel.to_str()?;
        if let Some(s) = self.inner.own.matching(root, rel) {
            return Some(s.to_owned());
        }
        let ruled = self.ruled();
        ruled.matching(root, rel).map(str::to_owned)
    }

    /// Per root, what the host hides in it, as the sandbox denies it: the paths written
    /// without wildcards (`secrets/**` is `ROOT/secrets`), and the set of the other globs, to
    /// look for on disk. Roots nothing hides are left out.
    pub(crate) fn hidden_on_disk(&self) -> Vec<HiddenInRoot> {
        let ruled = self.ruled();
        let mut out = Vec::new();
        for root in self.roots() {
            let mut here = HiddenInRoot {
                root: root.path().to_path_buf(),
                paths: Vec::new(),
                globs: None,
            };
            let mut set = GlobSetBuilder::new();
            let mut wild = false;
            for (_, g) in self.inner.own.globs.iter().chain(ruled.globs.iter()) {
                if g.root().is_some_and(|r| r != root.name()) {
                    continue;
                }
                let text = g.text().strip_suffix("/**").unwrap_or(g.text());
                if !text.contains(['*', '?', '[', '{', '\\']) {
                    here.paths.push(root.path().join(text));
                    continue;
                }
                let compiled = GlobBuilder::new(text)
                    .literal_separator(true)
                    .backslash_escape(true)
                    .case_insensitive(super::CASE_INSENSITIVE_NAMES)
                    .build();
                if let Ok(glob) = compiled {
                    set.add(glob);
                    wild = true;
                }
            }
            if wild {
                here.globs = set.build().ok();
            }
            if !here.paths.is_empty() || here.globs.is_some() {
                out.push(here);
            }
        }
        out
    }
}
