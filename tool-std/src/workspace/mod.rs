//! The workspace policy: the one place every file, search and shell tool asks where a path
//! leads and whether it may be read or written.
//!
//! A [`Workspace`] is a set of named roots (seed 001's "projects"), each read-only or
//! read-write, plus protected patterns (by default `.git/**`, `.env` and `.env.*`) that are never
//! writable and readable only when the host says so. The host puts one in the runtime's services;
//! tools take it with `ctx.require_service::<Workspace>()`.
//!
//! # How a path is judged
//!
//! 1. [`Workspace::resolve`] parses what the model wrote, without touching the disk:
//!    `name:relative`, `relative` (the first root) or an absolute path inside a root. NUL bytes,
//!    `..` climbing above the root, absolute paths outside every root (a sibling such as
//!    `/ws-evil` of `/ws` included) and a home directory as a shell writes it (a leading `~`,
//!    `~user`, `$HOME` or `${HOME}`, which nothing here expands) are refused here.
//! 2. Every access then happens on directory handles ([`cap_std`]): the root is opened once, the
//!    path is canonicalized *on that handle* (symbolic links are followed only while they stay
//!    inside the root; one that leaves it, or dangles, is refused), and the canonical path is
//!    walked again component by component with opens that do not follow links. A directory
//!    swapped for a link between the two steps makes the open fail; it can never lead outside.
//!    No string is checked and then opened.
//! 3. Only regular files are read or written. FIFOs, sockets and devices are refused before they
//!    are opened, and the opens are non-blocking, so nothing can make a tool wait on a pipe.
//! 4. Writes are atomic ([`Workspace::write_file`]): a temporary file in the same directory,
//!    `fsync`, then a rename over the target. A hard link to a file outside the root therefore
//!    never carries a write out: the link is replaced, the outside file is untouched. The
//!    temporary file of a writer killed mid-way is removed by the next write in its directory,
//!    or by [`Workspace::remove_stale_temp_files`]; its name records its writer, and nothing
//!    else is ever removed.
//!
//! 5. Changes are guarded ([`Guard`]): a tool that changes a file checks it is still what the
//!    model saw, by the [`Version`] the model carries (the hash of the content `read_file`
//!    returned) or, without one, by the workspace's record of reads and writes
//!    ([`Workspace::check_unchanged`]). The record lives in the workspace, so every session
//!    of the process shares it, and holds at most [`MAX_TRACKED_FILES`] files.
//!
//! Every refusal is a `security_error` that names the roots a path must lie in and says to call
//! `list_projects`.
//!
//! ```
//! use tool_std::workspace::{Workspace, WriteOptions};
//!
//! let dir = tempfile::tempdir()?;
//! let ws = Workspace::builder().root("app", dir.path()).build()?;
//!
//! let notes = ws.resolve("notes/todo.txt")?;
//! ws.write_file(&notes, b"ship it\n", WriteOptions::create_new().create_parents(true))?;
//! assert_eq!(std::fs::read_to_string(dir.path().join("notes/todo.txt"))?, "ship it\n");
//!
//! let err = ws.resolve("../outside.txt").unwrap_err();
//! assert_eq!(err.kind(), tool_core::ErrorKind::SecurityError);
//! assert!(ws.resolve(".git/config").map(|p| ws.check_writable(&p)).unwrap().is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod access;
mod edits;
mod error;
mod hidden;
pub(crate) mod modes;
mod path;
mod sweep;
pub(crate) mod temp;
mod tracking;
mod version;
// The Windows path rules: applied on Windows, tested everywhere.
#[cfg_attr(not(windows), allow(dead_code))]
mod windows;
mod write;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use cap_std::fs::Dir;
use globset::{GlobSet, GlobSetBuilder};

pub use access::{EntryInfo, EntryKind, MAX_LINK_HOPS, OpenDir, OpenFile};
pub use edits::{EditDiagnostics, EditWatcher, MAX_EDIT_WATCHERS};
pub use error::WorkspaceError;
pub use hidden::escape_glob;
pub(crate) use hidden::{HiddenInRoot, PathGlob};
pub use path::{MAX_PATH_BYTES, WsPath};
pub use sweep::{SWEEP_MAX_DEPTH, SWEEP_MAX_DIRS, SWEEP_MAX_ENTRIES, SweepReport};
pub(crate) use tracking::parse_expected;
pub use tracking::{Guard, MAX_TRACKED_FILES, STAMP_SETTLE};
pub use version::{Stamp, VERSION_DIGITS, Version};
pub(crate) use version::{StampingReader, stamp_within};
pub use write::{Existence, WriteOptions, WriteOutcome};

/// Whether file names are compared without regard to case, as the file systems of Windows and
/// macOS compare them by default: the protected patterns and the rules' path globs then match
/// `.ENV` as they match `.env` (on a case-sensitive volume of macOS that is stricter than it
/// needs to be, never looser).
pub const CASE_INSENSITIVE_NAMES: bool = cfg!(any(windows, target_os = "macos"));

/// The protected patterns when the host names none.
pub const DEFAULT_PROTECTED: &[&str] = &[".git/**", ".env", ".env.*"];

/// The most roots a workspace may have.
pub const MAX_ROOTS: usize = 64;

/// One root of a [`Workspace`]: a named directory, read-only or read-write.
#[derive(Debug)]
pub struct Root {
    name: Arc<str>,
    /// The canonical host path.
    path: PathBuf,
    /// The path as the host gave it, made absolute (it may differ from `path` through links).
    given: PathBuf,
    writable: bool,
    dir: Dir,
}

impl Root {
    /// The root's name (`name:` in paths; the project name of seed 001).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The root's canonical host path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether tools may write under it.
    pub fn is_writable(&self) -> bool {
        self.writable
    }

    pub(crate) fn given_path(&self) -> &Path {
        &self.given
    }

    pub(crate) fn name_arc(&self) -> Arc<str> {
        self.name.clone()
    }

    pub(crate) fn dir(&self) -> &Dir {
        &self.dir
    }
}

/// The workspace policy; see the [module documentation](self). Cheap to clone.
#[derive(Debug, Clone)]
pub struct Workspace {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    roots: Vec<Root>,
    protected: GlobSet,
    protected_patterns: Vec<String>,
    protected_readable: bool,
    /// The host's own hidden paths (see [`hidden`]).
    own: hidden::HiddenSet,
    /// The rules' hidden paths, replaced by [`Workspace::hide`].
    ruled: std::sync::RwLock<Arc<hidden::HiddenSet>>,
    /// The record of reads and writes of the "modified since read" guard: one for every
    /// clone of this workspace, so for every session of the process.
    tracker: tracking::Tracker,
    /// Who hears of the files the file tools change (see [`edits`]).
    edits: edits::Watchers,
}

/// Builds a [`Workspace`]: roots, protected patterns, whether protected paths are readable.
#[derive(Debug, Default)]
#[must_use]
pub struct WorkspaceBuilder {
    roots: Vec<(String, PathBuf, bool)>,
    protected: Option<Vec<String>>,
    protected_readable: bool,
    hidden: Vec<String>,
}

impl WorkspaceBuilder {
    /// Adds a read-write root. The first root added is the one relative paths refer to.
    pub fn root(mut self, name: impl Into<String>, dir: impl AsRef<Path>) -> Self {
        self.roots
            .push((name.into(), dir.as_ref().to_path_buf(), true));
        self
    }

    /// Adds a read-only root.
    pub fn read_only_root(mut self, name: impl Into<String>, dir: impl AsRef<Path>) -> Self {
        self.roots
            .push((name.into(), dir.as_ref().to_path_buf(), false));
        self
    }

    /// Replaces the protected patterns (default [`DEFAULT_PROTECTED`]). A pattern is a glob
    /// over the path relative to its root; it matches at any depth (`.env` protects
    /// `sub/.env` too), and `dir/**` protects `dir` itself as well as what is in it.
    pub fn protected(mut self, patterns: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.protected = Some(patterns.into_iter().map(Into::into).collect());
        self
    }

    /// Whether protected paths may be read (default `false`: `.env` files hold secrets).
    /// They are never writable.
    pub fn protected_readable(mut self, yes: bool) -> Self {
        self.protected_readable = yes;
        self
    }

    /// The host's own hidden paths (its stores, its configuration): never listed, read or
    /// written by a tool, nor readable to a command (see [`Workspace::hide`] for the rules'
    /// own, and the form: `glob` or `root:glob`).
    pub fn hidden(mut self, specifiers: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.hidden.extend(specifiers.into_iter().map(Into::into));
        self
    }

    /// Opens every root and compiles the patterns.
    ///
    /// Errors: no root, more than [`MAX_ROOTS`], an empty or duplicate name, a name holding
    /// `:` or `/`, a directory that cannot be opened, a bad pattern.
    pub fn build(self) -> Result<Workspace, WorkspaceError> {
        if self.roots.is_empty() {
            return Err(WorkspaceError::NoRoots);
        }
        if self.roots.len() > MAX_ROOTS {
            return Err(WorkspaceError::TooManyRoots(self.roots.len()));
        }
        let mut roots: Vec<Root> = Vec::with_capacity(self.roots.len());
        for (name, dir, writable) in self.roots {
            if name.is_empty() || name.contains([':', '/', '\\', '\0']) {
                return Err(WorkspaceError::BadName(name));
            }
            if roots.iter().any(|r| *r.name == *name) {
                return Err(WorkspaceError::DuplicateName(name));
            }
            let open_err = |source| WorkspaceError::Open {
                dir: dir.clone(),
                source,
            };
            let given = std::path::absolute(&dir).map_err(open_err)?;
            let path = dir.canonicalize().map_err(open_err)?;
            let handle =
                Dir::open_ambient_dir(&path, cap_std::ambient_authority()).map_err(open_err)?;
            roots.push(Root {
                name: name.into(),
                path,
                given,
                writable,
                dir: handle,
            });
        }
        let patterns = self
            .protected
            .unwrap_or_else(|| DEFAULT_PROTECTED.iter().map(|s| (*s).to_owned()).collect());
        let mut set = GlobSetBuilder::new();
        for pattern in &patterns {
            let mut variants = vec![pattern.clone(), format!("**/{pattern}")];
            if let Some(dir) = pattern.strip_suffix("/**") {
                variants.push(dir.to_owned());
                variants.push(format!("**/{dir}"));
            }
            for variant in variants {
                let glob = globset::GlobBuilder::new(&variant)
                    .literal_separator(true)
                    .case_insensitive(CASE_INSENSITIVE_NAMES)
                    .build()
                    .map_err(|e| WorkspaceError::BadPattern {
                        pattern: pattern.clone(),
                        message: e.kind().to_string(),
                    })?;
                set.add(glob);
            }
        }
        let protected = set.build().map_err(|e| WorkspaceError::BadPattern {
            pattern: patterns.join(", "),
            message: e.to_string(),
        })?;
        let names: Vec<&str> = roots.iter().map(|r| &*r.name).collect();
        let own = hidden::HiddenSet::new(&self.hidden, &names).map_err(|message| {
            WorkspaceError::BadPattern {
                pattern: self.hidden.join(", "),
                message,
            }
        })?;
        Ok(Workspace {
            inner: Arc::new(Inner {
                roots,
                protected,
                protected_patterns: patterns,
                protected_readable: self.protected_readable,
                own,
                ruled: std::sync::RwLock::default(),
                tracker: tracking::Tracker::default(),
                edits: edits::Watchers::default(),
            }),
        })
    }
}

impl Workspace {
    /// A builder with no roots.
    pub fn builder() -> WorkspaceBuilder {
        WorkspaceBuilder::default()
    }

    /// A workspace of one read-write root named after the directory.
    pub fn single(dir: impl AsRef<Path>) -> Result<Workspace, WorkspaceError> {
        let dir = dir.as_ref();
        let name = dir
            .canonicalize()
            .ok()
            .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
            .filter(|n| !n.contains(':'))
            .unwrap_or_else(|| "root".to_owned());
        Workspace::builder().root(name, dir).build()
    }

    /// The roots, in the order they were added.
    pub fn roots(&self) -> &[Root] {
        &self.inner.roots
    }

    /// The protected patterns.
    pub fn protected_patterns(&self) -> &[String] {
        &self.inner.protected_patterns
    }

    /// Whether protected paths may be read.
    pub fn protected_readable(&self) -> bool {
        self.inner.protected_readable
    }

    /// The roots as an error message names them:
    /// "`app` (/home/me/app, read-write), `docs` (/srv/docs, read-only); call list_projects to
    /// list them".
    pub fn roots_hint(&self) -> String {
        let roots: Vec<String> = self
            .roots()
            .iter()
            .map(|r| {
                format!(
                    "`{}` ({}, {})",
                    r.name,
                    r.path.display(),
                    if r.writable {
                        "read-write"
                    } else {
                        "read-only"
                    }
                )
            })
            .collect();
        format!("{}; call list_projects to list them", roots.join(", "))
    }

    /// Whether `p` matches a protected pattern.
    pub fn is_protected(&self, p: &WsPath) -> bool {
        !p.is_root() && self.inner.protected.is_match(&p.rel)
    }
}
