//! What the standard tools cost a model, in `o200k_base` tokens (tiktoken's encoding of
//! OpenAI's current models; other tokenizers differ by some percent, not in which form is
//! larger).
//!
//! Two tables:
//!
//! - **Definitions**: each standard tool's definition in every export format (the compact JSON
//!   of its entry; for `xml`, the prompt block with that tool alone), and the whole set per
//!   format (`toolsmith list --format F`, compact JSON; the indented form too, which is what
//!   `list` prints).
//! - **Results**: typical calls on fixed fixtures, each in three forms: the text content (what
//!   every provider's tool-result message carries), the structured content (MCP's
//!   `structuredContent`, compact JSON; `-` when the tool declares none), and what a host
//!   that forwards only the structured content when there is one (Claude Code, VS Code) sends
//!   the model. `ratio` is structured / text.
//!
//! The fixtures are committed under `benches/fixtures/tokens/` (a snapshot of `tool-core`'s
//! sources, an HTML page and a SearXNG answer) and copied into a temp dir, so the
//! figures move only when the tools' output does. The web calls go to a loopback server that
//! serves the page and plays SearXNG.
//!
//! ```text
//! cargo bench -p tool-std --bench tokens
//! ```

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value, json};
use tiktoken_rs::CoreBPE;
use tool_core::provider::result::McpParts;
use tool_core::provider::{Format, export, export_all};
use tool_core::{ApproveAll, Registry, ResourcesTracker, Runtime, Session, ToolCall, ToolSpec};
use tool_std::shell::{SandboxMode, ShellConfig};
use tool_std::web::WebConfig;
use tool_std::workspace::Workspace;

/// The export formats a model is sent (the canonical `json` is toolsmith's own).
const FORMATS: &[Format] = &[
    Format::Openai,
    Format::OpenaiStrict,
    Format::OpenaiResponses,
    Format::Anthropic,
    Format::Gemini,
    Format::Mcp,
    Format::Xml,
];

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
            let mut reader = BufReader::new(stream.try_clone().expect("clone stream"));
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

fn tokens(bpe: &CoreBPE, text: &str) -> usize {
    bpe.encode_ordinary(text).len()
}

fn definitions(bpe: &CoreBPE, specs: &[&ToolSpec]) {
    println!("## Definitions (o200k_base tokens)\n");
    print!("| tool |");
    for f in FORMATS {
        print!(" {} |", f.as_str());
    }
    println!();
    println!("|---|{}", "---:|".repeat(FORMATS.len()));
    for spec in specs {
        print!("| {} |", spec.name);
        for &f in FORMATS {
            let text = export(spec, f).expect("export").to_compact();
            print!(" {} |", tokens(bpe, &text));
        }
        println!();
    }
    for (label, pretty) in [("whole set", false), ("whole set, indented", true)] {
        print!("| **{label}** |");
        for &f in FORMATS {
            let all = export_all(specs.iter().copied(), f).expect("export all");
            let text = if pretty {
                all.to_pretty()
            } else {
                all.to_compact()
            };
            print!(" **{}** |", tokens(bpe, &text));
        }
        println!();
    }
    println!();
}

fn results(bpe: &CoreBPE, rt: &tokio::runtime::Runtime, session: &Session) {
    // (label, tool, arguments)
    let calls: Vec<(&str, &str, Value)> = vec![
        (
            "grep content `fn ` (first 50)",
            "grep",
            json!({"pattern": "fn ", "path": "src"}),
        ),
        (
            "grep content `Format::Gemini`, context 1",
            "grep",
            json!({"pattern": "Format::Gemini", "context": 1}),
        ),
        (
            "grep files_with_matches `impl`",
            "grep",
            json!({"pattern": "impl", "output_mode": "files_with_matches"}),
        ),
        (
            "grep count `fn `",
            "grep",
            json!({"pattern": "fn ", "output_mode": "count"}),
        ),
        (
            "search `schema` (paths and lines)",
            "search",
            json!({"query": "schema"}),
        ),
        (
            "read_file range (80 lines)",
            "read_file",
            json!({"paths": ["src/provider/openai.rs:40-119"]}),
        ),
        (
            "read_file whole (352 lines)",
            "read_file",
            json!({"paths": ["src/runtime/mod.rs"]}),
        ),
        ("glob `**/*.rs`", "glob", json!({"pattern": "**/*.rs"})),
        (
            "list_directory depth 2",
            "list_directory",
            json!({"path": "src", "depth": 2}),
        ),
        (
            "web search (10 results)",
            "web",
            json!({"action": "search", "query_or_url": "rust kill child process group timeout"}),
        ),
        (
            "web fetch (loopback page)",
            "web",
            json!({"action": "fetch", "query_or_url": "PAGE"}),
        ),
        (
            "bash `wc -l src/provider/*.rs`",
            "bash",
            json!({"command": "wc -l src/provider/*.rs"}),
        ),
    ];
    println!("## Results (o200k_base tokens)\n");
    println!("| call | text | structured | structured-only host | ratio |");
    println!("|---|---:|---:|---:|---:|");
    let page_url = session_page_url();
    for (label, tool, mut args) in calls {
        if args["query_or_url"] == "PAGE" {
            args["query_or_url"] = Value::String(page_url.clone());
        }
        session.clear_current_turn();
        let outcome = rt.block_on(session.call(ToolCall::new("t", tool, args.to_string())));
        assert!(outcome.is_success(), "{label}: {}", outcome.to_json());
        let parts = McpParts::of(&outcome, &mut ResourcesTracker::new());
        // `TOKENS_DUMP=DIR` writes each call's two forms there, to look at.
        if let Some(dir) = std::env::var_os("TOKENS_DUMP") {
            let stem = Path::new(&dir).join(label.replace(['/', '`', ' '], "_"));
            std::fs::write(stem.with_extension("txt"), &parts.text).expect("dump");
            if let Some(v) = &parts.structured {
                std::fs::write(stem.with_extension("json"), v.to_string()).expect("dump");
            }
        }
        let text = tokens(bpe, &parts.text);
        let structured = parts
            .structured
            .as_ref()
            .map(|v| tokens(bpe, &v.to_string()));
        let host = structured.unwrap_or(text);
        match structured {
            Some(s) => println!(
                "| {label} | {text} | {s} | {host} | {:.2}x |",
                s as f64 / text as f64
            ),
            None => println!("| {label} | {text} | - | {host} | - |"),
        }
    }
    println!();
}

static PAGE_URL: std::sync::OnceLock<String> = std::sync::OnceLock::new();

fn session_page_url() -> String {
    format!("{}/guide/results", PAGE_URL.get().expect("server started"))
}

fn main() {
    // `cargo test --benches` runs this without `--bench`: nothing to check there.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let bpe = tiktoken_rs::o200k_base().expect("o200k_base");
    let registry = Registry::builder()
        .with_inventory()
        .build()
        .expect("registry");
    let mut specs: Vec<&ToolSpec> = registry.iter().map(|e| &**e.spec()).collect();
    specs.sort_by(|a, b| a.name.cmp(&b.name));
    definitions(&bpe, &specs);

    let tmp = tempfile::tempdir().expect("temp dir");
    let root = tmp.path().join("repo");
    copy_dir(&fixtures().join("src"), &root.join("src"));
    let read = |name: &str| std::fs::read_to_string(fixtures().join(name)).expect("fixture");
    let base = serve_fixtures(read("page.html"), read("searxng.json"));
    PAGE_URL.set(base.clone()).expect("set once");
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
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio");
    results(&bpe, &rt, &session);
}
