//! Logs: `tracing` to stderr, as text or one JSON object a line (`--log-format`), filtered by
//! `RUST_LOG` (default: toolsmith's own lines, the calls' failures and the libraries'
//! warnings); with an OTLP endpoint in the environment, the call spans exported too.

use std::io::Write;
use std::sync::OnceLock;

use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

/// How stderr lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum LogFormat {
    /// `toolsmith: ...` lines, and the calls' warnings as text.
    Text,
    /// One JSON object a line: `timestamp`, `level`, `message`, `target`, and a call's fields
    /// under `span`.
    Json,
}

/// The filter when `RUST_LOG` says nothing: toolsmith's own lines, the calls' failures, and
/// the libraries' warnings.
const DEFAULT_FILTER: &str = "warn,toolsmith=info,toolsmith::call=warn";

static JSON: OnceLock<bool> = OnceLock::new();

/// Keeps the exporter (if any) until the command ends.
pub(crate) struct Logs {
    otel: Option<toolsmith::otel::OtelGuard>,
}

impl Logs {
    /// Whether a span exporter runs.
    pub(crate) fn exporting(&self) -> bool {
        self.otel.is_some()
    }
}

/// Installs the subscriber. An exporter that cannot be set up is reported and left out.
pub(crate) fn init(format: LogFormat) -> Logs {
    let _ = JSON.set(format == LogFormat::Json);
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    let fmt = match format {
        LogFormat::Text => tracing_subscriber::fmt::layer()
            .with_writer(std::io::stderr)
            .with_ansi(false)
            .without_time()
            .boxed(),
        LogFormat::Json => tracing_subscriber::fmt::layer()
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
            .with_writer(std::io::stderr)
            .boxed(),
    };
    let registry = tracing_subscriber::registry().with(fmt.with_filter(filter));
    let (export, problem) = match toolsmith::otel::layer_from_env() {
        Ok(export) => (export, None),
        Err(e) => (None, Some(e)),
    };
    let spans = tracing_subscriber::filter::Targets::new()
        .with_target(toolsmith::CALL_TARGET, tracing::Level::INFO);
    let (layer, otel) = export
        .map(|(layer, guard)| (layer.with_filter(spans), guard))
        .unzip();
    registry.with(layer).init();
    // Said once the subscriber is in, so that it is a JSON line under `--log-format json`.
    if let Some(e) = problem {
        notice(&e.to_string());
    }
    Logs { otel }
}

/// A `toolsmith: ...` line on stderr (a JSON log line with `--log-format json`). A closed or
/// full stderr (the host stopped reading it) is not a reason to stop serving, so write errors
/// are ignored rather than panicking as `eprintln!` would.
pub(crate) fn notice(message: &str) {
    if JSON.get().copied().unwrap_or(false) {
        tracing::info!(target: "toolsmith", "{message}");
    } else {
        let _ = writeln!(std::io::stderr().lock(), "toolsmith: {message}");
    }
}
