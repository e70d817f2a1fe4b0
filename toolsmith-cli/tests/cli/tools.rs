//! Serving what the agent needs, on the command line: `--toolset`, `--tools` and
//! `--exclude-tools` on `list`, `call` and `serve`, and `list`'s deferred loading
//! (`cli::agents` has the agents' enabled tools).

use std::path::Path;
use std::process::Output;

use serde_json::json;

use crate::support::cli::{code, json, toolsmith_in};

pub(super) fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The tool names of a `list` in `format` (JSON formats).
pub(super) fn listed(out: &Output, format: &str) -> Vec<String> {
    assert_eq!(code(out), 0, "{format}: {}", stderr(out));
    let list = json(out);
    list.as_array()
        .expect("array")
        .iter()
        .map(|t| {
            let name = match format {
                "openai" | "openai-strict" => &t["function"]["name"],
                _ => &t["name"],
            };
            name.as_str().expect("name").to_owned()
        })
        .collect()
}

/// The names of the standard tools in toolset `file`, from the canonical listing.
fn file_tools(dir: &Path) -> Vec<String> {
    let out = toolsmith_in(dir, &["list"]);
    let all = json(&out);
    let names: Vec<String> = all
        .as_array()
        .expect("array")
        .iter()
        .filter(|t| t["toolsets"].as_array().unwrap().contains(&json!("file")))
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    assert!(names.len() >= 9, "{names:?}");
    assert!(names.contains(&"delete_file".to_owned()));
    names
}

#[test]
fn list_offers_a_toolset_without_the_excluded_tools() {
    let dir = tempfile::tempdir().expect("dir");
    let mut expected = file_tools(dir.path());
    expected.retain(|n| n != "delete_file");
    for args in [
        &[
            "list",
            "--toolset",
            "file",
            "--exclude-tools",
            "delete_file",
        ][..],
        // By alias, and with both spellings of a list.
        &["list", "--toolset=file", "--exclude-tools=delete_files"][..],
        &[
            "list",
            "--toolset",
            "file,file",
            "--exclude-tools",
            "bash,delete_file",
        ][..],
        // A trailing comma adds nothing.
        &[
            "list",
            "--toolset",
            "file,",
            "--exclude-tools",
            "delete_file,",
        ][..],
    ] {
        let out = toolsmith_in(dir.path(), args);
        assert_eq!(listed(&out, "json"), expected, "{args:?}");
    }
    // Toolsets and tools add up; repeated flags too.
    let out = toolsmith_in(
        dir.path(),
        &[
            "list",
            "--toolset",
            "shell",
            "--toolset",
            "web",
            "--tools",
            "read,ls",
        ],
    );
    assert_eq!(
        listed(&out, "json"),
        ["bash", "list_directory", "process", "read_file", "web"]
    );
    // Exclusions alone start from every tool.
    let out = toolsmith_in(dir.path(), &["list", "--exclude-tools", "bash,web"]);
    let names = listed(&out, "json");
    assert!(!names.contains(&"bash".to_owned()) && !names.contains(&"web".to_owned()));
    assert!(names.contains(&"grep".to_owned()), "{names:?}");
}

#[test]
fn list_tools_in_every_format_holds_only_those_tools() {
    let dir = tempfile::tempdir().expect("dir");
    for format in [
        "json",
        "openai",
        "openai-strict",
        "openai-responses",
        "anthropic",
        "gemini",
        "mcp",
    ] {
        let out = toolsmith_in(
            dir.path(),
            &["list", "--tools", "read,grep", "--format", format],
        );
        assert_eq!(listed(&out, format), ["grep", "read_file"], "{format}");
    }
    let out = toolsmith_in(
        dir.path(),
        &["list", "--tools", "read_file", "--format", "xml"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("### read_file\n"), "{text}");
    assert!(!text.contains("### bash\n"), "{text}");
}

#[test]
fn unknown_names_and_toolsets_are_usage_errors_listing_the_valid_ones() {
    let dir = tempfile::tempdir().expect("dir");
    for command in [
        &["list"][..],
        &["call", "read_file", "{}"][..],
        &["serve"][..],
    ] {
        let mut args = command.to_vec();
        args.extend(["--tools", "raed_file", "--toolset", "files"]);
        let out = toolsmith_in(dir.path(), &args);
        assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = stderr(&out);
        assert!(
            err.contains("no tool is called `raed_file` (did you mean `read_file`?)"),
            "{err}"
        );
        assert!(
            err.contains("no tool belongs to a toolset `files`"),
            "{err}"
        );
        assert!(
            err.contains("the toolsets: code, file, plan, prompt, search, shell, web"),
            "{err}"
        );
        assert!(err.contains("delete_file, edit_lines, glob"), "{err}");
    }
    // An exclusion that leaves nothing to serve is refused too.
    let out = toolsmith_in(
        dir.path(),
        &["serve", "--tools", "bash", "--exclude-tools", "bash"],
    );
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("no tool is left to offer"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn call_refuses_a_tool_outside_the_selection_naming_the_offered_tools() {
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("a.txt"), "hello\n").expect("write");
    let out = toolsmith_in(
        dir.path(),
        &[
            "call",
            "bash",
            r#"{"command": "true"}"#,
            "--toolset",
            "file",
            "--exclude-tools",
            "delete_file",
        ],
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let err = json(&out);
    assert_eq!(err["error_type"], "permission_error");
    let mut offered = file_tools(dir.path());
    offered.retain(|n| n != "delete_file");
    assert_eq!(err["available_tools"], json!(offered));
    let msg = err["error"].as_str().unwrap();
    assert!(
        msg.contains("tool `bash` is not among the tools offered"),
        "{msg}"
    );
    // A selected tool runs, by its alias too.
    let out = toolsmith_in(
        dir.path(),
        &[
            "call",
            "read",
            r#"{"paths": ["a.txt"]}"#,
            "--toolset",
            "file",
        ],
    );
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn list_defers_tools_and_groups_namespaces_in_the_formats_with_a_tool_search() {
    use crate::support::fixtures::tool_search::check_tool_search_list;
    use toolsmith::provider::Format;

    let dir = tempfile::tempdir().expect("dir");
    let out = toolsmith_in(
        dir.path(),
        &[
            "list",
            "--format",
            "anthropic",
            "--toolset",
            "file,search",
            "--defer-toolsets",
            "search",
            "--defer-tools",
            "read",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let list = json(&out);
    assert_eq!(
        check_tool_search_list(Format::Anthropic, &list),
        Vec::<String>::new()
    );
    let deferred: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t.get("defer_loading") == Some(&json!(true)))
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(deferred, ["glob", "grep", "read_file", "search"]);
    assert_eq!(
        list.as_array().unwrap().last().unwrap()["name"],
        "tool_search_tool_regex"
    );

    let out = toolsmith_in(
        dir.path(),
        &[
            "list",
            "--format",
            "openai-responses",
            "--namespace-by-toolset",
            "--defer-all",
            "--tool-search",
            "bm25",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let list = json(&out);
    assert_eq!(
        check_tool_search_list(Format::OpenaiResponses, &list),
        Vec::<String>::new()
    );
    assert_eq!(
        list.as_array().unwrap().last().unwrap(),
        &json!({"type": "tool_search"})
    );

    // Unknown names are usage errors; other formats are unchanged by the flags.
    let out = toolsmith_in(dir.path(), &["list", "--defer-tools", "gerp"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("did you mean `grep`?"),
        "{}",
        stderr(&out)
    );
    let plain = toolsmith_in(dir.path(), &["list", "--format", "gemini"]);
    let deferred = toolsmith_in(dir.path(), &["list", "--format", "gemini", "--defer-all"]);
    assert_eq!(plain.stdout, deferred.stdout);
}
