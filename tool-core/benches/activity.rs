//! The call rate while the activity page watches: no event-stream client against ten, side by
//! side in one run. Each call emits 10 events (START, 8 chunks, END); each client drains its
//! `/activity/events` stream over loopback TCP.
//!
//! Besides criterion's figures, prints the rates of interleaved rounds and their ratio
//! (`ten / none`, which should be at least 0.9).

#[path = "../tests/activity_common/mod.rs"]
mod activity_common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tool_core::http::activity::{Activity, ActivityConfig};
use tool_core::{Runtime, ToolCall};

const CALLS_PER_ROUND: usize = 400;
const SESSIONS: usize = 4;

async fn calls(rt: &Runtime, n: usize) {
    let mut tasks = Vec::new();
    for k in 0..SESSIONS {
        let s = rt.session();
        tasks.push(tokio::spawn(async move {
            for i in 0..n / SESSIONS {
                let call = ToolCall::new(format!("{k}-{i}"), "chunks", r#"{"n": 8, "size": 64}"#);
                assert!(s.call(call).await.is_success());
            }
        }));
    }
    for t in tasks {
        t.await.expect("caller");
    }
}

/// Opens `n` event streams that read and discard everything; returns once each has its
/// first bytes.
async fn drainers(addr: SocketAddr, n: usize) -> Vec<tokio::task::JoinHandle<()>> {
    let mut out = Vec::new();
    for _ in 0..n {
        let mut s = tokio::net::TcpStream::connect(addr).await.expect("connect");
        s.write_all(b"GET /activity/events HTTP/1.0\r\nHost: x\r\n\r\n")
            .await
            .expect("send");
        let mut buf = vec![0u8; 64 << 10];
        let got = s.read(&mut buf).await.expect("first bytes");
        assert!(got > 0);
        out.push(tokio::spawn(async move {
            while let Ok(n) = s.read(&mut buf).await {
                if n == 0 {
                    break;
                }
            }
        }));
    }
    out
}

async fn round(rt: &Runtime, addr: SocketAddr, clients: usize) -> Duration {
    let readers = drainers(addr, clients).await;
    let start = Instant::now();
    calls(rt, CALLS_PER_ROUND).await;
    let took = start.elapsed();
    for r in readers {
        r.abort();
    }
    took
}

fn bench(c: &mut Criterion) {
    let tokio = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio");
    let (rt, addr, _activity) = tokio.block_on(async {
        let (rt, _) = activity_common::runtime();
        let activity = Activity::with_config(&rt, ActivityConfig::default()).expect("activity");
        let app: axum::Router = activity.router();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move { axum::serve(listener, app).await });
        (rt, addr, activity)
    });

    let mut g = c.benchmark_group("activity_calls");
    g.sample_size(10).measurement_time(Duration::from_secs(8));
    for clients in [0usize, 10] {
        g.bench_function(
            format!("{CALLS_PER_ROUND}_calls_{clients}_subscribers"),
            |b| {
                b.iter_custom(|iters| {
                    tokio.block_on(async {
                        let mut total = Duration::ZERO;
                        for _ in 0..iters {
                            total += round(&rt, addr, clients).await;
                        }
                        total
                    })
                })
            },
        );
    }
    g.finish();

    // Interleaved rounds, the figure the activity issue asks for.
    let (mut none, mut ten) = (Vec::new(), Vec::new());
    tokio.block_on(async {
        for _ in 0..9 {
            none.push(round(&rt, addr, 0).await.as_secs_f64());
            ten.push(round(&rt, addr, 10).await.as_secs_f64());
        }
    });
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (n, t) = (median(&mut none), median(&mut ten));
    let (rate_none, rate_ten) = (CALLS_PER_ROUND as f64 / n, CALLS_PER_ROUND as f64 / t);
    println!(
        "activity call rate: {rate_none:.0} calls/s with no subscriber, {rate_ten:.0} calls/s \
         with 10 subscribers (10 events per call); ratio {:.3}",
        rate_ten / rate_none
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
