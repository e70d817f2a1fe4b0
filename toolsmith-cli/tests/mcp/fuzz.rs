//! `toolsmith serve` over stdio under a seeded fuzz run, once per protocol version: every
//! tool called a few hundred times with arguments made from its own input schema and mutated
//! (wrong types, missing and unknown fields, paths out of the root by `..`, absolute paths,
//! symbolic and hard links, a FIFO, patches aimed outside, now and then a megabyte of
//! padding), interleaved with malformed frames of every kind. Then:
//!
//! - every frame is answered exactly once, with its own id and, for a malformed one, the
//!   JSON-RPC code that fits; the frames without a readable id get one `null`-id answer each;
//! - nothing panicked (no `panicked` on stderr, no tool answer saying so), and the server
//!   still answers;
//! - nothing outside the root changed, nor the root's protected `.git/config`;
//! - the server's peak resident memory stayed under 256 MiB.
//!
//! Every URL sent is a loopback or private address (refused before any connection); every
//! shell command is harmless and allowed by `--bash-allow`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::fuzz::{Expect, Frame, Fuzzer};
use crate::support::stdio::{StdioServe, Version};

/// The bound on the server's resident memory, whatever callers send.
const MAX_RSS: u64 = 256 * 1024 * 1024;

/// Calls per tool in one run.
const CALLS_PER_TOOL: usize = 150;

/// A directory's files and links, without following links: path -> what it is and holds.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("read_dir").map(Result::unwrap) {
            let path = entry.path();
            let meta = std::fs::symlink_metadata(&path).expect("metadata");
            let what = if meta.file_type().is_symlink() {
                format!("link {:?}", std::fs::read_link(&path).expect("link"))
            } else if meta.is_dir() {
                stack.push(path.clone());
                "dir".to_owned()
            } else {
                format!("file {:?}", std::fs::read(&path).expect("read"))
            };
            out.insert(path.strip_prefix(dir).expect("inside").to_path_buf(), what);
        }
    }
    out
}

/// The test's directory: `root/` (the workspace, with links out of it, a hard link, a FIFO
/// and a protected file), `outside/` (what nothing may touch) and `cwd/`.
fn workspace(base: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let (root, outside, cwd) = (base.join("root"), base.join("outside"), base.join("cwd"));
    for d in [
        &root,
        &outside,
        &cwd,
        &root.join("src"),
        &root.join(".git/hooks"),
    ] {
        std::fs::create_dir_all(d).expect("mkdir");
    }
    std::fs::write(outside.join("secret.txt"), "s\n").expect("write");
    std::fs::write(outside.join("hard.txt"), "hard\n").expect("write");
    std::fs::write(root.join("a.txt"), "hello\nworld\n").expect("write");
    std::fs::write(root.join("src/lib.rs"), "pub fn x() {}\n").expect("write");
    std::fs::write(root.join("src/main.rs"), "fn main() {}\n").expect("write");
    std::fs::write(root.join(".git/config"), "[core]\n").expect("write");
    std::os::unix::fs::symlink(&outside, root.join("link_out")).expect("symlink");
    std::os::unix::fs::symlink(outside.join("secret.txt"), root.join("link_secret"))
        .expect("symlink");
    std::os::unix::fs::symlink(root.join("gone"), root.join("dangling")).expect("symlink");
    std::fs::hard_link(outside.join("hard.txt"), root.join("hard.txt")).expect("hard link");
    let mkfifo = std::process::Command::new("mkfifo")
        .arg(root.join("fifo"))
        .status()
        .expect("mkfifo");
    assert!(mkfifo.success(), "mkfifo");
    (root, outside, cwd)
}

fn fuzz(version: Version, seed: u64) {
    let base = tempfile::tempdir().expect("dir");
    let (root, outside, cwd) = workspace(base.path());
    let before = snapshot(&outside);
    let git_config = std::fs::read(root.join(".git/config")).expect("read");
    let root_arg = root.to_str().expect("utf-8");
    let store = cwd.join("agents.db");
    let mut args = vec![
        "--root",
        root_arg,
        "--store",
        store.to_str().expect("utf-8"),
    ];
    args.extend(["--approve", "--bash-timeout", "5"]);
    for allowed in ["echo", "true", "false", "exit", "printf", "pwd", "ls"] {
        args.extend(["--bash-allow", allowed]);
    }
    let mut server = StdioServe::start(&cwd, &args);

    // The tools and their schemas, as the server lists them.
    let mut frames = version.prelude();
    let list = version.request(&json!("list"), "tools/list", json!({}));
    frames.push(list.to_string().into_bytes());
    server.send(frames);
    let opening = version.prelude_answers() + 1;
    assert!(
        server.read_until(opening, Duration::from_secs(30)),
        "tools/list answered"
    );
    let tools = server.answers_to(&json!("list"))[0]["result"]["tools"]
        .as_array()
        .expect("tools")
        .clone();
    assert!(tools.len() >= 15, "{} tools", tools.len());

    let mut fuzzer = Fuzzer::new(seed, outside.to_str().expect("utf-8"));
    let mut planned: Vec<Frame> = Vec::new();
    for tool in &tools {
        for _ in 0..CALLS_PER_TOOL {
            let id = fuzzer.id();
            let arguments = fuzzer.arguments(&tool["inputSchema"]);
            let params = json!({"name": tool["name"], "arguments": arguments});
            let frame = version.request(&id, "tools/call", params);
            planned.push(Frame {
                bytes: frame.to_string().into_bytes(),
                expect: Expect::Any(id),
            });
        }
    }
    for _ in 0..planned.len() / 4 {
        let frame = fuzzer.malformed(|id, method, params| version.request(id, method, params));
        planned.push(frame);
    }
    // Shuffled (Fisher-Yates), so that malformed frames fall between calls of every tool.
    for i in (1..planned.len()).rev() {
        planned.swap(i, fuzzer.rng.below(i + 1));
    }
    let total = opening + planned.len();
    server.send(planned.iter().map(|f| f.bytes.clone()).collect());
    let all = server.read_until(total, Duration::from_secs(300));
    assert!(
        all,
        "{} of {} frames answered; stderr: {:.2000}",
        server.answered() - opening,
        planned.len(),
        server.stderr()
    );

    // Each frame answered once, as it must be.
    let mut no_id = 0;
    for frame in &planned {
        let answers = match &frame.expect {
            Expect::Any(id) | Expect::Error(id, _) => server.answers_to(id),
            Expect::NoId => {
                no_id += 1;
                continue;
            }
        };
        let what = String::from_utf8_lossy(&frame.bytes);
        assert_eq!(answers.len(), 1, "answered once: {what:.300}: {answers:?}");
        let answer = &answers[0];
        match &frame.expect {
            Expect::Error(_, code) => {
                assert_eq!(
                    answer["error"]["code"],
                    json!(code),
                    "{what:.300}: {answer}"
                );
            }
            _ => {
                assert!(
                    answer["result"].is_object() || answer["error"]["code"].is_i64(),
                    "{answer}"
                );
                assert!(
                    !answer.to_string().contains("panicked"),
                    "{what:.300}: {answer:.500}"
                );
            }
        }
    }
    let nulls = server.answers_to(&Value::Null);
    assert_eq!(
        nulls.len(),
        no_id,
        "one null-id answer per frame without an id"
    );
    for answer in nulls {
        let code = answer["error"]["code"].as_i64();
        assert!(matches!(code, Some(-32700 | -32600)), "{answer}");
    }

    // Still serving, and nothing panicked.
    let ping = version.request(&json!("last"), "ping", json!({}));
    server.send(vec![ping.to_string().into_bytes()]);
    assert!(
        server.read_until(total + 1, Duration::from_secs(30)),
        "ping answered"
    );
    let stderr = server.stderr();
    assert!(!stderr.contains("panicked"), "{stderr:.3000}");

    let (peak, now) = server.memory();
    eprintln!(
        "fuzz {version:?}: {} frames ({} calls), peak RSS {} MiB, now {} MiB",
        planned.len(),
        tools.len() * CALLS_PER_TOOL,
        peak >> 20,
        now >> 20
    );
    assert!(peak < MAX_RSS, "peak RSS {} MiB", peak >> 20);
    assert!(
        server.close(Duration::from_secs(10)),
        "the server exits when stdin closes"
    );

    // Nothing outside the root changed, nor the protected file inside it.
    assert_eq!(snapshot(&outside), before, "outside the root");
    assert_eq!(
        std::fs::read(root.join(".git/config")).expect("read"),
        git_config
    );
}

#[test]
fn fuzzed_frames_and_calls_under_2025_11_25() {
    fuzz(Version::V2025, 0x2025_1125);
}

#[test]
fn fuzzed_frames_and_calls_under_2026_07_28() {
    fuzz(Version::V2026, 0x2026_0728);
}
