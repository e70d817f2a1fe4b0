//! Property: arbitrary JSON values, JSON strings and XML, imported in every provider format,
//! validated and dispatched through `Session::call` for every registered tool, never panic,
//! and every answer is a structured result or a `type: "error"` JSON; every answer renders
//! into every provider's result message.
//!
//! 10,000 cases per run (`PROPTEST_CASES` overrides); each case goes through seven import
//! paths, so about 70,000 dispatches.

mod fixtures;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Map, Value, json};
use std::sync::atomic::{AtomicUsize, Ordering};
use tool_core::provider::{self, Format, ImportError, Imported, Importer};

use tool_core::{CallOutcome, Registry, ResourcesTracker, Runtime, Session};

/// Answers seen: successes, errors by the runtime, import errors.
static SUCCESSES: AtomicUsize = AtomicUsize::new(0);
static ERRORS: AtomicUsize = AtomicUsize::new(0);
static IMPORT_ERRORS: AtomicUsize = AtomicUsize::new(0);

/// One generated case: a tool to aim at and what the model sent.
#[derive(Debug, Clone)]
enum Input {
    /// Arguments as a JSON value (Anthropic input, Gemini args, MCP arguments).
    Value { tool: usize, args: Value },
    /// Arguments as JSON text, possibly broken (OpenAI `arguments`).
    Text { tool: usize, text: String },
    /// A model message with XML calls.
    Xml { text: String },
}

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

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        Just(json!(5.0)),
        "[a-z0-9 _{}\\[\\]\":,.<>/-]{0,12}".prop_map(Value::String),
        prop::sample::select(vec![
            "5",
            "-3",
            "1.5",
            "true",
            "FALSE",
            "null",
            "",
            " ",
            "{}",
            "[]",
            "{\"a\":1}",
            "[1,2]",
            "\"{\\\"x\\\":1}\"",
            "search",
            "fetch",
            "red",
            "circle",
            "日本🦀",
        ])
        .prop_map(|s| Value::String(s.to_owned())),
    ]
}

fn key(all_params: Vec<String>) -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(all_params),
        1 => "[a-z_]{1,8}",
    ]
}

fn json_value(keys: Vec<String>) -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 16, 4, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((key(keys.clone()), inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Arguments shaped like the tool's: an object whose keys are mostly its parameters.
fn args_for(w: &World, keys: Vec<String>) -> impl Strategy<Value = (usize, Value)> {
    let n = w.names.len();
    let params = w.params.clone();
    (0..n).prop_flat_map(move |tool| {
        let mut own = params[tool].clone();
        if own.is_empty() {
            own.push("x".to_owned());
        }
        let entries = prop::collection::vec(
            (
                prop_oneof![4 => prop::sample::select(own), 1 => key(keys.clone())],
                json_value(keys.clone()),
            ),
            0..6,
        );
        prop_oneof![
            5 => entries.prop_map(|kv| Value::Object(kv.into_iter().collect())),
            1 => json_value(keys.clone()),
        ]
        .prop_map(move |v| (tool, v))
    })
}

fn text_of(args: Value, mode: u8, cut: usize, junk: String) -> String {
    let s = args.to_string();
    match mode % 5 {
        0 | 1 => s,
        2 => s.chars().take(cut % (s.chars().count() + 1)).collect(),
        3 => serde_json::to_string(&s).unwrap_or_default(),
        _ => junk,
    }
}

fn xml_message(w: &World) -> impl Strategy<Value = String> {
    let n = w.names.len();
    let names = w.names.clone();
    let params = w.params.clone();
    let mut all: Vec<String> = params.iter().flatten().cloned().collect();
    all.push("x".into());
    let well_formed = (0..n).prop_flat_map(move |tool| {
        let name = names[tool].clone();
        let mut own = params[tool].clone();
        own.push("extra".into());
        prop::collection::vec(
            (
                prop::sample::select(own),
                prop_oneof![
                    "[a-z0-9 .,:-]{0,10}",
                    "[\\PC]{0,8}",
                    Just("<![CDATA[</param:x>]]>".to_owned()),
                    Just("\n5\n".to_owned()),
                    Just("{\"start\": 1, \"end\": 2}".to_owned()),
                    Just("[\"a\", \"b\"]".to_owned()),
                ],
            ),
            0..6,
        )
        .prop_map(move |ps| {
            let mut s = format!("Sure.\n<tool:{name}>\n");
            for (p, v) in ps {
                s.push_str(&format!("<param:{p}>{v}</param:{p}>\n"));
            }
            s.push_str(&format!("</tool:{name}>\n"));
            s
        })
    });
    let mut pieces: Vec<String> = w
        .names
        .iter()
        .flat_map(|n| [format!("<tool:{n}>"), format!("</tool:{n}>")])
        .collect();
    for p in &all {
        pieces.push(format!("<param:{p}>"));
        pieces.push(format!("</param:{p}>"));
    }
    pieces.extend(
        [
            "<![CDATA[",
            "]]>",
            "<",
            ">",
            "\n",
            "<tool:",
            "</param:",
            "text",
            "&amp;",
            "<tool:x y>",
        ]
        .map(str::to_owned),
    );
    let soup = prop::collection::vec(
        prop_oneof![3 => prop::sample::select(pieces), 1 => "[^<]{0,6}"],
        0..24,
    )
    .prop_map(|parts| parts.concat());
    prop_oneof![
        2 => prop::collection::vec(well_formed, 1..3).prop_map(|c| c.concat()),
        1 => soup,
        1 => "[\\PC]{0,40}",
    ]
}

fn input(w: &World) -> impl Strategy<Value = Input> {
    let mut keys: Vec<String> = w.params.iter().flatten().cloned().collect();
    keys.sort();
    keys.dedup();
    prop_oneof![
        2 => args_for(w, keys.clone()).prop_map(|(tool, args)| Input::Value { tool, args }),
        2 => (args_for(w, keys), any::<u8>(), any::<usize>(), "[\\PC]{0,24}").prop_map(
            |((tool, args), mode, cut, junk)| Input::Text { tool, text: text_of(args, mode, cut, junk) }
        ),
        2 => xml_message(w).prop_map(|text| Input::Xml { text }),
    ]
}

/// Every answer must be structured: an error is `{"type": "error", "error_type", "error"}`,
/// a success is JSON; and it renders in every format.
fn check_outcome(outcome: &CallOutcome) -> Result<(), TestCaseError> {
    let v = outcome.to_json();
    match &outcome.result {
        Ok(_) => SUCCESSES.fetch_add(1, Ordering::Relaxed),
        Err(_) => ERRORS.fetch_add(1, Ordering::Relaxed),
    };
    match &outcome.result {
        Err(_) => {
            prop_assert_eq!(&v["type"], "error");
            prop_assert!(v["error_type"].is_string(), "{}", v);
            prop_assert!(v["error"].is_string(), "{}", v);
        }
        Ok(_) => prop_assert!(!v.is_null(), "a success must carry a result"),
    }
    let mut tracker = ResourcesTracker::new();
    for f in Format::ALL {
        let _ = provider::render_result(*f, outcome, &mut tracker);
    }
    Ok(())
}

async fn run_all(
    session: &Session,
    results: Vec<Result<Imported, ImportError>>,
) -> Result<(), TestCaseError> {
    for r in results {
        let outcome = match r {
            Ok(imported) => provider::dispatch(session, imported).await,
            Err(e) => {
                IMPORT_ERRORS.fetch_add(1, Ordering::Relaxed);
                let err = e.to_tool_error().to_json();
                prop_assert_eq!(&err["type"], "error");
                provider::rejected_import(&e)
            }
        };
        check_outcome(&outcome)?;
    }
    Ok(())
}

async fn case(
    w: &World,
    importer: &Importer<'_>,
    session: &Session,
    input: Input,
) -> Result<(), TestCaseError> {
    session.clear_current_turn();
    match input {
        Input::Value { tool, args } => {
            let name = &w.names[tool];
            let anthropic = json!({"type": "tool_use", "id": "tu", "name": name, "input": args});
            let gemini = json!({"functionCall": {"name": name, "args": args}});
            let mcp = json!({"name": name, "arguments": args});
            let openai_obj = json!({"id": "c", "type": "function",
                                    "function": {"name": name, "arguments": args}});
            run_all(session, vec![importer.anthropic_tool_use(&anthropic)]).await?;
            run_all(session, vec![importer.gemini_function_call(&gemini)]).await?;
            run_all(session, vec![importer.mcp_call(&mcp, Some("m"))]).await?;
            run_all(session, vec![importer.openai_tool_call(&openai_obj)]).await?;
        }
        Input::Text { tool, text } => {
            let name = &w.names[tool];
            let openai = json!({"id": "c", "type": "function",
                                "function": {"name": name, "arguments": text}});
            let responses =
                json!({"type": "function_call", "call_id": "r", "name": name, "arguments": text});
            run_all(session, vec![importer.openai_tool_call(&openai)]).await?;
            run_all(session, vec![importer.responses_function_call(&responses)]).await?;
            // The same text read as a whole provider message must not panic either.
            for f in [
                Format::Openai,
                Format::Anthropic,
                Format::Gemini,
                Format::Json,
            ] {
                run_all(session, importer.import(f, &text)).await?;
            }
        }
        Input::Xml { text } => {
            run_all(session, importer.xml_calls(&text)).await?;
        }
    }
    Ok(())
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
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    let started = std::time::Instant::now();
    let result = runner.run(&input(&w), |i| {
        rt.block_on(case(&w, &importer, &session, i))
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let (ok, err, import) = (
        SUCCESSES.load(Ordering::Relaxed),
        ERRORS.load(Ordering::Relaxed),
        IMPORT_ERRORS.load(Ordering::Relaxed),
    );
    eprintln!(
        "{cases} cases over {} tools in {:.1?}: {ok} successes, {err} error answers \
         ({import} of them import errors)",
        w.names.len(),
        started.elapsed()
    );
    // The generators must reach the tools, not only the error paths.
    assert!(
        ok * 20 > ok + err,
        "too few successes: {ok} of {}",
        ok + err
    );
}
