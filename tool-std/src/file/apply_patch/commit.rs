//! Writing a planned patch all or nothing: stage every file, then switch them in turn, and
//! switch back what was already switched if one fails.
//!
//! 1. **Stage.** For each file to create or replace, a temporary file with the new content is
//!    written beside it (same directory, so the final rename is atomic), given its mode and
//!    flushed to disk; missing parent directories are created. Each target is checked to be
//!    still the entry the plan read (same inode; nothing where a file is to be created). A
//!    failure here removes the temporary files and the directories made, and nothing has
//!    changed.
//! 2. **Switch.** In turn: a replaced file's original is hard-linked to a backup name, then the
//!    temporary file is renamed over it; a new file is hard-linked into place (which fails if
//!    something appeared meanwhile); a deleted file is renamed to a backup name. Readers see
//!    each file old or new, never half-written.
//! 3. **Restore** (a switch failed): the steps already done are undone in reverse: backups are
//!    renamed back (the original inode returns, mode and all), created files removed. Only if
//!    that fails too does the error say which file is left how and where its backup is.
//! 4. **Finish.** Backups are removed and the directories flushed; the temporary files and
//!    backups that killed writers left in those directories are removed (see
//!    [`Workspace::remove_stale_temp_files`]).
//!
//! All of it happens on directory handles opened through the workspace with no-follow opens,
//! on single-component names: a directory swapped for a link after planning makes the open
//! fail rather than lead elsewhere.

use std::collections::HashMap;
use std::ffi::OsString;
use std::io::{self, Write};
use std::sync::Arc;

use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt};
use cap_std::fs::{Dir, OpenOptions};
use tool_core::ToolError;

use super::plan::{Step, changed_meanwhile, io_error};
use crate::workspace::temp::{self, TempKind};
use crate::workspace::{Stamp, Workspace, WsPath};

/// What a committed patch changed, for the workspace's record of reads and writes.
#[derive(Debug, Default)]
pub(crate) struct Committed {
    /// Files created or replaced (canonical paths), with their new content's stamp.
    pub(crate) written: Vec<(WsPath, Stamp)>,
    /// Files removed.
    pub(crate) removed: Vec<WsPath>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Create,
    Replace,
    Remove,
}

struct Staged {
    kind: Kind,
    path: WsPath,
    /// The new content's stamp (none for a removal).
    stamp: Option<Stamp>,
    dir: Arc<Dir>,
    name: OsString,
    temp: Option<OsString>,
}

/// A switch already made, and how to undo it.
enum Done {
    /// `staged[i]` replaced; the original is at `backup`.
    Replaced(usize, OsString),
    /// `staged[i]` created.
    Created(usize),
    /// `staged[i]` removed; the original is at `backup`.
    Removed(usize, OsString),
}

/// Writes the planned steps all or nothing (see the [module documentation](self)).
pub(crate) fn commit(ws: &Workspace, steps: Vec<Step>) -> Result<Committed, ToolError> {
    let mut made_dirs: Vec<WsPath> = Vec::new();
    let mut staged: Vec<Staged> = Vec::with_capacity(steps.len());
    if let Err(e) = stage(ws, steps, &mut staged, &mut made_dirs) {
        discard(&staged);
        remove_dirs(ws, &made_dirs);
        return Err(e);
    }

    let mut done: Vec<Done> = Vec::with_capacity(staged.len());
    for (i, s) in staged.iter().enumerate() {
        let temp = s.temp.as_ref();
        let switched = match (s.kind, temp) {
            (Kind::Replace, Some(temp)) => {
                replace(&s.dir, &s.name, temp).map(|b| Done::Replaced(i, b))
            }
            (Kind::Create, Some(temp)) => s.dir.hard_link(temp, &s.dir, &s.name).map(|()| {
                let _ = s.dir.remove_file(temp);
                Done::Created(i)
            }),
            _ => {
                let backup = temp::temp_name(&s.name, TempKind::PatchBackup);
                s.dir
                    .rename(&s.name, &s.dir, &backup)
                    .map(|()| Done::Removed(i, backup))
            }
        };
        match switched {
            Ok(d) => done.push(d),
            Err(e) => {
                let written = done.len();
                let unrestored = restore(&staged, done);
                discard(&staged[i..]);
                remove_dirs(ws, &made_dirs);
                return Err(part_way(s, &e, written, staged.len(), &unrestored));
            }
        }
    }

    let mut committed = Committed::default();
    let mut dirs: Vec<&Arc<Dir>> = Vec::new();
    for d in &done {
        let (i, backup) = match d {
            Done::Replaced(i, b) | Done::Removed(i, b) => (*i, Some(b)),
            Done::Created(i) => (*i, None),
        };
        let s = &staged[i];
        if let Some(backup) = backup {
            let _ = s.dir.remove_file(backup);
        }
        match (s.kind, s.stamp) {
            (Kind::Create | Kind::Replace, Some(stamp)) => {
                committed.written.push((s.path.clone(), stamp));
            }
            _ => committed.removed.push(s.path.clone()),
        }
        if !dirs.iter().any(|d| Arc::ptr_eq(d, &s.dir)) {
            dirs.push(&s.dir);
        }
    }
    for dir in dirs {
        sync_dir(dir);
        temp::remove_stale(dir, temp::MAX_ENTRIES_PER_DIR);
    }
    Ok(committed)
}

/// Stage 1: open every target's directory, check the target, write the temporary files.
fn stage(
    ws: &Workspace,
    steps: Vec<Step>,
    staged: &mut Vec<Staged>,
    made_dirs: &mut Vec<WsPath>,
) -> Result<(), ToolError> {
    let mut dirs: HashMap<WsPath, Arc<Dir>> = HashMap::new();
    for step in steps {
        let path = step.path().clone();
        let shown = path.to_string();
        if matches!(step, Step::Create { .. }) {
            make_parents(ws, &path, made_dirs)?;
        }
        let parent = path.parent().unwrap_or_else(|| path.clone());
        let dir = match dirs.get(&parent) {
            Some(d) => d.clone(),
            None => {
                let (d, _) = ws.open_parent(&path, &shown)?;
                let d = Arc::new(d);
                dirs.insert(parent, d.clone());
                d
            }
        };
        let Some(name) = path.relative().file_name().map(|n| n.to_os_string()) else {
            return Err(ToolError::security(format!(
                "`{shown}` is a workspace root itself; apply_patch writes files inside roots"
            )));
        };
        let now = match dir.symlink_metadata(&name) {
            Ok(m) => Some(crate::workspace::modes::identity_of(&m)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(io_error(&shown, &e)),
        };
        let (kind, temp, stamp) = match step {
            Step::Create {
                bytes, mode, stamp, ..
            } => {
                if now.is_some() {
                    return Err(changed_meanwhile(&shown));
                }
                (Kind::Create, Some((bytes, mode)), Some(stamp))
            }
            Step::Replace {
                bytes,
                mode,
                ino,
                stamp,
                ..
            } => {
                if now != Some(ino) {
                    return Err(changed_meanwhile(&shown));
                }
                (Kind::Replace, Some((bytes, mode)), Some(stamp))
            }
            Step::Remove { ino, .. } => {
                if now != Some(ino) {
                    return Err(changed_meanwhile(&shown));
                }
                (Kind::Remove, None, None)
            }
        };
        let temp = match temp {
            Some((bytes, mode)) => {
                Some(write_temp(&dir, &name, &bytes, mode).map_err(|e| io_error(&shown, &e))?)
            }
            None => None,
        };
        staged.push(Staged {
            kind,
            path,
            stamp,
            dir,
            name,
            temp,
        });
    }
    Ok(())
}

/// Creates the missing parents of `path`, remembering each one made (deepest first per call).
fn make_parents(ws: &Workspace, path: &WsPath, made: &mut Vec<WsPath>) -> Result<(), ToolError> {
    let Some(parent) = path.parent() else {
        return Ok(());
    };
    let mut missing = Vec::new();
    let mut cursor = Some(parent.clone());
    while let Some(p) = cursor {
        if p.is_root() || ws.metadata(&p)?.is_some() {
            break;
        }
        cursor = p.parent();
        missing.push(p);
    }
    if missing.is_empty() {
        return Ok(());
    }
    ws.create_dir_all(&parent)?;
    // Deepest last here; `remove_dirs` walks the list backwards.
    missing.reverse();
    made.extend(missing);
    Ok(())
}

/// Removes directories this patch made, deepest first, if they are empty.
fn remove_dirs(ws: &Workspace, made: &[WsPath]) {
    for d in made.iter().rev() {
        if let Ok((parent, Some(name))) = ws.open_parent(d, &d.to_string()) {
            let _ = parent.remove_dir(name);
        }
    }
}

/// Replaces `name` with `temp`, keeping the original at a backup name.
fn replace(dir: &Dir, name: &OsString, temp: &OsString) -> io::Result<OsString> {
    let backup = temp::temp_name(name, TempKind::PatchBackup);
    match dir.hard_link(name, dir, &backup) {
        Ok(()) => match dir.rename(temp, dir, name) {
            Ok(()) => Ok(backup),
            Err(e) => {
                let _ = dir.remove_file(&backup);
                Err(e)
            }
        },
        // Some file systems have no hard links: move the original aside instead (a reader
        // may then find no file for a moment).
        Err(_) => {
            dir.rename(name, dir, &backup)?;
            if let Err(e) = dir.rename(temp, dir, name) {
                let _ = dir.rename(&backup, dir, name);
                return Err(e);
            }
            Ok(backup)
        }
    }
}

/// Undoes the switches made, newest first. Returns a description of each that could not be.
fn restore(staged: &[Staged], done: Vec<Done>) -> Vec<String> {
    let mut failed = Vec::new();
    for d in done.into_iter().rev() {
        match d {
            Done::Replaced(i, backup) | Done::Removed(i, backup) => {
                let s = &staged[i];
                if let Err(e) = s.dir.rename(&backup, &s.dir, &s.name) {
                    failed.push(format!(
                        "`{}` could not be restored ({e}); its original content is in `{}` in the same directory",
                        s.path,
                        backup.to_string_lossy()
                    ));
                }
            }
            Done::Created(i) => {
                let s = &staged[i];
                if let Err(e) = s.dir.remove_file(&s.name) {
                    failed.push(format!(
                        "`{}` was created and could not be removed ({e})",
                        s.path
                    ));
                }
            }
        }
    }
    failed
}

/// Removes the temporary files of staged steps not switched.
fn discard(staged: &[Staged]) {
    for s in staged {
        if let Some(temp) = &s.temp {
            let _ = s.dir.remove_file(temp);
        }
    }
}

fn part_way(
    s: &Staged,
    e: &io::Error,
    written: usize,
    total: usize,
    unrestored: &[String],
) -> ToolError {
    let verb = match s.kind {
        Kind::Remove => "deleting",
        _ => "writing",
    };
    if unrestored.is_empty() {
        return ToolError::system(format!(
            "{verb} `{}` failed ({e}) after {written} of {total} file(s) had been switched; those were restored, so nothing was changed",
            s.path
        ))
        .with_suggestion(format!(
            "Check that `{}` can be changed (permissions, immutable flag, free space), then send the patch again.",
            s.path
        ));
    }
    ToolError::system(format!(
        "{verb} `{}` failed ({e}) after {written} of {total} file(s) had been switched, and restoring them failed: {}",
        s.path,
        unrestored.join("; ")
    ))
    .with_suggestion("Tell the user: some files need to be restored by hand as described.")
}

/// Writes a temporary file beside `name`, with `mode`, flushed to disk.
fn write_temp(dir: &Dir, name: &OsString, bytes: &[u8], mode: u32) -> io::Result<OsString> {
    for _ in 0..16 {
        let temp = temp::temp_name(name, TempKind::PatchNew);
        let mut options = OpenOptions::new();
        options
            .write(true)
            .create_new(true)
            .follow(FollowSymlinks::No);
        crate::workspace::modes::owner_only(&mut options);
        let mut file = match dir.open_with(&temp, &options) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        };
        let written = file
            .write_all(bytes)
            .and_then(|()| crate::workspace::modes::set_mode(&file, mode))
            .and_then(|()| file.sync_all());
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

/// Flushes a directory's entries (best effort).
fn sync_dir(dir: &Dir) {
    if let Ok(d) = dir.open(".") {
        let _ = d.sync_all();
    }
}
