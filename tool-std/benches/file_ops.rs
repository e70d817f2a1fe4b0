//! The file tools against the plain ways of doing the same, side by side in one run:
//!
//! - `read_file` of a 101-line range deep in a 100 MB file (lines 900,000 to 900,100 of
//!   1,000,000), through the whole `Session::call` path, against `sed -n '900000,900100p'`
//!   (a process spawn included: what an agent shelling out would pay);
//! - `replace_in_file` of one unique string in the middle of a 10 MB file (atomic write,
//!   staleness check, diff), through `Session::call`, against `std::fs::read_to_string` +
//!   `str::replacen` + `std::fs::write`, and against the same done as the tool must write
//!   (`atomic`: a temporary file in the same directory, `fsync`, rename), which shows how much
//!   of the difference is the durability the tool promises;
//! - `Workspace::write_file` of 4 KB into a directory of 1,000 files against the same into an
//!   empty directory: what looking for stale temporary files among the directory's entries
//!   (which every write does) costs.
//!
//! Rounds alternate between the tool and its baseline so that both see the same machine;
//! the closing lines give the best and the median of each and the ratio of the bests
//! (aim: at most 1.5x).
//!
//! ```text
//! cargo bench -p tool-std --bench file_ops          # ROUNDS=15 by default
//! ```

use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tool_core::{ApproveAll, Registry, Runtime, Session, ToolCall};
use tool_std::workspace::{Workspace, WriteOptions};

const BIG_LINES: usize = 1_000_000;
const RANGE: (usize, usize) = (900_000, 900_100);

/// 1,000,000 lines of 100 bytes: 100 MB.
fn write_big(path: &Path) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).expect("create"));
    for i in 1..=BIG_LINES {
        // 99 characters and the newline.
        writeln!(
            f,
            "{i:07} the quick brown fox jumps over the lazy dog, line after line {:>25}",
            i % 977
        )
        .expect("write");
    }
    f.flush().expect("flush");
}

/// 10 MB of text with one `MARKER-A` in the middle.
fn write_medium(path: &Path) {
    let line = "let value = compute(alpha, beta, gamma); // a line of ordinary source text\n";
    let n = 10 * 1024 * 1024 / line.len();
    let mut text = String::with_capacity(n * line.len() + 16);
    for i in 0..n {
        if i == n / 2 {
            text.push_str("MARKER-A\n");
        }
        text.push_str(line);
    }
    std::fs::write(path, text).expect("write");
}

fn session(ws: &Workspace) -> Session {
    let registry = Registry::builder()
        .with_inventory()
        .build()
        .expect("registry");
    Runtime::builder(registry)
        .service(Arc::new(ws.clone()))
        .approver(ApproveAll)
        .dedupe(false)
        .build()
        .session()
}

fn time(f: impl FnOnce()) -> Duration {
    let t = Instant::now();
    f();
    t.elapsed()
}

struct Series(Vec<Duration>);

impl Series {
    fn best(&self) -> Duration {
        self.0.iter().copied().min().unwrap_or_default()
    }
    fn median(&self) -> Duration {
        let mut v = self.0.clone();
        v.sort();
        v.get(v.len() / 2).copied().unwrap_or_default()
    }
}

fn report(name: &str, tool: &Series, base_name: &str, base: &Series) {
    println!(
        "{name:<16} best {:>9.3} ms  median {:>9.3} ms",
        tool.best().as_secs_f64() * 1e3,
        tool.median().as_secs_f64() * 1e3
    );
    println!(
        "{base_name:<16} best {:>9.3} ms  median {:>9.3} ms",
        base.best().as_secs_f64() * 1e3,
        base.median().as_secs_f64() * 1e3
    );
    println!(
        "ratio {name} / {base_name}: {:.2}x (best), {:.2}x (median)",
        tool.best().as_secs_f64() / base.best().as_secs_f64(),
        tool.median().as_secs_f64() / base.median().as_secs_f64()
    );
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument that excludes us ends early.
    if std::env::args()
        .skip(1)
        .any(|a| !a.starts_with('-') && !"file_ops".contains(a.as_str()))
    {
        return;
    }
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(15);
    let dir = tempfile::tempdir().expect("dir");
    let big = dir.path().join("big.txt");
    let medium = dir.path().join("medium.rs");
    write_big(&big);
    write_medium(&medium);
    let ws = Workspace::builder()
        .root("bench", dir.path())
        .build()
        .expect("workspace");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio");

    // read_file of a deep range vs sed.
    let args = json!({"paths": [format!("big.txt:{}-{}", RANGE.0, RANGE.1)]}).to_string();
    let sed_range = format!("{},{}p", RANGE.0, RANGE.1);
    let mut tool = Series(Vec::new());
    let mut sed = Series(Vec::new());
    for _ in 0..rounds {
        // A fresh session each time: no content de-duplicated against an earlier read.
        let s = session(&ws);
        tool.0.push(time(|| {
            let out = rt.block_on(s.call(ToolCall::new("r", "read_file", args.as_str())));
            let v = out.to_json();
            assert_eq!(v["files"][0]["start_line"], RANGE.0, "{v}");
            assert_eq!(v["files"][0]["end_line"], RANGE.1, "{v}");
        }));
        sed.0.push(time(|| {
            let out = Command::new("sed")
                .args(["-n", &sed_range])
                .arg(&big)
                .output()
                .expect("sed");
            assert_eq!(out.stdout.iter().filter(|&&b| b == b'\n').count(), 101);
        }));
    }
    report("read_file", &tool, "sed -n A,Bp", &sed);

    // replace_in_file on 10 MB vs std::fs read + replace + write, flipping the marker each way.
    let mut tool = Series(Vec::new());
    let mut plain = Series(Vec::new());
    let mut atomic = Series(Vec::new());
    let mut marker = ("MARKER-A", "MARKER-B");
    for _ in 0..rounds {
        let s = session(&ws);
        let args = json!({"path": "medium.rs", "find": marker.0, "replace": marker.1}).to_string();
        tool.0.push(time(|| {
            let out = rt.block_on(s.call(ToolCall::new("e", "replace_in_file", args.as_str())));
            assert!(out.is_success(), "{}", out.to_json());
        }));
        marker = (marker.1, marker.0);
        plain.0.push(time(|| {
            let text = std::fs::read_to_string(&medium).expect("read");
            assert_eq!(text.matches(marker.0).count(), 1);
            let new = text.replacen(marker.0, marker.1, 1);
            std::fs::write(&medium, new).expect("write");
        }));
        marker = (marker.1, marker.0);
        atomic.0.push(time(|| {
            let text = std::fs::read_to_string(&medium).expect("read");
            assert_eq!(text.matches(marker.0).count(), 1);
            let new = text.replacen(marker.0, marker.1, 1);
            let tmp = dir.path().join(".medium.rs.tmp");
            let mut f = std::fs::File::create(&tmp).expect("create");
            f.write_all(new.as_bytes()).expect("write");
            f.sync_all().expect("fsync");
            std::fs::rename(&tmp, &medium).expect("rename");
        }));
        marker = (marker.1, marker.0);
    }
    report("replace_in_file", &tool, "std::fs", &plain);
    report("replace_in_file", &tool, "atomic std::fs", &atomic);

    // write_file in a crowded directory vs an empty one.
    let crowded = dir.path().join("crowded");
    let empty = dir.path().join("empty");
    std::fs::create_dir_all(&empty).expect("mkdir");
    std::fs::create_dir_all(&crowded).expect("mkdir");
    for i in 0..1_000 {
        std::fs::write(crowded.join(format!("file{i:04}.rs")), "x").expect("write");
    }
    let bytes = vec![b'x'; 4096];
    let writes = 20;
    let mut in_crowded = Series(Vec::new());
    let mut in_empty = Series(Vec::new());
    for _ in 0..rounds {
        for (target, series) in [
            ("crowded/w.rs", &mut in_crowded),
            ("empty/w.rs", &mut in_empty),
        ] {
            let p = ws.resolve(target).expect("path");
            series.0.push(
                time(|| {
                    for _ in 0..writes {
                        ws.write_file(&p, &bytes, WriteOptions::any())
                            .expect("write_file");
                    }
                }) / writes,
            );
        }
    }
    report(
        "write, 1000 files",
        &in_crowded,
        "write, empty dir",
        &in_empty,
    );
}
