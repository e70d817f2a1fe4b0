//! What the standard tools cost a model, in `o200k_base` tokens (tiktoken's encoding of
//! OpenAI's current models; other tokenizers differ by some percent, not in which form is
//! larger).
//!
//! Two tables:
//!
//! - **Definitions**: each standard tool's definition in every export format (the compact JSON
//!   of its entry; for `xml`, the prompt block with that tool alone), and the whole set per
//!   format (`toolsmith list --format F`, compact JSON; the indented form too, which is what
//!   `list` prints).
//! - **Results**: typical calls on fixed fixtures, each in three forms: the text content (what
//!   every provider's tool-result message carries), the structured content (MCP's
//!   `structuredContent`, compact JSON; `-` when the tool declares none), and what a host
//!   that forwards only the structured content when there is one (Claude Code, VS Code) sends
//!   the model. `ratio` is structured / text.
//!
//! The calls and their fixtures are `tests/tokens/calls.rs`, shared with the test that holds
//! each result to its output schema and to 1.1x its text: the fixtures are committed under
//! `benches/fixtures/tokens/` (`src/`, a small crate written to be the corpus, described in
//! `docs/tokens.md`; an HTML page; a SearXNG answer) and copied into a temp dir, so the
//! figures move only when the tools' output does. The web calls go to a loopback server that
//! serves the page and plays SearXNG. `TOKENS_DUMP=DIR` writes each call's two forms there,
//! to look at.
//!
//! ```text
//! cargo bench -p tool-std --bench tokens
//! ```

#[path = "../tests/tokens/calls.rs"]
mod calls;

use std::path::Path;

use tiktoken_rs::CoreBPE;
use tool_core::provider::McpParts;
use tool_core::provider::{Format, export, export_all};
use tool_core::{Registry, ResourcesTracker, ToolSpec};

use calls::{Fixtures, tokens};

/// The export formats a model is sent (the canonical `json` is toolsmith's own).
const FORMATS: &[Format] = &[
    Format::Openai,
    Format::OpenaiStrict,
    Format::OpenaiResponses,
    Format::Anthropic,
    Format::Gemini,
    Format::Mcp,
    Format::Xml,
];

fn definitions(bpe: &CoreBPE, specs: &[&ToolSpec]) {
    println!("## Definitions (o200k_base tokens)\n");
    print!("| tool |");
    for f in FORMATS {
        print!(" {} |", f.as_str());
    }
    println!();
    println!("|---|{}", "---:|".repeat(FORMATS.len()));
    for spec in specs {
        print!("| {} |", spec.name);
        for &f in FORMATS {
            let text = export(spec, f).expect("export").to_compact();
            print!(" {} |", tokens(bpe, &text));
        }
        println!();
    }
    for (label, pretty) in [("whole set", false), ("whole set, indented", true)] {
        print!("| **{label}** |");
        for &f in FORMATS {
            let all = export_all(specs.iter().copied(), f).expect("export all");
            let text = if pretty {
                all.to_pretty()
            } else {
                all.to_compact()
            };
            print!(" **{}** |", tokens(bpe, &text));
        }
        println!();
    }
    println!();
}

fn results(bpe: &CoreBPE, rt: &tokio::runtime::Runtime, fixtures: &Fixtures) {
    println!("## Results (o200k_base tokens)\n");
    println!("| call | text | structured | structured-only host | ratio |");
    println!("|---|---:|---:|---:|---:|");
    for call in fixtures.calls() {
        let label = call.label;
        let outcome = rt.block_on(fixtures.run(&call));
        assert!(outcome.is_success(), "{label}: {}", outcome.to_json());
        let parts = McpParts::of(&outcome, &mut ResourcesTracker::new());
        if let Some(dir) = std::env::var_os("TOKENS_DUMP") {
            let stem = Path::new(&dir).join(label.replace(['/', '`', ' '], "_"));
            std::fs::write(stem.with_extension("txt"), &parts.text).expect("dump");
            if let Some(v) = &parts.structured {
                std::fs::write(stem.with_extension("json"), v.to_string()).expect("dump");
            }
        }
        let text = tokens(bpe, &parts.text);
        let structured = parts
            .structured
            .as_ref()
            .map(|v| tokens(bpe, &v.to_string()));
        let host = structured.unwrap_or(text);
        match structured {
            Some(s) => println!(
                "| {label} | {text} | {s} | {host} | {:.2}x |",
                s as f64 / text as f64
            ),
            None => println!("| {label} | {text} | - | {host} | - |"),
        }
    }
    println!();
}

fn main() {
    // `cargo test --benches` runs this without `--bench`: nothing to check there.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let bpe = tiktoken_rs::o200k_base().expect("o200k_base");
    let registry = Registry::builder()
        .with_inventory()
        .build()
        .expect("registry");
    let mut specs: Vec<&ToolSpec> = registry.iter().map(|e| &**e.spec()).collect();
    specs.sort_by(|a, b| a.name.cmp(&b.name));
    definitions(&bpe, &specs);

    let fixtures = Fixtures::new(registry);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio");
    results(&bpe, &rt, &fixtures);
}
