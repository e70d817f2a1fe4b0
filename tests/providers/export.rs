//! Provider formats for every tool linked into the facade (issue 4): tool-std's `web` and
//! `prompt_manager`, and whatever else registers itself through `inventory` here. This module
//! holds the export checks; `providers::roundtrip` the round trips and `providers::property`
//! the property test.
//!
//! tool-core's provider tests cannot see tool-std (tool-std depends on tool-core, so a
//! dev-dependency the other way would link two copies of tool-core); these modules run the
//! same checks from the facade, reusing tool-core's fixtures module for the provider rule
//! tables (`fixtures/rules.rs`) and the golden-file helper (`fixtures/snapshot.rs`).
//!
//! Export: every tool in every [`Format`] validates against the JSON Schema 2020-12
//! meta-schema, satisfies the provider's documented rules, and matches its snapshot under
//! `tests/snapshots/std_<format>.json` (`std_xml.md`); `UPDATE_SNAPSHOTS=1 cargo test --test
//! tests` rewrites them.

use toolsmith::provider::{ExportCache, Exported, Format, export_all};

use crate::support::fixtures::checks::{self, specs};
use crate::support::providers::*;

/// Exports of a std tool that are expected to fail, as (tool, format). Every other export
/// must succeed: the standard tools speak every provider's format.
const EXPECTED_EXPORT_ERRORS: &[(&str, Format)] = &[];

#[test]
fn every_std_tool_in_every_format_is_valid_and_matches_its_snapshot() {
    let specs = specs(&registry());
    let mut failures: Vec<String> = Vec::new();
    let checked = checks::check_exports(
        "std",
        &specs,
        |tool, format| EXPECTED_EXPORT_ERRORS.contains(&(tool, format)),
        &mut failures,
    );
    assert_eq!(checked, specs.len() * Format::ALL.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_cache_gives_the_same_text_as_an_uncached_export() {
    let specs = specs(&registry());
    let cache = ExportCache::new();
    for &format in Format::ALL {
        let fresh = export_all(&specs, format);
        for _ in 0..2 {
            match (&fresh, cache.export_all(&specs, format)) {
                (Ok(Exported::Json(v)), Ok(text)) => {
                    assert_eq!(serde_json::to_string(v).unwrap(), text, "{format}")
                }
                (Ok(Exported::Text(t)), Ok(text)) => assert_eq!(t, &text, "{format}"),
                (Err(a), Err(b)) => assert_eq!(a, &b, "{format}"),
                (a, b) => panic!("{format}: {a:?} vs {b:?}"),
            }
        }
    }
}

#[test]
fn deferred_std_tools_and_their_namespaces_are_valid_lists() {
    use crate::support::fixtures::tool_search::check_tool_search_list;
    use toolsmith::provider::{ExportOptions, export_all_with};

    let specs = specs(&registry());
    let cases = [
        (
            Format::Anthropic,
            ExportOptions::new().defer_toolset("file").defer_tool("web"),
        ),
        (Format::Anthropic, ExportOptions::new().defer_all()),
        (
            Format::OpenaiResponses,
            ExportOptions::new()
                .namespace_by_toolset()
                .defer_toolset("file"),
        ),
        (
            Format::OpenaiResponses,
            ExportOptions::new().namespace_by_toolset().defer_all(),
        ),
    ];
    for (format, options) in cases {
        let list = export_all_with(&specs, format, &options).expect("exports");
        let list = list.as_json().expect("json");
        let failures = check_tool_search_list(format, list);
        assert!(failures.is_empty(), "{format} {options:?}: {failures:?}");
    }
    // Every standard tool has a toolset, so every one lands in a namespace.
    let options = ExportOptions::new().namespace_by_toolset();
    let list = export_all_with(&specs, Format::OpenaiResponses, &options).expect("exports");
    let namespaces: Vec<&str> = list
        .as_json()
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            assert_eq!(e["type"], "namespace", "{e}");
            e["name"].as_str().unwrap()
        })
        .collect();
    assert_eq!(
        namespaces,
        ["file", "shell", "code", "search", "prompt", "plan", "web"]
    );
}
