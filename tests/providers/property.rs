//! A property test of every tool linked into the facade (10,000 cases; `PROPTEST_CASES`
//! overrides): arbitrary JSON values, JSON strings and XML fed into import + validation +
//! dispatch in the sandbox. No panic, every answer a structured result or a `type: "error"`
//! JSON, and the generators reach the tools' own code.

use proptest::prelude::*;
use serde_json::Value;
use toolsmith::Registry;
use toolsmith::provider::Importer;

use crate::support::fixtures::checks::{self, Input, args};
use crate::support::providers::*;

/// The names a model may call (every tool's name and old names), each one's parameters, and
/// valid arguments of its tool (the round trips' samples) to start mutations from.
struct World {
    names: Vec<String>,
    params: Vec<Vec<String>>,
    templates: Vec<Vec<Value>>,
}

fn world(registry: &Registry) -> World {
    let samples = samples(registry);
    let mut w = World {
        names: Vec::new(),
        params: Vec::new(),
        templates: Vec::new(),
    };
    for e in registry.iter() {
        let own: Vec<String> = e
            .spec()
            .parameter_names()
            .into_iter()
            .map(str::to_owned)
            .collect();
        let templates: Vec<Value> = samples
            .iter()
            .filter(|(c, _)| c.name == e.name())
            .map(|(c, _)| args(c))
            .collect();
        for name in std::iter::once(e.name()).chain(e.spec().aliases.iter().map(|a| a.as_ref())) {
            w.names.push(name.to_owned());
            w.params.push(own.clone());
            w.templates.push(templates.clone());
        }
    }
    w
}

/// Values the standard tools branch on: actions, prompt types, URLs of every kind the fetch
/// policy refuses, and a few it would accept (which the gate holds).
const STD_WORDS: &[&str] = &[
    "search",
    "fetch",
    "view",
    "update",
    "crawl",
    "system",
    "conversation_consolidation",
    "memory_management",
    "name",
    "System",
    "http://127.0.0.1:9/",
    " http://[::1]:8080/x ",
    "https://10.0.0.1/a?b=c",
    "http://169.254.169.254/latest/meta-data/",
    "http://0x7f.1/",
    "http://100.64.0.1/",
    "ftp://example.com/",
    "file:///etc/passwd",
    "javascript:alert(1)",
    "example.com/page",
    "http://",
    "https://example.com/",
    "http://localhost:9/",
    "rust async runtime",
];

/// One change to valid arguments.
#[derive(Debug, Clone)]
enum Edit {
    Remove(prop::sample::Index),
    Set(String, Value),
}

/// Arguments shaped like the tool's: valid arguments with up to three edits (so a third of
/// them stay valid and run), or an object whose keys are mostly its parameters, or anything.
fn args_for(w: &World, keys: Vec<String>) -> BoxedStrategy<(usize, Value)> {
    let n = w.names.len();
    let params = w.params.clone();
    let templates = w.templates.clone();
    (0..n).prop_flat_map(move |tool| {
        let mut own = params[tool].clone();
        if own.is_empty() {
            own.push("x".to_owned());
        }
        let entries = checks::object_args(STD_WORDS, own.clone(), keys.clone(), 0..5);
        let edit = prop_oneof![
            1 => any::<prop::sample::Index>().prop_map(Edit::Remove),
            2 => (prop::sample::select(own.clone()), checks::json_value(STD_WORDS, keys.clone()))
                .prop_map(|(k, v)| Edit::Set(k, v)),
            2 => (prop::sample::select(own.clone()), "[\\PC]{0,40}")
                .prop_map(|(k, s)| Edit::Set(k, Value::String(s))),
            2 => (prop::sample::select(own), prop::sample::select(STD_WORDS))
                .prop_map(|(k, s)| Edit::Set(k, Value::String(s.to_owned()))),
        ];
        let edited = (
            prop::sample::select(templates[tool].clone()),
            prop::collection::vec(edit, 0..3),
        )
            .prop_map(|(mut args, edits)| {
                if let Value::Object(map) = &mut args {
                    for e in edits {
                        match e {
                            Edit::Remove(i) if !map.is_empty() => {
                                let k = map.keys().nth(i.index(map.len())).cloned();
                                k.map(|k| map.remove(&k));
                            }
                            Edit::Remove(_) => {}
                            Edit::Set(k, v) => {
                                map.insert(k, v);
                            }
                        }
                    }
                }
                args
            });
        prop_oneof![
            4 => edited,
            3 => entries,
            1 => checks::json_value(STD_WORDS, keys.clone()),
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
        1 => "[a-z0-9 .,:-]{0,10}",
        1 => "[\\PC]{0,8}",
        2 => prop::sample::select(STD_WORDS).prop_map(str::to_owned),
        1 => Just("<![CDATA[</param:x>]]>".to_owned()),
        1 => Just("\n5\n".to_owned()),
        1 => Just("5.0".to_owned()),
        1 => Just("[\"a\", \"b\"]".to_owned()),
    ]
    .boxed();
    checks::input(
        args_for(w, keys),
        checks::xml_message(&w.names, &w.params, values, STD_WORDS, 0..5),
    )
}

#[test]
fn import_validate_dispatch_of_every_std_tool_never_panics_and_always_answers() {
    let registry = registry();
    let w = world(&registry);
    let importer = Importer::new(&registry);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let sandbox = rt.block_on(sandbox(self::registry()));
    let checks::Summary {
        cases,
        elapsed,
        successes: ok,
        errors: err,
        import_errors: import,
    } = checks::run_property(&rt, &w.names, &importer, &sandbox.session, true, input(&w));
    let log = sandbox.log.lock().unwrap();
    eprintln!(
        "{cases} cases over {} tools ({} names) in {:.1?}: {ok} successes, {err} error answers \
         ({import} of them import errors); the gate ran {:?} and held {:?}",
        registry.len(),
        w.names.len(),
        elapsed,
        log.ran,
        log.held,
    );
    // The generators must reach the tools' own code, not only the error paths before it.
    if cases >= 1_000 {
        let floor = usize::try_from(cases / 100).unwrap_or(usize::MAX);
        for name in SANDBOXED {
            let ran = log.ran.get(*name).copied().unwrap_or(0);
            assert!(ran >= floor, "`{name}` ran only {ran} times");
        }
        assert!(
            log.held.contains_key("web"),
            "no call reached the gate's refusal"
        );
        assert!(ok >= floor, "too few successes: {ok} of {}", ok + err);
    }
}
