//! Memory stays bounded whatever a command prints: the peak resident size of this test
//! process grows by far less than the output it reads. (The test runs alone in a process of
//! its own, so no other test moves the peak.)

use serde_json::json;

use crate::support::alone;
use crate::support::shell::Fixture;

/// The peak resident set of this process, in bytes (`VmHWM` of /proc/self/status).
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .expect("VmHWM");
    let kb: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("a number");
    kb * 1024
}

#[tokio::test]
async fn a_hundred_megabytes_of_output_keep_memory_bounded() {
    if !alone(
        module_path!(),
        "a_hundred_megabytes_of_output_keep_memory_bounded",
        &[],
    ) {
        return;
    }
    let f = Fixture::new();
    // Warm up: the runtime, the registry, the first spawn.
    let out = f.call(json!({"command": "echo warm"})).await;
    assert_eq!(out["output"], "warm\n");
    let before = peak_rss();
    // 64 MB in one line, then 36 MB in lines of 100 bytes.
    let out = f
        .call(json!({
            "command": "head -c 64000000 /dev/zero | tr '\\0' a; echo; \
                        yes 0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789 | head -c 36000000",
            "timeout": 60
        }))
        .await;
    assert_eq!(out["status"], "exited", "{out}");
    assert!(out["output_lines"].as_u64().unwrap() > 350_000);
    assert!(out["output"].as_str().unwrap().len() <= 31_000);
    let grown = peak_rss().saturating_sub(before);
    assert!(
        grown < 24 * 1024 * 1024,
        "the peak grew by {} MB reading 100 MB",
        grown / (1024 * 1024)
    );
}
