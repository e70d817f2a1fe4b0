//! The call spans exported over OTLP (feature `otel`), configured the standard way, by the
//! `OTEL_*` environment variables.
//!
//! [`layer_from_env`] gives a `tracing` layer that turns the call spans (target
//! [`CALL_TARGET`](crate::CALL_TARGET)) into OpenTelemetry spans and sends them, batched, over
//! OTLP/HTTP (protobuf) to
//! `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`). The service is
//! `OTEL_SERVICE_NAME` (default `toolsmith`), the sampler `OTEL_TRACES_SAMPLER` (and
//! `OTEL_TRACES_SAMPLER_ARG`). Without an endpoint it gives nothing: nothing is exported and
//! nothing is slowed.
//!
//! ```no_run
//! use tracing_subscriber::layer::SubscriberExt;
//! use tracing_subscriber::util::SubscriberInitExt;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let (layer, _guard) = match toolsmith::otel::layer_from_env()? {
//!     Some((layer, guard)) => (Some(layer), Some(guard)),
//!     None => (None, None),
//! };
//! tracing_subscriber::registry().with(layer).init();
//! // ... serve; dropping the guard sends what is still batched.
//! # Ok(())
//! # }
//! ```

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing::Subscriber;
use tracing_subscriber::Layer;
use tracing_subscriber::registry::LookupSpan;

/// The variables that name an endpoint; one of them set (and not empty) turns export on.
pub const ENDPOINT_VARIABLES: [&str; 2] = [
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
];

/// Keeps the exporter running; dropped, it sends what is still batched and stops.
#[derive(Debug)]
pub struct OtelGuard {
    provider: SdkTracerProvider,
}

impl OtelGuard {
    /// Sends every finished span now (a batch is otherwise sent every few seconds).
    pub fn flush(&self) -> Result<(), OtelError> {
        self.provider
            .force_flush()
            .map_err(|e| OtelError(e.to_string()))
    }
}

impl Drop for OtelGuard {
    fn drop(&mut self) {
        let _ = self.provider.shutdown();
    }
}

/// The exporter could not be set up from the environment.
#[derive(Debug, Clone)]
pub struct OtelError(String);

impl std::fmt::Display for OtelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot export traces over OTLP: {}; check OTEL_EXPORTER_OTLP_ENDPOINT (an http:// or \
             https:// URL of an OTLP/HTTP receiver)",
            self.0
        )
    }
}

impl std::error::Error for OtelError {}

/// Whether the environment names an OTLP endpoint.
pub fn configured() -> bool {
    ENDPOINT_VARIABLES
        .iter()
        .any(|k| std::env::var_os(k).is_some_and(|v| !v.is_empty()))
}

/// The OTLP export layer the environment asks for, and its guard; `None` when no endpoint is
/// set. See the [module documentation](self).
pub fn layer_from_env<S>() -> Result<Option<(impl Layer<S>, OtelGuard)>, OtelError>
where
    S: Subscriber + for<'span> LookupSpan<'span>,
{
    if !configured() {
        return Ok(None);
    }
    // An https endpoint needs TLS: ring, unless the host installed a provider already.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .build()
        .map_err(|e| OtelError(e.to_string()))?;
    let mut resource = Resource::builder();
    if std::env::var_os("OTEL_SERVICE_NAME").is_none_or(|v| v.is_empty()) {
        resource = resource.with_service_name("toolsmith");
    }
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(resource.build())
        .build();
    let tracer = provider.tracer("toolsmith");
    let layer = tracing_opentelemetry::layer().with_tracer(tracer);
    Ok(Some((layer, OtelGuard { provider })))
}
