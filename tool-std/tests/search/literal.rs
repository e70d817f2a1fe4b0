//! `search`: literal text in file paths and contents in one call, on grep's engine, with the
//! same summary line ending the text.

use serde_json::json;

use crate::support::search::{Fixture, match_lines};

#[tokio::test]
async fn finds_literal_text_in_paths_and_contents() {
    let f = Fixture::new();
    f.write(
        "src/parser.rs",
        "fn parse(input: &str) {}\n// call parse(x) here\n",
    );
    f.write("src/lexer.rs", "use crate::parser;\n");
    f.write("docs/parser_notes.md", "nothing relevant\n");
    f.write("a.txt", "regex chars: parse(.*)\n");
    let (v, text) = f.call_text("search", json!({"query": "parse("})).await;
    assert_eq!(v["type"], "file_search_results", "{v}");
    assert_eq!(
        match_lines(&v),
        ["a.txt:1", "src/parser.rs:1", "src/parser.rs:2"]
    );
    assert_eq!(v["path_matches"], json!([]));
    assert_eq!(
        text.trim_end().lines().last(),
        Some("No file path contains `parse(`. Found 3 matches in 2 files.")
    );
    assert!(
        text.contains("src/parser.rs\n1:fn parse(input: &str) {}\n2:// call parse(x) here\n"),
        "{text}"
    );
    // Regex characters are literal.
    let v = f.call("search", json!({"query": "parse(.*)"})).await;
    assert_eq!(match_lines(&v), ["a.txt:1"]);
    // Paths and contents in one call, case-insensitive by default.
    let (v, summary) = f.call_summary("search", json!({"query": "PARSER"})).await;
    assert_eq!(
        v["path_matches"],
        json!(["docs/parser_notes.md", "src/parser.rs"])
    );
    assert_eq!(match_lines(&v), ["src/lexer.rs:1"]);
    assert!(
        summary.starts_with("2 file paths contain `PARSER`. Found 1 match in 1 file."),
        "{summary}"
    );
    let v = f
        .call("search", json!({"query": "PARSER", "case_sensitive": true}))
        .await;
    assert_eq!(v["path_matches"], json!([]));
    assert_eq!(v["total_files"], 0);
}

#[tokio::test]
async fn filters_and_paging_as_grep() {
    let f = Fixture::new();
    for i in 0..5 {
        f.write(&format!("f{i}.rs"), "needle\nneedle\n");
        f.write(&format!("f{i}.md"), "needle\n");
    }
    let v = f
        .call(
            "search",
            json!({"query": "needle", "file_type": "rust", "max_results": 4}),
        )
        .await;
    assert_eq!(
        match_lines(&v),
        ["f0.rs:1", "f0.rs:2", "f1.rs:1", "f1.rs:2"]
    );
    assert_eq!(v["next_offset"], 4);
    let v = f
        .call(
            "search",
            json!({"query": "needle", "glob": ["*.md"], "offset": 3}),
        )
        .await;
    assert_eq!(match_lines(&v), ["f3.md:1", "f4.md:1"]);
    let v = f.call("search", json!({"query": ""})).await;
    assert_eq!(v["error_type"], "validation_error", "{v}");
}
