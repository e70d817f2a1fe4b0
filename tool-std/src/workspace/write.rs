//! Atomic writes, removals and directory creation, all on directory handles.
//!
//! A write never opens its target for writing. It writes a temporary file beside the target,
//! flushes it to disk, gives it the target's permission bits and renames it over the target (or,
//! for a file that must not exist yet, hard-links it into place, which fails if something
//! appeared meanwhile). Whoever reads the target sees the old content or the new, never a mix, even
//! if the process is killed mid-write; and a hard link that shares the target's inode with a file
//! outside the root keeps the old content, because the directory entry is replaced, not the inode.

use std::ffi::OsString;
use std::io::{self, Write};

use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt};
use cap_std::fs::{Dir, OpenOptions};
use tool_core::ToolError;

use super::access::{EntryInfo, EntryKind};
use super::temp::{self, TempKind};
use super::{Workspace, WsPath};

/// Whether a write expects its target to exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Existence {
    /// Fail if the file exists (`create_file` without `overwrite`).
    CreateNew,
    /// Fail if it does not (`update_file`, `append_file`).
    MustExist,
    /// Either.
    Any,
}

/// How [`Workspace::write_file`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[must_use]
pub struct WriteOptions {
    /// Whether the target may, must or must not exist.
    pub existence: Existence,
    /// Create missing parent directories.
    pub create_parents: bool,
}

impl WriteOptions {
    /// The file must not exist yet.
    pub fn create_new() -> Self {
        WriteOptions {
            existence: Existence::CreateNew,
            create_parents: false,
        }
    }

    /// The file must exist.
    pub fn must_exist() -> Self {
        WriteOptions {
            existence: Existence::MustExist,
            create_parents: false,
        }
    }

    /// Create or replace.
    pub fn any() -> Self {
        WriteOptions {
            existence: Existence::Any,
            create_parents: false,
        }
    }

    /// Whether to create missing parent directories.
    pub fn create_parents(mut self, yes: bool) -> Self {
        self.create_parents = yes;
        self
    }
}

/// What a write did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct WriteOutcome {
    /// Whether the file was created (it did not exist before).
    pub created: bool,
    /// The canonical path written (a link inside the root leads here).
    pub path: WsPath,
    /// Bytes written.
    pub bytes: u64,
    /// The file's metadata after the write.
    pub info: EntryInfo,
}

/// Permission bits of a file a write creates.
const NEW_FILE_MODE: u32 = 0o644;

impl Workspace {
    /// Writes `bytes` to `p` atomically (into a temporary file beside it, fsynced, then
    /// renamed over it), keeping the file's permission bits. Follows a link inside the root to its target; refuses read-only
    /// roots and protected paths (the target's too), links that leave the root, and targets
    /// that are not regular files.
    ///
    /// Then removes the temporary files that writers killed mid-way left in the same
    /// directory (see [`Workspace::remove_stale_temp_files`]), looking at no more than 10,000
    /// of its entries.
    pub fn write_file(
        &self,
        p: &WsPath,
        bytes: &[u8],
        options: WriteOptions,
    ) -> Result<WriteOutcome, ToolError> {
        self.check_writable(p)?;
        let shown = p.to_string();
        let canonical = self.canonicalize(p, true)?;
        let target = canonical.path;
        self.check_writable(&target)?;
        let parent = self.parent_for_write(&target, &shown, options.create_parents)?;
        let Some(name) = target.relative().file_name().map(|n| n.to_os_string()) else {
            return Err(self.refusal(&shown, "it is a workspace root itself"));
        };
        let existing = match parent.symlink_metadata(&name) {
            Ok(m) => Some(EntryInfo::from_metadata(&m)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(self.io_error(&shown, &e)),
        };
        match (&existing, options.existence) {
            (Some(info), _) if info.kind != EntryKind::File => {
                return Err(ToolError::user(format!(
                    "`{shown}` is a {}, not a regular file; only regular files are written",
                    info.kind.as_str()
                )));
            }
            (Some(_), Existence::CreateNew) => {
                return Err(
                    ToolError::user(format!("`{shown}` already exists")).with_suggestion(
                        "Pass overwrite: true to replace it, or edit it with replace_in_file.",
                    ),
                );
            }
            (None, Existence::MustExist) => {
                return Err(self.io_error(&shown, &io::ErrorKind::NotFound.into()));
            }
            _ => {}
        }
        let mode = existing.as_ref().map_or(NEW_FILE_MODE, |i| i.mode);
        let temp =
            write_temp(&parent, &name, bytes, mode).map_err(|e| self.io_error(&shown, &e))?;
        let placed = if existing.is_none() {
            // Hard-link into place: fails with EEXIST if a file appeared since the check.
            parent
                .hard_link(&temp, &parent, &name)
                .and_then(|()| parent.remove_file(&temp))
        } else {
            parent.rename(&temp, &parent, &name)
        };
        if let Err(e) = placed {
            let _ = parent.remove_file(&temp);
            if e.kind() == io::ErrorKind::AlreadyExists {
                return Err(ToolError::user(format!(
                    "`{shown}` was created by someone else while this write ran; read it and try again"
                )));
            }
            return Err(self.io_error(&shown, &e));
        }
        sync_dir(&parent);
        temp::remove_stale(&parent, temp::MAX_ENTRIES_PER_DIR);
        let info = parent
            .symlink_metadata(&name)
            .map(|m| EntryInfo::from_metadata(&m))
            .map_err(|e| self.io_error(&shown, &e))?;
        Ok(WriteOutcome {
            created: existing.is_none(),
            path: target,
            bytes: bytes.len() as u64,
            info,
        })
    }

    /// Removes a file (or a link itself; the link's target is left alone). Directories are
    /// refused: see [`Workspace::remove_dir_all`].
    pub fn remove_file(&self, p: &WsPath) -> Result<(), ToolError> {
        self.check_writable(p)?;
        let shown = p.to_string();
        let canonical = self.canonicalize(p, false)?;
        if !canonical.exists {
            return Err(self.io_error(&shown, &io::ErrorKind::NotFound.into()));
        }
        self.check_writable(&canonical.path)?;
        let (parent, name) = self.open_parent(&canonical.path, &shown)?;
        let Some(name) = name else {
            return Err(self.refusal(&shown, "it is a workspace root itself"));
        };
        let meta = parent
            .symlink_metadata(&name)
            .map_err(|e| self.io_error(&shown, &e))?;
        if meta.is_dir() {
            return Err(ToolError::user(format!(
                "`{shown}` is a directory; deleting a directory needs recursive: true"
            )));
        }
        parent
            .remove_file(&name)
            .map_err(|e| self.io_error(&shown, &e))?;
        sync_dir(&parent);
        Ok(())
    }

    /// Removes a directory and everything in it (a link to a directory: the link only). Never a
    /// root. Whether a person must approve is the calling tool's decision.
    pub fn remove_dir_all(&self, p: &WsPath) -> Result<(), ToolError> {
        self.check_writable(p)?;
        let shown = p.to_string();
        let canonical = self.canonicalize(p, false)?;
        if !canonical.exists {
            return Err(self.io_error(&shown, &io::ErrorKind::NotFound.into()));
        }
        self.check_writable(&canonical.path)?;
        let (parent, name) = self.open_parent(&canonical.path, &shown)?;
        let Some(name) = name else {
            return Err(self.refusal(&shown, "it is a workspace root itself"));
        };
        let meta = parent
            .symlink_metadata(&name)
            .map_err(|e| self.io_error(&shown, &e))?;
        let done = if meta.is_dir() {
            parent.remove_dir_all(&name)
        } else {
            parent.remove_file(&name)
        };
        done.map_err(|e| self.io_error(&shown, &e))?;
        sync_dir(&parent);
        Ok(())
    }

    /// Creates a directory and any missing parents.
    pub fn create_dir_all(&self, p: &WsPath) -> Result<(), ToolError> {
        self.check_writable(p)?;
        let shown = p.to_string();
        let canonical = self.canonicalize(p, true)?;
        self.check_writable(&canonical.path)?;
        let n = canonical.path.components().count();
        self.walk_creating(&canonical.path, n, &shown).map(drop)
    }

    /// Opens the parent of a canonical target, creating missing directories when asked.
    fn parent_for_write(
        &self,
        target: &WsPath,
        shown: &str,
        create_parents: bool,
    ) -> Result<Dir, ToolError> {
        let n = target.components().count();
        let depth = n.saturating_sub(1);
        if create_parents {
            return self.walk_creating(target, depth, shown);
        }
        self.walk(target, depth, shown).map_err(|e| {
            if e.kind() == tool_core::ErrorKind::NotFound {
                let parent = target.parent().map(|p| p.to_string()).unwrap_or_default();
                ToolError::not_found(format!(
                    "the directory `{parent}` for `{shown}` does not exist"
                ))
                .with_suggestion("Pass create_parents: true to create it.")
            } else {
                e
            }
        })
    }

    /// Like `walk`, creating each missing directory (mode 0o755) on the way.
    fn walk_creating(
        &self,
        canonical: &WsPath,
        depth: usize,
        shown: &str,
    ) -> Result<Dir, ToolError> {
        use cap_fs_ext::DirExt;
        let mut dir = self.roots()[canonical.root]
            .dir()
            .try_clone()
            .map_err(|e| self.io_error(shown, &e))?;
        for component in canonical.components().take(depth) {
            match dir.create_dir(component) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(self.io_error(shown, &e)),
            }
            dir = dir
                .open_dir_nofollow(component)
                .map_err(|e| self.io_error(shown, &e))?;
        }
        Ok(dir)
    }
}

/// Writes a temporary file beside `name` in `dir` and returns its name.
fn write_temp(dir: &Dir, name: &OsString, bytes: &[u8], mode: u32) -> io::Result<OsString> {
    for _ in 0..16 {
        let temp = temp::temp_name(name, TempKind::Write);
        let mut options = OpenOptions::new();
        options
            .write(true)
            .create_new(true)
            .follow(FollowSymlinks::No);
        super::modes::owner_only(&mut options);
        let file = match dir.open_with(&temp, &options) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        };
        let written = (|| {
            let mut file = file;
            file.write_all(bytes)?;
            super::modes::set_mode(&file, mode)?;
            file.sync_all()
        })();
        return match written {
            Ok(()) => Ok(temp),
            Err(e) => {
                let _ = dir.remove_file(&temp);
                Err(e)
            }
        };
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        "could not find a free temporary file name",
    ))
}

/// Flushes a directory's entries, so a rename survives a crash. Best effort: some file systems
/// refuse to sync directories.
fn sync_dir(dir: &Dir) {
    if let Ok(d) = dir.open(".") {
        let _ = d.sync_all();
    }
}
