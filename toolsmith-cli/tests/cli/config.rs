//! `toolsmith.toml`: malformed files are refused at start with the file, line and what to
//! write instead, every mistake at once; the file is found beside the first root and said at
//! start; its settings and rules apply (every flag has a key), flags win over them, and a
//! running server rereads its rules on SIGHUP.

use std::path::Path;

use crate::support::cli::{code, json, toolsmith_in as toolsmith};

/// `(what is wrong, the file, the line it is on, words the message must hold)`.
const MALFORMED: &[(&str, &str, usize, &str)] = &[
    (
        "unknown key",
        "agent = \"Sage\"\nrootz = [\".\"]\n",
        2,
        "`rootz` is not a key of the file (did you mean `roots`?)",
    ),
    (
        "unknown key in a section",
        "[bash]\ntimeout = 5\ntimeot = 6\n",
        3,
        "`timeot` is not a key of [bash] (did you mean `timeout`?)",
    ),
    (
        "wrong type",
        "[bash]\ntimeout = \"5\"\n",
        2,
        "`bash.timeout` takes a whole number of seconds, at least 1 (as --bash-timeout), not a string",
    ),
    (
        "a string for a list",
        "roots = \".\"\n",
        1,
        "`roots` takes a list of directories",
    ),
    (
        "unknown value",
        "[bash]\nsandbox = \"maybe\"\n",
        2,
        "`bash.sandbox` takes \"on\" or \"off\" (as --bash-sandbox), not \"maybe\"; e.g. sandbox = \"on\"",
    ),
    ("zero timeout", "[bash]\nmax_timeout = 0\n", 2, "at least 1"),
    (
        "unknown key under [code]",
        "[code]\nmax_servers = 2\nidel_timeout = 60\n",
        3,
        "`idel_timeout` is not a key of [code] (did you mean `idle_timeout`?); its keys: enabled, servers,",
    ),
    (
        "a server command as a string",
        "[code.servers]\nc = \"clangd --background-index\"\n",
        2,
        "`code.servers.c` takes a language's server command: a list, the program first",
    ),
    (
        "a server for a language no file is of",
        "[code.servers]\ncobol = [\"cobol-ls\"]\n",
        2,
        "no file is of language `cobol`",
    ),
    (
        "bad network host",
        "[bash]\nnetwork_hosts = [\n  \"crates.io\",\n  \"::1\",\n]\n",
        4,
        "an IPv6 address goes in brackets",
    ),
    (
        "negative window",
        "[web]\nsearch_window = -1.0\n",
        2,
        "positive number of seconds",
    ),
    (
        "bad glob",
        "[rules]\nallow = [\n  \"bash(ls)\",\n  \"create_file(src/[)\",\n]\n",
        4,
        "not a valid glob",
    ),
    (
        "unknown tool in a rule",
        "[rules]\ndeny = [\"bsh(ls)\"]\n",
        2,
        "there is no tool `bsh`; tools:",
    ),
    (
        "specifier a tool cannot take",
        "[rules]\nask = [\"list_projects(x)\"]\n",
        2,
        "write `list_projects` alone",
    ),
    (
        "bad sandboxed_bash",
        "[rules]\nsandboxed_bash = \"yes\"\n",
        2,
        "`rules.sandboxed_bash` takes \"allow\" or \"ask\", not \"yes\"",
    ),
    (
        "duplicate principal",
        "[[principal]]\nname = \"ci\"\ntoken_sha256 = \"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\"\n\n[[principal]]\nname = \"ci\"\ntoken_sha256 = \"0f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\"\n",
        6,
        "a second principal is named `ci`",
    ),
    (
        "token too short",
        "[[principal]]\nname = \"ci\"\ntoken = \"short\"\n",
        3,
        "at least 32 characters",
    ),
    (
        "hash not hex",
        "[[principal]]\nname = \"ci\"\ntoken_sha256 = \"xyz\"\n",
        3,
        "64 hexadecimal digits",
    ),
    (
        "principal without token",
        "[[principal]]\nname = \"ci\"\nagent = \"A\"\n",
        2,
        "has no token; add token_sha256",
    ),
    (
        "token and hash",
        "[[principal]]\nname = \"ci\"\ntoken = \"0123456789abcdef0123456789abcdef\"\ntoken_sha256 = \"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\"\n",
        4,
        "not both",
    ),
    (
        "shared token",
        "[[principal]]\nname = \"a\"\ntoken = \"0123456789abcdef0123456789abcdef\"\n[[principal]]\nname = \"b\"\ntoken_sha256 = \"f8f5a89d0b42ad7e2ea8e4a0d1cfb9e6c6d1b4ab5e47c2e3b38f1b8ecb4a4bb5\"\n[[principal]]\nname = \"c\"\ntoken = \"0123456789abcdef0123456789abcdef\"\n",
        8,
        "the same token as `a`",
    ),
    (
        "serve token too short",
        "[serve]\ntoken = \"abc\"\n",
        2,
        "at least 32 characters",
    ),
    ("syntax", "[bash\ntimeout = 5\n", 1, ""),
    (
        "duplicate key",
        "agent = \"a\"\nagent = \"b\"\n",
        2,
        "duplicate key",
    ),
];

fn serve_with(dir: &Path, text: &str) -> (i32, String) {
    std::fs::write(dir.join("bad.toml"), text).expect("write");
    let out = toolsmith(dir, &["--config", "bad.toml", "serve"]);
    (
        code(&out),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn malformed_files_are_refused_at_start_with_file_line_and_what_to_write() {
    let dir = tempfile::tempdir().expect("temp dir");
    assert!(MALFORMED.len() >= 15);
    let mut wrong = Vec::new();
    for (what, text, line, says) in MALFORMED {
        let (code, stderr) = serve_with(dir.path(), text);
        let at = format!("bad.toml:{line}:");
        if code != 2
            || !stderr.contains(&at)
            || !stderr.contains(says)
            || stderr.contains("serving MCP")
        {
            wrong.push(format!("{what}: exit {code}, stderr: {stderr}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {}:\n{}",
        wrong.len(),
        MALFORMED.len(),
        wrong.join("\n")
    );
}

#[test]
fn a_missing_config_is_an_error_and_an_absent_default_is_not() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = toolsmith(dir.path(), &["--config", "nope.toml", "list"]);
    assert_eq!(code(&out), 2);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("cannot read the configuration nope.toml")
    );
    let out = toolsmith(dir.path(), &["list"]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn the_files_rules_decide_and_flags_win_over_its_settings() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join("ws")).expect("mkdir");
    std::fs::write(
        dir.path().join("toolsmith.toml"),
        "roots = [\"ws\"]\n\
         [bash]\nsandbox = \"off\"\n\
         [rules]\nallow = [\"bash(touch ran*)\"]\nask = [\"bash(touch asked*)\"]\ndeny = [\"delete_file(**)\"]\n",
    )
    .expect("write");
    // `./toolsmith.toml` is read; its root is relative to the file; the allowed command runs
    // without --approve.
    let out = toolsmith(dir.path(), &["call", "bash", r#"{"command": "touch ran"}"#]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    assert!(dir.path().join("ws/ran").exists());
    // An asked command with no terminal to ask on: denied, naming the rule and how to allow.
    let out = toolsmith(
        dir.path(),
        &["call", "bash", r#"{"command": "touch asked"}"#],
    );
    assert_eq!(code(&out), 1);
    let v = json(&out);
    assert_eq!(v["error_type"], "approval_denied", "{v}");
    let message = v["error"].as_str().unwrap_or_default();
    for part in [
        "the rule `ask: bash(touch asked*)`",
        "no terminal",
        "take \"bash(touch asked*)\" out of `ask` under [rules] in toolsmith.toml",
        "--approve",
    ] {
        assert!(message.contains(part), "{part}: {message}");
    }
    assert!(!dir.path().join("ws/asked").exists());
    // A deny rule holds even with --approve.
    std::fs::write(dir.path().join("ws/keep"), "x").expect("write");
    let out = toolsmith(
        dir.path(),
        &["--approve", "call", "delete_file", r#"{"paths": ["keep"]}"#],
    );
    assert_eq!(json(&out)["rule"], "deny: delete_file(**)");
    assert!(dir.path().join("ws/keep").exists());
    // --root wins over the file's roots: `ran` is not in this one.
    let other = tempfile::tempdir().expect("temp dir");
    let root = other.path().to_str().expect("utf-8");
    let out = toolsmith(
        dir.path(),
        &["--root", root, "call", "read_file", r#"{"paths": ["ran"]}"#],
    );
    assert_eq!(code(&out), 1, "{}", String::from_utf8_lossy(&out.stdout));
}
