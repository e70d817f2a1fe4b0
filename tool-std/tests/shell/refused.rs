//! Every command of the refused list is answered with a `security_error` and a suggestion,
//! and nothing runs. Nothing destructive is ever at risk here: each example is prefixed with
//! a harmless `touch`, and the file it would make shows whether any of the line ran.

use serde_json::json;
use tool_std::shell::REFUSED;

use crate::support::shell::Fixture;

#[tokio::test]
async fn every_refused_pattern_is_answered_with_a_security_error_and_runs_nothing() {
    let f = Fixture::new();
    let mut checked = 0;
    for pattern in REFUSED {
        assert!(
            !pattern.examples.is_empty(),
            "{} has examples",
            pattern.name
        );
        for example in pattern.examples {
            let command = format!("touch ran.txt; {example}");
            let out = f.call(json!({ "command": command })).await;
            assert_eq!(out["error_type"], "security_error", "{example}: {out}");
            let rule = out["rule"].as_str().unwrap();
            assert!(
                rule == pattern.name
                    || (example.contains("sudo") && rule == "privilege_escalation"),
                "{example}: refused by {rule}, expected {}",
                pattern.name
            );
            assert!(
                out["suggestion"].as_str().is_some_and(|s| !s.is_empty()),
                "{out}"
            );
            assert!(
                out["error"]
                    .as_str()
                    .unwrap()
                    .contains("refused before running"),
                "{out}"
            );
            assert!(!f.exists("ran.txt"), "{example} ran");
            checked += 1;
        }
    }
    assert!(checked >= 30, "{checked}");
}

#[tokio::test]
async fn the_list_names_what_the_issue_asks_for() {
    let names: Vec<&str> = REFUSED.iter().map(|p| p.name).collect();
    for rule in [
        "recursive_delete_of_root_or_home",
        "fork_bomb",
        "make_filesystem",
        "write_to_block_device",
        "download_piped_to_shell",
        "privilege_escalation",
        "shutdown_or_reboot",
    ] {
        assert!(names.contains(&rule), "{rule}");
    }
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), names.len());
}

#[tokio::test]
async fn look_alikes_run() {
    let f = Fixture::new();
    for (command, output) in [
        ("mkdir -p build/x && rm -rf ./build && echo gone", "gone\n"),
        ("echo 'sudo rm -rf /' | wc -l", "1\n"),
        ("echo reboot", "reboot\n"),
        ("echo x > /dev/null && echo ok", "ok\n"),
    ] {
        let out = f.call(json!({ "command": command })).await;
        assert_eq!(out["output"], output, "{command}: {out}");
    }
}
