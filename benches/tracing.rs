//! What the call spans cost: one call through the whole `Session::call` path, side by side in
//! the same run, with
//!
//! - `no_subscriber`: nothing installed (a library user who does not trace);
//! - `subscriber_drops_all`: a `tracing-subscriber` registry whose filter turns everything
//!   off;
//! - `otel_batched`: the OpenTelemetry layer with the SDK's batch processor, every span made,
//!   attributed and queued (its exporter discards the batches, so the network is not
//!   measured);
//! - `otel_batched_content`: the same with arguments and results recorded
//!   (`RuntimeBuilder::trace_content`).
//!
//! Run: `cargo bench --bench tracing`. Prints each case's time per call (the best of
//! interleaved batches) and its ratio to `no_subscriber`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{SdkTracerProvider, SpanData, SpanExporter};
use toolsmith::{Render, Runtime, ToolCall, ToolError, tool};
use tracing::Dispatch;
use tracing_subscriber::layer::SubscriberExt;

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Found {
    pattern: String,
    count: u32,
}

impl Render for Found {}

/// Search.
#[tool(name = "grep_bench", read_only, register = false)]
async fn grep_bench(
    /// The pattern.
    pattern: String,
    /// The most results.
    max_results: u32,
) -> Result<Found, ToolError> {
    Ok(Found {
        pattern,
        count: max_results,
    })
}

const ARGS: &str = r#"{"pattern":"fn main","max_results":50}"#;

/// An exporter that drops what it is given.
#[derive(Debug)]
struct Discard;

impl SpanExporter for Discard {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        black_box(batch);
        Ok(())
    }
}

fn runtime(content: bool) -> Runtime {
    let registry = toolsmith::Registry::builder()
        .register(GrepBenchTool)
        .build()
        .expect("registry");
    Runtime::builder(registry)
        .dedupe(false)
        .trace_content(content)
        .build()
}

fn otel(provider: &SdkTracerProvider) -> Dispatch {
    let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("bench"));
    Dispatch::new(tracing_subscriber::registry().with(layer))
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(Discard)
        .build();
    let off = Dispatch::new(
        tracing_subscriber::registry().with(tracing_subscriber::filter::LevelFilter::OFF),
    );
    let cases: Vec<(&str, Option<Dispatch>, bool)> = vec![
        ("no_subscriber", None, false),
        ("subscriber_drops_all", Some(off), false),
        ("otel_batched", Some(otel(&provider)), false),
        ("otel_batched_content", Some(otel(&provider)), true),
    ];
    let sessions: Vec<_> = cases
        .iter()
        .map(|(_, _, c)| runtime(*c).session())
        .collect();
    let one = |i: usize| {
        let call = || {
            let outcome = rt.block_on(sessions[i].call(ToolCall::new("1", "grep_bench", ARGS)));
            black_box(outcome.to_json_string());
        };
        match &cases[i].1 {
            None => call(),
            Some(d) => tracing::dispatcher::with_default(d, call),
        }
    };
    // Quick under `cargo test --benches`.
    let rounds = if std::env::args().any(|a| a == "--bench") {
        300
    } else {
        3
    };
    const BATCH: Duration = Duration::from_millis(2);
    let sizes: Vec<u32> = (0..cases.len())
        .map(|i| {
            let start = Instant::now();
            let mut n = 0u32;
            while start.elapsed() < BATCH {
                one(i);
                n += 1;
            }
            n.max(1)
        })
        .collect();
    let mut best = vec![f64::INFINITY; cases.len()];
    for _ in 0..rounds {
        for (i, size) in sizes.iter().enumerate() {
            let start = Instant::now();
            for _ in 0..*size {
                one(i);
            }
            let per = start.elapsed().as_secs_f64() * 1e9 / f64::from(*size);
            best[i] = best[i].min(per);
        }
    }
    println!("one call, side by side, best of {rounds} interleaved batches:");
    for ((name, _, _), ns) in cases.iter().zip(&best) {
        println!("  {name:<24} {ns:>8.0} ns  {:>5.2}x", ns / best[0]);
    }
    let _ = provider.shutdown();
}
