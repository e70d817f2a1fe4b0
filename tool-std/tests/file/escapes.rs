//! The conformance suite of the file tools: escape attempts of every kind on every tool, all
//! refused with a `security_error`, with nothing outside the roots read, created or changed,
//! and no secret from outside in any answer.

use serde_json::{Value, json};

use crate::support::file::{Fixture, SECRET, error_text, error_type};

/// Sets up the links the attacks use and returns the fixture.
fn armed() -> Fixture {
    let f = Fixture::new();
    let out = f.outside.display().to_string();
    f.write("ok.txt", "fine\n");
    f.write("sub/inner.txt", "inner\n");
    f.write(".env", "TOKEN=in-root-but-protected\n");
    f.write(".git/config", "[core]\n");
    f.link(format!("{out}/secret.txt"), "link_out");
    f.link("../outside/secret.txt", "link_out_rel");
    f.link(&out, "dir_out");
    f.link("../outside", "dir_out_rel");
    f.link("chain2", "chain1");
    f.link("chain3", "chain2");
    f.link("../outside/secret.txt", "chain3");
    f.link(format!("{out}/created-by-dangle.txt"), "dangle");
    f.link("../outside/created-by-dangle-rel.txt", "dangle_rel");
    f.link("../../outside", "sub/up");
    f.link("../dir_out", "sub/dir_chain");
    f.link("loop2", "loop1");
    f.link("loop1", "loop2");
    f
}

/// Paths naming a file outside the roots (or refused for another reason of the policy).
fn file_attacks(f: &Fixture) -> Vec<String> {
    let out = f.outside.display();
    let ws = f.ws.display();
    let evil = f.evil.display();
    vec![
        "../outside/secret.txt".into(),
        "sub/../../outside/secret.txt".into(),
        "main:../outside/secret.txt".into(),
        "ro:../outside/secret.txt".into(),
        format!("{out}/secret.txt"),
        format!("{ws}/../outside/secret.txt"),
        format!("{evil}/file.txt"),
        format!("main:{out}/secret.txt"),
        "link_out".into(),
        "link_out_rel".into(),
        "dir_out/secret.txt".into(),
        "dir_out_rel/secret.txt".into(),
        "chain1".into(),
        "sub/up/secret.txt".into(),
        "sub/dir_chain/secret.txt".into(),
        "dir_out/sub/deep.txt".into(),
        "dangle".into(),
        "dangle_rel".into(),
        "ok.txt\0/../../outside/secret.txt".into(),
        ".env".into(),
        ".git/config".into(),
        "loop1".into(),
    ]
}

/// Paths naming a directory outside the roots.
fn dir_attacks(f: &Fixture) -> Vec<String> {
    let out = f.outside.display();
    let evil = f.evil.display();
    vec![
        "..".into(),
        "../outside".into(),
        "main:..".into(),
        "sub/../..".into(),
        format!("{out}"),
        format!("{evil}"),
        format!("{}", f.base.display()),
        "dir_out".into(),
        "dir_out_rel".into(),
        "dir_out/sub".into(),
        "sub/up".into(),
        "sub/dir_chain".into(),
        ".git".into(),
        "sub\0/../..".into(),
        "loop1".into(),
    ]
}

/// Runs one attack and checks it was refused as a security error with no secret shown.
async fn refused(f: &Fixture, tool: &str, args: Value, count: &mut usize) {
    let (answer, text) = f.call_text(tool, args.clone()).await;
    assert_eq!(
        error_type(&answer),
        "security_error",
        "{tool} {args} was not refused as a security error: {answer}"
    );
    assert!(
        error_text(&answer).contains("list_projects") || error_text(&answer).contains("root"),
        "{tool} {args}: the refusal does not name the roots: {answer}"
    );
    assert!(
        !answer.to_string().contains(SECRET),
        "{tool} {args} leaked: {answer}"
    );
    assert!(!text.contains(SECRET), "{tool} {args} leaked: {text}");
    *count += 1;
}

#[tokio::test]
async fn every_escape_attempt_is_refused_and_nothing_outside_changes() {
    let f = armed();
    let before = f.outside_snapshot();
    let files = file_attacks(&f);
    let mut count = 0;
    for p in &files {
        refused(&f, "read_file", json!({"paths": [p]}), &mut count).await;
        refused(
            &f,
            "read_file",
            json!({"paths": [format!("{p}:1-5")]}),
            &mut count,
        )
        .await;
        refused(
            &f,
            "create_file",
            json!({"path": p, "content": "pwned", "overwrite": true}),
            &mut count,
        )
        .await;
        refused(
            &f,
            "update_file",
            json!({"path": p, "content": "pwned"}),
            &mut count,
        )
        .await;
        refused(
            &f,
            "append_file",
            json!({"path": p, "content": "pwned"}),
            &mut count,
        )
        .await;
        refused(
            &f,
            "replace_in_file",
            json!({"path": p, "find": "secret", "replace": "pwned", "is_regex": true, "replace_all": true}),
            &mut count,
        )
        .await;
        refused(
            &f,
            "replace_in_file",
            json!({"path": p, "find": "o", "replace": "0", "preview_only": true}),
            &mut count,
        )
        .await;
        refused(
            &f,
            "edit_lines",
            json!({"path": p, "operation": "replace", "start_line": 1, "content": "pwned"}),
            &mut count,
        )
        .await;
        refused(&f, "delete_file", json!({"paths": [p]}), &mut count).await;
    }
    // New files through links, outside, in the sibling, in the read-only root.
    let out = f.outside.display();
    for p in [
        "dir_out/new.txt".to_owned(),
        "dir_out_rel/new.txt".to_owned(),
        "sub/up/new.txt".to_owned(),
        "../outside/new.txt".to_owned(),
        format!("{out}/new.txt"),
        format!("{}/new.txt", f.evil.display()),
        "dangle".to_owned(),
        "dangle_rel".to_owned(),
        "ro:new.txt".to_owned(),
        "ro:file.txt".to_owned(),
        ".env.local".to_owned(),
        ".git/hooks/pre-commit".to_owned(),
    ] {
        refused(
            &f,
            "create_file",
            json!({"path": p, "content": "pwned", "create_parents": true}),
            &mut count,
        )
        .await;
    }
    // The read-only root is readable, but every write there is refused.
    for tool_args in [
        (
            "update_file",
            json!({"path": "ro:file.txt", "content": "x"}),
        ),
        (
            "append_file",
            json!({"path": "ro:file.txt", "content": "x"}),
        ),
        (
            "replace_in_file",
            json!({"path": "ro:file.txt", "find": "read", "replace": "x"}),
        ),
        (
            "edit_lines",
            json!({"path": "ro:file.txt", "operation": "delete", "start_line": 1}),
        ),
        ("delete_file", json!({"paths": ["ro:file.txt"]})),
        ("delete_file", json!({"paths": ["ok.txt", "ro:file.txt"]})),
        (
            "delete_file",
            json!({"paths": ["sub", "dir_out"], "recursive": true}),
        ),
    ] {
        refused(&f, tool_args.0, tool_args.1, &mut count).await;
    }
    for p in dir_attacks(&f) {
        refused(&f, "list_directory", json!({"path": p}), &mut count).await;
        refused(
            &f,
            "list_directory",
            json!({"path": p, "depth": 3}),
            &mut count,
        )
        .await;
        refused(
            &f,
            "delete_file",
            json!({"paths": [p], "recursive": true}),
            &mut count,
        )
        .await;
    }
    assert!(count >= 60, "only {count} attempts");
    eprintln!("{count} escape attempts refused");
    assert_eq!(
        f.outside_snapshot(),
        before,
        "something outside the roots changed"
    );
    // The refused multi-path delete deleted nothing.
    assert_eq!(f.read_str("ok.txt"), "fine\n");
    assert!(f.ws.join("sub/inner.txt").exists());
}

#[tokio::test]
async fn a_read_of_many_paths_reports_each_refusal_and_reads_the_rest() {
    let f = armed();
    let mut paths: Vec<String> = file_attacks(&f);
    paths.push("ok.txt".into());
    let (answer, text) = f.call_text("read_file", json!({"paths": paths})).await;
    assert_eq!(answer["files_read"], 1, "{answer}");
    assert_eq!(answer["files"][0]["content"], "fine\n");
    let failed = answer["failed"].as_array().unwrap();
    assert_eq!(failed.len(), paths.len() - 1);
    for f in failed {
        assert_eq!(f["error_type"], "security_error", "{f}");
    }
    assert!(!answer.to_string().contains(SECRET));
    assert!(!text.contains(SECRET));
}

#[tokio::test]
async fn listings_do_not_follow_links_out_of_the_root() {
    let f = armed();
    let (answer, text) = f
        .call_text(
            "list_directory",
            json!({"path": ".", "depth": 10, "respect_gitignore": false}),
        )
        .await;
    assert_eq!(answer["type"], "directory_listing", "{answer}");
    let entries = answer["entries"].as_object().unwrap();
    let kind = |p: &str| {
        [("@", "symlink"), ("/", "directory"), ("", "file")]
            .into_iter()
            .find(|(suffix, _)| entries.contains_key(&format!("{p}{suffix}")))
            .map(|(_, kind)| kind.to_owned())
    };
    assert_eq!(kind("dir_out").as_deref(), Some("symlink"));
    assert_eq!(kind("sub/up").as_deref(), Some("symlink"));
    assert_eq!(kind(".git").as_deref(), Some("directory"));
    // Nothing from outside (secret.txt, deep.txt) and nothing inside .git is listed.
    assert!(
        !text.contains("secret.txt") && !text.contains("deep.txt"),
        "{text}"
    );
    assert!(
        kind(".git/config").is_none(),
        "protected .git was entered: {text}"
    );
}

#[tokio::test]
async fn links_that_stay_inside_the_root_work() {
    let f = Fixture::new();
    f.write("real/data.txt", "alpha\nbeta\n");
    f.link("real/data.txt", "alias.txt");
    f.link("real", "alias_dir");
    f.link(f.ws.join("real/data.txt"), "abs_alias.txt");
    let read = f
        .call(
            "read_file",
            json!({"paths": ["alias.txt", "alias_dir/data.txt", "abs_alias.txt:2"]}),
        )
        .await;
    assert_eq!(read["files_read"], 3, "{read}");
    assert_eq!(read["files"][2]["content"], "beta\n");
    let edit = f
        .call(
            "replace_in_file",
            json!({"path": "alias.txt", "find": "beta", "replace": "gamma"}),
        )
        .await;
    assert_eq!(edit["replacements"], 1, "{edit}");
    assert_eq!(f.read_str("real/data.txt"), "alpha\ngamma\n");
    // The link is still a link (the write went to its target).
    assert!(
        std::fs::symlink_metadata(f.ws.join("alias.txt"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let listed = f.call("list_directory", json!({"path": "alias_dir"})).await;
    assert_eq!(listed["path"], "main:real", "{listed}");
    assert_eq!(listed["entries"], json!({"data.txt": 12}), "{listed}");
}

#[tokio::test]
async fn a_hard_link_to_an_outside_file_never_carries_a_write_out() {
    let f = Fixture::new();
    std::fs::hard_link(f.outside.join("secret.txt"), f.ws.join("hard.txt")).unwrap();
    let before = f.outside_snapshot();
    for (tool, args) in [
        (
            "update_file",
            json!({"path": "hard.txt", "content": "new one\n"}),
        ),
        (
            "append_file",
            json!({"path": "hard.txt", "content": "more\n"}),
        ),
        (
            "replace_in_file",
            json!({"path": "hard.txt", "find": "one", "replace": "two"}),
        ),
        (
            "edit_lines",
            json!({"path": "hard.txt", "operation": "insert", "start_line": 0, "content": "top"}),
        ),
    ] {
        let out = f.call(tool, args).await;
        assert!(out["written"] == true, "{tool}: {out}");
    }
    assert_eq!(f.read_str("hard.txt"), "top\nnew two\nmore\n");
    assert_eq!(f.outside_snapshot(), before);
}

/// `~`, `~user` and `$HOME` are what a shell expands; the tools expand nothing, and taken
/// literally they made a directory named `~` inside the root.
#[tokio::test]
async fn home_directory_paths_are_refused_as_project_relative() {
    let f = Fixture::new();
    f.write("~x/y.txt", "a file under a directory literally named ~x\n");
    for path in [
        "~",
        "~/x",
        "~/new.txt",
        "~root/x",
        "~x/y.txt",
        "$HOME/x",
        "${HOME}/x",
        "$HOME",
        "main:~/x",
        " ~/x",
    ] {
        for (tool, args) in [
            ("create_file", json!({"path": path, "content": "x\n"})),
            ("read_file", json!({"paths": [path]})),
        ] {
            let r = f.call(tool, args).await;
            assert_eq!(error_type(&r), "security_error", "{tool} {path}: {r}");
            let text = error_text(&r);
            assert!(
                text.contains(
                    "is not expanded: paths are relative to a project root, not to a home directory"
                ) && text.contains("`main` (")
                    && text.contains("call list_projects"),
                "{tool} {path}: {text}"
            );
        }
    }
    // Nothing named `~` or `$HOME` was made.
    let names: Vec<String> = std::fs::read_dir(&f.ws)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["~x"], "{names:?}");
    // A `~` further down a path, or after `./`, is an ordinary character.
    for path in ["src/~backup", "./~top.txt", "main:src/~b/~c.txt"] {
        let r = f
            .call(
                "create_file",
                json!({"path": path, "content": "kept\n", "create_parents": true}),
            )
            .await;
        assert_eq!(r["type"], "file_created", "{path}: {r}");
        let r = f.call("read_file", json!({"paths": [path]})).await;
        assert_eq!(r["files"][0]["content"], "kept\n", "{path}: {r}");
    }
    assert_eq!(f.read_str("src/~backup"), "kept\n");
    assert_eq!(f.read_str("~top.txt"), "kept\n");
    let r = f.call("read_file", json!({"paths": ["./~x/y.txt"]})).await;
    assert_eq!(r["files_read"], 1, "{r}");
}
