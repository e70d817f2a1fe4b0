//! A process killed (SIGKILL) in the middle of large writes leaves the old content or the new,
//! never a mix.
//!
//! The test re-runs itself alone in a new process of this binary with `FILE_KILL_CHILD` set to
//! a workspace directory; the child rewrites an 8 MB file through `replace_in_file` in a loop
//! (every line's marker `A` to `B`, then back), so each call writes the whole file. The parent
//! kills it at varying moments and checks the file each time.

use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::json;
use tool_std::file::FileConfig;
use tool_std::workspace::Workspace;

use crate::support::this_test;

const CHILD_ENV: &str = "FILE_KILL_CHILD";
const SIZE: usize = 8 * 1024 * 1024;

fn content(c: char) -> String {
    let line: String = std::iter::once(c)
        .chain(std::iter::repeat_n('.', 62))
        .chain(std::iter::once('\n'))
        .collect();
    line.repeat(SIZE / 64)
}

/// The child: write A, B, A, B... until killed.
fn child(dir: &str) -> ! {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let ws = Workspace::builder().root("main", dir).build().unwrap();
    let session = crate::support::file::session_for(&ws, FileConfig::default());
    let mut i = 0u64;
    loop {
        let (from, to) = if i.is_multiple_of(2) {
            ("A", "B")
        } else {
            ("B", "A")
        };
        let args = json!({"path": "big.txt", "find": from, "replace": to, "replace_all": true, "overwrite": true});
        let out = rt.block_on(session.call(tool_core::ToolCall::new(
            "k",
            "replace_in_file",
            args.to_string(),
        )));
        assert!(out.is_success(), "{:?}", out.error());
        session.clear_current_turn();
        std::fs::write(format!("{dir}/../writes"), i.to_string()).unwrap();
        i += 1;
    }
}

#[test]
fn a_killed_writer_leaves_old_or_new_content_never_a_mix() {
    if let Ok(dir) = std::env::var(CHILD_ENV) {
        child(&dir);
    }
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let (a, b) = (content('A'), content('B'));
    std::fs::write(ws.join("big.txt"), &a).unwrap();
    let mut outcomes = (0, 0);
    let mut mid_write = 0;
    for round in 0..8u64 {
        let _ = std::fs::remove_file(tmp.path().join("writes"));
        let mut kid = this_test(
            module_path!(),
            "a_killed_writer_leaves_old_or_new_content_never_a_mix",
        )
        .arg("--nocapture")
        .env(CHILD_ENV, &ws)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
        // Wait until the child has finished at least one write, then kill it a little later
        // each round, so the kill lands at different points of a write.
        let start = Instant::now();
        while !tmp.path().join("writes").exists() {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "the child never wrote"
            );
            if let Some(status) = kid.try_wait().unwrap() {
                panic!("the child exited early: {status}");
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        if round % 2 == 0 {
            std::thread::sleep(Duration::from_millis(170 * round + 3));
        } else {
            // Kill the moment a temporary file shows up: the child is writing right now.
            let seen = Instant::now();
            while !std::fs::read_dir(&ws)
                .unwrap()
                .flatten()
                .any(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            {
                assert!(seen.elapsed() < Duration::from_secs(60), "no write started");
                std::thread::yield_now();
            }
        }
        kid.kill().unwrap(); // SIGKILL to the child's pid
        kid.wait().unwrap();
        // A temporary file left behind means the kill landed in the middle of a write.
        for e in std::fs::read_dir(&ws).unwrap().flatten() {
            if e.file_name().to_string_lossy().ends_with(".tmp") {
                mid_write += 1;
                std::fs::remove_file(e.path()).unwrap();
            }
        }
        let now = std::fs::read(ws.join("big.txt")).unwrap();
        if now == a.as_bytes() {
            outcomes.0 += 1;
        } else if now == b.as_bytes() {
            outcomes.1 += 1;
        } else {
            panic!(
                "round {round}: the file is a mix or cut: {} bytes, starts {:?}",
                now.len(),
                String::from_utf8_lossy(&now[..now.len().min(80)])
            );
        }
    }
    eprintln!(
        "after 8 kills: {} times content A, {} times content B; {mid_write} kills landed mid-write",
        outcomes.0, outcomes.1
    );
}
