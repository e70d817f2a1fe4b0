//! Export validity: every tool exports to every format, within each provider's documented
//! rules (`rules.rs`: OpenAI strict's schema subset, Gemini's, the name rules, MCP's fields),
//! with schemas that are valid JSON Schema 2020-12.

use std::fmt;

use serde_json::Value;

use super::rules;
use crate::provider::{Exported, Format, export, export_all};
use crate::registry::Registry;
use crate::spec::ToolSpec;

/// One way a tool fails to export.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExportProblem {
    /// The tool (empty for the XML block as a whole).
    pub tool: String,
    /// The format.
    pub format: Format,
    /// What is wrong, naming the JSON pointer where there is one.
    pub problem: String,
}

impl fmt::Display for ExportProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.tool.is_empty() {
            write!(f, "format `{}`: {}", self.format, self.problem)
        } else {
            write!(
                f,
                "tool `{}`, format `{}`: {}",
                self.tool, self.format, self.problem
            )
        }
    }
}

/// The schemas an exported entry of `format` holds (its input schema, and its output schema
/// where the format has one), by JSON pointer.
pub fn schemas_of(format: Format, entry: &Value) -> Vec<(&'static str, &Value)> {
    let at: &[&'static str] = match format {
        Format::Json => &["/input_schema", "/output_schema"],
        Format::Openai | Format::OpenaiStrict => &["/function/parameters"],
        Format::OpenaiResponses => &["/parameters"],
        Format::Anthropic | Format::AnthropicStrict => &["/input_schema"],
        Format::Gemini => &["/parameters"],
        Format::Mcp => &["/inputSchema", "/outputSchema"],
        _ => &[],
    };
    at.iter()
        .filter_map(|p| entry.pointer(p).map(|s| (*p, s)))
        .collect()
}

/// Where `schema` is not a valid JSON Schema 2020-12 document, by instance path.
pub fn meta_schema_problems(schema: &Value) -> Vec<String> {
    jsonschema::draft202012::meta::validator()
        .iter_errors(schema)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

/// Every documented rule of `format` that `entry` (one exported tool, as
/// [`provider::export`](crate::provider::export) gives it) breaks, and every schema in it that
/// is not valid JSON Schema 2020-12; each message names the JSON pointer.
pub fn entry_problems(format: Format, entry: &Value) -> Vec<String> {
    let mut found = match rules::rules_for(format, entry) {
        Some(rules) => rules::check(rules, entry),
        None => Vec::new(),
    };
    for (at, schema) in schemas_of(format, entry) {
        for problem in meta_schema_problems(schema) {
            found.push(format!("{at}: not a valid JSON Schema 2020-12: {problem}"));
        }
    }
    found
}

/// What the XML prompt block (`block`, listing `tools` by name and category) breaks: the
/// call syntax documented, a section and an example call per tool, the categories in order.
pub fn xml_problems(block: &str, tools: &[(&str, Option<&str>)]) -> Vec<String> {
    rules::check_xml(block, tools)
}

/// Every way `specs` fail to export in `formats`: an export error, a provider rule broken or
/// a schema that is not valid JSON Schema 2020-12.
pub fn export_problems(specs: &[ToolSpec], formats: &[Format]) -> Vec<ExportProblem> {
    let mut found = Vec::new();
    for &format in formats {
        if format == Format::Xml {
            let tools: Vec<(&str, Option<&str>)> = specs
                .iter()
                .map(|s| (s.name.as_ref(), s.category.as_deref()))
                .collect();
            match export_all(specs, format) {
                Ok(Exported::Text(block)) => {
                    found.extend(xml_problems(&block, &tools).into_iter().map(|problem| {
                        ExportProblem {
                            tool: String::new(),
                            format,
                            problem,
                        }
                    }));
                }
                Ok(Exported::Json(_)) => {}
                Err(e) => found.push(ExportProblem {
                    tool: e.tool().to_owned(),
                    format,
                    problem: e.to_string(),
                }),
            }
            continue;
        }
        for spec in specs {
            let problem = |problem| ExportProblem {
                tool: spec.name.to_string(),
                format,
                problem,
            };
            match export(spec, format) {
                Ok(Exported::Json(entry)) => {
                    found.extend(entry_problems(format, &entry).into_iter().map(problem))
                }
                Ok(Exported::Text(_)) => {}
                Err(e) => found.push(problem(e.to_string())),
            }
        }
    }
    found
}

/// Asserts that every tool of `registry` exports to every format ([`Format::ALL`]) within
/// the providers' rules.
///
/// # Panics
///
/// With every problem, one a line.
pub fn assert_exports(registry: &Registry) {
    let specs: Vec<ToolSpec> = registry.iter().map(|e| (**e.spec()).clone()).collect();
    let found = export_problems(&specs, Format::ALL);
    if !found.is_empty() {
        let lines: Vec<String> = found.iter().map(|p| format!("- {p}")).collect();
        panic!("{} export problem(s):\n{}", found.len(), lines.join("\n"));
    }
}
