//! What the standard tools cost a model, held to its limits. Here: the definitions against
//! their token budgets (`token-budgets.toml`): each tool's Anthropic definition and the whole
//! set, in `o200k_base` tokens. A definition that grows past its budget fails here; when the
//! growth is intended, raise the budget in the same commit, so the cost shows in the diff.
//! [`results`]: the token benchmark's typical results against their output schemas and
//! their text.

mod calls;
mod results;

use std::collections::BTreeMap;

use tool_core::provider::{Format, export, export_all};
use tool_core::{Registry, ToolSpec};

const BUDGETS: &str = include_str!("../../token-budgets.toml");

/// `name = tokens` lines (`#` comments), the whole set as `whole_set`.
fn budgets(text: &str) -> BTreeMap<String, usize> {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(|l| {
            let (k, v) = l.split_once('=').expect("`name = tokens`");
            let v = v.trim().parse().expect("a number of tokens");
            (k.trim().trim_matches('"').to_owned(), v)
        })
        .collect()
}

/// The tools this crate declares (not the ones its tests declare).
fn standard(registry: &Registry) -> Vec<&ToolSpec> {
    let mut specs: Vec<&ToolSpec> = registry
        .iter()
        .filter(|e| {
            let at = e.location();
            at.starts_with("tool-std/src/") || at.starts_with("src/")
        })
        .map(|e| &**e.spec())
        .collect();
    specs.sort_by(|a, b| a.name.cmp(&b.name));
    specs
}

/// Every tool and the whole set over budget, or a tool without one.
fn over_budget(specs: &[&ToolSpec], budgets: &BTreeMap<String, usize>) -> Vec<String> {
    let bpe = tiktoken_rs::o200k_base().expect("o200k_base");
    let tokens = |text: &str| bpe.encode_ordinary(text).len();
    let mut problems = Vec::new();
    let mut check = |name: &str, used: usize| match budgets.get(name) {
        None => problems.push(format!("{name}: {used} tokens, no budget recorded")),
        Some(&budget) if used > budget => {
            problems.push(format!(
                "{name}: {used} tokens, over its budget of {budget}"
            ));
        }
        Some(_) => {}
    };
    for spec in specs {
        let text = export(spec, Format::Anthropic)
            .expect("export")
            .to_compact();
        check(&spec.name, tokens(&text));
    }
    let all = export_all(specs.iter().copied(), Format::Anthropic).expect("export all");
    check("whole_set", tokens(&all.to_compact()));
    problems
}

#[test]
fn definitions_stay_within_their_token_budgets() {
    let registry = Registry::builder()
        .with_inventory()
        .build()
        .expect("registry");
    let specs = standard(&registry);
    assert!(specs.len() >= 16, "the standard tools: {}", specs.len());
    let problems = over_budget(&specs, &budgets(BUDGETS));
    assert!(
        problems.is_empty(),
        "tool definitions (Anthropic form, o200k_base) grew past their budgets:\n  {}\n\
         Shorten the description, or if the growth is intended, raise the budget in \
         tool-std/token-budgets.toml in the same commit.",
        problems.join("\n  ")
    );
}

#[test]
fn a_budget_below_the_definition_fails() {
    let registry = Registry::builder()
        .with_inventory()
        .build()
        .expect("registry");
    let specs = standard(&registry);
    let mut tight = budgets(BUDGETS);
    *tight.get_mut("grep").expect("grep's budget") = 10;
    let problems = over_budget(&specs, &tight);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].starts_with("grep: "), "{problems:?}");
    tight.remove("glob");
    assert!(
        over_budget(&specs, &tight)
            .iter()
            .any(|p| p.contains("glob: ") && p.contains("no budget"))
    );
}
