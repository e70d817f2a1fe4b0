//! A call's whole cost to the server process: the CPU time (user and system, every thread,
//! from `/proc/PID/stat`) a server spends per `tools/call` over stdio, toolsmith's against a
//! server written directly on rmcp doing the same work, side by side in one run.
//!
//! ```text
//! cargo bench --bench process_cpu
//! ```
//!
//! Each side is a process of its own (this program run again as the server) answering
//! distinct 5-line ranged reads of a 20,000-line file through its stdin and stdout, one call
//! at a time. toolsmith's side serves the standard tools as `toolsmith serve` does (the
//! workspace, its file tracking and versions, validation, the SQLite activity record, events,
//! spans); the baseline is an rmcp `ServerHandler` whose `read_file` opens the file and
//! returns the lines asked for. Prints each side's microseconds of CPU per call (median of the
//! rounds, the side that goes first alternating) and the ratio (goal: at most 1.5x).
//! Linux only (it reads `/proc`); elsewhere it says so and exits.
//!
//! `PROCESS_BENCH_SERVE=toolsmith|baseline DIR` makes this program the server (what the
//! driver spawns); `PROCESS_BENCH_PERF=FILE` runs toolsmith's under `perf record -g -o FILE`
//! (the CPU figures then include perf's own share: read the profile, not the ratio).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::transport::TokioChildProcess;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};

/// Lines of the file read.
const FILE_LINES: usize = 20_000;
/// Calls per round and side, after the warm-up.
const CALLS: u64 = 3000;
const WARM_UP: u64 = 200;

/// The baseline: `read_file` on rmcp alone, the lines asked for and nothing else.
#[derive(Clone)]
struct Baseline {
    dir: PathBuf,
}

impl ServerHandler for Baseline {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let bad = |m: &str| ErrorData::invalid_params(m.to_owned(), None);
        let args = request.arguments.unwrap_or_default();
        let path = args
            .get("path")
            .and_then(Value::as_str)
            .ok_or_else(|| bad("path"))?;
        let offset = args
            .get("offset")
            .and_then(Value::as_u64)
            .ok_or_else(|| bad("offset"))?;
        let limit = args
            .get("limit")
            .and_then(Value::as_u64)
            .ok_or_else(|| bad("limit"))?;
        let file = std::fs::File::open(self.dir.join(path)).map_err(|e| bad(&e.to_string()))?;
        let text =
            lines_of(BufReader::new(file), offset, limit).map_err(|e| bad(&e.to_string()))?;
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }
}

/// Lines `offset..offset + limit` (1-based), numbered: the lines before them are skipped by
/// counting newlines in the reader's buffer, not read one by one.
fn lines_of(mut reader: impl BufRead, offset: u64, limit: u64) -> std::io::Result<String> {
    let mut line = 1;
    while line < offset {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(String::new());
        }
        let wanted = (offset - line) as usize;
        match memchr::memchr_iter(b'\n', buf).nth(wanted - 1) {
            Some(at) => {
                reader.consume(at + 1);
                line = offset;
            }
            None => {
                line += memchr::memchr_iter(b'\n', buf).count() as u64;
                let n = buf.len();
                reader.consume(n);
            }
        }
    }
    let mut text = String::new();
    let mut buf = String::new();
    for n in offset..offset + limit {
        buf.clear();
        if reader.read_line(&mut buf)? == 0 {
            break;
        }
        text.push_str(&format!("{n:>6}\t{buf}"));
    }
    Ok(text)
}

/// Serves one side on stdin and stdout until stdin closes.
async fn serve(side: &str, dir: &Path) {
    match side {
        "toolsmith" => {
            use toolsmith::std_tools::workspace::Workspace;
            use toolsmith::{SqliteActivityConfig, SqliteActivityStore};
            let store = SqliteActivityStore::open(
                dir.join(".toolsmith/activity.db"),
                SqliteActivityConfig::default(),
            )
            .expect("activity store");
            let registry = toolsmith::Registry::from_inventory().expect("registry");
            let runtime = toolsmith::Runtime::builder(registry)
                .service(std::sync::Arc::new(
                    Workspace::single(dir).expect("workspace"),
                ))
                .activity_store(std::sync::Arc::new(store))
                .build();
            let options = toolsmith::mcp::ServeOptions::new("bench");
            toolsmith::mcp::serve_stdio(runtime, options)
                .await
                .expect("served");
        }
        _ => {
            let server = Baseline {
                dir: dir.to_owned(),
            };
            let running = server.serve(rmcp::transport::stdio()).await.expect("serve");
            let _ = running.waiting().await;
        }
    }
}

/// The process's CPU time so far (user and system, every thread, exited ones included).
fn cpu(pid: u32, tick: f64) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("/proc stat");
    // Fields after the command's closing parenthesis: utime is the 14th field in all, the
    // 12th after it (state is the first).
    let rest = &stat[stat.rfind(')').expect("comm") + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    let utime: f64 = fields[11].parse().expect("utime");
    let stime: f64 = fields[12].parse().expect("stime");
    Duration::from_secs_f64((utime + stime) / tick)
}

/// Clock ticks per second (`getconf CLK_TCK`; 100 where it cannot be asked).
fn clock_tick() -> f64 {
    std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(100.0)
}

/// One round of one side: microseconds of server CPU per call.
async fn round(side: &str, dir: &Path, calls: u64, tick: f64) -> f64 {
    let exe = std::env::current_exe().expect("exe");
    // `PROCESS_BENCH_PERF=FILE` records toolsmith's server with `perf record -g` into FILE.
    let mut cmd = match std::env::var("PROCESS_BENCH_PERF") {
        Ok(out) if side == "toolsmith" => {
            let mut c = tokio::process::Command::new("perf");
            c.args(["record", "-g", "-q", "-o", &out, "--"]).arg(exe);
            c
        }
        _ => tokio::process::Command::new(exe),
    };
    cmd.env("PROCESS_BENCH_SERVE", side).arg(dir);
    let transport = TokioChildProcess::new(cmd).expect("spawn");
    let pid = transport.id().expect("pid");
    let client = ().serve(transport).await.expect("client");
    let call = |n: u64| {
        let start = 1 + (n * 37) % (FILE_LINES as u64 - 10);
        let args = if side == "toolsmith" {
            json!({"paths": [format!("big.txt:{start}-{}", start + 4)]})
        } else {
            json!({"path": "big.txt", "offset": start, "limit": 5})
        };
        let args = args.as_object().cloned().unwrap_or_default();
        CallToolRequestParams::new("read_file").with_arguments(args)
    };
    for n in 0..WARM_UP {
        let r = client.peer().call_tool(call(n)).await.expect("answered");
        assert_ne!(r.is_error, Some(true), "{side}: {r:?}");
    }
    let before = cpu(pid, tick);
    for n in WARM_UP..WARM_UP + calls {
        let r = client.peer().call_tool(call(n)).await.expect("answered");
        assert_ne!(r.is_error, Some(true), "{side}: {r:?}");
    }
    let spent = cpu(pid, tick) - before;
    let _ = tokio::time::timeout(Duration::from_secs(5), client.cancel()).await;
    spent.as_secs_f64() * 1e6 / calls as f64
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    if let Ok(side) = std::env::var("PROCESS_BENCH_SERVE") {
        let dir = std::env::args().nth(1).expect("the directory");
        serve(&side, Path::new(&dir)).await;
        return;
    }
    if !Path::new("/proc/self/stat").exists() {
        println!("process_cpu: no /proc here; this benchmark reads a process's CPU time there");
        return;
    }
    // `cargo test --benches` runs this with `--bench` absent: keep that quick.
    let bench = std::env::args().any(|a| a == "--bench");
    let (rounds, calls) = if bench { (5, CALLS) } else { (1, 100) };
    let tmp = tempfile::tempdir().expect("dir");
    let text: String = (1..=FILE_LINES)
        .map(|i| format!("fn line_{i}() -> usize {{ {i} }} // some text to read\n"))
        .collect();
    let big = tmp.path().join("big.txt");
    std::fs::write(&big, text).expect("write");
    // A file nobody is writing: modified a while ago, as most files a model reads are.
    let old = SystemTime::now() - Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&big)
        .and_then(|f| f.set_modified(old))
        .expect("mtime");
    let tick = clock_tick();
    let (mut ours, mut base, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for r in 0..rounds {
        let order = if r % 2 == 0 {
            ["toolsmith", "baseline"]
        } else {
            ["baseline", "toolsmith"]
        };
        let mut got = [0.0; 2];
        for side in order {
            let us = round(side, tmp.path(), calls, tick).await;
            got[usize::from(side == "baseline")] = us;
        }
        ours.push(got[0]);
        base.push(got[1]);
        ratios.push(got[0] / got[1]);
    }
    println!(
        "process CPU per call over stdio, distinct 5-line ranged reads of a {FILE_LINES}-line \
         file ({calls} calls x {rounds} rounds, clock tick {tick} Hz):"
    );
    println!("  toolsmith serve:   {:>8.1} us", median(ours));
    println!("  rmcp baseline:     {:>8.1} us", median(base));
    println!(
        "  ratio (median):    {:>8.2}x  (goal: at most 1.5x)",
        median(ratios)
    );
}
