//! The integration tests of tool-std, one binary: a module per behaviour, grouped by family,
//! and one `support` module with every helper they share.
//!
//! The tests run as threads of one process. A test that measures the whole process (its peak
//! memory, its CPU time) or needs its own environment runs alone in a new process of this
//! binary ([`support::alone`]).

mod support;

mod apply_patch;
mod file;
mod prompt;
mod rules;
mod sandbox;
mod search;
mod shell;
mod tokens;
mod trust;
mod web;
mod workspace;
