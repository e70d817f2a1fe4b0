//! All or nothing: a patch that fails anywhere leaves every file as it was, whether it fails
//! while planning (a hunk, an existing file, a stale file) or part-way through the renames
//! (a real `EPERM` from an immutable file), and what it may not overwrite it does not.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use tool_core::ErrorKind;
use tool_std::file::apply_patch::{PatchOptions, apply};
use tool_std::workspace::{Stamp, Version};

use crate::support::patch::{fixture, patch};
use crate::support::snapshot_without_dir_times;

/// `chattr +i` on a file for the guard's life; `None` (with the reason printed) where the
/// platform or the user cannot set it.
struct Immutable(PathBuf);

impl Immutable {
    fn set(path: &Path) -> Option<Immutable> {
        match Command::new("chattr").arg("+i").arg(path).output() {
            Ok(out) if out.status.success() => Some(Immutable(path.to_path_buf())),
            Ok(out) => {
                eprintln!(
                    "skipped: `chattr +i` failed (needs root or CAP_LINUX_IMMUTABLE, and a file system with the flag): {}",
                    String::from_utf8_lossy(&out.stderr).trim()
                );
                None
            }
            Err(e) => {
                eprintln!("skipped: chattr is not available ({e})");
                None
            }
        }
    }
}

impl Drop for Immutable {
    fn drop(&mut self) {
        let _ = Command::new("chattr").arg("-i").arg(&self.0).status();
    }
}

#[test]
fn a_failure_while_planning_writes_nothing() {
    let fx = fixture();
    fx.write("a.txt", "a\n");
    fx.write("d.txt", "d\n");
    fx.write("m.txt", "m\n");
    let before = fx.snapshot();
    let err = fx.fails(
        &patch(
            "*** Update File: a.txt\n@@\n-a\n+A\n\
             *** Add File: new/deep/c.txt\n+c\n\
             *** Delete File: d.txt\n\
             *** Update File: m.txt\n*** Move to: moved/m.txt\n@@\n-m\n+M\n\
             *** Update File: a.txt\n@@\n-not there\n+x",
        ),
        ErrorKind::UserError,
    );
    assert!(
        err.message()
            .starts_with("`a.txt`: hunk 1 of 1 (patch line 15) does not apply"),
        "{}",
        err.message()
    );
    assert_eq!(
        fx.snapshot(),
        before,
        "no file, directory or temporary file appeared or changed"
    );
}

/// The fourth of four switches fails with a real `EPERM` (an immutable file can be neither
/// hard-linked nor renamed over); the three made before it are undone: the replaced file gets
/// its very inode back, the created file and its new directories go, the deleted file returns.
#[test]
fn a_failure_part_way_restores_the_files_already_switched() {
    let fx = fixture();
    fx.write("a.txt", "a\n");
    fx.write("d.txt", "d\n");
    fx.write("b.txt", "b\n");
    let Some(_guard) = Immutable::set(&fx.path("b.txt")) else {
        return;
    };
    let before = snapshot_without_dir_times(&fx.base);
    let err = fx.fails(
        &patch(
            "*** Update File: a.txt\n@@\n-a\n+A\n\
             *** Add File: new/dir/c.txt\n+c\n\
             *** Delete File: d.txt\n\
             *** Update File: b.txt\n@@\n-b\n+B",
        ),
        ErrorKind::SystemError,
    );
    assert_eq!(
        err.message(),
        "writing `b.txt` failed (Operation not permitted (os error 1)) after 3 of 4 file(s) had been switched; those were restored, so nothing was changed"
    );
    assert_eq!(
        snapshot_without_dir_times(&fx.base),
        before,
        "contents, modes and inodes as before; no temporary or backup file left"
    );
}

#[test]
fn a_failed_delete_part_way_restores_a_move() {
    let fx = fixture();
    fx.write("src.txt", "s\n");
    fx.write("keep.txt", "k\n");
    let Some(_guard) = Immutable::set(&fx.path("keep.txt")) else {
        return;
    };
    let before = snapshot_without_dir_times(&fx.base);
    let err = fx.fails(
        &patch("*** Update File: src.txt\n*** Move to: dst/src.txt\n@@\n-s\n+S\n*** Delete File: keep.txt"),
        ErrorKind::SystemError,
    );
    assert!(
        err.message()
            .starts_with("deleting `keep.txt` failed (Operation not permitted"),
        "{}",
        err.message()
    );
    assert_eq!(snapshot_without_dir_times(&fx.base), before);
}

#[test]
fn add_never_overwrites_and_move_never_lands_on_a_file() {
    let fx = fixture();
    fx.write("a.txt", "a\n");
    fx.write("b.txt", "b\n");
    fs::create_dir(fx.path("dir")).unwrap();
    let before = fx.snapshot();
    let err = fx.fails(&patch("*** Add File: a.txt\n+x"), ErrorKind::UserError);
    assert_eq!(
        err.message(),
        "`*** Add File: a.txt`: `a.txt` already exists (a file); apply_patch never overwrites a file it does not update"
    );
    assert_eq!(
        err.suggestion(),
        Some(
            "Change the existing file with `*** Update File: a.txt`, or delete it first in the same patch with `*** Delete File: a.txt`."
        )
    );
    let err = fx.fails(&patch("*** Add File: dir\n+x"), ErrorKind::UserError);
    assert!(
        err.message().contains("already exists (a directory)"),
        "{}",
        err.message()
    );
    let err = fx.fails(
        &patch("*** Update File: a.txt\n*** Move to: b.txt\n@@\n-a\n+A"),
        ErrorKind::UserError,
    );
    assert_eq!(
        err.message(),
        "`*** Move to: b.txt`: `b.txt` already exists (a file); apply_patch never overwrites a file it does not update"
    );
    let err = fx.fails(
        &patch("*** Add File: n.txt\n+1\n*** Add File: n.txt\n+2"),
        ErrorKind::UserError,
    );
    assert_eq!(
        err.message(),
        "`*** Add File: n.txt`: an earlier operation of this patch already writes `n.txt`"
    );
    assert_eq!(fx.snapshot(), before);

    // Deleting the destination first makes room.
    fx.applied(&patch(
        "*** Delete File: b.txt\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n-a\n+A",
    ));
    assert_eq!(fx.read("b.txt"), "A\n");
    assert!(!fx.exists("a.txt"));
}

#[test]
fn missing_files_directories_and_special_files() {
    let fx = fixture();
    fs::create_dir(fx.path("dir")).unwrap();
    let err = fx.fails(
        &patch("*** Update File: nope.txt\n@@\n-a\n+b"),
        ErrorKind::NotFound,
    );
    assert_eq!(
        err.message(),
        "`*** Update File: nope.txt`: `nope.txt` does not exist"
    );
    let err = fx.fails(&patch("*** Delete File: nope.txt"), ErrorKind::NotFound);
    assert_eq!(
        err.message(),
        "`*** Delete File: nope.txt`: `nope.txt` does not exist"
    );
    let err = fx.fails(&patch("*** Delete File: dir"), ErrorKind::UserError);
    assert_eq!(
        err.message(),
        "`*** Delete File: dir`: `dir` is a directory; apply_patch changes files only"
    );
    let fifo = fx.path("pipe");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let err = fx.fails(
        &patch("*** Update File: pipe\n@@\n-a\n+b"),
        ErrorKind::UserError,
    );
    assert!(
        err.message().contains("is not a regular file"),
        "{}",
        err.message()
    );
    let err = fx.fails(
        &patch("*** Delete File: a.txt\n*** Delete File: a.txt"),
        ErrorKind::NotFound,
    );
    assert_eq!(
        err.message(),
        "`*** Delete File: a.txt`: `a.txt` does not exist"
    );
}

#[test]
fn a_file_changed_since_it_was_read_is_refused_unless_overwrite() {
    let fx = fixture();
    fx.write("s.txt", "one\n");
    let p = fx.ws.resolve("s.txt").unwrap();
    let open = fx.ws.open_file(&p).unwrap();
    fx.ws
        .record_seen(&open.path, &open.info, Some(Stamp::of(b"one\n")));
    drop(open);

    fx.write("s.txt", "one\nchanged by someone else\n");
    let body = patch("*** Update File: s.txt\n@@\n-one\n+uno");
    let err = fx.fails(&body, ErrorKind::UserError);
    assert_eq!(
        err.message(),
        format!(
            "modified since read: `s.txt` changed since it was last read: now version {}, 1 -> 2 lines, 4 -> 28 bytes; nothing was changed",
            Version::of(b"one\nchanged by someone else\n")
        )
    );
    assert_eq!(fx.read("s.txt"), "one\nchanged by someone else\n");
    let err = fx.fails(&patch("*** Delete File: s.txt"), ErrorKind::UserError);
    assert!(err.message().starts_with("modified since read"));

    apply(&fx.ws, &body, &PatchOptions::new().overwrite(true)).unwrap();
    assert_eq!(fx.read("s.txt"), "uno\nchanged by someone else\n");
    // The write is recorded: the next patch passes, until the file changes again.
    fx.applied(&patch("*** Update File: s.txt\n@@\n-uno\n+one"));
    fx.write("s.txt", "x\n");
    fx.fails(
        &patch("*** Update File: s.txt\n@@\n-x\n+y"),
        ErrorKind::UserError,
    );
}

#[test]
fn the_bytes_one_patch_reads_are_bounded() {
    let fx = fixture();
    let mut body = String::new();
    for i in 0..5 {
        // 30 MiB each on paper: `x` and a sparse tail of NULs (valid UTF-8).
        fx.write(&format!("big{i}.txt"), "x\n");
        let f = fs::OpenOptions::new()
            .write(true)
            .open(fx.path(&format!("big{i}.txt")))
            .unwrap();
        f.set_len(30 << 20).unwrap();
        body.push_str(&format!("*** Update File: big{i}.txt\n@@\n-x\n+y\n"));
    }
    let err = fx.fails(&patch(body.trim_end()), ErrorKind::UserError);
    assert_eq!(
        err.message(),
        "the files of this patch add up to more than 134217728 bytes (at `big4.txt`); nothing was written"
    );
}
