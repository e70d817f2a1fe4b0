//! Ordinary work still runs inside the sandbox: git in the root (status, commit), cargo,
//! python, make, the call's `$TMPDIR`, pipes and background jobs.

use crate::support::sandbox::{Escape, git, have};

#[tokio::test]
async fn git_status_and_commit_work_in_the_root() {
    let e = Escape::new();
    let out = e
        .run(
            "echo change >> file.txt && git status --short && git add file.txt && \
             git -c user.name=t -c user.email=t@example.com commit -qm second && \
             git log --oneline | wc -l",
        )
        .await;
    assert_eq!(out["output"], " M file.txt\n2\n", "{out}");
    assert!(
        git(&e.ws, &["diff", "--quiet", "HEAD"]),
        "the commit is in the repository"
    );
}

#[tokio::test]
async fn cargo_python_and_make_run() {
    let e = Escape::new();
    if have("cargo") {
        let out = e.run("cargo --version").await;
        assert!(
            out["output"].as_str().unwrap().starts_with("cargo "),
            "{out}"
        );
    }
    if have("python3") {
        let out = e.run("python3 -c 'print(6 * 7)'").await;
        assert_eq!(out["output"], "42\n", "{out}");
    }
    if have("make") {
        std::fs::write(
            e.ws.join("Makefile"),
            "out.txt: file.txt\n\tcp file.txt out.txt\n\techo built\n",
        )
        .unwrap();
        let out = e.run("make -s").await;
        assert_eq!(out["output"], "built\n", "{out}");
        assert!(e.ws.join("out.txt").exists());
    }
}

#[tokio::test]
async fn tmpdir_pipes_and_background_jobs_work() {
    let e = Escape::new();
    let out = e
        .run(
            "echo scratch > \"$TMPDIR/a\" && cat \"$TMPDIR/a\"; \
             t=$(mktemp) && echo mk > \"$t\" && cat \"$t\"; \
             seq 1 100 | grep 5 | wc -l; \
             (sleep 0.2; echo background) & echo foreground; wait",
        )
        .await;
    assert_eq!(
        out["output"], "scratch\nmk\n19\nforeground\nbackground\n",
        "{out}"
    );
}

#[tokio::test]
async fn a_command_speaking_like_the_helper_is_answered_as_it_ran() {
    let e = Escape::new();
    // The helper's own failure is its exit code and the prefix on stderr; a command confined
    // from a thread that says the same did run, and its answer says so.
    let out = e
        .run("echo ran > ran.txt; echo 'toolsmith sandbox: made up' >&2; exit 125")
        .await;
    assert_eq!(out["type"], "command_result", "{out}");
    assert_eq!(out["return_code"], 125, "{out}");
    assert!(e.ws.join("ran.txt").exists());
}
