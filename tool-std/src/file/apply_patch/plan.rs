//! Turning a parsed patch into the writes it needs, reading and checking everything first.
//!
//! The operations are played in patch order against a picture of the files they touch, keyed
//! by canonical path: a file is read from disk the first time an operation names it, and
//! later operations see what earlier ones made of it (`*** Delete File: a` then
//! `*** Add File: a` replaces `a`; an update of a file added above edits the new text). Every
//! path goes through the workspace before anything is read: [`Workspace::resolve`], write
//! permission on the path and on where its links lead, and the "modified since read" check of
//! each file the patch updates or deletes (its version in `expected_versions`, else the
//! workspace's record, see [`Guard`]). The outcome is a list of [`Step`]s, one per file whose
//! final state differs from the disk, and a [`FileChange`] per operation for the result, with
//! the version each file has after the patch. Nothing is written here.

use std::collections::HashMap;
use std::io::Read;

use tool_core::{ErrorKind, ToolError};

use super::error::{hunk_error, not_text};
use super::parser::{FileOp, MAX_OPERATIONS, Patch};
use super::report::{ChangeKind, FileChange, HunkMatch};
use super::text::{self, TextFile};
use crate::file::edit::stamp_of;
use crate::file::expected::{Expected, ExpectedVersion};
use crate::workspace::{EntryInfo, EntryKind, Guard, Stamp, Workspace, WsPath};

/// The largest file an update reads, in bytes.
pub const MAX_FILE_BYTES: u64 = 32 * 1024 * 1024;

/// The most bytes one patch reads over all its files.
pub const MAX_TOTAL_BYTES: u64 = 128 * 1024 * 1024;

/// Permission bits of a file the patch adds.
const NEW_FILE_MODE: u32 = 0o644;

/// One file write the patch needs.
#[derive(Debug)]
pub(crate) enum Step {
    /// Create a file that does not exist.
    Create {
        path: WsPath,
        bytes: Vec<u8>,
        stamp: Stamp,
        mode: u32,
    },
    /// Replace an existing file (the entry the plan saw: `ino`).
    Replace {
        path: WsPath,
        bytes: Vec<u8>,
        stamp: Stamp,
        mode: u32,
        ino: u64,
    },
    /// Remove a file or link (the entry the plan saw: `ino`).
    Remove { path: WsPath, ino: u64 },
}

impl Step {
    pub(crate) fn path(&self) -> &WsPath {
        match self {
            Step::Create { path, .. } | Step::Replace { path, .. } | Step::Remove { path, .. } => {
                path
            }
        }
    }
}

/// What the patch will do.
#[derive(Debug)]
pub(crate) struct Plan {
    /// The writes, in the order the patch first named their files.
    pub(crate) steps: Vec<Step>,
    /// One entry per operation, in patch order.
    pub(crate) changes: Vec<FileChange>,
}

/// How a file stands in the plan.
#[derive(Debug)]
enum State {
    Absent,
    /// As on disk, not read yet.
    OnDisk,
    /// New content.
    Text {
        file: TextFile,
        mode: u32,
    },
}

#[derive(Debug)]
struct Entry {
    path: WsPath,
    /// What the disk held when the plan looked (`lstat` of the final component).
    disk: Option<EntryInfo>,
    /// The disk's bytes, once read.
    bytes: Option<Vec<u8>>,
    state: State,
}

struct Planner<'a> {
    ws: &'a Workspace,
    overwrite: bool,
    expected: Expected,
    entries: Vec<Entry>,
    index: HashMap<WsPath, usize>,
    /// Bytes read so far (bounded by [`MAX_TOTAL_BYTES`]).
    read_bytes: u64,
}

/// Plans `patch`: every path checked, every file read, every hunk placed. Fails on the first
/// problem with nothing written.
pub(crate) fn plan(
    ws: &Workspace,
    patch: &Patch,
    overwrite: bool,
    expected_versions: &[ExpectedVersion],
) -> Result<Plan, ToolError> {
    let mut planner = Planner {
        ws,
        overwrite,
        expected: Expected::resolve(ws, expected_versions, MAX_OPERATIONS)?,
        entries: Vec::new(),
        index: HashMap::new(),
        read_bytes: 0,
    };
    let mut changes = Vec::with_capacity(patch.operations.len());
    let mut results = Vec::with_capacity(patch.operations.len());
    for op in &patch.operations {
        let (change, result) = planner.operation(op)?;
        changes.push(change);
        results.push(result);
    }
    planner
        .expected
        .check_all_used("the files this patch updates or deletes")?;
    let mut stamps: Vec<Option<Stamp>> = vec![None; planner.entries.len()];
    let mut steps = Vec::new();
    for (k, entry) in planner.entries.into_iter().enumerate() {
        let step = match (entry.disk, entry.state) {
            (_, State::OnDisk) | (None, State::Absent) => continue,
            (Some(disk), State::Absent) => Step::Remove {
                path: entry.path,
                ino: disk.ino,
            },
            (None, State::Text { file, mode }) => {
                let bytes = file.encode();
                let stamp = Stamp::of(&bytes);
                stamps[k] = Some(stamp);
                Step::Create {
                    path: entry.path,
                    bytes,
                    stamp,
                    mode,
                }
            }
            (Some(disk), State::Text { file, mode }) => {
                let bytes = file.encode();
                let stamp = Stamp::of(&bytes);
                stamps[k] = Some(stamp);
                if entry.bytes.as_deref() == Some(&bytes[..]) && mode == disk.mode {
                    continue;
                }
                Step::Replace {
                    path: entry.path,
                    bytes,
                    stamp,
                    mode,
                    ino: disk.ino,
                }
            }
        };
        steps.push(step);
    }
    for (change, result) in changes.iter_mut().zip(results) {
        change.version = result
            .and_then(|k| stamps[k])
            .map(|s| s.version.to_string());
    }
    Ok(Plan { steps, changes })
}

impl Planner<'_> {
    /// Plays one operation; returns its change and the entry holding the file it leaves
    /// (none for a delete).
    fn operation(&mut self, op: &FileOp) -> Result<(FileChange, Option<usize>), ToolError> {
        match op {
            FileOp::Add { path, lines, .. } => {
                let (shown, i) = self.new_target(path, "Add File", None)?;
                self.entries[i].state = State::Text {
                    file: TextFile::from_lines(lines),
                    mode: NEW_FILE_MODE,
                };
                let change = FileChange::new(ChangeKind::Added, shown).lines(lines.len(), Some(0));
                Ok((change, Some(i)))
            }
            FileOp::Delete { path, .. } => {
                let (shown, i) = self.existing(path, false, "Delete File")?;
                let removed = self.line_count(i)?;
                self.entries[i].state = State::Absent;
                let change = FileChange::new(ChangeKind::Deleted, shown).lines(0, removed);
                Ok((change, None))
            }
            FileOp::Update {
                path,
                move_to,
                hunks,
                ..
            } => {
                let (shown, i) = self.existing(path, true, "Update File")?;
                let (file, mode) = self.text(i, &shown)?;
                let updated = text::apply(&file, hunks)
                    .map_err(|e| hunk_error(&shown, hunks, &e, &file.texts()))?;
                let matches = updated
                    .hunks
                    .iter()
                    .enumerate()
                    .map(|(n, a)| HunkMatch {
                        hunk: n + 1,
                        line: a.line,
                        level: a.level,
                    })
                    .collect();
                let mut change = FileChange::new(ChangeKind::Updated, shown.clone())
                    .lines(updated.added, Some(updated.removed));
                change.hunks = matches;
                let new = State::Text {
                    file: updated.file,
                    mode,
                };
                let mut result = i;
                match move_to {
                    Some(dest) => {
                        let (dest_shown, j) = self.new_target(dest, "Move to", Some(i))?;
                        if j == i {
                            self.entries[i].state = new;
                        } else {
                            self.entries[i].state = State::Absent;
                            self.entries[j].state = new;
                            change.action = ChangeKind::Moved;
                            change.moved_to = Some(dest_shown);
                            result = j;
                        }
                    }
                    None => self.entries[i].state = new,
                }
                Ok((change, Some(result)))
            }
        }
    }

    /// Resolves a path the patch writes and checks it may be written, there and where its
    /// links lead. Returns the path as shown and its canonical form (the final component
    /// followed or not), and whether something is there.
    fn writable(
        &self,
        given: &str,
        follow_final: bool,
    ) -> Result<(WsPath, WsPath, bool), ToolError> {
        let ws = self.ws;
        let p = ws.resolve(given)?;
        ws.check_writable(&p)?;
        let followed = ws.canonicalize(&p, true)?;
        ws.check_writable(&followed.path)?;
        if follow_final {
            return Ok((p, followed.path, followed.exists));
        }
        let own = ws.canonicalize(&p, false)?;
        ws.check_writable(&own.path)?;
        Ok((p, own.path, own.exists))
    }

    /// A path the patch creates (`*** Add File:`, `*** Move to:`): nothing may be there,
    /// unless an earlier operation of the patch removed it. A move onto its own source
    /// (`source`) is no move.
    fn new_target(
        &mut self,
        given: &str,
        what: &str,
        source: Option<usize>,
    ) -> Result<(String, usize), ToolError> {
        let (p, canonical, exists) = self.writable(given, false)?;
        let shown = p.to_string();
        let i = self.entry(&canonical, exists, &shown)?;
        if source == Some(i) {
            return Ok((shown, i));
        }
        if let Some(disk) = &self.entries[i].disk
            && matches!(self.entries[i].state, State::OnDisk)
        {
            let what_is_there = match disk.kind {
                EntryKind::File => "a file",
                EntryKind::Dir => "a directory",
                EntryKind::Symlink => "a symbolic link",
                EntryKind::Other => "a special file",
            };
            return Err(ToolError::user(format!(
                "`*** {what}: {shown}`: `{shown}` already exists ({what_is_there}); apply_patch never overwrites a file it does not update"
            ))
            .with_suggestion(format!(
                "Change the existing file with `*** Update File: {shown}`, or delete it first in the same patch with `*** Delete File: {shown}`."
            )));
        }
        if !matches!(self.entries[i].state, State::Absent | State::OnDisk) {
            return Err(ToolError::user(format!(
                "`*** {what}: {shown}`: an earlier operation of this patch already writes `{shown}`"
            ))
            .with_suggestion("Write each file once per patch, or update it after adding it."));
        }
        Ok((shown, i))
    }

    /// A path that must exist (`*** Update File:` follows links, `*** Delete File:` removes a
    /// link itself). Checked to be unchanged since the model saw it ([`Guard`]) unless
    /// `overwrite`.
    fn existing(
        &mut self,
        given: &str,
        follow_final: bool,
        what: &str,
    ) -> Result<(String, usize), ToolError> {
        let (p, canonical, exists) = self.writable(given, follow_final)?;
        let shown = p.to_string();
        let i = self.entry(&canonical, exists, &shown)?;
        if matches!(self.entries[i].state, State::Absent) {
            let err = if self.entries[i].disk.is_some() {
                format!(
                    "`*** {what}: {shown}`: an earlier operation of this patch removes `{shown}`"
                )
            } else {
                format!("`*** {what}: {shown}`: `{shown}` does not exist")
            };
            return Err(ToolError::new(ErrorKind::NotFound, err).with_suggestion(
                "Check the path with list_directory; to create a file use `*** Add File:`.",
            ));
        }
        if let (Some(disk), State::OnDisk) = (&self.entries[i].disk, &self.entries[i].state) {
            match disk.kind {
                EntryKind::File => {}
                EntryKind::Symlink if !follow_final => {}
                EntryKind::Dir => {
                    return Err(ToolError::user(format!(
                        "`*** {what}: {shown}`: `{shown}` is a directory; apply_patch changes files only"
                    )));
                }
                _ => {
                    return Err(ToolError::user(format!(
                        "`*** {what}: {shown}`: `{shown}` is not a regular file (a FIFO, socket or device); only regular files are read or written"
                    )));
                }
            }
            let guard = self.expected.guard(&p, self.overwrite);
            if guard != Guard::Off {
                let ws = self.ws;
                // As read_file sees it: links followed.
                let followed = ws.canonicalize(&p, true)?.path;
                let now = ws.metadata(&p)?;
                ws.check_unchanged(&shown, &followed, guard, now.as_ref(), || {
                    self.stamp(i, &p, &shown)
                })?;
            }
        }
        Ok((shown, i))
    }

    /// The stamp of an entry's content as read_file would hash it (a link's target), `None`
    /// for a file larger than [`MAX_FILE_BYTES`].
    fn stamp(&mut self, i: usize, given: &WsPath, shown: &str) -> Result<Option<Stamp>, ToolError> {
        match &self.entries[i].disk {
            Some(disk) if disk.kind == EntryKind::File => {
                if disk.len > MAX_FILE_BYTES {
                    return Ok(None);
                }
                Ok(Some(Stamp::of(self.bytes(i, shown)?)))
            }
            _ => stamp_of(self.ws, given, MAX_FILE_BYTES),
        }
    }

    /// The plan's entry for a canonical path, looking at the disk the first time.
    fn entry(&mut self, canonical: &WsPath, exists: bool, shown: &str) -> Result<usize, ToolError> {
        if let Some(&i) = self.index.get(canonical) {
            return Ok(i);
        }
        let disk = if exists {
            let (dir, name) = self.ws.open_parent(canonical, shown)?;
            let Some(name) = name else {
                return Err(ToolError::security(format!(
                    "`{shown}` is a workspace root itself; apply_patch writes files inside roots"
                )));
            };
            match dir.symlink_metadata(&name) {
                Ok(m) => Some(EntryInfo::from_metadata(&m)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => return Err(io_error(shown, &e)),
            }
        } else {
            None
        };
        let i = self.entries.len();
        self.entries.push(Entry {
            path: canonical.clone(),
            state: if disk.is_some() {
                State::OnDisk
            } else {
                State::Absent
            },
            disk,
            bytes: None,
        });
        self.index.insert(canonical.clone(), i);
        Ok(i)
    }

    /// The current text of an entry that exists (read from disk the first time).
    fn text(&mut self, i: usize, shown: &str) -> Result<(TextFile, u32), ToolError> {
        if let State::Text { file, mode } = &self.entries[i].state {
            return Ok((file.clone(), *mode));
        }
        let file = TextFile::decode(self.bytes(i, shown)?).map_err(|e| not_text(shown, e))?;
        let mode = self.entries[i]
            .disk
            .as_ref()
            .map_or(NEW_FILE_MODE, |d| d.mode);
        Ok((file, mode))
    }

    /// The disk's bytes of an entry, read the first time they are needed.
    fn bytes(&mut self, i: usize, shown: &str) -> Result<&[u8], ToolError> {
        if self.entries[i].bytes.is_none() {
            let bytes = self.read(i, shown)?;
            self.entries[i].bytes = Some(bytes);
        }
        Ok(self.entries[i].bytes.as_deref().unwrap_or_default())
    }

    /// Reads an entry's file through the workspace (regular files only, at most
    /// [`MAX_FILE_BYTES`]); the file must still be the one the plan saw.
    fn read(&mut self, i: usize, shown: &str) -> Result<Vec<u8>, ToolError> {
        let entry = &self.entries[i];
        let open = self.ws.open_file(&entry.path)?;
        if open.info.len > MAX_FILE_BYTES {
            return Err(ToolError::user(format!(
                "`{shown}` has {} bytes; apply_patch edits files of at most {MAX_FILE_BYTES} bytes",
                open.info.len
            ))
            .with_suggestion("Edit a file this large with edit_lines or replace_in_file."));
        }
        if self.read_bytes + open.info.len > MAX_TOTAL_BYTES {
            return Err(ToolError::user(format!(
                "the files of this patch add up to more than {MAX_TOTAL_BYTES} bytes (at `{shown}`); nothing was written"
            ))
            .with_suggestion("Split the patch into several smaller ones."));
        }
        self.read_bytes += open.info.len;
        if entry.disk.as_ref().is_some_and(|d| d.ino != open.info.ino) {
            return Err(changed_meanwhile(shown));
        }
        let mut bytes = Vec::with_capacity(open.info.len as usize);
        open.file
            .take(MAX_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| io_error(shown, &e))?;
        Ok(bytes)
    }

    /// Lines of a file about to be deleted (`None` for a link, or a file too large to count).
    fn line_count(&mut self, i: usize) -> Result<Option<usize>, ToolError> {
        if let State::Text { file, .. } = &self.entries[i].state {
            return Ok(Some(file.len()));
        }
        let Some(disk) = &self.entries[i].disk else {
            return Ok(None);
        };
        if disk.kind != EntryKind::File || disk.len > MAX_FILE_BYTES {
            return Ok(None);
        }
        let shown = self.entries[i].path.to_string();
        let bytes = self.bytes(i, &shown)?;
        let newlines = bytes.iter().filter(|&&b| b == b'\n').count();
        let unterminated = usize::from(bytes.last().is_some_and(|&b| b != b'\n'));
        Ok(Some(newlines + unterminated))
    }
}

pub(crate) fn changed_meanwhile(shown: &str) -> ToolError {
    ToolError::user(format!(
        "`{shown}` changed on disk while the patch was being applied; nothing was written"
    ))
    .with_suggestion("Read the file again and send the patch again.")
}

pub(crate) fn io_error(shown: &str, e: &std::io::Error) -> ToolError {
    if e.kind() == std::io::ErrorKind::NotFound {
        return ToolError::not_found(format!("`{shown}` does not exist"));
    }
    ToolError::system(format!("`{shown}`: {e}"))
}
