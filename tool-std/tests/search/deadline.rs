//! No pattern can hang the agent: a slow pattern over many large files stops a little before
//! the call's deadline, inside a file if need be, and answers with what it found, saying so;
//! the tool's threads end with it, as they do when the caller abandons the call.

use std::time::{Duration, Instant};

use serde_json::json;
use tool_std::search::SearchConfig;

use crate::support::alone;
use crate::support::search::Fixture;

/// Counted repetitions of a large Unicode class, ending in a class no line has: within the
/// size limit, and slow (a lazy DFA that keeps thrashing its cache), with no literal a
/// prefilter could skip the text with. It finds nothing in [`words`].
const SLOW: &str = r"(?:\w+\s+){20}\d";

/// How much text the slow searches get, in files just under the 1 MB a searched file may
/// have: enough that the whole search takes several times the 400 ms deadline on a fast
/// machine (on a 2-core AMD EPYC, 40 of these files took 385 ms; all of them about 2.3 s).
const FILES: usize = 240;
const FILE_BYTES: usize = 1_000_000;

/// Text on which [`SLOW`] is slow: long runs of words, no digit.
fn words(n: usize) -> String {
    let mut s = String::with_capacity(n + 64);
    let mut i = 0u64;
    while s.len() < n {
        i = i
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let w =
            ["alpha", "béta", "gamma", "δelta", "epsilon", "zeta", "eta"][(i >> 60) as usize % 7];
        s.push_str(w);
        s.push(if (i >> 40).is_multiple_of(13) {
            '\n'
        } else {
            ' '
        });
    }
    s
}

/// Writes the [`FILES`] files of [`words`] that [`SLOW`] is slow on.
fn write_slow_corpus(f: &Fixture) {
    let text = words(FILE_BYTES);
    for i in 0..FILES {
        f.write(&format!("f{i:03}.txt"), &text);
    }
}

#[tokio::test]
async fn a_slow_pattern_stops_at_the_deadline_with_partial_results() {
    let f = Fixture::with(SearchConfig::default(), Some(Duration::from_millis(400)));
    write_slow_corpus(&f);
    let started = Instant::now();
    let (v, summary) = f.call_summary("grep", json!({"pattern": SLOW})).await;
    let took = started.elapsed();
    assert!(took < Duration::from_secs(5), "took {took:?}: {v}");
    eprintln!("answered in {took:?}: {summary}");
    assert_eq!(v["type"], "grep_results", "{v}");
    assert_eq!(v["exact"], false, "{v}");
    let why = v["interrupted"].as_str().unwrap();
    assert!(why.contains("deadline"), "{v}");
    // The worker threads stopped with the call: a quick call right after is quick.
    let started = Instant::now();
    f.write("small.txt", "quick\n");
    let v = f
        .call("grep", json!({"pattern": "quick", "path": "small.txt"}))
        .await;
    assert_eq!(v["total_matches"], 1, "{v}");
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[tokio::test]
async fn a_huge_regex_is_refused_before_it_runs() {
    let f = Fixture::new();
    f.write("a.txt", "aaaa\n");
    let started = Instant::now();
    let v = f
        .call("grep", json!({"pattern": r"\w{2000}\w{2000}"}))
        .await;
    assert_eq!(v["error_type"], "validation_error", "{v}");
    assert!(v["error"].as_str().unwrap().contains("too large"), "{v}");
    assert!(started.elapsed() < Duration::from_secs(5));
}

/// CPU time this process has used (user + system), from `/proc/self/stat`.
fn cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

#[tokio::test]
async fn an_abandoned_call_stops_its_search_threads() {
    // The process's CPU time is measured: the test runs alone in a process of its own, so no
    // other test's work counts.
    if !alone(
        module_path!(),
        "an_abandoned_call_stops_its_search_threads",
        &[],
    ) {
        return;
    }
    // No deadline: the call is dropped by its caller, which cancels it.
    let f = Fixture::with(SearchConfig::default(), Some(Duration::from_secs(600)));
    write_slow_corpus(&f);
    let call = f.call("grep", json!({"pattern": SLOW}));
    assert!(
        tokio::time::timeout(Duration::from_millis(300), call)
            .await
            .is_err(),
        "the slow search finished at once"
    );
    // Give the watchdog a moment, then the process must be (nearly) idle.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (Some(before), started) = (cpu_time(), Instant::now()) else {
        return;
    };
    tokio::time::sleep(Duration::from_millis(800)).await;
    let used = cpu_time().unwrap() - before;
    let wall = started.elapsed();
    assert!(
        used < wall / 2,
        "{used:?} of CPU in {wall:?}: the search went on"
    );
}
