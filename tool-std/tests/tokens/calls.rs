//! The token benchmark's typical calls and the fixtures they run on, shared by the benchmark
//! (`benches/tokens.rs`, which prints what they cost) and the test that holds each result to
//! its tool's output schema and to 1.1x its text (`tests/tokens/results.rs`).
//!
//! The fixtures are committed under `benches/fixtures/tokens/` (a small crate written for the
//! benchmark, `switchboard`, with a Markdown, a TOML, a Python and a JSON file beside its
//! Rust; an HTML page; a SearXNG answer) and copied into a temp dir, so the figures
//! move only when the tools' output does. The web calls go to a loopback server that serves
//! the page and plays SearXNG.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value, json};
use tool_core::{ApproveAll, CallOutcome, Registry, Runtime, Session, ToolCall};
use tool_std::shell::{SandboxMode, ShellConfig};
use tool_std::web::WebConfig;
use tool_std::workspace::Workspace;

/// One typical call: a label for the table, the tool and its arguments.
pub(crate) struct TypicalCall {
    pub(crate) label: &'static str,
    pub(crate) tool: &'static str,
    pub(crate) args: Value,
}

/// The typical calls, in the table's order; `page` is the loopback page's address.
pub(crate) fn typical_calls(page: &str) -> Vec<TypicalCall> {
    let call = |label, tool, args| TypicalCall { label, tool, args };
    vec![
        call(
            "grep content `fn ` (first 50)",
            "grep",
            json!({"pattern": "fn ", "path": "src"}),
        ),
        call(
            "grep content `Format::Gemini`, context 1",
            "grep",
            json!({"pattern": "Format::Gemini", "context": 1}),
        ),
        call(
            "grep files_with_matches `impl`",
            "grep",
            json!({"pattern": "impl", "output_mode": "files_with_matches"}),
        ),
        call(
            "grep count `fn `",
            "grep",
            json!({"pattern": "fn ", "output_mode": "count"}),
        ),
        call(
            "search `schema` (paths and lines)",
            "search",
            json!({"query": "schema"}),
        ),
        call(
            "read_file range (80 lines)",
            "read_file",
            json!({"paths": ["src/provider/openai.rs:40-119"]}),
        ),
        call(
            "read_file whole (352 lines)",
            "read_file",
            json!({"paths": ["src/runtime/mod.rs"]}),
        ),
        call("glob `**/*.rs`", "glob", json!({"pattern": "**/*.rs"})),
        call(
            "list_directory depth 2",
            "list_directory",
            json!({"path": "src", "depth": 2}),
        ),
        call(
            "web search (10 results)",
            "web",
            json!({"action": "search", "query_or_url": "rust kill child process group timeout"}),
        ),
        call(
            "web fetch (loopback page)",
            "web",
            json!({"action": "fetch", "query_or_url": page}),
        ),
        call(
            "bash `wc -l src/provider/*.rs`",
            "bash",
            json!({"command": "wc -l src/provider/*.rs"}),
        ),
    ]
}

/// The fixtures in a temp dir, the loopback server, and a session over every standard tool
/// (and whatever else `registry` holds) with them as its workspace.
pub(crate) struct Fixtures {
    _tmp: tempfile::TempDir,
    /// The loopback server's address, `http://127.0.0.1:PORT`.
    pub(crate) base: String,
    pub(crate) session: Session,
}

impl Fixtures {
    pub(crate) fn new(registry: Registry) -> Fixtures {
        let tmp = tempfile::tempdir().expect("temp dir");
        let root = tmp.path().join("repo");
        copy_dir(&fixtures().join("src"), &root.join("src"));
        let read = |name: &str| std::fs::read_to_string(fixtures().join(name)).expect("fixture");
        let base = serve_fixtures(read("page.html"), read("searxng.json"));
        let ws = Workspace::builder()
            .root("repo", &root)
            .build()
            .expect("workspace");
        let mut shell = ShellConfig::default();
        // Off: the figures are of the result, the same with the sandbox on.
        shell.sandbox.mode = SandboxMode::Off;
        let web = WebConfig::from_options(Some(&format!("{base}/")), &["127.0.0.1"]).expect("web");
        let session = Runtime::builder(registry)
            .service(Arc::new(ws))
            .service(Arc::new(shell))
            .service(Arc::new(web))
            .approver(ApproveAll)
            .dedupe(false)
            .build()
            .session();
        Fixtures {
            _tmp: tmp,
            base,
            session,
        }
    }

    /// The typical calls, addressed to this fixture's loopback page.
    pub(crate) fn calls(&self) -> Vec<TypicalCall> {
        typical_calls(&format!("{}/guide/results", self.base))
    }

    /// Makes `call` in a turn of its own.
    pub(crate) async fn run(&self, call: &TypicalCall) -> CallOutcome {
        self.session.clear_current_turn();
        self.session
            .call(ToolCall::new("t", call.tool, call.args.to_string()))
            .await
    }
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/fixtures/tokens")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create fixture dir");
    for entry in std::fs::read_dir(from).expect("read fixture dir") {
        let entry = entry.expect("fixture entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).expect("copy fixture");
        }
    }
}

/// A loopback server: `/search?...` answers SearXNG's JSON, anything else the HTML page.
fn serve_fixtures(page: String, searxng: String) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let addr = listener.local_addr().expect("local addr");
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let Ok(read_half) = stream.try_clone() else {
                continue;
            };
            let mut reader = BufReader::new(read_half);
            let mut first = String::new();
            if reader.read_line(&mut first).is_err() {
                continue;
            }
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            let (ctype, body) = if first.contains("/search") {
                ("application/json", &searxng)
            } else {
                ("text/html; charset=utf-8", &page)
            };
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    format!("http://{addr}")
}

/// `text`'s length in `o200k_base` tokens.
pub(crate) fn tokens(bpe: &tiktoken_rs::CoreBPE, text: &str) -> usize {
    bpe.encode_ordinary(text).len()
}
