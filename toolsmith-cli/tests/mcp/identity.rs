//! The agent `prompt_manager` acts on comes from the server's configuration (`--agent`), never
//! from a connection: under 2025-11-25 and 2026-07-28 every request of a connection edits the
//! configured agent, and after the model renames it, the next start under the old name finds
//! the renamed agent (with its prompts) instead of a new empty one, and says so on stderr.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::stdio::{StdioServe, Version, text_of};

/// Starts `toolsmith --agent Sage serve` in `dir`, makes the `prompt_manager` calls on one
/// connection and stops the server; the answers' texts and what the server wrote to stderr.
fn prompt_manager(
    dir: &std::path::Path,
    version: Version,
    calls: &[Value],
) -> (Vec<String>, String) {
    let root = dir.to_str().expect("utf-8");
    let mut server = StdioServe::start(dir, &["--root", root, "--agent", "Sage"]);
    server.send(version.prelude());
    let mut texts = Vec::new();
    // One call at a time: requests in flight together run concurrently.
    for (i, arguments) in calls.iter().enumerate() {
        let params = json!({"name": "prompt_manager", "arguments": arguments});
        let answer = server.ask(version.request(&json!(i), "tools/call", params));
        assert_ne!(answer["result"]["isError"], true, "{answer}");
        texts.push(text_of(&answer));
    }
    let stderr = server.stderr();
    assert!(server.close(Duration::from_secs(10)), "clean exit");
    (texts, stderr)
}

fn renamed_agent_is_found_under_its_configured_name(version: Version) {
    let dir = tempfile::tempdir().expect("dir");
    let (first, stderr) = prompt_manager(
        dir.path(),
        version,
        &[
            json!({"action": "update", "prompt_type": "system", "content": "Be brief."}),
            json!({"action": "update", "prompt_type": "name", "content": "Owl"}),
            json!({"action": "view", "prompt_type": "system"}),
        ],
    );
    // The rename applies to the agent the server was configured with, on every request.
    assert!(first[1].contains("Owl"), "{}", first[1]);
    assert!(
        first[2].contains("Be brief.") && first[2].contains("Owl"),
        "{}",
        first[2]
    );
    assert!(!stderr.contains("renamed"), "{stderr}");

    // The next start, still configured with `--agent Sage`.
    let (second, stderr) = prompt_manager(
        dir.path(),
        version,
        &[json!({"action": "view", "prompt_type": "system"})],
    );
    assert!(
        second[0].contains("Be brief."),
        "the same agent: {}",
        second[0]
    );
    assert!(second[0].contains("Owl"), "{}", second[0]);
    assert!(
        stderr.contains("agent `Sage` was renamed to `Owl`"),
        "stderr says so: {stderr}"
    );
}

#[test]
fn a_renamed_agent_is_found_under_its_configured_name_under_2025_11_25() {
    renamed_agent_is_found_under_its_configured_name(Version::V2025);
}

#[test]
fn a_renamed_agent_is_found_under_its_configured_name_under_2026_07_28() {
    renamed_agent_is_found_under_its_configured_name(Version::V2026);
}
