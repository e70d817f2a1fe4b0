//! The workspace policy against things that are not plain files, hard links, and a directory
//! swapped for a link while reads and writes run.

use std::fs;
use std::io::Read;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tool_core::ErrorKind;
use tool_std::workspace::{Workspace, WriteOptions};

use crate::support::{run, temp_dir, within, write};

const SECRET: &str = "outside-secret-9e2a";

fn dirs() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let (tmp, base) = temp_dir();
    let ws = base.join("ws");
    fs::create_dir_all(&ws).unwrap();
    let outside = base.join("outside");
    write(&outside.join("file.txt"), SECRET);
    (tmp, ws, outside)
}

/// A blocking open on a FIFO would hang the suite instead of failing it.
const AT_ONCE: Duration = Duration::from_secs(10);

#[test]
fn fifos_sockets_and_devices_are_refused_at_once() {
    let (_tmp, ws_dir, _) = dirs();
    assert!(run("mkfifo", &[ws_dir.join("pipe").to_str().unwrap()]));
    let _sock = std::os::unix::net::UnixListener::bind(ws_dir.join("sock")).unwrap();
    let device = run(
        "mknod",
        &[ws_dir.join("zero").to_str().unwrap(), "c", "1", "5"],
    );
    if !device {
        eprintln!("skipping the device node case: mknod needs root");
    }
    symlink("pipe", ws_dir.join("to-pipe")).unwrap();
    let ws = Workspace::single(&ws_dir).unwrap();
    let mut names = vec!["pipe", "sock", "to-pipe"];
    if device {
        names.push("zero");
    }
    for name in names {
        let ws1 = ws.clone();
        let err = within(AT_ONCE, move || {
            let p = ws1.resolve(name).unwrap();
            ws1.open_file(&p).map(|_| ())
        })
        .expect_err(name);
        assert_eq!(err.kind(), ErrorKind::UserError, "{name}: {err:?}");
        assert!(
            err.message().contains("not a regular file"),
            "{}",
            err.message()
        );
        let ws2 = ws.clone();
        let err = within(AT_ONCE, move || {
            let p = ws2.resolve(name).unwrap();
            ws2.write_file(&p, b"x", WriteOptions::any()).map(|_| ())
        })
        .expect_err(name);
        assert!(
            matches!(err.kind(), ErrorKind::UserError),
            "{name}: {err:?}"
        );
    }
    let link_to_dev_zero = ws_dir.join("devzero");
    symlink("/dev/zero", &link_to_dev_zero).unwrap();
    let err = within(AT_ONCE, move || {
        let p = ws.resolve("devzero").unwrap();
        ws.open_file(&p).map(|_| ())
    })
    .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::SecurityError);
}

#[test]
fn a_hard_link_never_carries_a_write_outside() {
    let (_tmp, ws_dir, outside) = dirs();
    fs::hard_link(outside.join("file.txt"), ws_dir.join("linked.txt")).unwrap();
    let ws = Workspace::single(&ws_dir).unwrap();
    let p = ws.resolve("linked.txt").unwrap();
    ws.write_file(&p, b"new content", WriteOptions::must_exist())
        .unwrap();
    assert_eq!(
        fs::read_to_string(outside.join("file.txt")).unwrap(),
        SECRET
    );
    assert_eq!(
        fs::read_to_string(ws_dir.join("linked.txt")).unwrap(),
        "new content"
    );
    ws.remove_file(&p).unwrap();
    assert_eq!(
        fs::read_to_string(outside.join("file.txt")).unwrap(),
        SECRET
    );
}

#[test]
fn writes_keep_the_mode_and_leave_no_temp_files() {
    use std::os::unix::fs::PermissionsExt;
    let (_tmp, ws_dir, _) = dirs();
    let script = ws_dir.join("run.sh");
    fs::write(&script, "#!/bin/sh\n").unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o750)).unwrap();
    let ws = Workspace::single(&ws_dir).unwrap();
    let p = ws.resolve("run.sh").unwrap();
    let out = ws
        .write_file(&p, b"#!/bin/sh\necho hi\n", WriteOptions::must_exist())
        .unwrap();
    assert!(!out.created);
    assert_eq!(out.info.mode, 0o750);
    assert_eq!(
        fs::metadata(&script).unwrap().permissions().mode() & 0o7777,
        0o750
    );
    let err = ws
        .write_file(&p, b"x", WriteOptions::create_new())
        .unwrap_err();
    assert_eq!(err.message(), "`run.sh` already exists");
    let missing = ws.resolve("a/b/c.txt").unwrap();
    let err = ws
        .write_file(&missing, b"x", WriteOptions::create_new())
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound);
    assert!(err.message().contains("`a/b`"), "{}", err.message());
    ws.write_file(
        &missing,
        b"x",
        WriteOptions::create_new().create_parents(true),
    )
    .unwrap();
    let names: Vec<String> = fs::read_dir(&ws_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
}

/// Swaps `swap` between a real directory and a link to `outside` until told to stop.
/// Returns once the swapper has swapped a few times, so the calls run while it swaps.
fn swapper(ws_dir: &Path, outside: &Path, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<u64> {
    let real = ws_dir.join("real");
    let swap = ws_dir.join("swap");
    let parked = ws_dir.join("parked-link");
    symlink(outside, &parked).unwrap();
    let started = Arc::new(std::sync::Barrier::new(2));
    let ready = started.clone();
    let handle = std::thread::spawn(move || {
        let mut swaps = 0;
        while !stop.load(Ordering::Relaxed) {
            if swaps == 20 {
                ready.wait();
            }
            // swap := real dir; then swap := link to outside. rename() is atomic.
            let _ = fs::rename(&real, &swap);
            let _ = fs::rename(&swap, &real);
            let _ = fs::rename(&parked, &swap);
            let _ = fs::rename(&swap, &parked);
            swaps += 1;
        }
        swaps
    });
    started.wait();
    handle
}

#[test]
fn a_directory_swapped_for_a_link_during_200_reads_never_leaks() {
    let (_tmp, ws_dir, outside) = dirs();
    fs::create_dir_all(ws_dir.join("real")).unwrap();
    fs::write(ws_dir.join("real/file.txt"), "inside").unwrap();
    let ws = Workspace::single(&ws_dir).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let handle = swapper(&ws_dir, &outside, stop.clone());
    let (mut ok, mut refused) = (0, 0);
    for _ in 0..200 {
        std::thread::yield_now();
        let p = ws.resolve("swap/file.txt").unwrap();
        match ws.open_file(&p) {
            Ok(mut f) => {
                let mut s = String::new();
                f.file.read_to_string(&mut s).unwrap();
                assert_eq!(s, "inside", "a read leaked outside content");
                ok += 1;
            }
            Err(e) => {
                assert!(!e.message().contains(SECRET));
                refused += 1;
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = handle.join().unwrap();
    assert!(swaps >= 20);
    assert_eq!(ok + refused, 200);
    eprintln!("200 reads during {swaps} swaps: {ok} read the inside file, {refused} refused");
}

#[test]
fn a_directory_swapped_for_a_link_during_200_writes_never_writes_outside() {
    let (_tmp, ws_dir, outside) = dirs();
    fs::create_dir_all(ws_dir.join("real")).unwrap();
    let ws = Workspace::single(&ws_dir).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let handle = swapper(&ws_dir, &outside, stop.clone());
    for i in 0..200 {
        let p = ws.resolve(&format!("swap/new-{i}.txt")).unwrap();
        let _ = ws.write_file(&p, b"written", WriteOptions::any());
        let _ = ws.remove_file(&ws.resolve("swap/file.txt").unwrap());
    }
    stop.store(true, Ordering::Relaxed);
    handle.join().unwrap();
    let names: Vec<String> = fs::read_dir(&outside)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["file.txt"], "a write or delete reached outside");
    assert_eq!(
        fs::read_to_string(outside.join("file.txt")).unwrap(),
        SECRET
    );
}
