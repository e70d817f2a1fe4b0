//! A call's latency with the Postgres activity store against the in-memory store, side by
//! side in one run, and the records per second the Postgres writer sustains.
//!
//! The server is a throwaway cluster (`testing::postgres`, or a fresh database on the server
//! `TOOLSMITH_TEST_POSTGRES` names), on this machine's loopback. Latency: one session making
//! calls one after another (`echo`, a small result), timed per call; the writes are off the
//! call's path, so the ratio shows what queueing a change costs a call. Sustained: 10,000
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

/// `SEQUENTIAL` calls one after another on one session: the time per call.
async fn latency(rt: &Runtime) -> Duration {
    let s = rt.session();
    let start = Instant::now();
    for i in 0..SEQUENTIAL {
        assert!(s.call(echo(i.to_string())).await.is_success());
    }
    start.elapsed() / SEQUENTIAL as u32
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
    for (name, rt) in [("call_memory", &memory), ("call_postgres", &shared)] {
        g.bench_function(name, |b| {
            b.iter_custom(|iters| {
                tokio.block_on(async {
                    let s = rt.session();
                    let start = Instant::now();
                    for i in 0..iters {
                        assert!(s.call(echo(i.to_string())).await.is_success());
                    }
                    start.elapsed()
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
}

criterion_group!(benches, bench);
criterion_main!(benches);
