//! `glob`: what `*`, `**`, `?`, `[...]` and `{a,b}` match (across `/` or not), `exclude` and
//! `!` negation, sorting by path or modification time, max_results and offset.

use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

use crate::support::search::Fixture;

fn fixture() -> Fixture {
    let f = Fixture::new();
    for p in [
        "README.md",
        "build.rs",
        "src/lib.rs",
        "src/main.rs",
        "src/a/b/deep.rs",
        "src/app.test.ts",
        "src/app.ts",
        "src/view.tsx",
        "web/components/Button.tsx",
        "web/components/button.test.tsx",
        "node_modules/pkg/index.ts",
        "dist/out.ts",
        "docs/Guide.md",
        "docs/x1.txt",
        "docs/x2.txt",
        "docs/xy.txt",
    ] {
        f.write(p, "x\n");
    }
    f
}

async fn files(f: &Fixture, args: Value) -> Vec<String> {
    let v = f.call("glob", args).await;
    assert_eq!(v["type"], "glob_results", "{v}");
    v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn star_stays_within_a_component_and_double_star_crosses_directories() {
    let f = fixture();
    // No `/`: the file name at any depth.
    assert_eq!(
        files(&f, json!({"pattern": "*.rs"})).await,
        ["build.rs", "src/a/b/deep.rs", "src/lib.rs", "src/main.rs"]
    );
    // With a `/`: anchored at path, and `*` does not cross `/`.
    assert_eq!(
        files(&f, json!({"pattern": "src/*.rs"})).await,
        ["src/lib.rs", "src/main.rs"]
    );
    assert_eq!(
        files(&f, json!({"pattern": "src/**/*.rs"})).await,
        ["src/a/b/deep.rs", "src/lib.rs", "src/main.rs"]
    );
    assert_eq!(
        files(&f, json!({"pattern": "**/*.tsx"})).await,
        [
            "src/view.tsx",
            "web/components/Button.tsx",
            "web/components/button.test.tsx"
        ]
    );
    assert_eq!(
        files(&f, json!({"pattern": "src/**/*.test.ts"})).await,
        ["src/app.test.ts"]
    );
    assert_eq!(files(&f, json!({"pattern": "web/**"})).await.len(), 2);
}

#[tokio::test]
async fn question_mark_classes_and_alternatives() {
    let f = fixture();
    assert_eq!(
        files(&f, json!({"pattern": "docs/x?.txt"})).await,
        ["docs/x1.txt", "docs/x2.txt", "docs/xy.txt"]
    );
    assert_eq!(
        files(&f, json!({"pattern": "docs/x[0-9].txt"})).await,
        ["docs/x1.txt", "docs/x2.txt"]
    );
    assert_eq!(
        files(&f, json!({"pattern": "docs/x[!0-9].txt"})).await,
        ["docs/xy.txt"]
    );
    assert_eq!(
        files(&f, json!({"pattern": "*.{ts,tsx}", "path": "src"})).await,
        ["src/app.test.ts", "src/app.ts", "src/view.tsx"]
    );
    assert_eq!(
        files(&f, json!({"pattern": "**/[A-Z]*.{md,tsx}"})).await,
        ["README.md", "docs/Guide.md", "web/components/Button.tsx"]
    );
    // `?` does not match `/`.
    assert!(files(&f, json!({"pattern": "src?lib.rs"})).await.is_empty());
    let v = f.call("glob", json!({"pattern": "src/[a"})).await;
    assert_eq!(v["error_type"], "validation_error", "{v}");
    assert!(v["suggestion"].as_str().unwrap().contains("**"), "{v}");
}

#[tokio::test]
async fn exclude_and_negation() {
    let f = fixture();
    assert_eq!(
        files(
            &f,
            json!({"pattern": "**/*.ts", "exclude": ["node_modules", "dist/**"]})
        )
        .await,
        ["src/app.test.ts", "src/app.ts"]
    );
    assert_eq!(
        files(
            &f,
            json!({"pattern": "**/*.ts", "exclude": ["!node_modules", "!dist", "*.test.ts"]})
        )
        .await,
        ["src/app.ts"]
    );
    // A pattern that is only a negation lists everything else.
    let all = files(&f, json!({"pattern": "!**/*.{ts,tsx,rs,md}"})).await;
    assert_eq!(all, ["docs/x1.txt", "docs/x2.txt", "docs/xy.txt"]);
}

#[tokio::test]
async fn paths_are_relative_to_path() {
    let f = fixture();
    assert_eq!(
        files(&f, json!({"pattern": "components/*.tsx", "path": "web"})).await,
        [
            "web/components/Button.tsx",
            "web/components/button.test.tsx"
        ]
    );
    let v = f
        .call("glob", json!({"pattern": "*", "path": "README.md"}))
        .await;
    assert_eq!(v["error_type"], "user_error", "{v}");
}

#[tokio::test]
async fn sort_by_modification_time_newest_first() {
    let f = fixture();
    let now = SystemTime::now();
    for (i, p) in ["src/main.rs", "build.rs", "src/lib.rs"].iter().enumerate() {
        let file = std::fs::File::options()
            .write(true)
            .open(f.ws.join(p))
            .unwrap();
        file.set_modified(now - Duration::from_secs(1000 * (i as u64 + 1)))
            .unwrap();
    }
    f.write("src/a/b/deep.rs", "newest\n");
    assert_eq!(
        files(&f, json!({"pattern": "*.rs", "sort": "modified"})).await,
        ["src/a/b/deep.rs", "src/main.rs", "build.rs", "src/lib.rs"]
    );
    let v = f
        .call("glob", json!({"pattern": "*.rs", "sort": "size"}))
        .await;
    assert_eq!(v["error_type"], "validation_error", "{v}");
}

#[tokio::test]
async fn max_results_offset_and_summary() {
    let f = Fixture::new();
    for i in 0..150 {
        f.write(&format!("f{i:03}.txt"), "");
    }
    let v = f.call("glob", json!({"pattern": "*.txt"})).await;
    assert_eq!(v["files"].as_array().unwrap().len(), 100);
    assert_eq!(v["total"], 150);
    assert_eq!(v["exact"], true);
    assert_eq!(
        v["summary"],
        "Found 150 files matching `*.txt` in `.`, showing first 100. To see more, call again with offset: 100, or narrow the pattern or path."
    );
    let v = f
        .call(
            "glob",
            json!({"pattern": "*.txt", "offset": 100, "max_results": 30}),
        )
        .await;
    assert_eq!(v["files"][0], "f100.txt");
    assert_eq!(v["next_offset"], 130);
    assert_eq!(
        v["summary"],
        "Found 150 files matching `*.txt` in `.`, showing 101-130. To see more, call again with offset: 130, or narrow the pattern or path."
    );
    let v = f.call("glob", json!({"pattern": "*.none"})).await;
    assert_eq!(v["summary"], "No files match `*.none` in `.`.");
}
