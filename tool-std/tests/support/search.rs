//! Shared set-up of the search tool tests: a workspace with one root `main` and, beside it, an
//! `outside` directory holding a secret no call may show; and the vendored corpus and `rg`
//! for the oracle tests.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::Value;
use tool_core::Session;
use tool_std::search::SearchConfig;
use tool_std::workspace::Workspace;

/// The text of every file outside the root: it must never appear in any answer.
pub(crate) const SECRET: &str = "outside-secret-5d2e";

pub(crate) struct Fixture {
    pub(crate) _tmp: tempfile::TempDir,
    pub(crate) ws: PathBuf,
    pub(crate) outside: PathBuf,
    pub(crate) session: Session,
}

impl Fixture {
    pub(crate) fn new() -> Fixture {
        Fixture::with(SearchConfig::default(), None)
    }

    /// A fixture whose calls have the given configuration and deadline.
    pub(crate) fn with(config: SearchConfig, timeout: Option<Duration>) -> Fixture {
        let (tmp, base) = super::temp_dir();
        let ws = base.join("ws");
        fs::create_dir_all(&ws).unwrap();
        let outside = super::outside_with(&base, SECRET);
        let workspace = Workspace::builder().root("main", &ws).build().unwrap();
        let session = session_for(&workspace, config, timeout);
        Fixture {
            _tmp: tmp,
            ws,
            outside,
            session,
        }
    }

    pub(crate) fn write(&self, rel: &str, content: impl AsRef<[u8]>) {
        super::write(&self.ws.join(rel), content);
    }

    /// Calls a tool and returns its JSON answer (result or error).
    pub(crate) async fn call(&self, tool: &str, args: Value) -> Value {
        super::call(&self.session, tool, args).await
    }

    /// Calls a tool and returns the JSON answer and the model text.
    pub(crate) async fn call_text(&self, tool: &str, args: Value) -> (Value, String) {
        super::call_text(&self.session, tool, args).await
    }

    /// Calls a tool and returns the JSON answer and the summary line that ends its text
    /// (`grep`'s and `search`'s structured answers leave the sentence out).
    pub(crate) async fn call_summary(&self, tool: &str, args: Value) -> (Value, String) {
        let (v, text) = self.call_text(tool, args).await;
        let summary = text
            .trim_end()
            .lines()
            .last()
            .unwrap_or_default()
            .to_owned();
        (v, summary)
    }
}

pub(crate) fn session_for(
    ws: &Workspace,
    config: SearchConfig,
    timeout: Option<Duration>,
) -> Session {
    let mut b = super::workspace_runtime(ws, config);
    if let Some(t) = timeout {
        b = b.default_timeout(t);
    }
    b.build().session()
}

/// Each match of the answer (content mode) as `(path, line, text)`, from its `N:text` lines
/// (context lines, `N-text`, and `--` left out).
pub(crate) fn match_entries(v: &Value) -> Vec<(String, u64, String)> {
    let mut out = Vec::new();
    if let Some(files) = v["matches"].as_object() {
        for (path, lines) in files {
            for line in lines.as_array().expect("a file's lines") {
                let line = line.as_str().expect("a line");
                let digits = line.find(|c: char| !c.is_ascii_digit()).unwrap_or(0);
                if digits > 0 && line[digits..].starts_with(':') {
                    out.push((
                        path.clone(),
                        line[..digits].parse().expect("a line number"),
                        line[digits + 1..].to_owned(),
                    ));
                }
            }
        }
    }
    out
}

/// The `path` of each match (content mode).
pub(crate) fn match_paths(v: &Value) -> Vec<String> {
    match_entries(v).into_iter().map(|(p, _, _)| p).collect()
}

/// `path:line` of each match.
pub(crate) fn match_lines(v: &Value) -> Vec<String> {
    match_entries(v)
        .into_iter()
        .map(|(p, n, _)| format!("{p}:{n}"))
        .collect()
}

/// A file's lines in the answer (content mode): `N:text`, `N-text` and `--`.
pub(crate) fn file_lines(v: &Value, path: &str) -> Vec<String> {
    v["matches"][path]
        .as_array()
        .map(|a| a.iter().map(|l| l.as_str().unwrap().to_owned()).collect())
        .unwrap_or_default()
}

/// The files shown: `files` (files_with_matches mode) or the keys of `counts` (count mode).
pub(crate) fn file_paths(v: &Value) -> Vec<String> {
    if let Some(counts) = v["counts"].as_object() {
        return counts.keys().cloned().collect();
    }
    v["files"]
        .as_array()
        .map(|a| a.iter().map(|f| f.as_str().unwrap().to_owned()).collect())
        .unwrap_or_default()
}

/// `rg` if installed, else `None` after saying why the test skips.
pub(crate) fn rg() -> Option<PathBuf> {
    which("rg").or_else(|| {
        eprintln!("note: `rg` is not installed; skipping the ripgrep oracle");
        None
    })
}

fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// The oracle corpus: `cargo vendor` of this workspace's dependencies into a temp dir (once
/// per test binary), kept to the crates small enough that a debug build searches them in
/// seconds, with ignore files and hidden files added so the rules are exercised. `None`
/// (after saying why) when vendoring fails.
pub(crate) fn corpus() -> Option<&'static Path> {
    static CORPUS: OnceLock<Option<(tempfile::TempDir, PathBuf)>> = OnceLock::new();
    CORPUS
        .get_or_init(|| {
            let started = std::time::Instant::now();
            let c = build_corpus();
            eprintln!("note: corpus built in {:?}", started.elapsed());
            c
        })
        .as_ref()
        .map(|(_, p)| p.as_path())
}

fn build_corpus() -> Option<(tempfile::TempDir, PathBuf)> {
    let tmp = tempfile::tempdir().ok()?;
    let vendor = tmp.path().canonicalize().ok()?.join("vendor");
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut ok = false;
    for offline in [true, false] {
        let mut cmd = Command::new(&cargo);
        cmd.arg("vendor")
            .arg("--versioned-dirs")
            .arg("--manifest-path")
            .arg(&manifest);
        if offline {
            cmd.arg("--offline");
        }
        cmd.arg(&vendor);
        match cmd.output() {
            Ok(out) if out.status.success() => {
                ok = true;
                break;
            }
            Ok(out) => eprintln!(
                "note: cargo vendor{} failed: {}",
                if offline { " --offline" } else { "" },
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .last()
                    .unwrap_or("")
            ),
            Err(e) => eprintln!("note: cannot run cargo vendor: {e}"),
        }
    }
    if !ok {
        eprintln!("note: no vendored corpus; skipping the ripgrep oracle");
        return None;
    }
    // Keep the crates below 150 KB on disk: some two hundred crates of real Rust, C, Markdown,
    // TOML, JSON and test data.
    for e in fs::read_dir(&vendor).ok()?.flatten() {
        if e.path().is_dir() && dir_size(&e.path()) > 150 * 1024 {
            fs::remove_dir_all(e.path()).ok()?;
        }
    }
    // Ignore rules and hidden files, so both sides apply them.
    fs::write(vendor.join(".gitignore"), "*.json\n/libc-*/\nbenches/\n").ok()?;
    let some_crate = fs::read_dir(&vendor)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .min()?;
    fs::write(some_crate.join(".ignore"), "*.md\n!README.md\n").ok()?;
    fs::create_dir_all(vendor.join(".hidden")).ok()?;
    fs::write(vendor.join(".hidden/unsafe.rs"), "unsafe fn hidden() {}\n").ok()?;
    let mut big = String::new();
    while big.len() < 1_200_000 {
        big.push_str("unsafe fn big_file_line() {}\n");
    }
    fs::write(vendor.join("big_generated.rs"), big).ok()?;
    fs::write(vendor.join("binary.rs"), b"unsafe fn x() {}\n\0\x01\x02").ok()?;
    Some((tmp, vendor))
}

fn dir_size(p: &Path) -> u64 {
    let mut total = 0;
    let mut todo = vec![p.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in fs::read_dir(&d).into_iter().flatten().flatten() {
            let Ok(m) = e.metadata() else { continue };
            if m.is_dir() {
                todo.push(e.path());
            } else {
                total += m.len();
            }
        }
    }
    total
}
