//! ripgrep as the oracle: on a real third-party corpus (`cargo vendor` of this workspace's
//! dependencies, built by the test into a temp dir), `grep` finds the same files with the same
//! per-file match counts as `rg --count` with the same options, and `glob` lists the same files
//! as `rg --files -g`. Skipped, with a note, where `rg` is not installed or vendoring fails.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};
use tool_std::search::SearchConfig;
use tool_std::workspace::Workspace;

use crate::support::call;
use crate::support::search::{corpus, rg, session_for};

/// ripgrep with the tools' fixed options: `--no-require-git`, no global git excludes, no
/// config file (and for searches, the 1 MB size limit; `glob` lists files of any size).
fn rg_cmd(rg: &Path, dir: &Path) -> Command {
    let mut cmd = Command::new(rg);
    cmd.current_dir(dir).args([
        "--no-config",
        "--no-messages",
        "--no-require-git",
        "--no-ignore-global",
    ]);
    cmd
}

fn rg_counts(rg: &Path, dir: &Path, args: &[&str]) -> BTreeMap<String, u64> {
    let out = rg_cmd(rg, dir)
        .args(["--max-filesize", "1048576", "--count"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.code() != Some(2),
        "rg failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (p, c) = l.rsplit_once(':').unwrap();
            (p.trim_start_matches("./").to_owned(), c.parse().unwrap())
        })
        .collect()
}

fn rg_files(rg: &Path, dir: &Path, globs: &[&str]) -> Vec<String> {
    let mut cmd = rg_cmd(rg, dir);
    cmd.arg("--files");
    for g in globs {
        cmd.arg("-g").arg(g);
    }
    let out = cmd.output().unwrap();
    let mut files: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.trim_start_matches("./").to_owned())
        .collect();
    files.sort();
    files
}

fn tool_counts(v: &Value) -> BTreeMap<String, u64> {
    assert_eq!(v["type"], "grep_results", "{v}");
    assert_eq!(v["exact"], true, "{v}");
    v["counts"]
        .as_object()
        .map(|o| {
            o.iter()
                .map(|(path, n)| (path.clone(), n.as_u64().unwrap()))
                .collect()
        })
        .unwrap_or_default()
}

fn oracle_fixture(dir: &Path) -> (Workspace, tool_core::Session) {
    let mut config = SearchConfig::default();
    config.max_grep_results = 1_000_000;
    config.max_glob_results = 1_000_000;
    let ws = Workspace::builder().root("corpus", dir).build().unwrap();
    let session = session_for(&ws, config, None);
    (ws, session)
}

#[tokio::test]
async fn grep_counts_equal_ripgrep_on_a_vendored_corpus() {
    let Some(rg) = rg() else { return };
    let Some(dir) = corpus() else { return };
    let (_ws, session) = oracle_fixture(dir);
    let sub = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir() && !p.file_name().unwrap().to_str().unwrap().starts_with('.'))
        .min()
        .unwrap();
    let sub = sub.file_name().unwrap().to_str().unwrap().to_owned();
    // (what, tool arguments, rg arguments)
    let cases: Vec<(&str, Value, Vec<&str>)> = vec![
        (
            "literal",
            json!({"pattern": "unsafe", "case_sensitive": true}),
            vec!["-s", "unsafe"],
        ),
        (
            "regex",
            json!({"pattern": r"impl<[^>]*> Drop for \w+", "case_sensitive": true}),
            vec!["-s", r"impl<[^>]*> Drop for \w+"],
        ),
        (
            "case-insensitive",
            json!({"pattern": "todo"}),
            vec!["-i", "todo"],
        ),
        (
            "smart case",
            json!({"pattern": "Result<", "smart_case": true}),
            vec!["-S", "Result<"],
        ),
        (
            "type filter",
            json!({"pattern": "## ", "case_sensitive": true, "file_type": "md"}),
            vec!["-s", "-t", "md", "## "],
        ),
        (
            "extension filter",
            json!({"pattern": "version", "file_type": "rs"}),
            vec!["-i", "--type-add", "ext:*.rs", "-t", "ext", "version"],
        ),
        (
            "glob filter",
            json!({"pattern": "fn ", "case_sensitive": true, "glob": ["*.rs", "!**/tests/**"]}),
            vec!["-s", "-g", "*.rs", "-g", "!**/tests/**", "fn "],
        ),
        (
            "no match",
            json!({"pattern": "zq_no_such_text_x81"}),
            vec!["-i", "zq_no_such_text_x81"],
        ),
        ("many matches", json!({"pattern": "e"}), vec!["-i", "e"]),
        (
            "multiline",
            json!({"pattern": r"\}\n\s*impl", "case_sensitive": true, "multiline": true}),
            vec!["-s", "-U", r"\}\n\s*impl"],
        ),
        (
            "subdirectory",
            json!({"pattern": "the", "path": sub}),
            vec!["-i", "the", &sub],
        ),
    ];
    let mut compared = 0;
    for (what, mut args, rg_args) in cases {
        args["output_mode"] = json!("count");
        args["max_results"] = json!(1_000_000);
        let started = std::time::Instant::now();
        let got = tool_counts(&call(&session, "grep", args).await);
        let took = started.elapsed();
        let want = rg_counts(&rg, dir, &rg_args);
        eprintln!(
            "{what}: grep {took:?}, rg and grep agree on {} files",
            want.len()
        );
        let differ: Vec<_> = got
            .keys()
            .chain(want.keys())
            .filter(|k| got.get(*k) != want.get(*k))
            .map(|k| (k, got.get(k), want.get(k)))
            .take(10)
            .collect();
        assert!(
            differ.is_empty(),
            "{what}: grep and rg differ (path, grep, rg): {differ:?}"
        );
        if what != "no match" {
            assert!(
                !want.is_empty(),
                "{what}: the corpus has no match, so this compares nothing"
            );
        }
        compared += 1;
    }
    eprintln!("compared {compared} patterns with {}", rg.display());
}

#[tokio::test]
async fn glob_lists_equal_ripgrep_files() {
    let Some(rg) = rg() else { return };
    let Some(dir) = corpus() else { return };
    let (_ws, session) = oracle_fixture(dir);
    // (tool arguments, rg -g globs)
    let cases: Vec<(Value, Vec<&str>)> = vec![
        (json!({"pattern": "**/*.toml"}), vec!["**/*.toml"]),
        (json!({"pattern": "*.md"}), vec!["*.md"]),
        (json!({"pattern": "*/src/lib.rs"}), vec!["*/src/lib.rs"]),
        (
            json!({"pattern": "**/tests/**/*.rs"}),
            vec!["**/tests/**/*.rs"],
        ),
        (json!({"pattern": "*.{c,h}"}), vec!["*.{c,h}"]),
        (json!({"pattern": "**/[A-Z]*.md"}), vec!["**/[A-Z]*.md"]),
        (json!({"pattern": "?uild.rs"}), vec!["?uild.rs"]),
        (json!({"pattern": "!**/*.rs"}), vec!["!**/*.rs"]),
        (
            json!({"pattern": "**/*.rs", "exclude": ["tests", "!examples/**"]}),
            vec!["**/*.rs", "!tests", "!examples/**"],
        ),
    ];
    for (mut args, globs) in cases {
        args["max_results"] = json!(1_000_000);
        let v = call(&session, "glob", args.clone()).await;
        assert_eq!(v["type"], "glob_results", "{v}");
        assert_eq!(v["exact"], true, "{v}");
        let mut got: Vec<String> = v["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap().to_owned())
            .collect();
        got.sort();
        let want = rg_files(&rg, dir, &globs);
        assert!(!want.is_empty(), "{args}: nothing to compare");
        let only_tool: Vec<_> = got.iter().filter(|g| !want.contains(g)).collect();
        let only_rg: Vec<_> = want.iter().filter(|w| !got.contains(w)).collect();
        assert!(
            only_tool.is_empty() && only_rg.is_empty(),
            "{args}: only glob lists {only_tool:?}; only rg --files lists {only_rg:?}"
        );
        assert_eq!(got, want);
    }
}

#[tokio::test]
async fn the_corpus_exercises_ignore_hidden_binary_and_size_rules() {
    let Some(_rg) = rg() else { return };
    let Some(dir) = corpus() else { return };
    let (_ws, session) = oracle_fixture(dir);
    let v = call(
        &session,
        "grep",
        json!({"pattern": "unsafe fn", "output_mode": "files_with_matches", "max_results": 1_000_000}),
    )
    .await;
    let files: Vec<&str> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert!(
        !files.contains(&".hidden/unsafe.rs"),
        "hidden file searched"
    );
    assert!(!files.contains(&"binary.rs"), "binary file searched");
    assert!(
        !files.contains(&"big_generated.rs"),
        "file above 1 MB searched"
    );
    assert!(
        !files.iter().any(|f| f.ends_with(".json")),
        "gitignored file searched"
    );
    assert!(
        v["skipped"]["binary"].as_u64().unwrap() >= 1,
        "{}",
        v["skipped"]
    );
    assert!(
        v["skipped"]["too_large"].as_u64().unwrap() >= 1,
        "{}",
        v["skipped"]
    );
}
