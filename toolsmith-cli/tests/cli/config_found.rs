//! `toolsmith.toml` where an operator puts it: found beside the first root when the host starts
//! the server elsewhere, said at start, every key a flag has, every mistake at once, invalid
//! rules refused by `list` and `serve`, and the rules of a running server reread on SIGHUP.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::cli::{code, json, toolsmith_in as toolsmith};
use crate::support::stdio::{StdioServe, Version, text_of};

/// A project holding a secret and a file denying it, as the issue's operator had.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("dir");
    std::fs::create_dir(dir.path().join("secrets")).expect("secrets");
    std::fs::write(dir.path().join("secrets/key.txt"), "API_KEY=hunter2\n").expect("key");
    std::fs::write(dir.path().join("notes.txt"), "hello\n").expect("notes");
    std::fs::write(
        dir.path().join("toolsmith.toml"),
        "[rules]\ndeny = [\"read_file(secrets/**)\"]\n",
    )
    .expect("config");
    dir
}

#[test]
fn the_config_beside_the_first_root_applies_from_another_directory_and_is_named() {
    let proj = project();
    let elsewhere = tempfile::tempdir().expect("host's dir");
    let root = proj.path().to_str().expect("utf-8");
    let out = toolsmith(
        elsewhere.path(),
        &[
            "--root",
            root,
            "call",
            "read_file",
            r#"{"paths": ["secrets/key.txt"]}"#,
        ],
    );
    assert_eq!(code(&out), 1, "{}", String::from_utf8_lossy(&out.stderr));
    let v = json(&out);
    assert_eq!(v["rule"], "deny: read_file(secrets/**)", "{v}");
    assert!(!v.to_string().contains("hunter2"), "{v}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let named = format!("config: {}", proj.path().join("toolsmith.toml").display());
    assert!(stderr.contains(&named), "{stderr}");

    // A directory with no file, and no root holding one: the start says so.
    let bare = tempfile::tempdir().expect("bare");
    let out = toolsmith(bare.path(), &["list"]);
    assert_eq!(code(&out), 0);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no toolsmith.toml"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // --config wins over both places.
    std::fs::write(bare.path().join("other.toml"), "[rules]\n").expect("other");
    let out = toolsmith(
        elsewhere.path(),
        &[
            "--root",
            root,
            "--config",
            bare.path().join("other.toml").to_str().expect("utf-8"),
            "call",
            "read_file",
            r#"{"paths": ["notes.txt"]}"#,
        ],
    );
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn every_mistake_of_a_file_is_reported_at_once_in_plain_words() {
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(
        dir.path().join("toolsmith.toml"),
        "rootz = [\".\"]\n[bash]\ntimeout = \"5\"\n[web]\nsearch_window = -1.0\n\
         [rules]\nallow = [\"bsh(ls)\", \"create_file(src/[)\"]\n",
    )
    .expect("write");
    let out = toolsmith(dir.path(), &["list"]);
    assert_eq!(code(&out), 2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    for part in [
        "toolsmith.toml:1:1: `rootz` is not a key of the file (did you mean `roots`?)",
        "toolsmith.toml:3:11: `bash.timeout` takes a whole number of seconds",
        "toolsmith.toml:5:17: search_window is a positive number of seconds",
        "3 problems in the configuration",
    ] {
        assert!(stderr.contains(part), "{part}\n{stderr}");
    }
    // Once the shape is right, the rules are checked, each at its line, by list and serve.
    std::fs::write(
        dir.path().join("toolsmith.toml"),
        "[rules]\nallow = [\"bsh(ls)\", \"bash(ls *)\"]\ndeny = [\"create_file(src/[)\"]\n",
    )
    .expect("write");
    for command in ["list", "serve"] {
        let out = toolsmith(dir.path(), &[command]);
        assert_eq!(code(&out), 2, "{command}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        for part in [
            "toolsmith.toml:2:10: allow rule `bsh(ls)`: there is no tool `bsh`",
            "toolsmith.toml:3:9: deny rule `create_file(src/[)`",
            "2 problems",
        ] {
            assert!(stderr.contains(part), "{command}: {part}\n{stderr}");
        }
        assert!(!stderr.contains("serving MCP"), "{stderr}");
    }
}

#[test]
fn the_keys_the_flags_have_apply() {
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(
        dir.path().join("toolsmith.toml"),
        "log_format = \"json\"\nmode = \"mcp\"\nactivity_store = \"memory\"\n\
         [select]\ntools = [\"read_file\", \"grep\"]\nexclude_tools = [\"grep\"]\n",
    )
    .expect("write");
    let out = toolsmith(dir.path(), &["list"]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let names: Vec<String> = json(&out)
        .as_array()
        .expect("a list")
        .iter()
        .map(|t| t["name"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(names, ["read_file"]);
    // JSON log lines on stderr, as --log-format json writes them.
    let stderr = String::from_utf8_lossy(&out.stderr);
    let first = stderr.lines().next().unwrap_or_default();
    let line: serde_json::Value = serde_json::from_str(first).unwrap_or_else(|e| {
        panic!("not a JSON log line ({e}): {stderr}");
    });
    assert!(
        line["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("config: ")),
        "{line}"
    );
    // A flag wins over its key.
    let out = toolsmith(
        dir.path(),
        &[
            "--log-format",
            "text",
            "list",
            "--tools",
            "grep",
            "--exclude-tools",
            "web",
        ],
    );
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("toolsmith: config: "));
    assert!(json(&out).to_string().contains("\"grep\""));
}

/// Waits until the server's stderr holds `text`.
fn stderr_holds(server: &StdioServe, text: &str) -> bool {
    let end = Instant::now() + Duration::from_secs(10);
    while Instant::now() < end {
        if server.stderr().contains(text) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[test]
fn a_running_server_rereads_its_rules_on_sighup_and_keeps_them_when_the_file_is_wrong() {
    for version in [Version::V2025, Version::V2026] {
        let proj = project();
        let root = proj.path().to_str().expect("utf-8");
        let mut server = StdioServe::start(proj.path(), &["--root", root]);
        server.send(version.prelude());
        let read = |server: &mut StdioServe, id: i64| {
            let answer = server.ask(version.request(
                &json!(id),
                "tools/call",
                json!({"name": "read_file", "arguments": {"paths": ["secrets/key.txt"]}}),
            ));
            text_of(&answer)
        };
        let refused = read(&mut server, 1);
        assert!(refused.contains("read_file(secrets/**)"), "{refused}");

        // A file with a mistake: nothing changes, and the server says why.
        write(proj.path(), "[rules]\ndeny = [\"read_fil(secrets/**)\"]\n");
        server.signal("HUP");
        assert!(
            stderr_holds(&server, "the rules were not reread"),
            "{}",
            server.stderr()
        );
        let still = read(&mut server, 2);
        assert!(still.contains("read_file(secrets/**)"), "{still}");

        // The deny rule taken out: the next call meets the new rules.
        write(proj.path(), "[rules]\ndeny = [\"delete_file\"]\n");
        server.signal("HUP");
        assert!(
            stderr_holds(&server, "rules reread from"),
            "{}",
            server.stderr()
        );
        let read_now = read(&mut server, 3);
        assert!(read_now.contains("hunter2"), "{read_now}");
        assert!(server.close(Duration::from_secs(10)));
    }
}

fn write(dir: &Path, text: &str) {
    std::fs::write(dir.join("toolsmith.toml"), text).expect("write");
}
