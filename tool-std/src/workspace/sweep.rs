//! A bounded walk of the read-write roots removing the temporary files killed writers left.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use cap_fs_ext::DirExt;
use cap_std::fs::Dir;

use super::Workspace;
use super::temp;

/// The most directories [`Workspace::remove_stale_temp_files`] looks into, over all roots.
pub const SWEEP_MAX_DIRS: usize = 2_000;

/// The most directory entries [`Workspace::remove_stale_temp_files`] looks at, over all roots.
pub const SWEEP_MAX_ENTRIES: usize = 200_000;

/// How deep below a root [`Workspace::remove_stale_temp_files`] goes (a root's own entries are
/// depth 1).
pub const SWEEP_MAX_DEPTH: usize = 16;

/// What [`Workspace::remove_stale_temp_files`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SweepReport {
    /// Stale temporary files removed.
    pub removed: usize,
    /// Directories looked into.
    pub dirs: usize,
    /// Whether a limit stopped the walk before it had seen everything.
    pub truncated: bool,
}

impl Workspace {
    /// Removes the temporary files that writes killed mid-way left in the read-write roots,
    /// and nothing else.
    ///
    /// A write (`create_file`, `update_file`, `replace_in_file`, `apply_patch`, ...) puts its
    /// new content in a temporary file beside the target and renames it into place; a process
    /// killed before the rename leaves that file behind. Its name records the writer: it is
    /// removed only if it has exactly the form a write gives it
    /// (`.{name}.{tag}.{pid}.{start}.{n}.tmp`, `.patch-tmp` or `.patch-orig`), is a regular
    /// file (never a link or a directory) and no process with that pid and start time runs on
    /// this machine in this PID namespace. Whatever cannot be judged (a file from before a
    /// reboot, from another container or machine sharing the directory, a system without
    /// `/proc`) is kept.
    ///
    /// Each write already does this for its own directory; a host calls this once at start
    /// (`toolsmith serve` does) for the directories no write has visited since. The walk is
    /// breadth-first, on directory handles, follows no links, skips protected paths (`.git`)
    /// and read-only roots, and stops after [`SWEEP_MAX_DIRS`] directories,
    /// [`SWEEP_MAX_ENTRIES`] entries or [`SWEEP_MAX_DEPTH`] levels, so a huge tree costs a
    /// bounded time; `truncated` says a limit was reached. Errors on the way (a directory that
    /// cannot be read) skip that directory.
    ///
    /// ```
    /// use tool_std::workspace::Workspace;
    ///
    /// let dir = tempfile::tempdir()?;
    /// std::fs::write(dir.path().join(".notes.txt.tmp"), "kept: not a write's name")?;
    /// let ws = Workspace::single(dir.path())?;
    /// let report = ws.remove_stale_temp_files();
    /// assert_eq!(report.removed, 0);
    /// assert!(dir.path().join(".notes.txt.tmp").exists());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn remove_stale_temp_files(&self) -> SweepReport {
        let mut report = SweepReport::default();
        let mut entries_left = SWEEP_MAX_ENTRIES;
        if temp::this_process().is_none() {
            return report;
        }
        for (index, root) in self.roots().iter().enumerate() {
            if !root.is_writable() {
                continue;
            }
            // Paths, not handles, wait in the queue: a wide tree must not hold thousands of
            // descriptors open.
            let mut queue: VecDeque<(PathBuf, usize)> = VecDeque::new();
            queue.push_back((PathBuf::new(), 1));
            while let Some((rel, depth)) = queue.pop_front() {
                if report.dirs == SWEEP_MAX_DIRS || entries_left == 0 {
                    report.truncated = true;
                    return report;
                }
                let Some(dir) = open_nofollow(root.dir(), &rel) else {
                    continue;
                };
                report.dirs += 1;
                let swept = temp::remove_stale(&dir, entries_left.min(temp::MAX_ENTRIES_PER_DIR));
                report.removed += swept.removed;
                entries_left -= swept.examined;
                report.truncated |= swept.truncated;
                let Ok(entries) = dir.entries() else {
                    continue;
                };
                for entry in entries.flatten().take(swept.examined) {
                    // The entry's own type: a link to a directory is not followed.
                    if !entry.file_type().is_ok_and(|t| t.is_dir()) {
                        continue;
                    }
                    let name = entry.file_name();
                    let child = rel.join(&name);
                    if self.is_protected(&self.make(index, child.clone())) {
                        continue;
                    }
                    if depth == SWEEP_MAX_DEPTH {
                        report.truncated = true;
                        continue;
                    }
                    queue.push_back((child, depth + 1));
                }
            }
        }
        report
    }
}

/// Opens `rel` below `root` one component at a time, following no link.
fn open_nofollow(root: &Dir, rel: &Path) -> Option<Dir> {
    let mut dir = root.try_clone().ok()?;
    for component in rel.components() {
        dir = dir.open_dir_nofollow(component).ok()?;
    }
    Some(dir)
}
