//! The `bash` tool's overhead: running `true` through the whole `Session::call` path
//! (validation, approval, activity record, events, the refused-list check, the workspace's
//! directory check, a process group, two pipes read to their end, the group check after
//! exit) against spawning the same thing with `std::process::Command` in the same run; and
//! the sandbox's own cost: the same call sandboxed (the call's plan and temporary
//! directory, a thread confining itself with Landlock under the shared seccomp filter, the
//! shell's exec) against the tool with the sandbox off, in a plain root, in a git repository
//! (whose `.git/config` and `.git/hooks` are mounted read-only in a namespace of the call's
//! own, from the thread when running as root), and through the helper program (the way an
//! unprivileged server confines a call that mounts: an extra program start per call).
//!
//! ```text
//! cargo bench -p tool-std --bench shell
//! ```
//!
//! Baselines: `bash -c true` with its output piped (the process the tool starts), `true`
//! itself, and `bash -c true` spawned by tokio with the runner's options (what the call path
//! adds on top of the spawn). Criterion measures each; then alternating rounds give medians and the
//! ratios, printed at the end: the tool against `bash -c true` is the median of the ratios of
//! short paired rounds, the side going first alternating (aim: at most 1.2x); the sandboxed
//! tool against the tool with the sandbox off likewise (aim: at most 1.3x).

use std::hint::black_box;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::Criterion;
use tool_core::{ApproveAll, Registry, Runtime, Session, ToolCall};
use tool_std::shell::{SandboxMode, ShellConfig};
use tool_std::workspace::Workspace;

fn session(dir: &std::path::Path, sandboxed: bool) -> Session {
    session_with(dir, sandboxed, true)
}

fn session_with(dir: &std::path::Path, sandboxed: bool, in_process: bool) -> Session {
    let ws = Workspace::builder()
        .root("bench", dir)
        .build()
        .expect("workspace");
    let registry = Registry::builder()
        .with_inventory()
        .build()
        .expect("registry");
    let mut config = ShellConfig::default();
    if sandboxed {
        config.sandbox.helper = Some(env!("CARGO_BIN_EXE_toolsmith-sandbox-helper").into());
        config.sandbox.confine_in_process = in_process;
    } else {
        config.sandbox.mode = SandboxMode::Off;
    }
    Runtime::builder(registry)
        .service(Arc::new(ws))
        .service(Arc::new(config))
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
        let mut command = tokio::process::Command::new(bash);
        #[cfg(unix)]
        command.process_group(0);
        command
            .args(["-c", "true"])
            .stdin(Stdio::null())
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

/// Paired rounds of `a` and `b`, which one goes first alternating: the medians of each and
/// the median of the per-round ratios `a / b`.
fn paired(
    rounds: usize,
    n: u32,
    mut a: impl FnMut(),
    mut b: impl FnMut(),
) -> (Duration, Duration, f64) {
    let (mut xs, mut ys, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        let (x, y) = if round % 2 == 0 {
            let x = per_call(n, &mut a);
            (x, per_call(n, &mut b))
        } else {
            let y = per_call(n, &mut b);
            (per_call(n, &mut a), y)
        };
        ratios.push(x.as_secs_f64() / y.as_secs_f64());
        xs.push(x);
        ys.push(y);
    }
    ratios.sort_by(f64::total_cmp);
    (median(xs), median(ys), ratios[ratios.len() / 2])
}

fn main() {
    let rt = tokio::runtime::Runtime::new().expect("tokio");
    let dir = tempfile::tempdir().expect("temp dir");
    let session_off = session(dir.path(), false);
    let session_on = session(dir.path(), true);
    // A git repository: its protected paths make each call mount them read-only first.
    let repo = tempfile::tempdir().expect("temp dir");
    let git_ok = Command::new("git")
        .args(["init", "-q"])
        .current_dir(repo.path())
        .status()
        .is_ok_and(|s| s.success());
    let session_git = git_ok.then(|| session(repo.path(), true));
    let session_helper = session_with(dir.path(), true, false);
    let bash_bin = bash_path();
    // `cargo test --benches` runs this without `--bench`: keep that quick.
    let full = std::env::args().any(|a| a == "--bench");

    if full {
        let mut c = Criterion::default()
            .sample_size(30)
            .measurement_time(Duration::from_secs(3))
            .warm_up_time(Duration::from_millis(500))
            .configure_from_args();
        c.bench_function("bash tool, sandbox off: true via Session::call", |b| {
            b.iter(|| via_tool(&rt, &session_off))
        });
        c.bench_function("bash tool, sandboxed: true via Session::call", |b| {
            b.iter(|| via_tool(&rt, &session_on))
        });
        if let Some(session_git) = &session_git {
            c.bench_function("bash tool, sandboxed, in a git repository", |b| {
                b.iter(|| via_tool(&rt, session_git))
            });
        }
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
    let (off, bash, to_bash) = paired(rounds, n, || via_tool(&rt, &session_off), via_bash_c);
    let (on, off2, sandbox) = paired(
        rounds,
        n,
        || via_tool(&rt, &session_on),
        || via_tool(&rt, &session_off),
    );
    let git = session_git.as_ref().map(|s| {
        paired(
            rounds,
            n,
            || via_tool(&rt, s),
            || via_tool(&rt, &session_off),
        )
    });
    let helper = paired(
        rounds,
        n,
        || via_tool(&rt, &session_helper),
        || via_tool(&rt, &session_off),
    );
    let plain = median((0..rounds).map(|_| per_call(n, via_true)).collect());
    let tokio = median(
        (0..rounds)
            .map(|_| per_call(n, || via_tokio(&rt, &bash_bin)))
            .collect(),
    );
    println!(
        "bash tool `true`, sandbox off: {off:?} per call; std::process::Command `bash -c true` \
         {bash:?} (ratio {to_bash:.2}x, the median of {rounds} paired rounds), `true` {plain:?}; \
         tokio::process `bash -c true` {tokio:?}"
    );
    println!(
        "bash tool `true`, sandboxed: {on:?} per call against {off2:?} with the sandbox off \
         (ratio {sandbox:.2}x, the median of {rounds} paired rounds; aim: at most 1.30x)"
    );
    let (h, o, ratio) = helper;
    println!(
        "bash tool `true`, sandboxed through the helper program: {h:?} per call against {o:?} \
         with the sandbox off (ratio {ratio:.2}x)"
    );
    if let Some((g, o, ratio)) = git {
        println!(
            "bash tool `true`, sandboxed in a git repository (protected paths mounted \
             read-only): {g:?} per call against {o:?} with the sandbox off (ratio {ratio:.2}x)"
        );
    }
}
