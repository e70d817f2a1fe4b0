//! The XML/Markdown tool description block for a system prompt, and XML tool calls as a
//! model writes them (the code-assistant syntax, seed 001):
//!
//! ```text
//! <tool:read_file>
//! <param:path>src/main.rs</param:path>
//! <param:path>src/lib.rs</param:path>
//! </tool:read_file>
//! ```
//!
//! One tag per parameter; an array parameter repeats its tag, one element each; numbers and
//! booleans are plain text; an object is JSON text. A value is literal (no entity decoding);
//! a value that starts on the line after its opening tag drops that line break and the one
//! before its closing tag; `<![CDATA[...]]>` holds text that would otherwise close the tag.
//!
//! The prompt block groups tools by category in seed 003's order: Search & Discovery, File
//! Reading, File Writing, File Management, then the other categories alphabetically, then
//! tools without a category.

use std::fmt::Write as _;

use serde_json::{Map, Value};

use super::error::ExportError;
use super::schema::{required_list, resolve, type_list};
use crate::call::ToolCall;
use crate::spec::ToolSpec;
use crate::validate::example_value;

/// The categories with a fixed place, in order: the keys that map to each and the heading.
pub const CATEGORY_ORDER: &[(&[&str], &str)] = &[
    (
        &[
            "search",
            "search_discovery",
            "search_and_discovery",
            "discovery",
        ],
        "Search & Discovery",
    ),
    (&["file_reading", "reading", "read"], "File Reading"),
    (&["file_writing", "writing", "write"], "File Writing"),
    (&["file_management", "management"], "File Management"),
];

/// The heading of tools without a category (placed last).
pub const UNCATEGORIZED: &str = "Other Tools";

/// The heading a category key is listed under, and its rank: the fixed categories first (0 to
/// 3), then every other category (4, ordered by heading), then none (5).
pub fn category_heading(key: Option<&str>) -> (usize, String) {
    let Some(key) = key else {
        return (CATEGORY_ORDER.len() + 1, UNCATEGORIZED.to_owned());
    };
    let norm = key
        .trim()
        .to_ascii_lowercase()
        .replace([' ', '-', '&'], "_");
    let norm = norm
        .split('_')
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("_");
    for (rank, (keys, heading)) in CATEGORY_ORDER.iter().enumerate() {
        if keys.contains(&norm.as_str()) {
            return (rank, (*heading).to_owned());
        }
    }
    let heading = norm
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(f) => f.to_uppercase().chain(c).collect::<String>(),
                None => String::new(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ");
    (CATEGORY_ORDER.len(), heading)
}

/// The opening of the block: how to call a tool.
pub const PREAMBLE: &str = "\
# Tools

To call a tool, write an XML block in your reply:

<tool:TOOL_NAME>
<param:PARAMETER_NAME>value</param:PARAMETER_NAME>
</tool:TOOL_NAME>

Rules:
- Write one `<param:NAME>` tag per parameter; leave out optional parameters you do not need.
- For an array parameter, repeat its tag, one element per tag.
- Write numbers and booleans as plain text (`42`, `true`); write an object parameter as JSON text.
- Values are taken literally: no escaping, no entities. A value may span several lines; start \
it on the line after its opening tag (that line break and the one before the closing tag are \
not part of the value).
- If a value contains `</param:` itself, wrap it in `<![CDATA[` and `]]>`.
- You may make several calls in one message. Each result comes back as \
`<tool_result tool=\"TOOL_NAME\">...</tool_result>`.
";

/// The whole prompt block for a list of tools: [`PREAMBLE`], then the tools grouped by
/// category (see the module docs). Tools keep their given order within a category.
pub fn prompt_block<'a, I>(specs: I) -> Result<String, ExportError>
where
    I: IntoIterator<Item = &'a ToolSpec>,
{
    let mut sections = Vec::new();
    for spec in specs {
        sections.push((
            spec.category.as_deref().map(str::to_owned),
            tool_section(spec)?,
        ));
    }
    Ok(assemble(
        sections.iter().map(|(c, s)| (c.as_deref(), s.as_str())),
    ))
}

/// Puts tool sections together under their category headings (the order of
/// [`category_heading`]); used by [`prompt_block`] and by the cache.
pub fn assemble<'a, I>(sections: I) -> String
where
    I: IntoIterator<Item = (Option<&'a str>, &'a str)>,
{
    let mut groups: Vec<((usize, String), Vec<&str>)> = Vec::new();
    for (category, section) in sections {
        let key = category_heading(category);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, list)) => list.push(section),
            None => groups.push((key, vec![section])),
        }
    }
    groups.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out = String::from(PREAMBLE);
    for ((_, heading), list) in groups {
        let _ = write!(out, "\n## {heading}\n");
        for section in list {
            out.push('\n');
            out.push_str(section);
        }
    }
    out
}

/// One tool's section: name, description, parameters, actions, an example call.
pub fn tool_section(spec: &ToolSpec) -> Result<String, ExportError> {
    let root = &*spec.input_schema;
    let mut out = String::new();
    let _ = writeln!(out, "### {}\n", spec.name);
    let description = spec.description.trim();
    if !description.is_empty() {
        let _ = writeln!(out, "{description}\n");
    }
    let props = root.get("properties").and_then(Value::as_object);
    let required = required_list(root);
    match props {
        Some(props) if !props.is_empty() => {
            out.push_str("Parameters:\n");
            for (name, node) in props {
                let node_r = resolve(root, node);
                let kind = describe(root, node, 0);
                let repeat = is_array(root, node, 0);
                let mut line = format!(
                    "- `{name}` ({kind}, {}",
                    if required.contains(&name.as_str()) {
                        "required"
                    } else {
                        "optional"
                    }
                );
                if repeat {
                    line.push_str("; repeat the tag for each element");
                }
                line.push(')');
                let mut doc = node
                    .get("description")
                    .or_else(|| node_r.get("description"))
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                // A closed set of values documents them in its own description.
                if let (Some(d), Some(own)) = (
                    doc.as_mut(),
                    node_r.get("description").and_then(Value::as_str),
                ) && node_r.as_object().is_some_and(super::schema::is_value_set)
                    && !d.contains(own)
                {
                    d.push(' ');
                    d.push_str(own);
                }
                if let Some(doc) = doc {
                    let _ = write!(line, ": {}", one_line(&doc));
                }
                out.push_str(&line);
                out.push('\n');
            }
            out.push('\n');
        }
        _ => out.push_str("Parameters: none.\n\n"),
    }
    if let Some(set) = &spec.actions {
        let _ = writeln!(out, "Actions (`{}` picks one):", set.field);
        for a in &set.actions {
            let mut line = format!("- `{}`", a.name);
            if !a.description.is_empty() {
                let _ = write!(line, ": {}", a.description.trim());
            }
            let mut parts: Vec<String> = a.required.iter().map(|r| format!("`{r}`")).collect();
            parts.extend(a.optional.iter().map(|o| format!("`{o}` (optional)")));
            if !parts.is_empty() {
                let _ = write!(line, " Parameters: {}.", parts.join(", "));
            }
            out.push_str(&line);
            out.push('\n');
        }
        out.push('\n');
    }
    out.push_str("Example:\n");
    out.push_str(&example_call(spec));
    out.push('\n');
    Ok(out)
}

/// A description on one line: line breaks and runs of spaces become one space.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn is_array(root: &Value, node: &Value, depth: usize) -> bool {
    if depth > 16 {
        return false;
    }
    let node = resolve(root, node);
    if type_list(node).contains(&"array") {
        return true;
    }
    ["anyOf", "oneOf"].iter().any(|k| {
        node.get(*k)
            .and_then(Value::as_array)
            .is_some_and(|bs| bs.iter().any(|b| is_array(root, b, depth + 1)))
    })
}

fn literal_values(
    root: &Value,
    node: &Value,
    depth: usize,
) -> Option<Vec<(Value, Option<String>)>> {
    let node = resolve(root, node);
    if depth > 8 {
        return None;
    }
    let doc = node
        .get("description")
        .and_then(Value::as_str)
        .map(str::to_owned);
    if let Some(values) = node.get("enum").and_then(Value::as_array) {
        let doc = if values.len() == 1 { doc } else { None };
        return Some(values.iter().map(|v| (v.clone(), doc.clone())).collect());
    }
    if let Some(c) = node.get("const") {
        return Some(vec![(c.clone(), doc)]);
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(branches) = node.get(key).and_then(Value::as_array) {
            let mut out = Vec::new();
            for b in branches {
                if type_list(resolve(root, b)) == ["null"] {
                    continue;
                }
                out.extend(literal_values(root, b, depth + 1)?);
            }
            return Some(out);
        }
    }
    None
}

/// A short human description of a schema's type: `string`, `array of integer`,
/// `one of: \`a\`, \`b\``, `object as JSON text`.
fn describe(root: &Value, node: &Value, depth: usize) -> String {
    let node = resolve(root, node);
    if depth > 8 {
        return "JSON value".to_owned();
    }
    if let Some(values) = literal_values(root, node, 0)
        && !values.is_empty()
    {
        let list: Vec<String> = values
            .iter()
            .filter(|(v, _)| !v.is_null())
            .map(|(v, doc)| {
                let text = v.as_str().map_or_else(|| v.to_string(), str::to_owned);
                match doc {
                    Some(d) => format!("`{text}` ({})", d.trim()),
                    None => format!("`{text}`"),
                }
            })
            .collect();
        return format!("one of: {}", list.join(", "));
    }
    let types: Vec<&str> = type_list(node)
        .into_iter()
        .filter(|t| *t != "null")
        .collect();
    if types.is_empty() {
        for key in ["anyOf", "oneOf", "allOf"] {
            if let Some(branches) = node.get(key).and_then(Value::as_array) {
                let mut parts: Vec<String> = Vec::new();
                for b in branches {
                    if type_list(resolve(root, b)) == ["null"] {
                        continue;
                    }
                    let d = describe(root, b, depth + 1);
                    if !parts.contains(&d) {
                        parts.push(d);
                    }
                }
                if !parts.is_empty() {
                    return parts.join(" or ");
                }
            }
        }
        if node.get("properties").is_some() {
            return "object as JSON text".to_owned();
        }
        return "any JSON value".to_owned();
    }
    let parts: Vec<String> = types
        .iter()
        .map(|t| match *t {
            "array" => match node.get("items") {
                Some(items) => format!("array of {}", describe(root, items, depth + 1)),
                None => "array".to_owned(),
            },
            "object" => "object as JSON text".to_owned(),
            other => other.to_owned(),
        })
        .collect();
    parts.join(" or ")
}

/// An example XML call: the required parameters (for a polymorphic tool, the first action
/// and the parameters it requires).
pub fn example_call(spec: &ToolSpec) -> String {
    let root = &*spec.input_schema;
    let required = required_list(root);
    let mut args = Map::new();
    if let Some(props) = root.get("properties").and_then(Value::as_object) {
        let action = spec
            .actions
            .as_ref()
            .and_then(|s| s.actions.first().map(|a| (s, a)));
        for (name, node) in props {
            let wanted = match action {
                Some((set, a)) if name == set.field.as_ref() => {
                    args.insert(name.clone(), Value::String(a.name.to_string()));
                    continue;
                }
                Some((_, a)) => {
                    a.required.iter().any(|r| r == name) || required.contains(&name.as_str())
                }
                None => required.contains(&name.as_str()),
            };
            if wanted {
                args.insert(name.clone(), example_value(root, node, 0));
            }
        }
    }
    tool_call(&ToolCall::new(
        "",
        spec.name.to_string(),
        Value::Object(args),
    ))
}

/// Writes a call in the XML syntax, the inverse of the XML importer: strings literally
/// (multi-line ones in block form, CDATA where needed), numbers and booleans as text,
/// arrays as repeated tags (an empty array, or one whose single element reads as a JSON
/// array, as JSON text), objects as JSON text; `null` members are left out.
pub fn tool_call(call: &ToolCall) -> String {
    let mut out = format!("<tool:{}>\n", call.name);
    if let Ok(Value::Object(args)) = call.arguments.to_value() {
        for (name, value) in &args {
            match value {
                Value::Null => {}
                Value::Array(items)
                    if !(items.is_empty()
                        || (items.len() == 1
                            && element_text(&items[0]).trim_start().starts_with('['))) =>
                {
                    for item in items {
                        push_param(&mut out, name, &element_text(item));
                    }
                }
                other => push_param(&mut out, name, &element_text(other)),
            }
        }
    }
    let _ = write!(out, "</tool:{}>", call.name);
    out
}

fn element_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn push_param(out: &mut String, name: &str, text: &str) {
    let _ = write!(out, "<param:{name}>");
    let needs_cdata =
        text.contains("</param:") || text.contains("<![CDATA[") || text.contains("</tool:");
    if needs_cdata {
        out.push_str("<![CDATA[");
        out.push_str(&text.replace("]]>", "]]]]><![CDATA[>"));
        out.push_str("]]>");
    } else if text.contains('\n') {
        out.push('\n');
        out.push_str(text);
        out.push('\n');
    } else {
        out.push_str(text);
    }
    let _ = writeln!(out, "</param:{name}>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings() {
        assert_eq!(category_heading(Some("search")).1, "Search & Discovery");
        assert_eq!(category_heading(Some("file_writing")).0, 2);
        assert_eq!(category_heading(Some("web_tools")).1, "Web Tools");
        assert_eq!(category_heading(None).1, UNCATEGORIZED);
    }
}
