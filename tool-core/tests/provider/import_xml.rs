//! Import of malformed and borderline XML calls: each gets the exact repair or error expected
//! (unknown tools, duplicate and mistyped parameters, unclosed and bad tags, CDATA and
//! entities, Unicode, arrays and objects from JSON text, stray text).

use serde_json::json;
use tool_core::provider::{self, Importer, RepairKind};

use crate::support::provider::*;

#[tokio::test]
async fn case_12_unknown_tool_in_xml_is_still_a_call() {
    let registry = registry();
    let i = one(Importer::new(&registry)
        .xml_calls("<tool:gerp><param:pattern>x</param:pattern></tool:gerp>"));
    assert_eq!(i.call.name, "gerp");
    assert_eq!(args(&i.call), json!({"pattern": "x"}));
    let a = answer(i).await;
    assert_eq!(a["error_type"], "not_found");
    assert_eq!(a["did_you_mean"], "grep");
}

#[tokio::test]
async fn case_13_duplicate_xml_param_is_a_problem_not_an_overwrite() {
    let registry = registry();
    let i = one(Importer::new(&registry).xml_calls(
        "<tool:grep>\n<param:pattern>a</param:pattern>\n<param:pattern>b</param:pattern>\n</tool:grep>",
    ));
    assert_eq!(args(&i.call), json!({"pattern": ["a", "b"]}));
    assert_eq!(i.problems.len(), 1);
    assert_eq!(
        i.problems[0].message,
        "parameter `pattern` was given 2 times; it takes one value"
    );
    let a = answer(i.clone()).await;
    assert_eq!(a["error_type"], "validation_error");
    assert_eq!(
        a["error"],
        "grep(pattern=[\"a\",\"b\"]): parameter `pattern` was given 2 times; it takes one value"
    );
    // Even run directly, validation refuses the array.
    let direct = session(registry).call(i.call).await.to_json();
    assert_eq!(direct["error_type"], "validation_error");
    assert_eq!(problem_paths(&direct), ["/pattern"]);
}

#[tokio::test]
async fn case_14_wrong_types_in_xml_stay_text_for_validation() {
    let registry = registry();
    let i = one(Importer::new(&registry).xml_calls(
        "<tool:grep><param:pattern>x</param:pattern><param:max_results>many</param:max_results>\
         <param:case_sensitive>yes</param:case_sensitive></tool:grep>",
    ));
    assert_eq!(
        args(&i.call),
        json!({"pattern": "x", "max_results": "many", "case_sensitive": "yes"})
    );
    assert!(i.repairs.is_empty());
    let a = answer(i).await;
    assert_eq!(problem_paths(&a), ["/max_results", "/case_sensitive"]);
}

#[test]
fn case_15_unclosed_tool_tag() {
    let registry = registry();
    let r =
        Importer::new(&registry).xml_calls("ok\n<tool:grep>\n<param:pattern>x</param:pattern>\n");
    let e = r.into_iter().next().unwrap().unwrap_err();
    assert_eq!(
        e.to_string(),
        "the XML call of `grep` is malformed: the call is not closed: `</tool:grep>` is missing \
         (at byte 3)"
    );
    let err = e.to_tool_error().to_json();
    assert_eq!(err["error_type"], "validation_error");
    assert_eq!(provider::rejected_import(&e).tool, "grep");
}

#[test]
fn case_16_unclosed_param_tag() {
    let registry = registry();
    let r = Importer::new(&registry).xml_calls("<tool:grep><param:pattern>x</tool:grep>");
    assert_eq!(
        r[0].as_ref().unwrap_err().to_string(),
        "the XML call of `grep` is malformed: parameter `pattern` is not closed: \
         `</param:pattern>` is missing (at byte 11)"
    );
}

#[test]
fn case_17_cdata_holds_closing_tags_and_entities_stay_literal() {
    let registry = registry();
    let i = one(Importer::new(&registry).xml_calls(
        "<tool:grep><param:pattern><![CDATA[a</param:pattern>b]]></param:pattern>\
         <param:path>x &lt;&amp;&gt; y</param:path></tool:grep>",
    ));
    assert_eq!(
        args(&i.call),
        json!({"pattern": "a</param:pattern>b", "path": "x &lt;&amp;&gt; y"})
    );
}

#[test]
fn case_18_unicode_values_and_a_non_ascii_param_name() {
    let registry = registry();
    let importer = Importer::new(&registry);
    let i =
        one(importer
            .xml_calls("<tool:grep><param:pattern>日本語 🦀 naïve</param:pattern></tool:grep>"));
    assert_eq!(args(&i.call), json!({"pattern": "日本語 🦀 naïve"}));
    let r = importer.xml_calls("<tool:grep><param:naïve>x</param:naïve></tool:grep>");
    assert_eq!(
        r[0].as_ref().unwrap_err().to_string(),
        "the XML call of `grep` is malformed: a parameter tag must be `<param:NAME>`: the name \
         right after `param:`, then `>` (at byte 11)"
    );
}

#[test]
fn case_19_xml_arrays_from_json_text_and_objects_from_json_text() {
    let registry = registry();
    let importer = Importer::new(&registry);
    let i = one(importer.xml_calls(
        "<tool:read_file><param:paths>[\"a.rs\", \"b.rs\"]</param:paths>\
         <param:ranges>{\"start\": 1, \"end\": 2}</param:ranges></tool:read_file>",
    ));
    assert_eq!(
        args(&i.call),
        json!({"paths": ["a.rs", "b.rs"], "ranges": [{"start": 1, "end": 2}]})
    );
    let kinds: Vec<(&str, RepairKind)> = i
        .repairs
        .iter()
        .map(|r| (r.path.as_str(), r.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            ("/paths", RepairKind::StringifiedJsonParsed),
            ("/ranges/0", RepairKind::StringifiedJsonParsed),
        ]
    );
}

#[tokio::test]
async fn case_20_bad_json_text_for_an_object_stays_text() {
    let registry = registry();
    let i = one(Importer::new(&registry)
        .xml_calls("<tool:create_user><param:user>{name: Ada}</param:user></tool:create_user>"));
    assert_eq!(args(&i.call), json!({"user": "{name: Ada}"}));
    let a = answer(i).await;
    assert_eq!(problem_paths(&a), ["/user"]);
}

#[test]
fn case_21_empty_string_for_an_object_and_stray_text() {
    let registry = registry();
    let i = one(Importer::new(&registry).xml_calls(
        "<tool:configure>\nsetting env now\n<param:env></param:env>\n</tool:configure>",
    ));
    assert_eq!(args(&i.call), json!({"env": {}}));
    let got: Vec<(&str, RepairKind, &str)> = i
        .repairs
        .iter()
        .map(|r| (r.path.as_str(), r.kind, r.detail.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (
                "",
                RepairKind::StrayTextIgnored,
                "text outside the parameter tags: \"setting env now\""
            ),
            (
                "/env",
                RepairKind::EmptyStringAsEmptyObject,
                "an empty string"
            ),
        ]
    );
}

#[test]
fn case_26_bad_opening_tags() {
    let registry = registry();
    let importer = Importer::new(&registry);
    let r =
        importer.xml_calls("<tool:grep mode=\"x\"><param:pattern>x</param:pattern></tool:grep>");
    assert_eq!(
        r[0].as_ref().unwrap_err().to_string(),
        "the XML call of `grep` is malformed: an opening tag must be `<tool:NAME>`: the name \
         right after `tool:`, then `>` (at byte 0)"
    );
    assert!(
        importer
            .xml_calls("no calls here, not even <tool")
            .is_empty()
    );
}
