//! The dispatch path against its floor.
//!
//! - `floor`: `serde_json::from_str` of the input type + `serde_json::to_string` of the
//!   output, the least any dispatcher must do.
//! - `decode_only`: `CompiledSchema::decode` of the `#[tool]` one's input (the fast path: one
//!   typed decode of the text, watching for unknown members) in place of `from_str`, then the
//!   floor's output; no call.
//! - `typed_call`: that decode, the tool's `Tool::call` future polled where it stands, and
//!   the output's JSON text: everything but the erasure (no boxed future, no shared output).
//! - `typed_call_boxed`: `typed_call` with the tool's future boxed as a
//!   `Pin<Box<dyn Future>>`, the one allocation a type-erased async call cannot do without
//!   in safe Rust; the output stays typed (not shared).
//! - `dispatch_valid`: JSON text -> validated typed input inside the call's future
//!   (`DynTool::start`, against the compiled schema, as the runtime runs a call) -> no-op
//!   tool -> JSON text of the output, for the tool written with `#[tool]`.
//! - `dispatch_valid_hand_written`: the same for the hand-written tool, whose input is a
//!   plain serde struct (the general path, watching for unknown members).
//! - `dispatch_invalid`: the `#[tool]` one with arguments that fail validation (two
//!   problems), up to the error's JSON text.
//! - `runtime_valid`: the whole `Session::call` path of the `#[tool]` one (lookup, checks,
//!   validation, dedupe off, activity record, events, deadline, panic guard) on a
//!   current-thread Tokio runtime, up to the outcome's JSON text.
//!
//! Run: `cargo bench -p tool-core --bench dispatch`. The ratio of `dispatch_valid` to
//! `floor` is the dispatch overhead. After criterion's runs, the closing lines give every
//! case as a ratio to the floor measured side by side (interleaved batches, the best of
//! each), which holds up on a loaded machine where the medians of separate runs do not.

use std::future::Future;
use std::hint::black_box;
use std::pin::{Pin, pin};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tool_core::{
    Arguments, Registry, Render, Runtime, Services, Tool, ToolCall, ToolContext, ToolError,
    ToolSpec,
};

// The no-op tool reads only some fields; the rest are decoded, as a real tool's would be.
#[allow(dead_code)]
#[derive(Debug, Deserialize, JsonSchema)]
struct GrepArgs {
    /// The pattern.
    pattern: String,
    /// Where to search.
    path: Option<String>,
    /// Match case.
    #[serde(default)]
    case_sensitive: bool,
    /// The most results.
    max_results: u32,
}

#[derive(Debug, Serialize, JsonSchema)]
struct GrepOut {
    r#type: &'static str,
    pattern: String,
    count: u32,
}

impl Render for GrepOut {}

/// The output every case makes: the no-op tools' and the floor's alike.
fn grep_out(pattern: String, count: u32) -> GrepOut {
    GrepOut {
        r#type: "grep_results",
        pattern,
        count,
    }
}

/// Search.
#[tool_macros::tool(name = "grep_macro", crate = tool_core, register = false)]
async fn grep_macro(
    /// The pattern.
    pattern: String,
    /// Where to search.
    path: Option<String>,
    /// Match case.
    #[param(default)]
    case_sensitive: bool,
    /// The most results.
    max_results: u32,
) -> Result<GrepOut, ToolError> {
    let _ = (path, case_sensitive);
    Ok(grep_out(pattern, max_results))
}

struct Noop;

impl Tool for Noop {
    type Input = GrepArgs;
    type Output = GrepOut;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("grep", "Search.")
    }
    async fn call(&self, _: &ToolContext, a: GrepArgs) -> Result<GrepOut, ToolError> {
        Ok(grep_out(a.pattern, a.max_results))
    }
}

const VALID: &str =
    r#"{"pattern":"fn main","path":"src/lib.rs","case_sensitive":true,"max_results":50}"#;
const INVALID: &str = r#"{"pattern":"fn main","path":"src/lib.rs","max_result":50}"#;

/// Polls a future that completes without waiting (the no-op tool) to its end.
fn now<F: Future>(f: F) -> F::Output {
    let mut f = pin!(f);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

fn bench(c: &mut Criterion) {
    let registry = Registry::builder()
        .register(Noop)
        .register(GrepMacroTool)
        .build()
        .expect("registry");
    let hand = registry.get("grep").expect("grep").clone();
    let entry = registry.get("grep_macro").expect("grep_macro").clone();
    let ctx = ToolContext::detached("grep", Services::new());
    // The arguments arrive as owned text (as a provider delivers them); building that is not
    // part of dispatch, just as the floor gets its `&str` for free.
    let valid = Arguments::Text(VALID.to_owned());
    let invalid = Arguments::Text(INVALID.to_owned());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio");
    let runtime = Runtime::builder(registry).dedupe(false).build();
    let session = runtime.session();

    let floor = || {
        let a: GrepArgs = serde_json::from_str(black_box(VALID)).expect("valid");
        black_box(serde_json::to_string(&grep_out(a.pattern, a.max_results)).expect("json"));
    };
    let floor_watch = || {
        let mut unknown = false;
        let mut de = serde_json::Deserializer::from_str(black_box(VALID));
        let a: GrepArgs = serde_ignored::deserialize(&mut de, |_| unknown = true).expect("valid");
        assert!(!unknown);
        black_box(serde_json::to_string(&grep_out(a.pattern, a.max_results)).expect("json"));
    };
    let schema = entry.schema();
    let decode_only = || {
        let a = schema
            .decode::<<GrepMacroTool as Tool>::Input>(black_box(&valid))
            .expect("valid");
        black_box(serde_json::to_string(&grep_out(a.pattern, a.max_results)).expect("json"));
    };
    let typed_call = || {
        let input = schema
            .decode::<<GrepMacroTool as Tool>::Input>(black_box(&valid))
            .expect("valid");
        let out = now(GrepMacroTool.call(&ctx, input)).expect("ok");
        black_box(serde_json::to_string(&out).expect("json"));
    };
    let typed_call_boxed = || {
        let input = schema
            .decode::<<GrepMacroTool as Tool>::Input>(black_box(&valid))
            .expect("valid");
        let call: Pin<Box<dyn Future<Output = Result<GrepOut, ToolError>> + Send + '_>> =
            Box::pin(GrepMacroTool.call(&ctx, input));
        let out = now(call).expect("ok");
        black_box(serde_json::to_string(&out).expect("json"));
    };
    let dispatch = |entry: &tool_core::ToolEntry| {
        let call = entry
            .tool()
            .start(&ctx, black_box(&valid), entry.schema())
            .expect("valid");
        let out = now(call).expect("ok");
        black_box(out.to_json_string().expect("json"));
    };
    let dispatch_valid = || dispatch(&entry);
    let dispatch_hand = || dispatch(&hand);
    let dispatch_invalid = || {
        let err = match entry
            .tool()
            .start(&ctx, black_box(&invalid), entry.schema())
        {
            Ok(_) => unreachable!("invalid arguments decoded"),
            Err(e) => e,
        };
        black_box(err.to_json().to_string());
    };
    let runtime_valid = || {
        let outcome = rt.block_on(session.call(ToolCall::new("1", "grep_macro", black_box(VALID))));
        black_box(outcome.to_json_string());
    };

    let mut cases: Vec<Case<'_>> = vec![
        ("floor", Box::new(floor)),
        ("floor_with_unknown_field_watch", Box::new(floor_watch)),
        ("decode_only", Box::new(decode_only)),
        ("typed_call", Box::new(typed_call)),
        ("typed_call_boxed", Box::new(typed_call_boxed)),
        ("dispatch_valid", Box::new(dispatch_valid)),
        ("dispatch_valid_hand_written", Box::new(dispatch_hand)),
        ("dispatch_invalid", Box::new(dispatch_invalid)),
        ("runtime_valid", Box::new(runtime_valid)),
    ];
    let mut group = c.benchmark_group("dispatch");
    for (name, f) in &mut cases {
        group.bench_function(*name, |b| b.iter(&mut *f));
    }
    group.finish();
    interleaved_ratios(&mut cases);
}

/// A benchmark case: its name and one iteration.
type Case<'a> = (&'static str, Box<dyn FnMut() + 'a>);

/// Each case's time as a ratio to the floor's, measured side by side: rounds of one short
/// batch of every case in turn, each case's best batch kept. On a shared machine the load
/// changes between criterion's benchmarks (each runs for seconds); interleaving puts every
/// case under the same load, and the best batch is the one least disturbed.
fn interleaved_ratios(cases: &mut [Case<'_>]) {
    const BATCH: Duration = Duration::from_millis(2);
    const ROUNDS: usize = 300;
    // Iterations per batch: as many as fit in BATCH once warm.
    let sizes: Vec<u32> = cases
        .iter_mut()
        .map(|(_, f)| {
            let start = Instant::now();
            let mut n = 0u32;
            while start.elapsed() < BATCH {
                f();
                n += 1;
            }
            n.max(1)
        })
        .collect();
    let mut best = vec![f64::INFINITY; cases.len()];
    for _ in 0..ROUNDS {
        for (i, (_, f)) in cases.iter_mut().enumerate() {
            let start = Instant::now();
            for _ in 0..sizes[i] {
                f();
            }
            let per = start.elapsed().as_secs_f64() * 1e9 / f64::from(sizes[i]);
            best[i] = best[i].min(per);
        }
    }
    let floor = best[0];
    println!("side by side, best of {ROUNDS} interleaved batches, as ratios to the floor:");
    for ((name, _), ns) in cases.iter().zip(&best) {
        println!("  {name:<32} {ns:>9.0} ns  {:>6.2}x", ns / floor);
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
