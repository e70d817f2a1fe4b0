//! `toolsmith call` on a terminal asks y/N on stderr for a call that needs approval: `y` runs
//! it, anything else does not. The terminal is a real pseudo-terminal (`script`).

use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `toolsmith ARGS` under `script` (a pseudo-terminal), typing `answer`; `None` when
/// `script` is not installed.
fn on_a_terminal(dir: &std::path::Path, args: &[&str], answer: &str) -> Option<(i32, String)> {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: `script` (util-linux) is not installed; .ci/run installs it");
        return None;
    }
    let mut line = shell_quote(env!("CARGO_BIN_EXE_toolsmith"));
    for a in args {
        line.push(' ');
        line.push_str(&shell_quote(a));
    }
    let mut child = Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .current_dir(dir)
        .env_remove("SEARXNG_URL")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("script");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(answer.as_bytes())
        .expect("type");
    let out = child.wait_with_output().expect("wait");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    Some((out.status.code().unwrap_or(-1), text))
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

#[test]
fn the_terminal_is_asked_and_its_answer_holds() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().to_str().expect("utf-8").to_owned();
    let call = |file: &str, answer: &str| {
        let command = format!(r#"{{"command": "touch {file}"}}"#);
        let args = [
            "--root",
            &root,
            "--bash-sandbox",
            "off",
            "call",
            "bash",
            &command,
        ];
        on_a_terminal(dir.path(), &args, answer)
    };
    let Some((code, screen)) = call("yes.txt", "y\n") else {
        return;
    };
    assert!(screen.contains("Allow this call? [y/N]"), "{screen}");
    assert!(
        screen.contains("`bash`'s declaration (requires_approval)"),
        "{screen}"
    );
    assert_eq!(code, 0, "{screen}");
    assert!(dir.path().join("yes.txt").exists());
    let (code, screen) = call("no.txt", "n\n").expect("script");
    assert_eq!(code, 1, "{screen}");
    assert!(
        screen.contains("the user declined it at the terminal"),
        "{screen}"
    );
    assert!(!dir.path().join("no.txt").exists());
    // Enter alone is no.
    let (code, _) = call("enter.txt", "\n").expect("script");
    assert_eq!(code, 1);
    assert!(!dir.path().join("enter.txt").exists());
}
