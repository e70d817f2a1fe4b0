//! The integration tests of tool-std, one binary: a module per behaviour, grouped by family,
//! and one `support` module with every helper they share.
//!
//! The tests run as threads of one process. A test that measures the whole process (its peak
//! memory, its CPU time) or needs its own environment runs alone in a new process of this
//! binary ([`support::alone`]).
//!
//! They are Unix's: they attack the workspace with symbolic links, FIFOs and hard links, and
//! end process groups with signals. They build and run on Linux and macOS; on Windows the
//! binary is empty (the workspace's path rules for Windows are tested in the library's unit
//! tests).
#![cfg(unix)]

mod support;

mod apply_patch;
// Language servers in the sandbox (Landlock, seccomp): Linux.
#[cfg(target_os = "linux")]
mod code;
mod file;
mod prompt;
mod rules;
// Landlock, seccomp and mount namespaces, attacked from inside.
#[cfg(target_os = "linux")]
mod sandbox;
mod search;
mod shell;
mod tokens;
mod trust;
mod web;
mod workspace;
