//! `list_directory`: sorted entries with type and size, depth, limit with "N more", and
//! `.gitignore` respected by default; and the specs of the file tools (names, aliases,
//! categories, permissions, approval, annotations), the hand-written `list_projects` included.

use serde_json::json;
use tool_core::Permission;

use crate::support::file::Fixture;
use crate::support::inventory_registry;

/// The entries' paths from the root (the answer gives them relative to the listed
/// directory, a directory's with a trailing `/`), in the answer's order.
fn paths(v: &serde_json::Value) -> Vec<String> {
    let base = v["path"].as_str().unwrap().trim_start_matches("main:");
    v["entries"]
        .as_object()
        .unwrap()
        .keys()
        .map(|k| {
            let k = k.trim_end_matches(['/', '@']);
            if base == "." || base.is_empty() {
                k.to_owned()
            } else {
                format!("{base}/{k}")
            }
        })
        .collect()
}

#[tokio::test]
async fn entries_are_sorted_with_type_size_and_depth() {
    let f = Fixture::new();
    f.write("b.txt", "12345");
    f.write("a/z.txt", "z");
    f.write("a/deeper/x.txt", "x");
    f.write("c/one.txt", "1");
    let r = f.call("list_directory", json!({})).await;
    assert_eq!(paths(&r), ["a", "b.txt", "c"]);
    assert_eq!(
        r["entries"],
        json!({"a/": null, "b.txt": 5, "c/": null}),
        "directories end in `/`, files give their size"
    );
    let r = f.call("ls", json!({"path": ".", "depth": 2})).await;
    assert_eq!(
        paths(&r),
        ["a", "a/deeper", "a/z.txt", "b.txt", "c", "c/one.txt"]
    );
    assert_eq!(r["entries"]["a/z.txt"], 1, "{r}");
    let r = f.call("list_files", json!({"path": "a", "depth": 5})).await;
    assert_eq!(paths(&r), ["a/deeper", "a/deeper/x.txt", "a/z.txt"]);
    let r = f.call("list_directory", json!({"path": "b.txt"})).await;
    assert_eq!(r["error_type"], "user_error", "{r}");
    let r = f.call("list_directory", json!({"path": "nope"})).await;
    assert_eq!(r["error_type"], "not_found", "{r}");
}

#[tokio::test]
async fn limit_says_how_many_more() {
    let f = Fixture::new();
    for i in 0..30 {
        f.write(&format!("f{i:02}.txt"), "x");
    }
    let r = f.call("list_directory", json!({"limit": 10})).await;
    assert_eq!(r["entries"].as_object().unwrap().len(), 10);
    assert_eq!(r["more"], 20);
    assert_eq!(
        r["note"],
        "20 more entries not shown (limit is 10). List a subdirectory, lower depth, or raise limit (at most 5000)."
    );
    let (_, text) = f.call_text("list_directory", json!({"limit": 10})).await;
    assert!(text.contains("20 more entries not shown"), "{text}");
}

#[tokio::test]
async fn gitignore_is_respected_by_default() {
    let f = Fixture::new();
    f.write(".gitignore", "target/\n*.log\n!keep.log\n");
    f.write("target/debug/app", "bin");
    f.write("src/main.rs", "fn main() {}");
    f.write("src/.gitignore", "generated.rs\n");
    f.write("src/generated.rs", "//");
    f.write("a.log", "x");
    f.write("keep.log", "x");
    let r = f.call("list_directory", json!({"depth": 3})).await;
    assert_eq!(
        paths(&r),
        [
            ".gitignore",
            "keep.log",
            "src",
            "src/.gitignore",
            "src/main.rs"
        ]
    );
    assert_eq!(r["ignored"], 3);
    assert!(
        r["note"]
            .as_str()
            .unwrap()
            .contains("respect_gitignore: false")
    );
    // Listing a subdirectory still applies the root's .gitignore.
    let r = f.call("list_directory", json!({"path": "src"})).await;
    assert_eq!(paths(&r), ["src/.gitignore", "src/main.rs"]);
    let r = f
        .call(
            "list_directory",
            json!({"depth": 3, "respect_gitignore": false}),
        )
        .await;
    assert!(paths(&r).contains(&"target/debug/app".to_owned()), "{r}");
}

#[test]
fn specs_of_the_file_tools() {
    let registry = inventory_registry();
    let spec = |name: &str| {
        registry
            .get(name)
            .unwrap_or_else(|| panic!("{name} missing"))
            .spec()
            .clone()
    };
    for (name, aliases, category) in [
        ("list_projects", &[][..], "search"),
        ("read_file", &["read", "read_files"][..], "file_reading"),
        ("list_directory", &["ls", "list_files"][..], "search"),
        ("create_file", &["write", "write_file"][..], "file_writing"),
        ("update_file", &[][..], "file_writing"),
        ("append_file", &[][..], "file_writing"),
        ("replace_in_file", &["edit"][..], "file_writing"),
        ("edit_lines", &[][..], "file_writing"),
        ("delete_file", &["delete_files"][..], "file_management"),
    ] {
        let s = spec(name);
        assert_eq!(
            s.aliases,
            aliases
                .iter()
                .map(|a| std::borrow::Cow::Borrowed(*a))
                .collect::<Vec<_>>(),
            "{name}"
        );
        assert_eq!(s.category.as_deref(), Some(category), "{name}");
        assert!(s.toolsets.iter().any(|t| t == "file"), "{name}");
        for alias in aliases {
            assert_eq!(registry.get(alias).unwrap().name(), name);
        }
        let writes = !matches!(name, "list_projects" | "read_file" | "list_directory");
        assert_eq!(s.annotations.destructive, writes, "{name}");
        assert_eq!(s.annotations.read_only, !writes, "{name}");
        assert_eq!(s.requires_approval, writes, "{name}");
        let needed = if name == "delete_file" {
            Permission::DeleteFiles
        } else if writes {
            Permission::WriteFiles
        } else {
            Permission::ReadFiles
        };
        assert!(s.permissions.contains(needed), "{name}");
    }
    // The hand-written tool has the same derived schema path as the macro ones.
    let lp = spec("list_projects");
    assert_eq!(lp.input_schema["type"], "object");
    assert!(lp.output_schema.is_some());
}

#[tokio::test]
async fn writes_wait_for_approval_and_a_denial_writes_nothing() {
    let f = Fixture::new();
    f.write("x.txt", "x\n");
    let registry = inventory_registry();
    let session = tool_core::Runtime::builder(registry)
        .service(std::sync::Arc::new(f.workspace.clone()))
        .approver(tool_core::DenyAll)
        .build()
        .session();
    let out = session
        .call(tool_core::ToolCall::new(
            "1",
            "update_file",
            json!({"path": "x.txt", "content": "y"}).to_string(),
        ))
        .await;
    assert!(!out.is_success());
    assert_eq!(f.read_str("x.txt"), "x\n");
    let read = session
        .call(tool_core::ToolCall::new(
            "2",
            "read_file",
            json!({"paths": ["x.txt"]}).to_string(),
        ))
        .await;
    assert!(
        read.is_success(),
        "reads need no approval: {:?}",
        read.to_json()
    );
}
