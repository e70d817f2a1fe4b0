//! Property: arbitrary JSON values, JSON strings and XML, imported in every provider format,
//! validated and dispatched through `Session::call` for every registered tool, never panic,
//! and every answer is a structured result or a `type: "error"` JSON; every answer renders
//! into every provider's result message.
//!
//! 10,000 cases per run (`PROPTEST_CASES` overrides); each case goes through seven import
//! paths, so about 70,000 dispatches.

use proptest::prelude::*;
use serde_json::Value;
use tool_core::provider::Importer;
use tool_core::{Registry, Runtime};

use crate::support::fixtures;
use crate::support::fixtures::checks::{self, Input};

/// Values the fixture tools branch on.
const WORDS: &[&str] = &["search", "fetch", "red", "circle"];

struct World {
    names: Vec<String>,
    params: Vec<Vec<String>>,
}

fn world(registry: &Registry) -> World {
    let mut names = Vec::new();
    let mut params = Vec::new();
    for e in registry.iter() {
        names.push(e.name().to_owned());
        params.push(
            e.spec()
                .parameter_names()
                .into_iter()
                .map(str::to_owned)
                .collect(),
        );
    }
    World { names, params }
}

/// Arguments shaped like the tool's: an object whose keys are mostly its parameters.
fn args_for(w: &World, keys: Vec<String>) -> BoxedStrategy<(usize, Value)> {
    let n = w.names.len();
    let params = w.params.clone();
    (0..n)
        .prop_flat_map(move |tool| {
            let mut own = params[tool].clone();
            if own.is_empty() {
                own.push("x".to_owned());
            }
            prop_oneof![
                5 => checks::object_args(WORDS, own, keys.clone(), 0..6),
                1 => checks::json_value(WORDS, keys.clone()),
            ]
            .prop_map(move |v| (tool, v))
        })
        .boxed()
}

fn input(w: &World) -> impl Strategy<Value = Input> {
    let mut keys: Vec<String> = w.params.iter().flatten().cloned().collect();
    keys.sort();
    keys.dedup();
    let values = prop_oneof![
        "[a-z0-9 .,:-]{0,10}",
        "[\\PC]{0,8}",
        Just("<![CDATA[</param:x>]]>".to_owned()),
        Just("\n5\n".to_owned()),
        Just("{\"start\": 1, \"end\": 2}".to_owned()),
        Just("[\"a\", \"b\"]".to_owned()),
    ]
    .boxed();
    checks::input(
        args_for(w, keys),
        checks::xml_message(&w.names, &w.params, values, &[], 0..6),
    )
}

#[test]
fn import_validate_dispatch_never_panics_and_always_answers() {
    let registry = fixtures::fixture_registry();
    let w = world(&registry);
    let importer = Importer::new(&registry);
    let session = Runtime::builder(fixtures::fixture_registry())
        .build()
        .session();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let summary = checks::run_property(&rt, &w.names, &importer, &session, false, input(&w));
    let (ok, err) = (summary.successes, summary.errors);
    eprintln!(
        "{} cases over {} tools in {:.1?}: {ok} successes, {err} error answers \
         ({} of them import errors)",
        summary.cases,
        w.names.len(),
        summary.elapsed,
        summary.import_errors,
    );
    // The generators must reach the tools, not only the error paths.
    assert!(
        ok * 20 > ok + err,
        "too few successes: {ok} of {}",
        ok + err
    );
}
