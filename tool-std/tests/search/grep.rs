//! `grep`'s parameters: case, smart case, file_type, glob, output modes, context, multiline,
//! max_results with the summary line, offset paging, long lines, invalid regexes; and the
//! specs of the three search tools.

use serde_json::json;
use tool_core::Permission;

use crate::support::inventory_registry;
use crate::support::search::{Fixture, file_lines, file_paths, match_entries, match_lines};

fn fixture() -> Fixture {
    let f = Fixture::new();
    f.write(
        "src/main.rs",
        "fn main() {\n    let Answer = 42;\n    helper();\n}\n",
    );
    f.write("src/lib.rs", "pub fn helper() {}\n// answer: none\n");
    f.write("src/util/mod.rs", "pub mod answer;\n");
    f.write("web/app.tsx", "export const answer = 1;\n");
    f.write("web/app.test.tsx", "test('answer', () => {});\n");
    f.write("notes.md", "The ANSWER is here.\n");
    f
}

#[tokio::test]
async fn case_is_insensitive_by_default_and_exact_on_request() {
    let f = fixture();
    let (v, summary) = f.call_summary("grep", json!({"pattern": "answer"})).await;
    assert_eq!(
        match_lines(&v),
        [
            "notes.md:1",
            "src/lib.rs:2",
            "src/main.rs:2",
            "src/util/mod.rs:1",
            "web/app.test.tsx:1",
            "web/app.tsx:1"
        ]
    );
    assert_eq!(summary, "Found 6 matches in 6 files.");
    assert!(v.get("summary").is_none(), "the numbers say it: {v}");
    let v = f
        .call("grep", json!({"pattern": "answer", "case_sensitive": true}))
        .await;
    assert_eq!(v["total_matches"], 4, "{v}");
    let v = f
        .call("grep", json!({"pattern": "Answer", "smart_case": true}))
        .await;
    assert_eq!(match_lines(&v), ["src/main.rs:2"]);
    let v = f
        .call("grep", json!({"pattern": "answer", "smart_case": true}))
        .await;
    assert_eq!(v["total_matches"], 6, "{v}");
}

#[tokio::test]
async fn file_type_takes_a_type_name_or_an_extension() {
    let f = fixture();
    let v = f
        .call("grep", json!({"pattern": "answer", "file_type": "rust"}))
        .await;
    assert_eq!(
        match_lines(&v),
        ["src/lib.rs:2", "src/main.rs:2", "src/util/mod.rs:1"]
    );
    let v = f
        .call("grep", json!({"pattern": "answer", "file_type": ".md"}))
        .await;
    assert_eq!(match_lines(&v), ["notes.md:1"]);
    let v = f
        .call("grep", json!({"pattern": "answer", "file_type": "tsx"}))
        .await;
    assert_eq!(v["total_files"], 2, "{v}");
    let v = f
        .call("grep", json!({"pattern": "answer", "file_type": "a b"}))
        .await;
    assert_eq!(v["error_type"], "validation_error", "{v}");
}

#[tokio::test]
async fn globs_include_and_exclude_relative_to_path() {
    let f = fixture();
    let v = f
        .call(
            "grep",
            json!({"pattern": "answer", "glob": ["*.tsx", "!*.test.tsx"]}),
        )
        .await;
    assert_eq!(match_lines(&v), ["web/app.tsx:1"]);
    let v = f
        .call(
            "grep",
            json!({"pattern": "answer", "path": "src", "glob": ["util/*.rs"]}),
        )
        .await;
    assert_eq!(match_lines(&v), ["src/util/mod.rs:1"]);
    let v = f
        .call("grep", json!({"pattern": "answer", "glob": ["!src/**"]}))
        .await;
    assert_eq!(v["total_files"], 3, "{v}");
    let v = f
        .call("grep", json!({"pattern": "x", "glob": ["src/[a"]}))
        .await;
    assert_eq!(v["error_type"], "validation_error", "{v}");
}

#[tokio::test]
async fn output_modes() {
    let f = fixture();
    f.write("many.txt", "answer\nanswer answer\nno\nanswer\n");
    let (v, summary) = f
        .call_summary(
            "grep",
            json!({"pattern": "answer", "output_mode": "files_with_matches"}),
        )
        .await;
    assert_eq!(file_paths(&v)[0], "many.txt");
    assert_eq!(v["total_files"], 7);
    assert!(v.get("total_matches").is_none(), "{v}");
    assert!(
        v["files"][0].is_string() && v.get("counts").is_none(),
        "{v}"
    );
    assert_eq!(summary, "Found 7 files with matches.");
    let (v, summary) = f
        .call_summary("grep", json!({"pattern": "answer", "output_mode": "count"}))
        .await;
    assert_eq!(v["counts"]["many.txt"], 3, "{v}");
    assert!(v.get("files").is_none(), "{v}");
    assert_eq!(v["total_matches"], 9);
    assert_eq!(summary, "Found 9 matches in 7 files.");
    let v = f
        .call("grep", json!({"pattern": "x", "output_mode": "lines"}))
        .await;
    assert_eq!(v["error_type"], "validation_error", "{v}");
    assert!(v.to_string().contains("files_with_matches"), "{v}");
}

#[tokio::test]
async fn context_lines_before_and_after() {
    let f = Fixture::new();
    let text: String = (1..=20).map(|i| format!("line {i}\n")).collect();
    f.write("a.txt", text);
    let v = f
        .call("grep", json!({"pattern": "^line 10$", "context": 2}))
        .await;
    assert_eq!(
        v["matches"],
        json!({"a.txt": ["8-line 8", "9-line 9", "10:line 10", "11-line 11", "12-line 12"]})
    );
    let v = f
        .call(
            "grep",
            json!({"pattern": "^line 1$", "before": 3, "after": 1, "context": 9}),
        )
        .await;
    assert_eq!(file_lines(&v, "a.txt"), ["1:line 1", "2-line 2"]);
    let (v, text) = f
        .call_text("grep", json!({"pattern": "^line (5|6|15)$", "context": 1}))
        .await;
    assert_eq!(
        text,
        "a.txt\n4-line 4\n5:line 5\n6:line 6\n7-line 7\n--\n14-line 14\n15:line 15\n16-line 16\n\nFound 3 matches in 1 file.\n"
    );
    // The structured lines carry no `--`: the gap in the numbers parts the groups.
    assert_eq!(
        file_lines(&v, "a.txt"),
        [
            "4-line 4",
            "5:line 5",
            "6:line 6",
            "7-line 7",
            "14-line 14",
            "15:line 15",
            "16-line 16"
        ]
    );
    // Without context lines, no `--` in the text either (as ripgrep prints it).
    let (v, text) = f
        .call_text("grep", json!({"pattern": "^line (5|6|15)$"}))
        .await;
    assert_eq!(
        text,
        "a.txt\n5:line 5\n6:line 6\n15:line 15\n\nFound 3 matches in 1 file.\n"
    );
    assert_eq!(
        file_lines(&v, "a.txt"),
        ["5:line 5", "6:line 6", "15:line 15"]
    );
}

#[tokio::test]
async fn multiline_matches_span_lines() {
    let f = Fixture::new();
    f.write("a.rs", "struct A;\n\nimpl A {\n}\nimpl B {\n}\n");
    let v = f.call("grep", json!({"pattern": r"\}\nimpl"})).await;
    assert_eq!(v["error_type"], "validation_error", "{v}");
    assert!(
        v["suggestion"].as_str().unwrap().contains("multiline"),
        "{v}"
    );
    let v = f
        .call("grep", json!({"pattern": r"\}\nimpl", "multiline": true}))
        .await;
    assert_eq!(match_lines(&v), ["a.rs:4"]);
    assert_eq!(file_lines(&v, "a.rs"), ["4:}\nimpl B {"]);
    let v = f
        .call(
            "grep",
            json!({"pattern": r"struct A;\s+impl", "multiline": true}),
        )
        .await;
    assert_eq!(match_lines(&v), ["a.rs:1"]);
}

#[tokio::test]
async fn summary_and_paging_with_offset() {
    let f = Fixture::new();
    for i in 0..10 {
        let body: String = (0..6).map(|j| format!("hit {i} {j}\n")).collect();
        f.write(&format!("f{i}.txt"), body);
    }
    // 60 matches in 10 files: the first 25 are the first four files and one line of the fifth.
    let (v, summary) = f
        .call_summary("grep", json!({"pattern": "hit", "max_results": 25}))
        .await;
    let shown = match_lines(&v);
    assert_eq!(shown.len(), 25);
    assert_eq!(shown[24], "f4.txt:1");
    assert_eq!(v["next_offset"], 25);
    assert_eq!(v["exact"], false);
    assert_eq!(
        summary,
        "Found at least 30 matches in 5 files, showing first 25. The search stopped once it had the results shown, so the totals are lower bounds. To see more, call again with offset: 25, or narrow the search with a more specific path, glob or file_type."
    );
    let v = f
        .call(
            "grep",
            json!({"pattern": "hit", "max_results": 25, "offset": 25}),
        )
        .await;
    assert_eq!(
        match_entries(&v)[0],
        ("f4.txt".to_owned(), 2, "hit 4 1".to_owned())
    );
    assert_eq!(v["offset"], 25);
    let (v, summary) = f
        .call_summary(
            "grep",
            json!({"pattern": "hit", "max_results": 25, "offset": 50}),
        )
        .await;
    assert_eq!(match_lines(&v).len(), 10);
    assert_eq!(v["exact"], true);
    assert!(v.get("next_offset").is_none(), "{v}");
    assert_eq!(summary, "Found 60 matches in 10 files, showing 51-60.");
    let (_, summary) = f
        .call_summary("grep", json!({"pattern": "hit", "max_results": 1000}))
        .await;
    assert_eq!(summary, "Found 60 matches in 10 files.");
    // The default is 50.
    let v = f.call("grep", json!({"pattern": "hit"})).await;
    assert_eq!(match_lines(&v).len(), 50);
    assert!(v.get("offset").is_none(), "an offset of 0 is left out: {v}");
    let v = f
        .call("grep", json!({"pattern": "hit", "output_mode": "files_with_matches", "max_results": 3, "offset": 3}))
        .await;
    assert_eq!(file_paths(&v), ["f3.txt", "f4.txt", "f5.txt"]);
    assert_eq!(v["next_offset"], 6);
    let (v, summary) = f
        .call_summary("grep", json!({"pattern": "nothing here"}))
        .await;
    assert_eq!(summary, "No matches for `nothing here` in `.`.");
    assert_eq!((&v["total_files"], &v["exact"]), (&json!(0), &json!(true)));
}

#[tokio::test]
async fn results_are_the_same_on_every_run() {
    let f = Fixture::new();
    for i in 0..200 {
        f.write(&format!("d{}/f{i:03}.txt", i % 7), "x\n".repeat(i % 5 + 1));
    }
    let first = f
        .call("grep", json!({"pattern": "x", "max_results": 40}))
        .await;
    for _ in 0..10 {
        assert_eq!(
            f.call("grep", json!({"pattern": "x", "max_results": 40}))
                .await,
            first
        );
    }
    let lines = match_lines(&first);
    let mut sorted = lines.clone();
    sorted.sort_by_key(|l| {
        let (p, n) = l.rsplit_once(':').unwrap();
        (p.to_owned(), n.parse::<u64>().unwrap())
    });
    assert_eq!(lines, sorted);
}

#[tokio::test]
async fn long_lines_are_cut_around_the_match() {
    let f = Fixture::new();
    f.write(
        "min.js",
        format!("{}NEEDLE{}\n", "a".repeat(5000), "b".repeat(5000)),
    );
    let v = f.call("grep", json!({"pattern": "needle"})).await;
    let (_, line, text) = match_entries(&v).remove(0);
    assert_eq!(line, 1);
    assert!(text.contains("NEEDLE"), "{text}");
    assert!(text.starts_with('…') && text.ends_with('…'), "{text}");
    assert!(text.chars().count() <= 502, "{}", text.len());
}

#[tokio::test]
async fn invalid_regex_is_a_validation_error_with_an_example() {
    let f = fixture();
    let v = f.call("grep", json!({"pattern": "fn main("})).await;
    assert_eq!(v["error_type"], "validation_error", "{v}");
    let e = v["error"].as_str().unwrap();
    assert!(e.contains("invalid regex `fn main(`"), "{e}");
    assert!(e.contains("unclosed group"), "{e}");
    assert!(v["suggestion"].as_str().unwrap().contains("Example"), "{v}");
    let v = f.call("grep", json!({"pattern": "(a{1000}){1000}"})).await;
    assert_eq!(v["error_type"], "validation_error", "{v}");
    assert!(v["error"].as_str().unwrap().contains("too large"), "{v}");
    let v = f.call("grep", json!({"pattern": ""})).await;
    assert_eq!(v["error_type"], "validation_error", "{v}");
}

#[tokio::test]
async fn a_single_file_can_be_searched() {
    let f = fixture();
    let v = f
        .call("grep", json!({"pattern": "fn", "path": "src/main.rs"}))
        .await;
    assert_eq!(match_lines(&v), ["src/main.rs:1"]);
    let v = f
        .call("grep", json!({"pattern": "fn", "path": "src/nope.rs"}))
        .await;
    assert_eq!(v["error_type"], "not_found", "{v}");
}

#[test]
fn specs_are_read_only_search_tools_needing_read_files_without_approval() {
    let registry = inventory_registry();
    for name in ["grep", "glob", "search"] {
        let spec = registry
            .get(name)
            .unwrap_or_else(|| panic!("{name} is registered"))
            .spec()
            .clone();
        assert_eq!(spec.category.as_deref(), Some("search"), "{name}");
        assert!(spec.annotations.read_only, "{name}");
        assert!(!spec.annotations.destructive, "{name}");
        assert!(!spec.requires_approval, "{name}");
        assert!(spec.permissions.contains(Permission::ReadFiles), "{name}");
        assert!(!spec.permissions.contains(Permission::WriteFiles), "{name}");
        assert!(spec.toolsets.iter().any(|t| t == "search"), "{name}");
    }
}

#[tokio::test]
async fn output_is_bounded_by_the_configured_size() {
    let mut config = tool_std::search::SearchConfig::default();
    config.max_output_chars = 2_000;
    let f = Fixture::with(config, None);
    f.write("a.txt", format!("{}\n", "needle ".repeat(60)).repeat(100));
    let (v, summary) = f
        .call_summary("grep", json!({"pattern": "needle", "max_results": 100}))
        .await;
    let shown = match_lines(&v).len();
    assert!((1..100).contains(&shown), "{shown}");
    assert_eq!(v["next_offset"], shown, "{v}");
    assert!(
        summary.contains("The output size limit cut the list short."),
        "{summary}"
    );
    // The structured answer says it in its note.
    assert_eq!(
        v["note"], "The output size limit cut the list short.",
        "{v}"
    );
}
