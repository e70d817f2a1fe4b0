//! The `bash` tool's overhead: running `true` through the whole `Session::call` path
//! (validation, approval, activity record, events, the refused-list check, the workspace's
//! directory check, a process group, two pipes read to their end, the group check after
//! exit) against spawning the same thing with `std::process::Command` in the same run.
//!
//! ```text
//! cargo bench -p tool-std --bench shell
//! ```
//!
//! Baselines: `bash -c true` with its output piped (the process the tool starts), `true`
//! itself, and `bash -c true` spawned by tokio with the runner's options (what the call path
//! adds on top of the spawn). Criterion measures each; then alternating rounds give medians and the
//! ratios, printed at the end: the tool against `bash -c true` is the median of the ratios of
//! short paired rounds, the side going first alternating (aim: at most 1.2x).

use std::hint::black_box;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::Criterion;
use tool_core::{ApproveAll, Registry, Runtime, Session, ToolCall};
use tool_std::workspace::Workspace;

fn session(dir: &std::path::Path) -> Session {
    let ws = Workspace::builder()
        .root("bench", dir)
        .build()
        .expect("workspace");
    let registry = Registry::builder()
        .with_inventory()
        .build()
        .expect("registry");
    Runtime::builder(registry)
        .service(Arc::new(ws))
        .approver(ApproveAll)
        .dedupe(false)
        .build()
        .session()
}

fn via_tool(rt: &tokio::runtime::Runtime, session: &Session) {
    let out = rt.block_on(session.call(ToolCall::new("b", "bash", r#"{"command": "true"}"#)));
    assert!(out.is_success(), "{:?}", out.to_json());
    black_box(out);
}

fn via_bash_c() {
    let out = Command::new("bash")
        .args(["-c", "true"])
        .stdin(Stdio::null())
        .output()
        .expect("bash");
    assert!(out.status.success());
    black_box(out);
}

/// `bash -c true` spawned by tokio as the tool's runner spawns it (a process group, a
/// working directory, a cleared environment, output piped and read), without the call path
/// around it.
fn via_tokio(rt: &tokio::runtime::Runtime, bash: &std::path::Path) {
    let out = rt.block_on(async {
        tokio::process::Command::new(bash)
            .args(["-c", "true"])
            .stdin(Stdio::null())
            .process_group(0)
            .current_dir(std::env::temp_dir())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .output()
            .await
            .expect("bash")
    });
    assert!(out.status.success());
    black_box(out);
}

fn via_true() {
    let out = Command::new("true")
        .stdin(Stdio::null())
        .output()
        .expect("true");
    assert!(out.status.success());
    black_box(out);
}

/// `bash` on `PATH`, as the runner finds it (it spawns a path, not a bare name).
fn bash_path() -> std::path::PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join("bash"))
        .find(|p| p.is_file())
        .unwrap_or_else(|| "bash".into())
}

fn per_call(n: u32, mut f: impl FnMut()) -> Duration {
    let start = Instant::now();
    for _ in 0..n {
        f();
    }
    start.elapsed() / n
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let rt = tokio::runtime::Runtime::new().expect("tokio");
    let dir = tempfile::tempdir().expect("temp dir");
    let session = session(dir.path());
    let bash_bin = bash_path();
    // `cargo test --benches` runs this without `--bench`: keep that quick.
    let full = std::env::args().any(|a| a == "--bench");

    if full {
        let mut c = Criterion::default()
            .sample_size(30)
            .measurement_time(Duration::from_secs(3))
            .warm_up_time(Duration::from_millis(500))
            .configure_from_args();
        c.bench_function("bash tool: true via Session::call", |b| {
            b.iter(|| via_tool(&rt, &session))
        });
        c.bench_function("std::process::Command: bash -c true", |b| {
            b.iter(via_bash_c)
        });
        c.bench_function("std::process::Command: true", |b| b.iter(via_true));
        c.final_summary();
    }

    let quick_rounds = std::env::var("SHELL_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok());
    let (rounds, n) = match quick_rounds {
        Some(r) => (r, 10),
        None if full => (31, 10),
        None => (1, 3),
    };
    let (mut tool, mut bash, mut plain, mut tokio) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut ratios = Vec::new();
    for round in 0..rounds {
        // Short rounds, the tool and its baseline back to back, which one first alternating:
        // the ratio of each pair is taken under the same load.
        let (t, b) = if round % 2 == 0 {
            let t = per_call(n, || via_tool(&rt, &session));
            (t, per_call(n, via_bash_c))
        } else {
            let b = per_call(n, via_bash_c);
            (per_call(n, || via_tool(&rt, &session)), b)
        };
        ratios.push(t.as_secs_f64() / b.as_secs_f64());
        tool.push(t);
        bash.push(b);
        plain.push(per_call(n, via_true));
        tokio.push(per_call(n, || via_tokio(&rt, &bash_bin)));
    }
    let (t, b, p, k) = (median(tool), median(bash), median(plain), median(tokio));
    ratios.sort_by(f64::total_cmp);
    let paired = ratios[ratios.len() / 2];
    println!(
        "bash tool `true`: {t:?} per call; std::process::Command `bash -c true` {b:?} \
         (ratio {paired:.2}x, the median of {rounds} paired rounds), `true` {p:?} (ratio \
         {:.2}x); tokio::process `bash -c true` {k:?} (ratio {:.2}x)",
        t.as_secs_f64() / p.as_secs_f64(),
        t.as_secs_f64() / k.as_secs_f64()
    );
}
