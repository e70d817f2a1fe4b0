//! A process killed (SIGKILL) in the middle of large writes leaves the old content or the new,
//! never a mix.
//!
//! The test re-runs itself alone in a new process of this binary with `FILE_KILL_CHILD` set to
//! a workspace directory; the child rewrites an 8 MB file through `replace_in_file` in a loop
//! (every line's marker `A` to `B`, then back), so each call writes the whole file. The parent
//! kills it at varying moments and checks the file each time.
//!
//! A second test kills 100 children writing at random moments (`update_file`,
//! `replace_in_file`, `apply_patch` on three files in one directory): each file stays old or
//! new, and the next successful write in the directory leaves no temporary file behind.

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

const DEBRIS_CHILD_ENV: &str = "FILE_DEBRIS_CHILD";
const DEBRIS_SEED_ENV: &str = "FILE_DEBRIS_SEED";
/// Files the child rewrites; 2 MB each, so old and new together get no diff and a write
/// takes long enough for a kill to land in it.
const DEBRIS_FILES: usize = 3;
const DEBRIS_SIZE: usize = 2 * 1024 * 1024;

/// SplitMix64: a seeded generator, so a failing run can be repeated.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The first line of file `i` in state `state` (`A` or `B`).
fn head(i: usize, state: char) -> String {
    format!("file {i} state {state}")
}

/// File `i`'s whole content in state `state`.
fn versioned(i: usize, state: char) -> String {
    let line = "the same long line of text, many times over, so a write takes a while\n";
    let mut text = format!("{}\n", head(i, state));
    text.push_str(&line.repeat(DEBRIS_SIZE / line.len()));
    text
}

/// The child: flip random files between their two states with random tools until killed.
fn debris_child(dir: &str, seed: u64) -> ! {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let ws = Workspace::builder().root("main", dir).build().unwrap();
    let session = crate::support::file::session_for(&ws, FileConfig::default());
    let mut rng = Rng(seed);
    let mut first = true;
    loop {
        let i = rng.below(DEBRIS_FILES as u64) as usize;
        let name = format!("f{i}.txt");
        let now = std::fs::read(format!("{dir}/{name}")).unwrap();
        let (from, to) = if now.starts_with(head(i, 'A').as_bytes()) {
            ('A', 'B')
        } else {
            ('B', 'A')
        };
        let (tool, args) = match rng.below(3) {
            0 => (
                "update_file",
                json!({"path": name, "content": versioned(i, to), "overwrite": true}),
            ),
            1 => (
                "replace_in_file",
                json!({"path": name, "find": head(i, from), "replace": head(i, to), "overwrite": true}),
            ),
            _ => (
                "apply_patch",
                json!({"patch": format!(
                    "*** Begin Patch\n*** Update File: {name}\n@@\n-{}\n+{}\n*** End Patch\n",
                    head(i, from),
                    head(i, to)
                )}),
            ),
        };
        let out = rt.block_on(session.call(tool_core::ToolCall::new("k", tool, args.to_string())));
        assert!(out.is_success(), "{tool}: {:?}", out.error());
        session.clear_current_turn();
        if first {
            std::fs::write(format!("{dir}/../started"), "").unwrap();
            first = false;
        }
    }
}

/// The temporary files in `dir`: every name starting with a dot (the test makes none).
fn dot_files(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect()
}

#[test]
fn killed_writes_leave_no_temporary_files_after_the_next_write() {
    use std::os::unix::process::ExitStatusExt;

    if let Ok(dir) = std::env::var(DEBRIS_CHILD_ENV) {
        let seed = std::env::var(DEBRIS_SEED_ENV).unwrap().parse().unwrap();
        debris_child(&dir, seed);
    }
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    for i in 0..DEBRIS_FILES {
        std::fs::write(ws.join(format!("f{i}.txt")), versioned(i, 'A')).unwrap();
    }
    let started = tmp.path().join("started");
    let mut rng = Rng(0x2027_0006);
    let mut most_debris = 0;
    for round in 0..100u64 {
        let _ = std::fs::remove_file(&started);
        let mut kid = this_test(
            module_path!(),
            "killed_writes_leave_no_temporary_files_after_the_next_write",
        )
        .arg("--nocapture")
        .env(DEBRIS_CHILD_ENV, &ws)
        .env(DEBRIS_SEED_ENV, rng.next().to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
        let start = Instant::now();
        while !started.exists() {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "the child never wrote"
            );
            if let Some(status) = kid.try_wait().unwrap() {
                panic!("round {round}: the child exited early: {status}");
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        if round % 2 == 0 {
            // A random moment: before, in or after a write.
            std::thread::sleep(Duration::from_micros(rng.below(40_000)));
        } else {
            // The moment a temporary file of this child shows up: it is writing right now.
            let before = dot_files(&ws);
            let seen = Instant::now();
            while dot_files(&ws).iter().all(|n| before.contains(n)) {
                assert!(seen.elapsed() < Duration::from_secs(60), "no write started");
                std::thread::yield_now();
            }
        }
        kid.kill().unwrap(); // SIGKILL
        let status = kid.wait().unwrap();
        assert_eq!(
            status.signal(),
            Some(9),
            "round {round}: the child failed on its own: {status}"
        );
        most_debris = most_debris.max(dot_files(&ws).len());
        for i in 0..DEBRIS_FILES {
            let now = std::fs::read(ws.join(format!("f{i}.txt"))).unwrap();
            assert!(
                now == versioned(i, 'A').as_bytes() || now == versioned(i, 'B').as_bytes(),
                "round {round}: f{i}.txt is neither old nor new: {} bytes, starts {:?}",
                now.len(),
                String::from_utf8_lossy(&now[..now.len().min(40)])
            );
        }
    }
    let left = dot_files(&ws);

    // One successful write in that directory.
    let root = Workspace::builder().root("main", &ws).build().unwrap();
    let session = crate::support::file::session_for(&root, FileConfig::default());
    let rt = tokio::runtime::Runtime::new().unwrap();
    let out = rt.block_on(session.call(tool_core::ToolCall::new(
        "w",
        "create_file",
        json!({"path": "done.txt", "content": "done\n"}).to_string(),
    )));
    assert!(out.is_success(), "{:?}", out.error());

    eprintln!(
        "100 kills: at most {most_debris} temporary file(s) at once, {} before the last write",
        left.len()
    );
    assert_eq!(dot_files(&ws), Vec::<String>::new(), "temporary files left");
    for i in 0..DEBRIS_FILES {
        let now = std::fs::read(ws.join(format!("f{i}.txt"))).unwrap();
        assert!(now == versioned(i, 'A').as_bytes() || now == versioned(i, 'B').as_bytes());
    }
}

/// Kills debris children until at least `want` temporary files of dead writers have been
/// collected into `held` (moved out of `ws`, so the next child's writes cannot clean them).
fn collect_debris(
    tmp: &std::path::Path,
    ws: &std::path::Path,
    held: &std::path::Path,
    want: usize,
) {
    std::fs::create_dir_all(held).unwrap();
    let started = tmp.join("started");
    let mut rng = Rng(0x2027_0060);
    let begin = Instant::now();
    while std::fs::read_dir(held).unwrap().count() < want {
        assert!(
            begin.elapsed() < Duration::from_secs(120),
            "no kill left a temporary file"
        );
        let _ = std::fs::remove_file(&started);
        let mut kid = this_test(
            module_path!(),
            "killed_writes_leave_no_temporary_files_after_the_next_write",
        )
        .arg("--nocapture")
        .env(DEBRIS_CHILD_ENV, ws)
        .env(DEBRIS_SEED_ENV, rng.next().to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
        while !started.exists() {
            assert!(
                begin.elapsed() < Duration::from_secs(120),
                "the child never wrote"
            );
            if let Some(status) = kid.try_wait().unwrap() {
                panic!("the child exited early: {status}");
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        while dot_files(ws).is_empty() {
            assert!(
                begin.elapsed() < Duration::from_secs(120),
                "no write started"
            );
            std::thread::yield_now();
        }
        kid.kill().unwrap();
        kid.wait().unwrap();
        for name in dot_files(ws) {
            std::fs::rename(ws.join(&name), held.join(&name)).unwrap();
        }
    }
}

#[test]
fn a_sweep_removes_stale_temporary_files_in_the_writable_roots_and_nothing_else() {
    let tmp = tempfile::tempdir().unwrap();
    let (ws, ro, held) = (
        tmp.path().join("ws"),
        tmp.path().join("ro"),
        tmp.path().join("held"),
    );
    std::fs::create_dir_all(&ws).unwrap();
    for i in 0..DEBRIS_FILES {
        std::fs::write(ws.join(format!("f{i}.txt")), versioned(i, 'A')).unwrap();
    }
    collect_debris(tmp.path(), &ws, &held, 1);
    let stale: Vec<String> = dot_files(&held);
    let one = &stale[0];
    let data = std::fs::read(held.join(one)).unwrap();
    // Stale files in the root, deep below it, in a protected directory, in a read-only root;
    // a link and a directory bearing a stale name; names that only resemble one.
    let deep = ws.join("a/b/c");
    for d in [&deep, &ws.join(".git"), &ro, &ws.join("linked")] {
        std::fs::create_dir_all(d).unwrap();
    }
    for d in [&ws, &deep, &ws.join(".git"), &ro] {
        std::fs::write(d.join(one), &data).unwrap();
    }
    std::os::unix::fs::symlink("../f0.txt", ws.join("linked").join(one)).unwrap();
    std::fs::create_dir(deep.join(format!("{one}.d"))).unwrap();
    std::fs::rename(deep.join(format!("{one}.d")), ws.join("a").join(one)).unwrap();
    for near in [
        ".f0.txt.tmp".to_owned(),
        format!("{one}.bak"),
        one[1..].to_owned(),
    ] {
        std::fs::write(ws.join(&near), "x").unwrap();
    }
    // A link to a directory outside the roots holding a stale file: not followed.
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join(one), &data).unwrap();
    std::os::unix::fs::symlink(&outside, ws.join("out")).unwrap();

    let workspace = Workspace::builder()
        .root("ws", &ws)
        .read_only_root("ro", &ro)
        .build()
        .unwrap();
    let report = workspace.remove_stale_temp_files();

    assert_eq!(report.removed, 2, "{report:?}");
    assert!(!report.truncated, "{report:?}");
    assert!(!ws.join(one).exists() && !deep.join(one).exists());
    for kept in [
        ws.join(".git").join(one),
        ro.join(one),
        ws.join("a").join(one),
        outside.join(one),
        ws.join(".f0.txt.tmp"),
        ws.join(format!("{one}.bak")),
        ws.join(&one[1..]),
    ] {
        assert!(kept.exists(), "{} was removed", kept.display());
    }
    assert!(
        std::fs::symlink_metadata(ws.join("linked").join(one)).is_ok(),
        "the link was removed"
    );
    assert!(ws.join("a").join(one).is_dir());
}
