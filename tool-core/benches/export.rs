//! Exporting 50 tools to each format, against the floor of serializing the finished value.
//!
//! For every format (`json`, `openai`, `openai-strict`, `openai-responses`, `anthropic`,
//! `gemini`, `mcp`, `xml`):
//!
//! - `<format>/to_string`: `serde_json::to_string` of the already-built export (for `xml`,
//!   of the block as a JSON string), the least a host does to send the tools;
//! - `<format>/uncached`: `export_all` from the specs, then its compact text;
//! - `<format>/cached`: `ExportCache::export_all` with a warm cache (joins cached text).
//!
//! After criterion's runs, a short table of the ratios to `to_string` (medians of a quick
//! re-measurement) is printed.
//!
//! Run: `cargo bench -p tool-core --bench export -- --warm-up-time 1 --measurement-time 3`.

#[path = "../tests/fixtures/mod.rs"]
mod fixtures;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::Criterion;
use tool_core::ToolSpec;
use tool_core::provider::{ExportCache, Exported, Format, export_all};

/// 50 tools that every format can express: copies of the fixture tools without maps,
/// recursion or Gemini-refused names, renamed `<name>_<n>`.
fn fifty_tools() -> Vec<ToolSpec> {
    let registry = fixtures::fixture_registry();
    let base: Vec<ToolSpec> = [
        "create_user",
        "paint",
        "grep",
        "read_file",
        "web",
        "ping",
        "tune",
    ]
    .iter()
    .map(|n| (**registry.get(n).expect("fixture").spec()).clone())
    .collect();
    (0..50)
        .map(|i| {
            let mut s = base[i % base.len()].clone();
            s.name = format!("{}_{i}", s.name).into();
            s
        })
        .collect()
}

fn serialize(e: &Exported) -> String {
    match e {
        Exported::Json(v) => serde_json::to_string(v).unwrap_or_default(),
        Exported::Text(t) => serde_json::to_string(t).unwrap_or_default(),
    }
}

fn bench(c: &mut Criterion, specs: &[ToolSpec]) {
    for &format in Format::ALL {
        let built = export_all(specs, format).expect("every format takes these tools");
        let cache = ExportCache::new();
        cache.export_all(specs, format).expect("warm");
        let mut group = c.benchmark_group(format!("export50/{format}"));
        group.bench_function("to_string", |b| b.iter(|| serialize(black_box(&built))));
        group.bench_function("uncached", |b| {
            b.iter(|| {
                export_all(black_box(specs), format)
                    .map(|e| e.to_compact())
                    .unwrap_or_default()
            })
        });
        group.bench_function("cached", |b| {
            b.iter(|| {
                cache
                    .export_all(black_box(specs), format)
                    .unwrap_or_default()
            })
        });
        group.finish();
    }
}

fn median<F: FnMut() -> usize>(mut f: F) -> Duration {
    let mut times: Vec<Duration> = (0..61)
        .map(|_| {
            let t = Instant::now();
            black_box(f());
            t.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

fn ratios(specs: &[ToolSpec]) {
    eprintln!("\nratio to serde_json::to_string of the built value (medians, 50 tools):");
    eprintln!(
        "{:<18} {:>12} {:>12} {:>12} {:>9} {:>9}",
        "format", "to_string", "uncached", "cached", "uncached×", "cached×"
    );
    for &format in Format::ALL {
        let built = export_all(specs, format).expect("exports");
        let cache = ExportCache::new();
        let _ = cache.export_all(specs, format);
        let floor = median(|| serialize(&built).len());
        let uncached = median(|| {
            export_all(specs, format)
                .map(|e| e.to_compact().len())
                .unwrap_or(0)
        });
        let cached = median(|| {
            cache
                .export_all(specs, format)
                .map(|t| t.len())
                .unwrap_or(0)
        });
        let r = |d: Duration| d.as_secs_f64() / floor.as_secs_f64().max(1e-12);
        eprintln!(
            "{:<18} {:>12.1?} {:>12.1?} {:>12.1?} {:>8.2}× {:>8.2}×",
            format.as_str(),
            floor,
            uncached,
            cached,
            r(uncached),
            r(cached)
        );
    }
}

fn main() {
    let specs = fifty_tools();
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c, &specs);
    c.final_summary();
    ratios(&specs);
}
