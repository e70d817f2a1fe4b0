//! Shared set-up of the `code` tool tests: a small C project and a small Python project with
//! known answers, a runtime whose language servers run in the sandbox through this crate's
//! helper (in a [`LanguageServers`] table of the test's own, so its pids are the test's),
//! and the in-process MCP client the calls go through.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use tool_core::testing::{McpCalled, McpClient};
use tool_core::{ApproveAll, Runtime};
use tool_std::code::{CodeConfig, LanguageServers};
use tool_std::workspace::Workspace;

use super::{temp_dir, write};

/// `util.h`, `util.c` and `main.c`: `add` declared on util.h:3, defined on util.c:3, called
/// on main.c:4 and main.c:8; `twice` defined on main.c:3 and called on main.c:8.
pub(crate) const C_FILES: &[(&str, &str)] = &[
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
    ("compile_flags.txt", "-I.\n-std=c11\n"),
];

/// `shapes.py` and `app.py`: class `Circle` on shapes.py:4 with `area` on shapes.py:8,
/// `unit_circle` on shapes.py:12; app.py imports them and calls `area` on app.py:5.
pub(crate) const PY_FILES: &[(&str, &str)] = &[
    (
        "shapes.py",
        "import math\n\n\nclass Circle:\n    def __init__(self, r):\n        self.r = r\n\n    def area(self):\n        return math.pi * self.r ** 2\n\n\ndef unit_circle():\n    \"\"\"The circle of radius one.\"\"\"\n    return Circle(1)\n",
    ),
    (
        "app.py",
        "from shapes import Circle, unit_circle\n\n\ndef total(circles):\n    return sum(c.area() for c in circles)\n\n\nprint(total([unit_circle(), Circle(2)]))\n",
    ),
];

/// A project in a temporary directory, served over MCP.
pub(crate) struct Project {
    pub(crate) _tmp: tempfile::TempDir,
    /// The root `main`.
    pub(crate) root: PathBuf,
    /// Beside the root: what no server may write.
    pub(crate) outside: PathBuf,
    pub(crate) servers: Arc<LanguageServers>,
    pub(crate) client: McpClient,
}

/// The sandboxed servers' configuration: this crate's helper confines them.
pub(crate) fn config() -> CodeConfig {
    let mut config = CodeConfig::default();
    config.sandbox.helper = Some(super::shell::helper());
    config
}

impl Project {
    /// `files` in the root `main`, served with [`config`].
    pub(crate) async fn new(files: &[(&str, &str)]) -> Project {
        Project::with(files, config()).await
    }

    pub(crate) async fn with(files: &[(&str, &str)], config: CodeConfig) -> Project {
        let (tmp, base) = temp_dir();
        let root = base.join("project");
        let outside = base.join("outside");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        for (name, text) in files {
            write(&root.join(name), text);
        }
        let ws = Workspace::builder().root("main", &root).build().unwrap();
        let servers = LanguageServers::new();
        let runtime = Runtime::builder(super::inventory_registry())
            .service(Arc::new(ws))
            .service(Arc::new(config))
            .service(servers.clone())
            .approver(ApproveAll)
            .dedupe(false)
            .build();
        let client = McpClient::builder().start(runtime).await;
        Project {
            _tmp: tmp,
            root,
            outside,
            servers,
            client,
        }
    }

    /// Calls `code` with `args`; fails the test on an error answer.
    pub(crate) async fn code(&mut self, args: Value) -> McpCalled {
        let called = self.client.call("code", args.clone()).await;
        assert!(!called.is_error, "code({args}) failed: {}", called.text);
        called
    }

    /// Calls `tool` with `args`, error or not.
    pub(crate) async fn call(&mut self, tool: &str, args: Value) -> McpCalled {
        self.client.call(tool, args).await
    }

    /// The pids of the servers running now.
    pub(crate) fn pids(&self) -> Vec<u32> {
        self.servers.running().iter().map(|s| s.pid).collect()
    }

    /// Ends the servers (so that no test leaves one behind).
    pub(crate) async fn end(self) {
        self.servers.shutdown_all().await;
        self.client.close().await;
    }
}

/// Whether `program` can serve here; prints why the caller skips when not (a rustup proxy
/// without its component is not a server).
pub(crate) fn have_server(program: &str) -> bool {
    let works = std::process::Command::new(program)
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !works {
        eprintln!(
            "skipped: the language server `{program}` is not installed or does not run (.ci/run \
             installs clangd and pylsp; rust-analyzer is tested where its rustup component is)"
        );
    }
    works
}

/// The text's `path:line: ...` lines.
pub(crate) fn lines(text: &str) -> Vec<&str> {
    text.lines().filter(|l| l.contains(':')).collect()
}

/// Whether the process `pid` is gone (or a zombie nobody reaped yet).
pub(crate) fn gone(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| {
        stat.rsplit(')')
            .next()
            .is_some_and(|s| s.trim_start().starts_with('Z'))
    })
}

/// Waits at most `limit` for `pid` to be gone.
pub(crate) async fn wait_gone(pid: u32, limit: Duration) -> bool {
    let end = Instant::now() + limit;
    while !gone(pid) && Instant::now() < end {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    gone(pid)
}

/// Calls `code` until `pred` holds of its text or `limit` passes (a server still reading
/// the project answers with less at first); the last answer.
pub(crate) async fn until(
    project: &mut Project,
    args: Value,
    limit: Duration,
    pred: impl Fn(&str) -> bool,
) -> McpCalled {
    let end = Instant::now() + limit;
    loop {
        let called = project.code(args.clone()).await;
        if pred(&called.text) || Instant::now() >= end {
            return called;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
