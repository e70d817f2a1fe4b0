//! Reading the file's shape with every mistake found at once: serde stops at the first, so the
//! key it stopped at is taken out of the parsed document and the rest read again, until
//! nothing is wrong or [`MAX_ERRORS`] have been found.

use serde::Deserialize;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::file::ConfigFile;
use super::message;

/// The most mistakes reported for one file.
pub(crate) const MAX_ERRORS: usize = 20;

/// A mistake: where (a byte offset) and what, in plain words.
#[derive(Debug, Clone)]
pub(crate) struct Mistake {
    pub(crate) at: Option<usize>,
    pub(crate) message: String,
}

/// The file's shape with its mistaken keys left out, and every mistake (syntax first: a file
/// that is not TOML is not read further, and has no shape).
pub(crate) fn shape(text: &str) -> (Option<ConfigFile>, Vec<Mistake>) {
    let (mut doc, syntax) = DeTable::parse_recoverable(text);
    if !syntax.is_empty() {
        let mistakes = syntax
            .iter()
            .take(MAX_ERRORS)
            .map(|e| Mistake {
                at: e.span().map(|s| s.start),
                message: e.message().trim().to_owned(),
            })
            .collect();
        return (None, mistakes);
    }
    let mut mistakes = Vec::new();
    loop {
        let error = match ConfigFile::deserialize(toml::de::Deserializer::from(doc.clone())) {
            Ok(file) => return (Some(file), mistakes),
            Err(e) => e,
        };
        let at = error.span().map(|s| s.start);
        let path = at.and_then(|at| take_out(doc.get_mut(), at, ""));
        mistakes.push(Mistake {
            at,
            message: message::message(path.as_deref(), error.message()),
        });
        if path.is_none() || mistakes.len() >= MAX_ERRORS {
            return (None, mistakes);
        }
    }
}

/// Takes the innermost key whose name or value holds byte `at` out of `table` and answers its
/// path (`bash.timeout`, `principal[1].rules.allow`); `None` when no key holds it.
fn take_out(table: &mut DeTable<'_>, at: usize, prefix: &str) -> Option<String> {
    let mut found: Option<(String, bool)> = None;
    for (k, v) in table.iter_mut() {
        let holds = |span: std::ops::Range<usize>| span.contains(&at);
        if !(holds(k.span()) || holds(v.span()) || within_table(v, at)) {
            continue;
        }
        let path = join(prefix, k.get_ref());
        // Deeper first: a key inside this table, or inside one of its array's tables.
        let inner = match v.get_mut() {
            DeValue::Table(inner) => take_out(inner, at, &path),
            DeValue::Array(items) => items.iter_mut().enumerate().find_map(|(i, item)| {
                let span = item.span();
                match item.get_mut() {
                    DeValue::Table(inner) if span.contains(&at) || contains(inner, at) => {
                        take_out(inner, at, &format!("{path}[{i}]"))
                    }
                    _ => None,
                }
            }),
            _ => None,
        };
        found = Some(match inner {
            Some(inner) => (inner, false),
            None => (path, true),
        });
        break;
    }
    let (path, remove_here) = found?;
    if remove_here {
        let name = path.rsplit('.').next().unwrap_or(&path).to_owned();
        let name = name.split('[').next().unwrap_or(&name).to_owned();
        table.remove(name.as_str());
    }
    Some(path)
}

/// Whether a table value (a `[section]` whose span may be its header alone) holds `at` in one
/// of its keys or values.
fn within_table(v: &Spanned<DeValue<'_>>, at: usize) -> bool {
    match v.get_ref() {
        DeValue::Table(t) => contains(t, at),
        DeValue::Array(items) => items.iter().any(|item| match item.get_ref() {
            DeValue::Table(t) => contains(t, at),
            _ => item.span().contains(&at),
        }),
        _ => false,
    }
}

fn contains(table: &DeTable<'_>, at: usize) -> bool {
    table
        .iter()
        .any(|(k, v)| k.span().contains(&at) || v.span().contains(&at) || within_table(v, at))
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_owned()
    } else {
        format!("{prefix}.{name}")
    }
}
