//! A tiny cargo project under rust-analyzer: a definition across modules and an error in a
//! file. Skipped, saying why, where `rust-analyzer --version` fails (a rustup proxy without
//! its component).

use std::time::Duration;

use serde_json::json;

use crate::support::code::{Project, have_server, lines, until};

/// `main.rs` calls `util::add` (util.rs:1) on line 5; `broken.rs` imports, on line 1, what
/// does not exist (an error rust-analyzer finds itself, without `cargo check`).
const RUST_FILES: &[(&str, &str)] = &[
    (
        "Cargo.toml",
        "[package]\nname = \"tiny\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    ),
    (
        "src/main.rs",
        "mod broken;\nmod util;\n\nfn main() {\n    println!(\"{}\", util::add(1, 2));\n}\n",
    ),
    (
        "src/util.rs",
        "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
    ),
    (
        "src/broken.rs",
        "use crate::nowhere::thing;\n\npub fn f() -> i32 {\n    1\n}\n",
    ),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rust_definition_and_a_diagnostic_have_their_known_answers() {
    if !have_server("rust-analyzer") {
        return;
    }
    let mut p = Project::new(RUST_FILES).await;
    // rust-analyzer answers once it has loaded the cargo project.
    let def = until(
        &mut p,
        json!({"action": "definition", "path": "src/main.rs", "line": 5, "symbol": "add"}),
        Duration::from_secs(90),
        |t| t.contains("src/util.rs:1:"),
    )
    .await;
    assert_eq!(
        lines(&def.text)[0],
        "src/util.rs:1: pub fn add(a: i32, b: i32) -> i32 {",
        "{}",
        def.text
    );
    let errors = until(
        &mut p,
        json!({"action": "diagnostics", "path": "src/broken.rs"}),
        Duration::from_secs(60),
        |t| t.contains("src/broken.rs:1:"),
    )
    .await;
    let first = lines(&errors.text)[0];
    assert!(
        first.starts_with("src/broken.rs:1: error:") && first.contains("unresolved import"),
        "{}",
        errors.text
    );
    p.end().await;
}
