//! `code`'s `definition` through the tool (the runtime's whole path: validation, the file
//! read and given to the server, the position found, the answer's lines read and rendered)
//! against the same `textDocument/definition` request sent straight to the same warm clangd
//! ([`LanguageServers::request`]), side by side on a small C project.
//!
//! Besides criterion's figures, the ratio is printed at the end: the median of the ratios of
//! rounds that time both one after the other (aim: 1.2x or less). The benchmark skips,
//! saying why, where clangd is not installed.
//!
//! Measured on 2 shared cores with clangd 14, in two runs: 557 and 578 µs through the tool
//! against 321 and 365 µs straight to clangd, 1.65x and 1.61x (1.77x before, when every call
//! looked the server's program up on the `PATH`). Of the difference, about 150 µs: the call's
//! path through the runtime about 35, the file read through the workspace about 25 and the
//! trip to the blocking threads for it about 25, the answer's line read from `util.c` about
//! 20, the server found and the text's hash compared about 5; the request itself costs what
//! it costs sent straight. The ratio moves with the machine's load: when clangd answers in
//! about 160 µs, the same costs make it 1.72x (1.96x before).
//!
//! `cargo bench -p tool-std --bench code`

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::Criterion;
use lsp_types::request::GotoDefinition;
use lsp_types::{
    GotoDefinitionParams, Position, TextDocumentIdentifier, TextDocumentPositionParams, Url,
};
use tool_core::{ApproveAll, Registry, Runtime, Session, ToolCall};
use tool_std::code::{CodeConfig, LanguageServers};
use tool_std::workspace::Workspace;

const FILES: &[(&str, &str)] = &[
    (
        "util.h",
        "#ifndef UTIL_H\n#define UTIL_H\nint add(int a, int b);\n#endif\n",
    ),
    (
        "util.c",
        "#include \"util.h\"\n\nint add(int a, int b) {\n    return a + b;\n}\n",
    ),
    (
        "main.c",
        "#include \"util.h\"\n\nint twice(int x) {\n    return add(x, x);\n}\n\nint main(void) {\n    return twice(add(1, 2));\n}\n",
    ),
    ("compile_flags.txt", "-I.\n"),
];

const CALL: &str = r#"{"action": "definition", "path": "main.c", "line": 4, "symbol": "add"}"#;

fn session(dir: &std::path::Path, servers: Arc<LanguageServers>) -> Session {
    let ws = Workspace::builder()
        .root("bench", dir)
        .build()
        .expect("workspace");
    let registry = Registry::builder()
        .with_inventory()
        .build()
        .expect("registry");
    let mut config = CodeConfig::default();
    config.sandbox.helper = Some(env!("CARGO_BIN_EXE_toolsmith-sandbox-helper").into());
    Runtime::builder(registry)
        .service(Arc::new(ws))
        .service(Arc::new(config))
        .service(servers)
        .approver(ApproveAll)
        .dedupe(false)
        .build()
        .session()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let clangd = std::process::Command::new("clangd")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !clangd {
        eprintln!("skipped: clangd is not installed (.ci/run installs it)");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical");
    for (name, text) in FILES {
        std::fs::write(root.join(name), text).expect("write");
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let servers = LanguageServers::new();
    let session = session(&root, servers.clone());
    let tool = || async {
        let out = session
            .call(ToolCall::new("b", "code", CALL))
            .await
            .to_json();
        assert_eq!(out["results"][0]["path"], "util.c", "{out}");
    };
    // Warm: the server started, both files read, the answer known.
    rt.block_on(async {
        session
            .call(ToolCall::new(
                "w",
                "code",
                r#"{"action": "symbols", "path": "util.c"}"#,
            ))
            .await;
        tool().await;
    });
    let pid = servers.running()[0].pid;
    let uri = Url::from_file_path(root.join("main.c")).expect("uri");
    let params = move || GotoDefinitionParams {
        text_document_position_params: TextDocumentPositionParams::new(
            TextDocumentIdentifier::new(uri.clone()),
            Position::new(3, 11),
        ),
        work_done_progress_params: Default::default(),
        partial_result_params: Default::default(),
    };
    let direct = || async {
        let answer = servers
            .request::<GotoDefinition>(pid, params(), Duration::from_secs(10))
            .await
            .expect("definition");
        assert!(answer.is_some());
    };

    let mut c = Criterion::default().configure_from_args();
    let mut group = c.benchmark_group("code_definition");
    group.bench_function("through the code tool", |b| {
        b.iter(|| rt.block_on(black_box(tool())))
    });
    group.bench_function("straight to clangd", |b| {
        b.iter(|| rt.block_on(black_box(direct())))
    });
    group.finish();

    // Rounds of 20 calls each way, alternating; the median of the per-round ratios.
    let mut ratios = Vec::new();
    let (mut tool_times, mut direct_times) = (Vec::new(), Vec::new());
    for _ in 0..15 {
        let t = Instant::now();
        for _ in 0..20 {
            rt.block_on(tool());
        }
        let t = t.elapsed().as_secs_f64() / 20.0;
        let d = Instant::now();
        for _ in 0..20 {
            rt.block_on(direct());
        }
        let d = d.elapsed().as_secs_f64() / 20.0;
        ratios.push(t / d);
        tool_times.push(t);
        direct_times.push(d);
    }
    println!(
        "code definition: through the tool {:.0} µs, straight to clangd {:.0} µs, ratio {:.2}x (median of {} rounds; aim 1.2x or less)",
        median(tool_times) * 1e6,
        median(direct_times) * 1e6,
        median(ratios.clone()),
        ratios.len()
    );
    rt.block_on(servers.shutdown_all());
}
