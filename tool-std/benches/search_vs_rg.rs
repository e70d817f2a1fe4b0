//! `grep` and `glob` in-process against `rg` (and `fd`) on the same corpus in the same run.
//!
//! The corpus is `cargo vendor` of this workspace's dependencies, made in a temp dir (set
//! `SEARCH_BENCH_CORPUS` to reuse a directory). Each case runs the tool through a runtime
//! session and `rg` as a child process with the same options (`--no-require-git`, no global
//! excludes, 1 MB size limit, all cores), interleaved, and prints the median wall times and
//! their ratio (tool / rg; below 1.0 is faster than rg). `fd` (Debian's `fdfind`) is timed
//! for the glob case where installed (the vendored corpus has no ignore files, so its
//! `--no-require-git`, which older fd lacks, makes no difference there).
//!
//! ```text
//! cargo bench -p tool-std --bench search_vs_rg            # every case
//! cargo bench -p tool-std --bench search_vs_rg -- glob    # the cases named `glob`
//! ```

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tool_core::{Registry, Runtime, Session, ToolCall};
use tool_std::search::SearchConfig;
use tool_std::workspace::Workspace;

const RUNS: usize = 7;

fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

fn corpus() -> (Option<tempfile::TempDir>, PathBuf) {
    if let Some(dir) = std::env::var_os("SEARCH_BENCH_CORPUS") {
        return (None, PathBuf::from(dir));
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let vendor = tmp.path().join("vendor");
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    for offline in [true, false] {
        let mut cmd = Command::new(&cargo);
        cmd.args(["vendor", "--versioned-dirs", "--manifest-path"])
            .arg(&manifest)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if offline {
            cmd.arg("--offline");
        }
        if cmd.arg(&vendor).status().is_ok_and(|s| s.success()) {
            return (Some(tmp), vendor);
        }
    }
    eprintln!("cargo vendor failed; no corpus");
    std::process::exit(0);
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time_rg(bin: &Path, dir: &Path, args: &[&str]) -> Duration {
    let started = Instant::now();
    let status = Command::new(bin)
        .current_dir(dir)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("run rg");
    assert!(
        status.code().is_some_and(|c| c < 2),
        "{bin:?} {args:?} failed"
    );
    started.elapsed()
}

fn time_tool(
    rt: &tokio::runtime::Runtime,
    session: &Session,
    tool: &str,
    args: &Value,
) -> (Duration, String) {
    session.clear_current_turn();
    let started = Instant::now();
    let out = rt.block_on(session.call(ToolCall::new("b", tool, args.to_string())));
    let took = started.elapsed();
    assert!(out.error().is_none(), "{tool} {args}: {}", out.to_json());
    (took, out.status())
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let Some(rg) = which("rg") else {
        eprintln!("rg is not installed; nothing to compare with");
        return;
    };
    let (_keep, dir) = corpus();
    let version = Command::new(&rg)
        .arg("--version")
        .output()
        .expect("rg --version");
    let version = String::from_utf8_lossy(&version.stdout)
        .lines()
        .next()
        .unwrap_or("")
        .to_owned();
    let fd = which("fd").or_else(|| which("fdfind"));
    let mut config = SearchConfig::default();
    config.max_grep_results = 10_000_000;
    config.max_glob_results = 10_000_000;
    let ws = Workspace::builder()
        .root("corpus", &dir)
        .build()
        .expect("workspace");
    let registry = Registry::builder()
        .with_inventory()
        .build()
        .expect("registry");
    let session = Runtime::builder(registry)
        .service(Arc::new(ws))
        .service(Arc::new(config))
        .dedupe(false)
        .build()
        .session();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio");
    let base = [
        "--no-config",
        "--no-messages",
        "--no-require-git",
        "--no-ignore-global",
        "--max-filesize",
        "1048576",
    ];
    let all = 10_000_000;
    // (name, tool, tool arguments, baseline program, baseline arguments)
    let mut cases: Vec<(&str, &str, Value, PathBuf, Vec<&str>)> = vec![
        (
            "count literal `unsafe` (all files)",
            "grep",
            json!({"pattern": "unsafe", "case_sensitive": true, "output_mode": "count", "max_results": all}),
            rg.clone(),
            vec!["-c", "-s", "unsafe"],
        ),
        (
            "count regex `fn\\s+\\w+\\(` (all files)",
            "grep",
            json!({"pattern": r"fn\s+\w+\(", "case_sensitive": true, "output_mode": "count", "max_results": all}),
            rg.clone(),
            vec!["-c", "-s", r"fn\s+\w+\("],
        ),
        (
            "count case-insensitive `error` (all files)",
            "grep",
            json!({"pattern": "error", "output_mode": "count", "max_results": all}),
            rg.clone(),
            vec!["-c", "-i", "error"],
        ),
        (
            "files_with_matches `impl` (all files)",
            "grep",
            json!({"pattern": "impl", "case_sensitive": true, "output_mode": "files_with_matches", "max_results": all}),
            rg.clone(),
            vec!["-l", "-s", "impl"],
        ),
        (
            "no match `zq_nothing_91`",
            "grep",
            json!({"pattern": "zq_nothing_91", "case_sensitive": true, "output_mode": "count", "max_results": all}),
            rg.clone(),
            vec!["-c", "-s", "zq_nothing_91"],
        ),
        (
            "content `unsafe`, first 50 (early stop) vs all",
            "grep",
            json!({"pattern": "unsafe", "case_sensitive": true}),
            rg.clone(),
            vec!["-n", "-s", "unsafe"],
        ),
        (
            "content `fn main`, first 50 (early stop) vs all",
            "grep",
            json!({"pattern": "fn main", "case_sensitive": true}),
            rg.clone(),
            vec!["-n", "-s", "fn main"],
        ),
        (
            "glob `**/*.rs` (all) vs rg --files -g",
            "glob",
            json!({"pattern": "**/*.rs", "max_results": all}),
            rg.clone(),
            vec!["--files", "-g", "**/*.rs"],
        ),
    ];
    if let Some(fd) = &fd {
        cases.push((
            "glob `**/*.rs` (all) vs fd -g",
            "glob",
            json!({"pattern": "**/*.rs", "max_results": all}),
            fd.clone(),
            vec!["--type", "f", "--glob", "*.rs"],
        ));
    }
    println!("corpus: {} ({})", dir.display(), version);
    println!(
        "{:<52} {:>10} {:>10} {:>7}",
        "case", "tool", "baseline", "ratio"
    );
    // `cargo bench --bench search_vs_rg -- glob` runs the cases whose name holds `glob`.
    let only = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    for (name, tool, args, bin, bargs) in &cases {
        if only.as_ref().is_some_and(|o| !name.contains(o.as_str())) {
            continue;
        }
        let is_rg = bin == &rg;
        let bargs: Vec<&str> = if is_rg {
            base.iter().copied().chain(bargs.iter().copied()).collect()
        } else {
            bargs.clone()
        };
        // Warm the page cache and both code paths.
        let (_, v) = time_tool(&rt, &session, tool, args);
        time_rg(bin, &dir, &bargs);
        let mut tool_times = Vec::new();
        let mut base_times = Vec::new();
        for _ in 0..RUNS {
            tool_times.push(time_tool(&rt, &session, tool, args).0);
            base_times.push(time_rg(bin, &dir, &bargs));
        }
        let (t, b) = (median(tool_times), median(base_times));
        let label = if is_rg { "rg" } else { "fd" };
        println!(
            "{:<52} {:>8.1}ms {:>6.1}ms {label} {:>6.2}x   {}",
            name,
            t.as_secs_f64() * 1e3,
            b.as_secs_f64() * 1e3,
            t.as_secs_f64() / b.as_secs_f64(),
            v.chars().take(60).collect::<String>()
        );
    }
}
