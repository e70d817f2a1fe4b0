//! What the tests share, one submodule per area: the command line, raw HTTP requests, the MCP
//! test tools, servers and clients, and `toolsmith serve` over stdio; plus the facade's MCP
//! support and tool-core's browser driver and provider fixtures, included by path. Here: the
//! repository and the processes the command starts.
// `pub` for the test modules; a test binary exports nothing.
#![allow(unreachable_pub)]

use std::path::PathBuf;

#[path = "../../../tool-core/tests/support/browser.rs"]
pub mod browser;
pub mod cli;
#[path = "../../../tool-core/tests/fixtures/mod.rs"]
pub mod fixtures;
#[cfg(unix)]
pub mod fuzz;
pub mod http;
pub mod mcp;
pub mod stdio;

/// The repository: the workspace's root, the directory above this package.
pub fn repo() -> PathBuf {
    let package = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    package
        .parent()
        .expect("toolsmith-cli is a directory of the workspace")
        .to_path_buf()
}

/// Sends the signal `name` (`TERM`, `KILL`, ...) to process `pid` with `kill(1)`.
pub fn signal(pid: u32, name: &str) {
    let status = std::process::Command::new("kill")
        .arg(format!("-{name}"))
        .arg(pid.to_string())
        .status()
        .expect("run kill");
    assert!(status.success(), "kill -{name} {pid}");
}

/// Whether process `pid` is gone (or a zombie waiting to be reaped), read from `/proc`.
pub fn process_gone(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| {
        stat.rsplit(')')
            .next()
            .is_some_and(|s| s.trim_start().starts_with('Z'))
    })
}

/// Waits up to `limit` for every process of `pids` to be gone; whether they all are.
pub fn processes_gone(pids: &[u32], limit: std::time::Duration) -> bool {
    let until = std::time::Instant::now() + limit;
    loop {
        if pids.iter().all(|&p| process_gone(p)) {
            return true;
        }
        if std::time::Instant::now() > until {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Waits up to `limit` for `child` to exit; its status, or `None` while it still runs.
pub fn wait_for_exit(
    child: &mut std::process::Child,
    limit: std::time::Duration,
) -> Option<std::process::ExitStatus> {
    let until = std::time::Instant::now() + limit;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if std::time::Instant::now() < until => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            _ => return None,
        }
    }
}
