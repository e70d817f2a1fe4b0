//! The `code` tool as the command hosts it: `[code.servers]` in `toolsmith.toml` chooses the
//! server a language gets (here a wrapper that records its pid, then becomes clangd), and the
//! servers stop when `serve` stops (stdin closed, or SIGTERM on HTTP) and when `call` ends.
//! Skipped, saying why, where clangd is not installed.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::cli::{code, json as json_of, toolsmith_in};
use crate::support::http::{Http, addr_of, initialize_2025, mcp_headers, send};
use crate::support::mcp::ServeProcess;
use crate::support::stdio::{StdioServe, Version, text_of};
use crate::support::{process_gone, processes_gone, signal};

/// The variable naming the file the wrapper appends its pid to (given to servers through
/// `env_allow`).
const MARK: &str = "TOOLSMITH_TEST_SERVER_MARK";

/// `main.c` calls `add`, defined on util.c:3.
const C_FILES: &[(&str, &str)] = &[
    ("util.h", "int add(int a, int b);\n"),
    (
        "util.c",
        "#include \"util.h\"\n\nint add(int a, int b) {\n    return a + b;\n}\n",
    ),
    (
        "main.c",
        "#include \"util.h\"\n\nint main(void) {\n    return add(1, 2);\n}\n",
    ),
    ("compile_flags.txt", "-I.\n"),
];

/// Whether clangd runs here; says why the test is skipped when not.
fn have_clangd() -> bool {
    let works = std::process::Command::new("clangd")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !works {
        eprintln!("skipped: clangd is not installed (.ci/run installs it)");
    }
    works
}

/// A directory holding `toolsmith.toml` (root `ws` with [`C_FILES`], `c` served by
/// `./bin/clangd-wrapper`, which appends its pid to the mark file and execs clangd), and the
/// mark file's path.
fn project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).expect("mkdir ws");
    for (name, text) in C_FILES {
        std::fs::write(ws.join(name), text).expect("write a source file");
    }
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).expect("mkdir bin");
    let wrapper = bin.join("clangd-wrapper");
    std::fs::write(
        &wrapper,
        format!("#!/bin/sh\necho $$ >> \"${MARK}\"\nexec clangd \"$@\"\n"),
    )
    .expect("write the wrapper");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    std::fs::write(
        dir.path().join("toolsmith.toml"),
        format!(
            "roots = [\"ws\"]\n\n[code]\nenv_allow = [\"{MARK}\"]\n\n\
             [code.servers]\nc = [\"./bin/clangd-wrapper\"]\n"
        ),
    )
    .expect("write toolsmith.toml");
    // Beneath the read-write root: a sandboxed server may write there.
    let mark = ws.join(".server-pids");
    (dir, mark)
}

/// The pids the wrapper recorded.
fn started(mark: &Path) -> Vec<u32> {
    std::fs::read_to_string(mark)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

fn definition() -> Value {
    json!({"action": "definition", "path": "main.c", "line": 4, "symbol": "add"})
}

#[test]
fn the_files_server_answers_and_stops_when_stdio_ends() {
    if !have_clangd() {
        return;
    }
    let (dir, mark) = project();
    let mark_text = mark.to_str().expect("utf-8");
    let mut server = StdioServe::start_with_env(dir.path(), &[], &[(MARK, mark_text)]);
    server.send(Version::V2025.prelude());
    let call = Version::V2025.request(
        &json!(1),
        "tools/call",
        json!({"name": "code", "arguments": definition()}),
    );
    let answer = server.ask(call);
    let text = text_of(&answer);
    assert!(
        text.contains("int add(int a, int b)") && text.contains("definition(s) of `add`"),
        "{text}\n{}",
        server.stderr()
    );
    let used = answer["result"]["structuredContent"]["server"]
        .as_str()
        .unwrap_or_default();
    assert!(used.ends_with("/bin/clangd-wrapper"), "{answer}");
    let pids = started(&mark);
    assert_eq!(pids.len(), 1, "the wrapper started once: {pids:?}");
    assert!(!process_gone(pids[0]), "the server runs between calls");
    let stderr_path = dir.path().join("serve.stderr");
    assert!(server.close(Duration::from_secs(20)), "serve exits 0");
    assert!(
        processes_gone(&pids, Duration::from_secs(5)),
        "the server {pids:?} outlived serve"
    );
    let stderr = std::fs::read_to_string(stderr_path).unwrap_or_default();
    assert!(stderr.contains("stopped 1 language server(s)"), "{stderr}");
}

#[test]
fn the_files_server_stops_when_http_serve_is_stopped() {
    if !have_clangd() {
        return;
    }
    let (dir, mark) = project();
    let mark_text = mark.to_str().expect("utf-8");
    let mut server = ServeProcess::start(
        dir.path(),
        &["serve", "--http", "127.0.0.1:0"],
        &[(MARK, mark_text)],
    );
    let addr = addr_of(&server);
    let session = initialize_2025(&addr, "code-test");
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "code", "arguments": definition()}});
    let answer = Http::read(send(
        &addr,
        "POST",
        "/mcp",
        &mcp_headers("2025-11-25", Some(&session)),
        &call.to_string(),
    ));
    assert!(
        answer.body.contains("definition(s) of `add`")
            && answer.body.contains("/bin/clangd-wrapper"),
        "{}",
        answer.body
    );
    let pids = started(&mark);
    assert_eq!(pids.len(), 1, "{pids:?}");
    assert!(!process_gone(pids[0]));
    signal(server.child.id(), "TERM");
    let status = crate::support::wait_for_exit(&mut server.child, Duration::from_secs(20));
    assert!(status.is_some_and(|s| s.success()), "{status:?}");
    assert!(
        processes_gone(&pids, Duration::from_secs(5)),
        "the server {pids:?} outlived serve"
    );
}

#[test]
fn a_calls_server_ends_with_the_call() {
    if !have_clangd() {
        return;
    }
    let (dir, mark) = project();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolsmith"))
        .args(["call", "code", &definition().to_string()])
        .current_dir(dir.path())
        .env_remove("SEARXNG_URL")
        .env(MARK, &mark)
        .output()
        .expect("run toolsmith call");
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let v = json_of(&out);
    assert_eq!(v["type"], "code_results", "{v}");
    assert!(
        v["server"]
            .as_str()
            .unwrap_or_default()
            .ends_with("/bin/clangd-wrapper"),
        "{v}"
    );
    let pids = started(&mark);
    assert_eq!(pids.len(), 1, "the file's server was used: {pids:?}");
    assert!(
        processes_gone(&pids, Duration::from_secs(5)),
        "the server {pids:?} outlived the call"
    );
}

#[test]
fn code_switched_off_in_the_file_refuses_calls() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("toolsmith.toml"),
        "[code]\nenabled = false\n",
    )
    .expect("write");
    std::fs::write(dir.path().join("main.c"), "int main(void) { return 0; }\n").expect("write");
    let out = toolsmith_in(
        dir.path(),
        &["call", "code", r#"{"action": "symbols", "path": "main.c"}"#],
    );
    assert_eq!(code(&out), 1, "{}", String::from_utf8_lossy(&out.stdout));
    let v = json_of(&out);
    assert_eq!(v["type"], "error", "{v}");
}
