//! What the walk leaves out and what it refuses: .gitignore and .ignore files inside and
//! outside git repositories (in the searched directory and above it, up to the root), hidden
//! files, binary files, files above the size limit, links (never followed, never out of the
//! root), protected paths, and paths outside the roots.

use std::os::unix::fs::symlink;

use serde_json::json;
use tool_std::search::SearchConfig;

use crate::support::search::{Fixture, SECRET, match_paths};

#[tokio::test]
async fn gitignore_and_ignore_files_apply_without_a_git_repository() {
    let f = Fixture::new();
    f.write(".gitignore", "*.log\n/build/\n");
    f.write("app.log", "needle\n");
    f.write("build/out.txt", "needle\n");
    f.write("src/build/kept.txt", "needle\n");
    f.write("src/.ignore", "gen_*\n!gen_keep.rs\n");
    f.write("src/gen_a.rs", "needle\n");
    f.write("src/gen_keep.rs", "needle\n");
    f.write("src/main.rs", "needle\n");
    let v = f.call("grep", json!({"pattern": "needle"})).await;
    assert_eq!(
        match_paths(&v),
        ["src/build/kept.txt", "src/gen_keep.rs", "src/main.rs"]
    );
    // A subdirectory still sees the root's rules, read beneath the root.
    let v = f
        .call("grep", json!({"pattern": "needle", "path": "src"}))
        .await;
    assert_eq!(
        match_paths(&v),
        ["src/build/kept.txt", "src/gen_keep.rs", "src/main.rs"]
    );
    f.write("src/x.log", "needle\n");
    let v = f
        .call("grep", json!({"pattern": "needle", "path": "src"}))
        .await;
    assert!(!match_paths(&v).contains(&"src/x.log".to_owned()), "{v}");
    let v = f
        .call(
            "grep",
            json!({"pattern": "needle", "respect_gitignore": false}),
        )
        .await;
    assert_eq!(v["total_files"], 7, "{v}");
    // As `rg --files -g`: an ignored directory is not entered, but a pattern naming files an
    // ignore rule matches by name lists them (a -g glob takes precedence over ignore rules).
    f.write("build/x.log", "");
    let v = f.call("glob", json!({"pattern": "**/*.log"})).await;
    assert_eq!(v["files"], json!(["app.log", "src/x.log"]));
    let v = f.call("glob", json!({"pattern": "**/*.txt"})).await;
    assert_eq!(v["files"], json!(["src/build/kept.txt"]));
    let v = f
        .call(
            "glob",
            json!({"pattern": "**/*.log", "respect_gitignore": false}),
        )
        .await;
    assert_eq!(v["files"], json!(["app.log", "build/x.log", "src/x.log"]));
}

#[tokio::test]
async fn gitignore_applies_inside_a_git_repository_too() {
    let f = Fixture::new();
    std::fs::create_dir_all(f.ws.join("repo/.git")).unwrap();
    f.write("repo/.gitignore", "secret.txt\n");
    f.write("repo/secret.txt", "needle\n");
    f.write("repo/code.txt", "needle\n");
    let v = f.call("grep", json!({"pattern": "needle"})).await;
    assert_eq!(match_paths(&v), ["repo/code.txt"]);
}

#[tokio::test]
async fn hidden_files_are_left_out_unless_asked_for() {
    let f = Fixture::new();
    f.write(".config/settings.toml", "needle = 1\n");
    f.write(".hidden.txt", "needle\n");
    f.write("visible.txt", "needle\n");
    let v = f.call("grep", json!({"pattern": "needle"})).await;
    assert_eq!(match_paths(&v), ["visible.txt"]);
    let v = f
        .call("grep", json!({"pattern": "needle", "include_hidden": true}))
        .await;
    assert_eq!(
        match_paths(&v),
        [".config/settings.toml", ".hidden.txt", "visible.txt"]
    );
    let v = f
        .call(
            "glob",
            json!({"pattern": "**/*.toml", "include_hidden": true}),
        )
        .await;
    assert_eq!(v["files"], json!([".config/settings.toml"]));
    // Protected paths stay out even with include_hidden.
    f.write(".env", "needle=1\n");
    std::fs::create_dir_all(f.ws.join(".git")).unwrap();
    f.write(".git/config", "needle\n");
    let v = f
        .call("grep", json!({"pattern": "needle", "include_hidden": true}))
        .await;
    assert!(
        !match_paths(&v)
            .iter()
            .any(|p| p == ".env" || p.starts_with(".git/")),
        "{v}"
    );
    let v = f
        .call("grep", json!({"pattern": "needle", "path": ".env"}))
        .await;
    assert_eq!(v["error_type"], "security_error", "{v}");
}

#[tokio::test]
async fn binary_files_are_skipped_and_counted() {
    let f = Fixture::new();
    f.write("text.txt", "needle\n");
    f.write("image.png", b"needle\0\x89PNG\x00\x00");
    let mut late = "needle\n".repeat(20_000).into_bytes();
    late.push(0);
    f.write("late.bin", late);
    let (v, summary) = f.call_summary("grep", json!({"pattern": "needle"})).await;
    assert_eq!(match_paths(&v), ["text.txt"]);
    assert_eq!(v["skipped"]["binary"], 2, "{v}");
    assert!(summary.ends_with("Skipped 2 binary files."), "{summary}");
}

#[tokio::test]
async fn files_above_the_size_limit_are_skipped_and_counted() {
    let f = Fixture::new();
    f.write("small.txt", "needle\n");
    f.write("big.txt", "needle\n".repeat(200_000));
    let (v, summary) = f.call_summary("grep", json!({"pattern": "needle"})).await;
    assert_eq!(match_paths(&v), ["small.txt"]);
    assert_eq!(v["skipped"]["too_large"], 1, "{v}");
    assert!(summary.contains("Skipped 1 file over 1 MB."), "{summary}");
    let mut config = SearchConfig::default();
    config.max_file_bytes = 4 * 1024 * 1024;
    let g = Fixture::with(config, None);
    g.write("big.txt", "needle\n".repeat(200_000));
    let v = g
        .call("grep", json!({"pattern": "needle", "output_mode": "count"}))
        .await;
    assert_eq!(v["counts"]["big.txt"], 200_000, "{v}");
}

#[tokio::test]
async fn links_are_not_followed_and_never_lead_out_of_the_root() {
    let f = Fixture::new();
    f.write("inside.txt", "inside needle\n");
    symlink(&f.outside, f.ws.join("out_dir")).unwrap();
    symlink(f.outside.join("secret.txt"), f.ws.join("out_file.txt")).unwrap();
    symlink(f.ws.join("inside.txt"), f.ws.join("in_link.txt")).unwrap();
    for (tool, args) in [
        (
            "grep",
            json!({"pattern": "secret|needle", "include_hidden": true}),
        ),
        ("search", json!({"query": "secret"})),
        ("glob", json!({"pattern": "**/*", "include_hidden": true})),
    ] {
        let v = f.call(tool, args).await;
        assert!(!v.to_string().contains(SECRET), "{tool}: {v}");
        assert!(!v.to_string().contains("deep.txt"), "{tool}: {v}");
        assert!(!v.to_string().contains("out_file"), "{tool}: {v}");
    }
    let v = f.call("grep", json!({"pattern": "needle"})).await;
    assert_eq!(match_paths(&v), ["inside.txt"]);
    // Naming a link that leads out is refused by the workspace.
    for path in ["out_dir", "out_file.txt", "out_dir/sub"] {
        let v = f.call("grep", json!({"pattern": "x", "path": path})).await;
        assert_eq!(v["error_type"], "security_error", "{path}: {v}");
        let v = f.call("glob", json!({"pattern": "*", "path": path})).await;
        assert_eq!(v["error_type"], "security_error", "{path}: {v}");
    }
}

#[tokio::test]
async fn paths_outside_the_roots_are_refused() {
    let f = Fixture::new();
    f.write("a.txt", "x\n");
    let outside = f.outside.display().to_string();
    for path in [
        "..",
        "../outside",
        "/etc",
        outside.as_str(),
        "a.txt/../../outside",
    ] {
        for (tool, args) in [
            ("grep", json!({"pattern": "x", "path": path})),
            ("search", json!({"query": "x", "path": path})),
            ("glob", json!({"pattern": "*", "path": path})),
        ] {
            let v = f.call(tool, args).await;
            assert_eq!(v["error_type"], "security_error", "{tool} {path}: {v}");
            assert!(v["error"].as_str().unwrap().contains("main"), "{v}");
            assert!(!v.to_string().contains(SECRET));
        }
    }
}
