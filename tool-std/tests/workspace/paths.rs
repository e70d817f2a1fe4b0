//! The workspace policy on real directories: how paths resolve, which are refused, and that a
//! refusal never reads, creates or changes anything outside the roots.

use std::fs;
use std::os::unix::fs::symlink;

use tool_core::ErrorKind;
use tool_std::workspace::{Workspace, WriteOptions};

use crate::support::{escape_layout, snapshot, temp_dir, write};

/// A temp dir holding `ws` (the root), `ws-evil` (a sibling sharing its prefix) and `outside`
/// (with a secret), plus the workspace over `ws`.
struct Fixture {
    _tmp: tempfile::TempDir,
    base: std::path::PathBuf,
    ws: Workspace,
}

const SECRET: &str = "outside-secret-4c1d";

fn fixture() -> Fixture {
    let (tmp, base) = temp_dir();
    let root = escape_layout(&base, SECRET);
    fs::create_dir_all(root.join("src/deep")).unwrap();
    write(&root.join("src/main.rs"), "fn main() {}\n");
    let ws = Workspace::builder()
        .root("ws", root)
        .build()
        .expect("workspace");
    Fixture {
        _tmp: tmp,
        base,
        ws,
    }
}

fn read_text(ws: &Workspace, path: &str) -> Result<String, tool_core::ToolError> {
    use std::io::Read;
    let p = ws.resolve(path)?;
    let mut f = ws.open_file(&p)?;
    let mut s = String::new();
    f.file.read_to_string(&mut s).unwrap();
    Ok(s)
}

#[test]
fn relative_named_and_absolute_paths_resolve_in_the_root() {
    let f = fixture();
    assert_eq!(read_text(&f.ws, "src/main.rs").unwrap(), "fn main() {}\n");
    assert_eq!(
        read_text(&f.ws, "ws:src/main.rs").unwrap(),
        "fn main() {}\n"
    );
    assert_eq!(
        read_text(&f.ws, "./src/../src/main.rs").unwrap(),
        "fn main() {}\n"
    );
    let abs = f.base.join("ws/src/main.rs");
    assert_eq!(
        read_text(&f.ws, abs.to_str().unwrap()).unwrap(),
        "fn main() {}\n"
    );
    assert_eq!(f.ws.resolve("").unwrap().to_string(), ".");
    assert_eq!(f.ws.resolve("src//deep/").unwrap().to_string(), "src/deep");
}

#[test]
fn a_leading_home_directory_is_refused_and_a_tilde_further_down_is_a_name() {
    let f = fixture();
    for path in [
        "~",
        "~/x",
        "~user/x",
        "~user",
        "$HOME/x",
        "${HOME}/x",
        "${HOME}",
        "ws:~/x",
    ] {
        let err = f.ws.resolve(path).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::SecurityError, "{path}");
        assert!(
            err.message()
                .starts_with(&format!("path `{path}` is not allowed: `")),
            "{path}: {}",
            err.message()
        );
        assert!(
            err.message()
                .contains("paths are relative to a project root")
                && err.message().contains("`ws` ("),
            "{path}: {}",
            err.message()
        );
        assert!(
            err.suggestion()
                .unwrap_or_default()
                .contains("list_projects"),
            "{path}"
        );
    }
    for (path, rel) in [
        ("src/~backup", "src/~backup"),
        ("./~name", "~name"),
        ("ws:src/~x/~y", "src/~x/~y"),
        ("$HOMEWORK/x", "$HOMEWORK/x"),
        ("src/$HOME", "src/$HOME"),
    ] {
        let p =
            f.ws.resolve(path)
                .unwrap_or_else(|e| panic!("{path}: {}", e.message()));
        assert_eq!(p.relative(), std::path::Path::new(rel), "{path}");
    }
}

#[test]
fn escapes_are_refused_with_the_roots_named() {
    let f = fixture();
    let before = snapshot(&f.base.join("outside"));
    let evil = f.base.join("ws-evil/x.txt");
    let outside = f.base.join("outside/secret.txt");
    let attempts = [
        "../outside/secret.txt".to_owned(),
        "src/../../outside/secret.txt".to_owned(),
        "ws:../outside/secret.txt".to_owned(),
        outside.display().to_string(),
        evil.display().to_string(),
        format!("{}/../outside/secret.txt", f.base.join("ws").display()),
        "/etc/passwd".to_owned(),
        "src/main.rs\0.txt".to_owned(),
        "..".to_owned(),
    ];
    for path in &attempts {
        let err = read_text(&f.ws, path).expect_err(path);
        assert_eq!(err.kind(), ErrorKind::SecurityError, "{path}: {err:?}");
        assert!(
            err.message().contains("`ws` ("),
            "{path}: {}",
            err.message()
        );
        assert!(err.message().contains("list_projects"), "{}", err.message());
        assert!(!err.message().contains(SECRET));
    }
    assert_eq!(before, snapshot(&f.base.join("outside")));
}

#[test]
fn links_inside_the_root_work_and_links_out_are_refused() {
    let f = fixture();
    let ws_dir = f.base.join("ws");
    symlink("src/main.rs", ws_dir.join("to-main")).unwrap();
    symlink(ws_dir.join("src"), ws_dir.join("abs-src")).unwrap();
    symlink("to-main", ws_dir.join("chain")).unwrap();
    symlink("../outside/secret.txt", ws_dir.join("out-file")).unwrap();
    symlink(f.base.join("outside"), ws_dir.join("out-dir")).unwrap();
    symlink("out-file", ws_dir.join("chain-out")).unwrap();
    symlink("deep/../../../outside", ws_dir.join("src/sneaky")).unwrap();
    symlink("loop-b", ws_dir.join("loop-a")).unwrap();
    symlink("loop-a", ws_dir.join("loop-b")).unwrap();

    assert_eq!(read_text(&f.ws, "to-main").unwrap(), "fn main() {}\n");
    assert_eq!(
        read_text(&f.ws, "abs-src/main.rs").unwrap(),
        "fn main() {}\n"
    );
    assert_eq!(read_text(&f.ws, "chain").unwrap(), "fn main() {}\n");
    let canonical = f.ws.canonical(&f.ws.resolve("chain").unwrap()).unwrap();
    assert_eq!(canonical.to_string(), "src/main.rs");

    for path in [
        "out-file",
        "out-dir/secret.txt",
        "out-dir/dir/secret.txt",
        "chain-out",
        "src/sneaky/secret.txt",
        "loop-a",
    ] {
        let err = read_text(&f.ws, path).expect_err(path);
        assert_eq!(err.kind(), ErrorKind::SecurityError, "{path}: {err:?}");
    }
    let listed = f.ws.open_dir(&f.ws.resolve("out-dir").unwrap());
    assert_eq!(listed.unwrap_err().kind(), ErrorKind::SecurityError);
}

#[test]
fn writes_through_links_out_of_the_root_are_refused() {
    let f = fixture();
    let ws_dir = f.base.join("ws");
    symlink(f.base.join("outside/new.txt"), ws_dir.join("dangling-out")).unwrap();
    symlink("../outside/secret.txt", ws_dir.join("out-file")).unwrap();
    symlink(f.base.join("outside"), ws_dir.join("out-dir")).unwrap();
    let before = snapshot(&f.base.join("outside"));
    for path in [
        "dangling-out",
        "out-file",
        "out-dir/secret.txt",
        "out-dir/fresh.txt",
        "out-dir/sub/fresh.txt",
    ] {
        let p = f.ws.resolve(path).unwrap();
        let err =
            f.ws.write_file(&p, b"pwned", WriteOptions::any().create_parents(true))
                .expect_err(path);
        assert_eq!(err.kind(), ErrorKind::SecurityError, "{path}: {err:?}");
        let err = f.ws.remove_file(&p);
        if path != "dangling-out" && path != "out-file" {
            // Removing the link itself is fine; removing through it is not.
            assert!(err.is_err(), "{path}");
        }
    }
    assert_eq!(before, snapshot(&f.base.join("outside")));
}

#[test]
fn a_dangling_link_inside_the_root_is_written_through_to_its_target() {
    let f = fixture();
    let ws_dir = f.base.join("ws");
    symlink("src/later.txt", ws_dir.join("later")).unwrap();
    let p = f.ws.resolve("later").unwrap();
    let out = f.ws.write_file(&p, b"hi", WriteOptions::any()).unwrap();
    assert_eq!(out.path.to_string(), "src/later.txt");
    assert!(out.created);
    assert_eq!(
        fs::read_to_string(ws_dir.join("src/later.txt")).unwrap(),
        "hi"
    );
    assert!(
        fs::symlink_metadata(ws_dir.join("later"))
            .unwrap()
            .is_symlink()
    );
}

#[test]
fn protected_paths_are_never_written_and_not_read_by_default() {
    let f = fixture();
    for path in [
        ".git/config",
        ".env",
        ".git/hooks/pre-commit",
        ".env.local",
        "src/.env",
    ] {
        let p = f.ws.resolve(path).unwrap();
        let err =
            f.ws.write_file(&p, b"x", WriteOptions::any().create_parents(true))
                .expect_err(path);
        assert_eq!(err.kind(), ErrorKind::SecurityError, "{path}");
        assert!(err.message().contains("protected"), "{}", err.message());
    }
    assert_eq!(
        read_text(&f.ws, ".env").unwrap_err().kind(),
        ErrorKind::SecurityError
    );
    // A link to a protected file is judged by its target.
    symlink(".env", f.base.join("ws/innocent")).unwrap();
    assert_eq!(
        read_text(&f.ws, "innocent").unwrap_err().kind(),
        ErrorKind::SecurityError
    );
    let p = f.ws.resolve("innocent").unwrap();
    assert!(f.ws.write_file(&p, b"x", WriteOptions::any()).is_err());
    assert_eq!(
        fs::read_to_string(f.base.join("ws/.env")).unwrap(),
        "TOKEN=1\n"
    );

    let readable = Workspace::builder()
        .root("ws", f.base.join("ws"))
        .protected_readable(true)
        .build()
        .unwrap();
    assert_eq!(read_text(&readable, ".env").unwrap(), "TOKEN=1\n");
    let p = readable.resolve(".env").unwrap();
    assert!(readable.write_file(&p, b"x", WriteOptions::any()).is_err());
}

#[test]
fn read_only_roots_refuse_every_write() {
    let f = fixture();
    let ws = Workspace::builder()
        .root("ws", f.base.join("ws"))
        .read_only_root("docs", f.base.join("outside"))
        .build()
        .unwrap();
    assert_eq!(read_text(&ws, "docs:secret.txt").unwrap(), SECRET);
    let p = ws.resolve("docs:secret.txt").unwrap();
    assert_eq!(p.to_string(), "docs:secret.txt");
    let before = snapshot(&f.base.join("outside"));
    let err = ws.write_file(&p, b"x", WriteOptions::any()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::SecurityError);
    assert!(err.message().contains("read-only"), "{}", err.message());
    assert!(ws.remove_file(&p).is_err());
    assert!(ws.remove_dir_all(&ws.resolve("docs:dir").unwrap()).is_err());
    assert!(ws.create_dir_all(&ws.resolve("docs:new").unwrap()).is_err());
    // An absolute path into the read-only root resolves there, and is refused too.
    let abs = f.base.join("outside/secret.txt");
    let p = ws.resolve(abs.to_str().unwrap()).unwrap();
    assert_eq!(p.root(), 1);
    assert!(ws.write_file(&p, b"x", WriteOptions::any()).is_err());
    assert_eq!(before, snapshot(&f.base.join("outside")));
}

#[test]
fn a_link_from_one_root_into_another_is_refused() {
    let f = fixture();
    let ws = Workspace::builder()
        .root("ws", f.base.join("ws"))
        .read_only_root("docs", f.base.join("outside"))
        .build()
        .unwrap();
    symlink(f.base.join("outside/secret.txt"), f.base.join("ws/cross")).unwrap();
    let err = read_text(&ws, "cross").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::SecurityError);
}

#[test]
fn roots_are_never_removed_or_written() {
    let f = fixture();
    for path in ["", ".", "ws:", "src/.."] {
        let p = f.ws.resolve(path).unwrap();
        assert!(f.ws.remove_dir_all(&p).is_err(), "{path}");
        assert!(f.ws.write_file(&p, b"x", WriteOptions::any()).is_err());
    }
    assert!(f.base.join("ws/src/main.rs").exists());
}

#[test]
fn builder_errors_say_what_to_fix() {
    let tmp = tempfile::tempdir().unwrap();
    let msg = |b: tool_std::workspace::WorkspaceBuilder| b.build().unwrap_err().to_string();
    assert_eq!(
        msg(Workspace::builder()),
        "a workspace needs at least one root directory"
    );
    assert!(msg(Workspace::builder().root("a:b", tmp.path())).contains("holds no `:`"));
    assert!(
        msg(Workspace::builder()
            .root("a", tmp.path())
            .root("a", tmp.path()))
        .contains("two roots are named `a`")
    );
    assert!(
        msg(Workspace::builder().root("a", tmp.path().join("missing")))
            .starts_with("cannot open root directory")
    );
    assert!(
        msg(Workspace::builder().root("a", tmp.path()).protected(["[x"]))
            .contains("not a valid glob")
    );
}
