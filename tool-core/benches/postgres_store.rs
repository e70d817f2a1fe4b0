//! A call's latency with the Postgres activity store against the in-memory store, side by
//! side in one run, and the records per second the Postgres writer sustains.
//!
//! The server is a throwaway cluster (`testing::postgres`, or a fresh database on the server
//! `TOOLSMITH_TEST_POSTGRES` names), on this machine's loopback. Latency: one session making
//! calls one after another (`echo`, a small result), timed per call; the writes are off the
//! call's path, so the ratio shows what queueing a change costs a call (the writer is let
//! catch up every 1,000 calls, untimed: past its queue it would drop changes, which the
//! benchmark refuses). Sustained: 10,000
//! calls from four sessions, timed until the writer has committed every record (its flush
//! answered with nothing held). Besides criterion's figures, prints the medians of
//! interleaved rounds, the latency ratio (aim: 1.05x or less) and the sustained rate.
//!
//! `cargo bench -p tool-core --features postgres,testing,http --bench postgres_store`

#[path = "../tests/activity_common/mod.rs"]
mod activity_common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use tool_core::postgres::{
    PostgresActivityConfig, PostgresActivityStore, PostgresConfig, PostgresStore,
};
use tool_core::testing::postgres::TestDatabase;
use tool_core::{ActivityStore, InMemoryActivityStore, Registry, Runtime, ToolCall};

const SEQUENTIAL: usize = 1_000;
const CALLS: usize = 10_000;
const SESSIONS: usize = 4;

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

fn echo(id: String) -> ToolCall {
    ToolCall::new(
        id,
        "echo",
        r#"{"text": "a line of output, as a tool might answer"}"#,
    )
}

/// `SEQUENTIAL` calls one after another on one session: the median time of a call.
async fn latency(rt: &Runtime) -> Duration {
    let s = rt.session();
    let mut times = Vec::with_capacity(SEQUENTIAL);
    for i in 0..SEQUENTIAL {
        let start = Instant::now();
        assert!(s.call(echo(i.to_string())).await.is_success());
        times.push(start.elapsed());
    }
    times.sort();
    times[times.len() / 2]
}

/// `CALLS` calls from `SESSIONS` sessions, then (with a store) its flush: the whole time.
async fn sustained(rt: &Runtime, store: Option<&PostgresActivityStore>) -> Duration {
    let start = Instant::now();
    let mut tasks = Vec::new();
    for k in 0..SESSIONS {
        let s = rt.session();
        tasks.push(tokio::spawn(async move {
            for i in 0..CALLS / SESSIONS {
                assert!(s.call(echo(format!("{k}-{i}"))).await.is_success());
            }
        }));
    }
    for t in tasks {
        t.await.expect("caller");
    }
    if let Some(store) = store {
        store.flush().await;
        assert_eq!(store.stats().held, 0, "the writer fell behind the server");
    }
    start.elapsed()
}

fn bench(c: &mut Criterion) {
    let tokio = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio");
    let db = match tokio.block_on(TestDatabase::create()) {
        Ok(db) => db,
        Err(why) => {
            eprintln!("postgres_store: skipped: {why}");
            return;
        }
    };
    let pg = tokio.block_on(async {
        let store = PostgresStore::connect(db.url(), PostgresConfig::default())
            .await
            .expect("connects");
        store.activity(PostgresActivityConfig::default())
    });
    let memory = runtime(Arc::new(InMemoryActivityStore::new()));
    let shared = runtime(Arc::new(pg.clone()));

    let mut g = c.benchmark_group("postgres_store");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    // Timed call by call; every 1,000 calls the writer is let catch up, untimed, so that the
    // figure is a call's while the writer keeps up (past its queue it would drop changes).
    for (name, rt, store) in [
        ("call_memory", &memory, None),
        ("call_postgres", &shared, Some(&pg)),
    ] {
        g.bench_function(name, |b| {
            b.iter_custom(|iters| {
                tokio.block_on(async {
                    let s = rt.session();
                    let mut total = Duration::ZERO;
                    for i in 0..iters {
                        if i % 1_000 == 999
                            && let Some(store) = store
                        {
                            store.flush().await;
                        }
                        let start = Instant::now();
                        assert!(s.call(echo(i.to_string())).await.is_success());
                        total += start.elapsed();
                    }
                    total
                })
            })
        });
    }
    g.finish();

    // Interleaved rounds, the figures the issue asks for.
    let (mut mem, mut post, mut rates) = (Vec::new(), Vec::new(), Vec::new());
    tokio.block_on(async {
        pg.flush().await;
        for _ in 0..7 {
            mem.push(latency(&memory).await.as_secs_f64());
            post.push(latency(&shared).await.as_secs_f64());
            pg.flush().await;
        }
        for _ in 0..3 {
            let took = sustained(&shared, Some(&pg)).await;
            rates.push(CALLS as f64 / took.as_secs_f64());
        }
    });
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (m, p, r) = (median(&mut mem), median(&mut post), median(&mut rates));
    let stats = pg.stats();
    println!(
        "postgres store: a call takes {:.1} µs in memory, {:.1} µs with Postgres (ratio \
         {:.3}); the writer sustains {r:.0} records/s (10,000 calls from 4 sessions, committed); \
         {} batches, {} changes dropped",
        m * 1e6,
        p * 1e6,
        p / m,
        stats.batches,
        stats.dropped,
    );
    assert_eq!(stats.dropped, 0, "the writer dropped changes");
}

criterion_group!(benches, bench);
criterion_main!(benches);
