//! tool-core's integration tests, in one test binary: a module per behaviour, grouped by area,
//! and the helpers they share in [`support`].
//!
//! Golden files are under `tests/snapshots/` (`UPDATE_SNAPSHOTS=1 cargo test -p tool-core
//! --test tests` rewrites them). The activity page's tests need the `http` feature, its browser
//! test the `mcp` feature.

mod support;

/// The activity of calls: records, stores, and (feature `http`) the live page's routes.
mod activity {
    mod approval;
    mod bounds;
    #[cfg(feature = "mcp")]
    mod browser;
    mod lifecycle;
    #[cfg(all(feature = "postgres", feature = "testing"))]
    mod postgres;
    #[cfg(all(feature = "postgres", feature = "testing"))]
    mod postgres_shared;
    #[cfg(feature = "sqlite")]
    mod sqlite;
    #[cfg(feature = "http")]
    mod sse;
    mod stores;
}

/// Provider formats: export (deferred loading and namespaces included), import, result
/// messages, round trips and the property test.
mod provider {
    mod anthropic;
    mod deferred;
    mod export;
    mod import_json;
    mod import_shapes;
    mod import_xml;
    mod property;
    mod results;
    mod roundtrip;
}

/// The testing kit (feature `testing`): the harness and tool-surface snapshots.
#[cfg(feature = "testing")]
mod testing {
    mod exports;
    mod harness;
    #[cfg(feature = "mcp")]
    mod mcp;
    mod model;
    #[cfg(feature = "mcp")]
    mod own_server;
    mod surface;
}

/// The runtime: checks before a call, deadlines and cancellation, abandoned calls,
/// concurrency, errors, the event stream and the redundancy check.
mod runtime {
    mod abandon;
    mod access;
    mod approval_record;
    mod cancel;
    mod concurrency;
    mod errors;
    mod events;
    mod redundancy;
}

/// A tool and what it is made of: the typed tool and its erasure, the spec, the registry,
/// tool selections, errors, rendering and the context.
mod tool {
    mod context;
    mod errors;
    mod registry;
    mod render;
    mod selection;
    mod spec;
    mod typed;
}

/// Argument validation.
mod validation {
    mod actions;
    mod decode;
    mod input;
    mod params;
}
