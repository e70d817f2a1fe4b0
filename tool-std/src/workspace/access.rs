//! Resolution and opening on directory handles.
//!
//! Two steps, both on the root's handle, never on a host path string:
//!
//! - [`Workspace::canonical`] follows the path component by component with `lstat` and
//!   `readlink` on the handle. A link is followed only while it stays in the same root (an
//!   absolute target is mapped back into the root, a relative one is resolved in place); one
//!   that climbs above the root, points at another place on the host, or loops is refused. The
//!   result holds no links.
//! - The opens walk that canonical path again with no-follow opens (`open_dir_nofollow`, then a
//!   final open with `O_NOFOLLOW | O_NONBLOCK`) after checking with `lstat` that the final object
//!   is a regular file or a directory. Had anything been swapped for a link in between, an open
//!   fails with `ELOOP` or `ENOTDIR` instead of following it.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::time::SystemTime;

use cap_fs_ext::{DirExt, FollowSymlinks, OpenOptionsFollowExt, OpenOptionsSyncExt};
use cap_std::fs::{Dir, Metadata, OpenOptions};
use tool_core::ToolError;

use super::{Workspace, WsPath};

/// How many links one resolution follows before it calls the path a loop (as Linux's 40).
pub const MAX_LINK_HOPS: usize = 40;

/// What kind of thing a path names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link (only seen when links are not followed, as in a directory listing).
    Symlink,
    /// A FIFO, socket or device: never read or written.
    Other,
}

impl EntryKind {
    /// `file`, `directory`, `symlink` or `other`.
    pub fn as_str(self) -> &'static str {
        match self {
            EntryKind::File => "file",
            EntryKind::Dir => "directory",
            EntryKind::Symlink => "symlink",
            EntryKind::Other => "other",
        }
    }
}

/// What a tool needs to know of a file system entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryInfo {
    /// Its kind.
    pub kind: EntryKind,
    /// Size in bytes.
    pub len: u64,
    /// Last modification, where the platform has it.
    pub modified: Option<SystemTime>,
    /// Unix permission bits (`0o644`...).
    pub mode: u32,
    /// Inode number (0 where unknown): an atomic replacement changes it.
    pub ino: u64,
}

impl EntryInfo {
    pub(crate) fn from_metadata(m: &Metadata) -> EntryInfo {
        let ft = m.file_type();
        let kind = if ft.is_symlink() {
            EntryKind::Symlink
        } else if ft.is_file() {
            EntryKind::File
        } else if ft.is_dir() {
            EntryKind::Dir
        } else {
            EntryKind::Other
        };
        EntryInfo {
            kind,
            len: m.len(),
            modified: m.modified().ok().map(|t| t.into_std()),
            mode: super::modes::mode_of(m),
            ino: super::modes::identity_of(m),
        }
    }

    pub(crate) fn from_std(m: &std::fs::Metadata) -> EntryInfo {
        EntryInfo::from_metadata(&Metadata::from_just_metadata(m.clone()))
    }
}

/// A regular file opened for reading through the workspace.
#[derive(Debug)]
pub struct OpenFile {
    /// The open file (read-only).
    pub file: std::fs::File,
    /// Its metadata, taken from the open file itself.
    pub info: EntryInfo,
    /// Its canonical path (links resolved).
    pub path: WsPath,
}

/// A directory opened through the workspace; list it with `dir.entries()`.
#[derive(Debug)]
pub struct OpenDir {
    /// The directory handle. Opens beneath it cannot leave it.
    pub dir: Dir,
    /// Its canonical path.
    pub path: WsPath,
}

/// A canonical path, and whether it exists.
pub(crate) struct Canonical {
    pub(crate) path: WsPath,
    pub(crate) exists: bool,
}

impl Workspace {
    /// Resolves the links in `p` inside its root and returns the path they lead to.
    ///
    /// Errors: a link that leaves the root (an absolute target outside it, `..` above it,
    /// another root), a dangling link, more than [`MAX_LINK_HOPS`] links (`security_error`);
    /// a missing path (`not_found`).
    pub fn canonical(&self, p: &WsPath) -> Result<WsPath, ToolError> {
        let c = self.canonicalize(p, true)?;
        if !c.exists {
            return Err(self.missing(p, &c.path));
        }
        Ok(c.path)
    }

    /// The entry `p` names, links inside the root followed; `None` when nothing is there.
    pub fn metadata(&self, p: &WsPath) -> Result<Option<EntryInfo>, ToolError> {
        let c = self.canonicalize(p, true)?;
        if !c.exists {
            return Ok(None);
        }
        let m = self.roots()[c.path.root]
            .dir()
            .symlink_metadata(rel_or_dot(&c.path))
            .map_err(|e| self.io_error(&p.to_string(), &e))?;
        Ok(Some(EntryInfo::from_metadata(&m)))
    }

    /// Refuses a path the host hides (see [`Workspace::hide`]): to every tool it is as if it
    /// were not there, but the refusal says why rather than "not found".
    pub fn check_visible(&self, p: &WsPath) -> Result<(), ToolError> {
        match self.hidden_by(p) {
            Some(by) => Err(ToolError::security(format!(
                "path `{}` is not allowed: the host's rules keep it from every tool (`{by}`)",
                super::path::shown(&p.to_string())
            ))
            .with_field("hidden_by", by)
            .with_suggestion(
                "Do not look for another way to reach it; the user keeps it from tools. \
                     Ask the user if you need what it holds.",
            )),
            None => Ok(()),
        }
    }

    /// Refuses reading a hidden path, and a protected path (`.env`...) unless the host made
    /// them readable.
    pub fn check_readable(&self, p: &WsPath) -> Result<(), ToolError> {
        self.check_visible(p)?;
        if self.is_protected(p) && !self.protected_readable() {
            return Err(self.refusal(
                &p.to_string(),
                &format!(
                    "it is protected ({}) and this workspace does not let tools read protected paths",
                    self.protected_patterns().join(", ")
                ),
            ));
        }
        Ok(())
    }

    /// Refuses writing under a read-only root, to a hidden path or to a protected path.
    pub fn check_writable(&self, p: &WsPath) -> Result<(), ToolError> {
        self.check_visible(p)?;
        let root = &self.roots()[p.root];
        if !root.is_writable() {
            return Err(self.refusal(
                &p.to_string(),
                &format!("root `{}` is read-only", root.name()),
            ));
        }
        if self.is_protected(p) {
            return Err(self.refusal(
                &p.to_string(),
                &format!(
                    "it is protected ({}) and never written by tools",
                    self.protected_patterns().join(", ")
                ),
            ));
        }
        if p.is_root() {
            return Err(self.refusal(&p.to_string(), "it is a workspace root itself"));
        }
        Ok(())
    }

    /// Opens a regular file for reading. FIFOs, sockets and devices are refused before they are
    /// opened (`user_error`), protected paths unless readable (`security_error`).
    pub fn open_file(&self, p: &WsPath) -> Result<OpenFile, ToolError> {
        self.check_readable(p)?;
        let canonical = self.canonical(p)?;
        self.check_readable(&canonical)?;
        let shown = p.to_string();
        let (parent, name) = self.open_parent(&canonical, &shown)?;
        let Some(name) = name else {
            return Err(ToolError::user(format!(
                "`{shown}` is a directory, not a file; list it with list_directory"
            )));
        };
        let before = parent
            .symlink_metadata(&name)
            .map_err(|e| self.io_error(&shown, &e))?;
        check_regular(&shown, &EntryInfo::from_metadata(&before))?;
        let mut options = OpenOptions::new();
        options.read(true).follow(FollowSymlinks::No).nonblock(true);
        let file = parent
            .open_with(&name, &options)
            .map_err(|e| self.io_error(&shown, &e))?
            .into_std();
        let meta = file.metadata().map_err(|e| self.io_error(&shown, &e))?;
        let info = EntryInfo::from_std(&meta);
        check_regular(&shown, &info)?;
        Ok(OpenFile {
            file,
            info,
            path: canonical,
        })
    }

    /// Opens a directory for listing.
    pub fn open_dir(&self, p: &WsPath) -> Result<OpenDir, ToolError> {
        self.check_readable(p)?;
        let canonical = self.canonical(p)?;
        self.check_readable(&canonical)?;
        let dir = self.walk(&canonical, canonical.components().count(), &p.to_string())?;
        Ok(OpenDir {
            dir,
            path: canonical,
        })
    }

    /// The parent directory of a canonical path, opened with no-follow opens, and the last
    /// component (`None` for a root).
    pub(crate) fn open_parent(
        &self,
        canonical: &WsPath,
        shown: &str,
    ) -> Result<(Dir, Option<OsString>), ToolError> {
        let n = canonical.components().count();
        if n == 0 {
            let dir = self.walk(canonical, 0, shown)?;
            return Ok((dir, None));
        }
        let dir = self.walk(canonical, n - 1, shown)?;
        let name = canonical.rel.file_name().map(|s| s.to_os_string());
        Ok((dir, name))
    }

    /// Opens the first `depth` components of a canonical path, none of them followed if a link.
    pub(crate) fn walk(
        &self,
        canonical: &WsPath,
        depth: usize,
        shown: &str,
    ) -> Result<Dir, ToolError> {
        let root = self.roots()[canonical.root].dir();
        let mut dir = root.try_clone().map_err(|e| self.io_error(shown, &e))?;
        for component in canonical.components().take(depth) {
            dir = dir
                .open_dir_nofollow(component)
                .map_err(|e| self.io_error(shown, &e))?;
        }
        Ok(dir)
    }

    /// Follows `p` component by component on its root's handle. With `follow_final` false a
    /// link in the last component is kept (to remove the link itself). A path whose tail does
    /// not exist comes back with `exists: false` and the tail appended as written.
    pub(crate) fn canonicalize(
        &self,
        p: &WsPath,
        follow_final: bool,
    ) -> Result<Canonical, ToolError> {
        let shown = p.to_string();
        let root = &self.roots()[p.root];
        let mut done = PathBuf::new();
        let mut todo: VecDeque<OsString> = p.components().map(|c| c.to_os_string()).collect();
        let mut hops = 0usize;
        while let Some(part) = todo.pop_front() {
            if part == ".." {
                if !done.pop() {
                    return Err(self.refusal(&shown, "a symbolic link in it climbs above the root"));
                }
                continue;
            }
            if part == "." || part.is_empty() {
                continue;
            }
            let candidate = done.join(&part);
            let meta = match root.dir().symlink_metadata(&candidate) {
                Ok(m) => m,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    done = candidate;
                    for rest in todo {
                        if rest == ".." {
                            if !done.pop() {
                                return Err(self.refusal(
                                    &shown,
                                    "a symbolic link in it climbs above the root",
                                ));
                            }
                        } else if rest != "." {
                            done.push(rest);
                        }
                    }
                    return Ok(Canonical {
                        path: p.with_rel(done),
                        exists: false,
                    });
                }
                Err(e) => return Err(self.io_error(&shown, &e)),
            };
            let last = todo.is_empty();
            if meta.file_type().is_symlink() && (follow_final || !last) {
                hops += 1;
                if hops > MAX_LINK_HOPS {
                    return Err(self.refusal(&shown, "its symbolic links loop"));
                }
                let target = root
                    .dir()
                    .read_link_contents(&candidate)
                    .map_err(|e| self.io_error(&shown, &e))?;
                let target = self.link_target_in_root(p.root, &target).ok_or_else(|| {
                    self.refusal(
                        &shown,
                        &format!(
                            "it passes through a symbolic link to {}, outside its root",
                            target.display()
                        ),
                    )
                })?;
                if let LinkTarget::Absolute(rel) = &target {
                    done = PathBuf::new();
                    prepend(&mut todo, rel);
                } else if let LinkTarget::Relative(rel) = &target {
                    prepend(&mut todo, rel);
                }
                continue;
            }
            if !last && !meta.is_dir() {
                return Err(ToolError::user(format!(
                    "`{shown}`: `{}` is not a directory",
                    candidate.display()
                )));
            }
            done = candidate;
        }
        Ok(Canonical {
            path: p.with_rel(done),
            exists: true,
        })
    }

    /// Where a link's target leads, if it stays in the root: a relative target is resolved
    /// from the link's directory; an absolute one must lie under the root's path.
    fn link_target_in_root(&self, root: usize, target: &Path) -> Option<LinkTarget> {
        if target.is_absolute() {
            let r = &self.roots()[root];
            for base in [r.path(), r.given_path()] {
                if let Ok(rest) = target.strip_prefix(base) {
                    return Some(LinkTarget::Absolute(rest.to_path_buf()));
                }
            }
            return None;
        }
        if target
            .components()
            .any(|c| matches!(c, Component::Prefix(_)))
        {
            return None;
        }
        Some(LinkTarget::Relative(target.to_path_buf()))
    }

    fn missing(&self, given: &WsPath, canonical: &WsPath) -> ToolError {
        if given == canonical {
            self.io_error(&given.to_string(), &io::ErrorKind::NotFound.into())
        } else {
            ToolError::not_found(format!(
                "`{given}` is a symbolic link to `{canonical}`, which does not exist"
            ))
        }
    }
}

enum LinkTarget {
    /// Relative to the root.
    Absolute(PathBuf),
    /// Relative to the link's directory.
    Relative(PathBuf),
}

fn prepend(todo: &mut VecDeque<OsString>, rel: &Path) {
    for c in rel.components().rev() {
        match c {
            Component::Normal(s) => todo.push_front(s.to_os_string()),
            Component::ParentDir => todo.push_front("..".into()),
            _ => {}
        }
    }
}

fn rel_or_dot(p: &WsPath) -> &Path {
    if p.is_root() { Path::new(".") } else { &p.rel }
}

fn check_regular(shown: &str, info: &EntryInfo) -> Result<(), ToolError> {
    match info.kind {
        EntryKind::File => Ok(()),
        EntryKind::Dir => Err(ToolError::user(format!(
            "`{shown}` is a directory, not a file; list it with list_directory"
        ))),
        EntryKind::Symlink => Err(ToolError::security(format!(
            "`{shown}` changed into a symbolic link while it was being opened; try again"
        ))),
        EntryKind::Other => Err(ToolError::user(format!(
            "`{shown}` is not a regular file (a FIFO, socket or device); only regular files are read or written"
        ))),
    }
}
