//! Fail closed: where the sandbox is unavailable (forced here with the test switch
//! `TOOLSMITH_SANDBOX_FORCE_UNAVAILABLE`, or a helper that cannot restrict anything) `bash`
//! refuses, says why and names the opt-out, and runs nothing; with the sandbox off it runs.

use serde_json::Value;
use tool_std::shell::ShellConfig;
use tool_std::shell::sandbox::{FORCE_UNAVAILABLE_ENV, SandboxMode};

use crate::support::alone;
use crate::support::sandbox::Escape;

fn assert_refused(out: &Value, why: &str) {
    assert_eq!(out["error_type"], "security_error", "{out}");
    let error = out["error"].as_str().unwrap();
    assert!(error.contains(why), "{out}");
    assert!(
        error.contains("no command was run") || error.contains("not run"),
        "{out}"
    );
    assert!(
        out["suggestion"]
            .as_str()
            .unwrap()
            .contains("--bash-sandbox off"),
        "{out}"
    );
}

async fn child() {
    let mut e = Escape::new();
    let out = e.run("touch ran.txt").await;
    assert_refused(&out, "no kernel support (test)");
    assert_eq!(out["sandbox"], "unavailable", "{out}");
    assert!(!e.ws.join("ran.txt").exists());
    let mut config = ShellConfig::default();
    assert!(!config.sandbox.status().available);
    config.sandbox.mode = SandboxMode::Off;
    assert!(!config.runs_sandboxed());
    e.configure(config);
    let out = e.run("touch ran.txt && echo ran").await;
    assert_eq!(out["output"], "ran\n", "the opt-out runs it: {out}");
}

#[test]
fn an_unavailable_sandbox_refuses_and_names_the_opt_out() {
    let name = "an_unavailable_sandbox_refuses_and_names_the_opt_out";
    if alone(
        module_path!(),
        name,
        &[(FORCE_UNAVAILABLE_ENV, "no kernel support (test)")],
    ) {
        tokio::runtime::Runtime::new().unwrap().block_on(child());
    }
}

#[tokio::test]
async fn a_helper_that_cannot_sandbox_refuses() {
    let mut config = ShellConfig::default();
    // A program that is not the helper: the probe finds it does not answer as one.
    config.sandbox.helper = Some("/bin/true".into());
    let e = Escape::with(config);
    let out = e.run("touch ran.txt").await;
    assert_refused(&out, "/bin/true");
    assert!(!e.ws.join("ran.txt").exists());
    let mut config = ShellConfig::default();
    config.sandbox.helper = Some("/nonexistent/helper".into());
    let status = config.sandbox.status();
    assert!(!status.available);
    assert!(
        status.to_string().contains("--bash-sandbox off"),
        "{status}"
    );
}
