//! The compile-fail contract of `#[tool]`, `#[derive(Action)]` and `#[action]`: one case per
//! rule in `tests/ui/`, each with the exact diagnostics it must produce in its `.stderr`.
//!
//! Diagnostics change between compiler releases, so the `.stderr` files are pinned to the
//! workspace's toolchain (rustc 1.95, the `rust-version`). On any other compiler the test
//! prints a note and passes without comparing. Regenerate with `TRYBUILD=overwrite` and read
//! every changed `.stderr` before committing it.

use std::process::Command;

/// The compiler the `.stderr` files were written with.
const PINNED: &str = "rustc 1.95.";

#[test]
fn ui() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let version = Command::new(&rustc)
        .arg("-V")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    if !version.starts_with(PINNED) {
        eprintln!(
            "note: skipping the ui tests: their .stderr files are pinned to {PINNED}x, this is {:?}",
            version.trim()
        );
        return;
    }
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
