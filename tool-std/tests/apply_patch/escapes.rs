//! Escape attempts through `apply_patch`: every path of every operation (add, update, delete,
//! move source and destination) goes through the workspace, and a refused patch reads, creates
//! and changes nothing, inside the root or outside it.

use std::fs;
use std::os::unix::fs::symlink;

use tool_core::ErrorKind;
use tool_std::file::apply_patch::{PatchOptions, apply};
use tool_std::workspace::Workspace;

use crate::support::patch::{SECRET, fixture, patch};
use crate::support::snapshot;

#[test]
fn escape_attempts_are_refused_and_change_nothing() {
    let fx = fixture();
    let base = fx.base.display().to_string();
    fx.write("a.txt", "a\n");
    fs::create_dir_all(fx.path("sub")).unwrap();
    symlink(fx.base.join("outside"), fx.path("linkdir")).unwrap();
    symlink(fx.base.join("outside/secret.txt"), fx.path("lnk")).unwrap();
    symlink("../outside/secret.txt", fx.path("rel")).unwrap();
    symlink(fx.base.join("outside/missing.txt"), fx.path("dangle")).unwrap();
    symlink("c2", fx.path("c1")).unwrap();
    symlink("../outside", fx.path("c2")).unwrap();
    symlink("../../ws-evil", fx.path("sub/evil")).unwrap();

    let attempts: Vec<(&str, String)> = vec![
        ("`..` add", patch("*** Add File: ../outside/new.txt\n+x")),
        (
            "`..` update",
            patch("*** Update File: ../outside/secret.txt\n@@\n-outside-secret-7f3a\n+pwned"),
        ),
        (
            "`..` delete",
            patch("*** Delete File: ../outside/secret.txt"),
        ),
        (
            "`..` through a subdirectory",
            patch("*** Add File: sub/../../outside/new.txt\n+x"),
        ),
        (
            "absolute add outside",
            patch(&format!("*** Add File: {base}/outside/new.txt\n+x")),
        ),
        (
            "absolute update outside",
            patch(&format!(
                "*** Update File: {base}/outside/secret.txt\n@@\n-outside-secret-7f3a\n+pwned"
            )),
        ),
        (
            "sibling prefix add",
            patch(&format!("*** Add File: {base}/ws-evil/new.txt\n+x")),
        ),
        (
            "sibling prefix delete",
            patch(&format!("*** Delete File: {base}/ws-evil/x.txt")),
        ),
        (
            "symlinked directory, add",
            patch("*** Add File: linkdir/new.txt\n+x"),
        ),
        (
            "symlinked directory, update",
            patch("*** Update File: linkdir/secret.txt\n@@\n-outside-secret-7f3a\n+pwned"),
        ),
        (
            "symlinked directory, nested",
            patch("*** Add File: linkdir/dir/new.txt\n+x"),
        ),
        (
            "final component link out, update",
            patch("*** Update File: lnk\n@@\n-outside-secret-7f3a\n+pwned"),
        ),
        (
            "final component link out, add",
            patch("*** Add File: lnk\n+x"),
        ),
        (
            "final component link out, delete",
            patch("*** Delete File: lnk"),
        ),
        (
            "relative link out, update",
            patch("*** Update File: rel\n@@\n-outside-secret-7f3a\n+pwned"),
        ),
        ("dangling link out, add", patch("*** Add File: dangle\n+x")),
        ("link chain out", patch("*** Add File: c1/new.txt\n+x")),
        (
            "link to the sibling",
            patch("*** Add File: sub/evil/new.txt\n+x"),
        ),
        (
            "protected .git, update",
            patch("*** Update File: .git/config\n@@\n-[core]\n+[core] hooksPath=/tmp"),
        ),
        (
            "protected .git, add",
            patch("*** Add File: .git/hooks/pre-commit\n+#!/bin/sh"),
        ),
        ("protected .env, delete", patch("*** Delete File: .env")),
        (
            "protected .env.*, add",
            patch("*** Add File: sub/.env.local\n+TOKEN=2"),
        ),
        (
            "move to outside",
            patch("*** Update File: a.txt\n*** Move to: ../outside/a.txt\n@@\n-a\n+b"),
        ),
        (
            "move to outside by absolute path",
            patch(&format!(
                "*** Update File: a.txt\n*** Move to: {base}/outside/a.txt"
            )),
        ),
        (
            "move through a symlinked directory",
            patch("*** Update File: a.txt\n*** Move to: linkdir/a.txt"),
        ),
        (
            "move into .git",
            patch("*** Update File: a.txt\n*** Move to: .git/a.txt"),
        ),
        (
            "move from outside",
            patch("*** Update File: ../outside/secret.txt\n*** Move to: stolen.txt"),
        ),
        ("NUL byte", patch("*** Add File: a\u{0}b\n+x")),
        (
            "a valid add, then an escape",
            patch("*** Add File: fine.txt\n+x\n*** Add File: ../outside/new.txt\n+x"),
        ),
    ];
    assert!(attempts.len() >= 12);
    let before = snapshot(&fx.base);
    for (name, body) in &attempts {
        let err = match fx.apply(body) {
            Ok(done) => panic!("{name}: the patch applied: {done:?}"),
            Err(e) => e,
        };
        assert_eq!(
            err.kind(),
            ErrorKind::SecurityError,
            "{name}: {}",
            err.to_json()
        );
        assert!(
            err.message().contains("call list_projects"),
            "{name}: {}",
            err.message()
        );
    }
    assert_eq!(
        snapshot(&fx.base),
        before,
        "nothing created, changed or removed anywhere"
    );
    assert_eq!(
        fs::read_to_string(fx.base.join("outside/secret.txt")).unwrap(),
        SECRET
    );
}

#[test]
fn a_dangling_link_inside_the_root_is_not_followed_by_an_add() {
    let fx = fixture();
    symlink("missing.txt", fx.path("dangling")).unwrap();
    let err = fx.fails(&patch("*** Add File: dangling\n+x"), ErrorKind::UserError);
    assert_eq!(
        err.message(),
        "`*** Add File: dangling`: `dangling` already exists (a symbolic link); apply_patch never overwrites a file it does not update"
    );
    assert!(!fx.exists("missing.txt"));
}

#[test]
fn a_read_only_root_is_never_written() {
    let fx = fixture();
    let docs = fx.base.join("docs");
    fs::create_dir_all(&docs).unwrap();
    fs::write(docs.join("guide.md"), "guide\n").unwrap();
    fx.write("a.txt", "a\n");
    let ws = Workspace::builder()
        .root("ws", &fx.root)
        .read_only_root("docs", &docs)
        .build()
        .unwrap();
    let before = snapshot(&fx.base);
    for body in [
        patch("*** Add File: docs:new.md\n+x"),
        patch("*** Update File: docs:guide.md\n@@\n-guide\n+pwned"),
        patch("*** Delete File: docs:guide.md"),
        patch(&format!(
            "*** Update File: {}/guide.md\n@@\n-guide\n+pwned",
            docs.display()
        )),
        patch("*** Update File: ws:a.txt\n*** Move to: docs:a.txt"),
        patch("*** Update File: docs:guide.md\n*** Move to: ws:guide.md"),
    ] {
        let err = apply(&ws, &body, &PatchOptions::new()).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::SecurityError, "{}", err.to_json());
        assert!(
            err.message().contains("root `docs` is read-only"),
            "{}",
            err.message()
        );
    }
    assert_eq!(snapshot(&fx.base), before);
    // The writable root still takes patches, named explicitly.
    apply(
        &ws,
        &patch("*** Update File: ws:a.txt\n@@\n-a\n+b"),
        &PatchOptions::new(),
    )
    .unwrap();
    assert_eq!(fx.read("a.txt"), "b\n");
}

#[test]
fn links_that_stay_inside_the_root_work() {
    let fx = fixture();
    fx.write("real/file.txt", "x\n");
    symlink("real", fx.path("alias")).unwrap();
    symlink("real/file.txt", fx.path("file-link")).unwrap();
    fx.applied(&patch(
        "*** Update File: alias/file.txt\n@@\n-x\n+y\n*** Add File: alias/new.txt\n+n",
    ));
    assert_eq!(fx.read("real/file.txt"), "y\n");
    assert_eq!(fx.read("real/new.txt"), "n\n");
    fx.applied(&patch("*** Update File: file-link\n@@\n-y\n+z"));
    assert_eq!(fx.read("real/file.txt"), "z\n");
    assert!(
        fs::symlink_metadata(fx.path("file-link"))
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link stays a link"
    );
    // Deleting a link inside the root removes the link, not its target.
    fx.applied(&patch("*** Delete File: file-link"));
    assert!(!fx.exists("file-link"));
    assert_eq!(fx.read("real/file.txt"), "z\n");
}

#[test]
fn a_hard_link_to_an_outside_file_never_carries_a_write_out() {
    let fx = fixture();
    fs::hard_link(fx.base.join("outside/secret.txt"), fx.path("hard.txt")).unwrap();
    fx.applied(&patch(
        "*** Update File: hard.txt\n@@\n-outside-secret-7f3a\n+changed inside",
    ));
    assert_eq!(fx.read("hard.txt"), "changed inside\n");
    assert_eq!(
        fs::read_to_string(fx.base.join("outside/secret.txt")).unwrap(),
        SECRET
    );
}

/// A directory swapped back and forth with a link to outside while 200 patches update a file
/// under it: each patch either edits the file inside the root or is refused; the outside file
/// of the same name and content is never touched.
#[test]
fn a_directory_swapped_for_a_link_during_patches_never_leaks() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    let fx = fixture();
    fx.write("sub_real/f.txt", "inside\n");
    fs::write(fx.base.join("outside/f.txt"), "inside\n").unwrap();
    symlink(fx.base.join("outside"), fx.path("sub_evil")).unwrap();
    let outside_before = snapshot(&fx.base.join("outside"));

    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let stop = stop.clone();
        let root = fx.root.clone();
        std::thread::spawn(move || {
            let (sub, real, evil) = (
                root.join("sub"),
                root.join("sub_real"),
                root.join("sub_evil"),
            );
            let mut swaps = 0u64;
            while !stop.load(Ordering::Relaxed) {
                for (from, to) in [(&real, &sub), (&sub, &real), (&evil, &sub), (&sub, &evil)] {
                    if fs::rename(from, to).is_ok() {
                        swaps += 1;
                    }
                    // Pacing only, so `sub` spends most of its time as a directory or as a
                    // link and patches meet both; no assertion depends on time.
                    if to == &sub {
                        std::thread::sleep(std::time::Duration::from_micros(300));
                    }
                }
            }
            swaps
        })
    };
    let (mut applied, mut refused, mut security) = (0, 0, 0);
    for i in 0..200 {
        let body = patch(&format!(
            "*** Update File: sub/f.txt\n@@\n inside\n+line {i}"
        ));
        match apply(&fx.ws, &body, &PatchOptions::new().overwrite(true)) {
            Ok(_) => applied += 1,
            Err(e) => {
                assert!(
                    matches!(
                        e.kind(),
                        ErrorKind::SecurityError
                            | ErrorKind::NotFound
                            | ErrorKind::UserError
                            | ErrorKind::SystemError
                    ),
                    "{}",
                    e.to_json()
                );
                refused += 1;
                security += usize::from(e.kind() == ErrorKind::SecurityError);
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().unwrap();
    eprintln!("{applied} applied, {refused} refused ({security} as escapes), {swaps} renames");
    assert_eq!(
        snapshot(&fx.base.join("outside")),
        outside_before,
        "nothing outside changed"
    );
    assert_eq!(
        fs::read_to_string(fx.base.join("outside/f.txt")).unwrap(),
        "inside\n"
    );
}
