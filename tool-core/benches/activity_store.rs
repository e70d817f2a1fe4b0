//! 10,000 calls through the SQLite activity store against the in-memory store, side by side
//! in one run: the calls go through a runtime, four sessions at once, on the same tool
//! (`echo`, a small result).
//!
//! Two SQLite figures: the call rate as callers see it (the writes are off the call's path,
//! on the store's writer thread; the round's flush waits outside the timing, so a round
//! starts with the queue empty), and the rate sustained to the file (the flush timed too,
//! so every record of the round is on disk). Besides criterion's figures, prints the medians
//! of interleaved rounds, both ratios against the in-memory store, the changes dropped
//! (which should be none) and the file's size against its limit.

#[path = "../tests/activity_common/mod.rs"]
mod activity_common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use tool_core::{ActivityStore, InMemoryActivityStore, Registry, Runtime, ToolCall};
use tool_core::{SqliteActivityConfig, SqliteActivityStore};

const CALLS: usize = 10_000;
const SESSIONS: usize = 4;
/// The size limit of the benchmark's store.
const MAX_BYTES: u64 = 32 << 20;

fn runtime(store: Arc<dyn ActivityStore>) -> Runtime {
    let registry = Registry::builder()
        .register(activity_common::Echo)
        .build()
        .expect("registry");
    Runtime::builder(registry)
        .activity_store(store)
        .dedupe(false)
        .build()
}

async fn calls(rt: &Runtime) {
    let mut tasks = Vec::new();
    for k in 0..SESSIONS {
        let s = rt.session();
        tasks.push(tokio::spawn(async move {
            for i in 0..CALLS / SESSIONS {
                let call = ToolCall::new(
                    format!("{k}-{i}"),
                    "echo",
                    r#"{"text": "a line of output, as a tool might answer"}"#,
                );
                assert!(s.call(call).await.is_success());
            }
        }));
    }
    for t in tasks {
        t.await.expect("caller");
    }
}

/// One round: the calls, then (for SQLite) the flush, timed when `sustained`.
async fn round(rt: &Runtime, sqlite: Option<&SqliteActivityStore>, sustained: bool) -> Duration {
    let start = Instant::now();
    calls(rt).await;
    let calls_done = start.elapsed();
    if let Some(store) = sqlite {
        store.flush().await;
    }
    if sustained {
        start.elapsed()
    } else {
        calls_done
    }
}

fn bench(c: &mut Criterion) {
    let tokio = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio");
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("activity.db");
    let sqlite =
        SqliteActivityStore::open(&path, SqliteActivityConfig::default().max_bytes(MAX_BYTES))
            .expect("store");
    let memory = runtime(Arc::new(InMemoryActivityStore::new()));
    let on_disk = runtime(Arc::new(sqlite.clone()));

    let mut g = c.benchmark_group("activity_store");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    g.throughput(criterion::Throughput::Elements(CALLS as u64));
    g.bench_function("10000_calls_memory", |b| {
        b.iter_custom(|iters| {
            tokio.block_on(async {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    total += round(&memory, None, false).await;
                }
                total
            })
        })
    });
    for (name, sustained) in [
        ("10000_calls_sqlite", false),
        ("10000_calls_sqlite_flushed", true),
    ] {
        g.bench_function(name, |b| {
            b.iter_custom(|iters| {
                tokio.block_on(async {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        total += round(&on_disk, Some(&sqlite), sustained).await;
                    }
                    total
                })
            })
        });
    }
    g.finish();

    // Interleaved rounds, the figure the issue asks for.
    let (mut mem, mut disk, mut flushed) = (Vec::new(), Vec::new(), Vec::new());
    tokio.block_on(async {
        for _ in 0..9 {
            mem.push(round(&memory, None, false).await.as_secs_f64());
            disk.push(round(&on_disk, Some(&sqlite), false).await.as_secs_f64());
            flushed.push(round(&on_disk, Some(&sqlite), true).await.as_secs_f64());
        }
    });
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (m, d, f) = (median(&mut mem), median(&mut disk), median(&mut flushed));
    let (rate_mem, rate_disk, rate_flushed) =
        (CALLS as f64 / m, CALLS as f64 / d, CALLS as f64 / f);
    let stats = sqlite.stats();
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    println!(
        "activity store: {rate_mem:.0} calls/s in memory, {rate_disk:.0} calls/s with SQLite \
         as callers see it (ratio {:.3}), {rate_flushed:.0} calls/s sustained to the file \
         (ratio {:.3}); {} changes dropped, {} records evicted; file {size} bytes (limit \
         {MAX_BYTES})",
        rate_disk / rate_mem,
        rate_flushed / rate_mem,
        stats.dropped,
        stats.evicted,
    );
    assert!(size <= MAX_BYTES, "the file is over its limit");
}

criterion_group!(benches, bench);
criterion_main!(benches);
