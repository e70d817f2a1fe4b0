//! Shared by the command-line tests: the built `toolsmith` binary run in a directory, its
//! JSON stdout and its exit code.

use std::process::{Command, Output};

use serde_json::Value;

/// Runs `toolsmith ARGS` in `dir`, without the host's `SEARXNG_URL`.
pub fn toolsmith_in(dir: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolsmith"))
        .args(args)
        .current_dir(dir)
        .env_remove("SEARXNG_URL")
        .output()
        .expect("run toolsmith")
}

/// Stdout as JSON, or a panic showing stdout and stderr.
pub fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// The exit code.
pub fn code(out: &Output) -> i32 {
    out.status.code().expect("exit code")
}
