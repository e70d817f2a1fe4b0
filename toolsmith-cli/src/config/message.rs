//! The plain-words messages for what serde refused: the key, what it takes, what was found,
//! an example, and the nearest key when the name is unknown.

use super::keys::{SECTIONS, find, generic, keys_of};

/// The plain-words message for an error serde gave at `path` (the key's path, indices
/// included; `None` when the error is not at a key).
pub(crate) fn message(path: Option<&str>, serde_message: &str) -> String {
    let Some(path) = path else {
        return serde_message.trim().to_owned();
    };
    // An unknown key: its name is the last part of the path.
    if serde_message.starts_with("unknown field") {
        let (table, name) = path.rsplit_once('.').unwrap_or(("", path));
        let within = if table.is_empty() {
            "the file".to_owned()
        } else {
            format!("[{}]", generic(table))
        };
        let known = keys_of(table);
        let near = nearest(name, &known);
        return format!(
            "`{name}` is not a key of {within}{}; its keys: {}",
            near.map(|n| format!(" (did you mean `{n}`?)"))
                .unwrap_or_default(),
            known.join(", ")
        );
    }
    let leaf = path.rsplit('.').next().unwrap_or(path);
    let found = found_of(serde_message);
    if let Some(key) = find(path) {
        let flag = if key.flag.is_empty() {
            String::new()
        } else {
            format!(" (as {})", key.flag)
        };
        return format!(
            "`{}` takes {}{flag}{}; e.g. {leaf} = {}",
            generic(path),
            key.takes,
            found.map(|f| format!(", not {f}")).unwrap_or_default(),
            key.example
        );
    }
    if SECTIONS.contains(&generic(path).as_str()) {
        let article = if generic(path) == "principal" {
            "a list of tables ([[principal]])"
        } else {
            "a table"
        };
        return format!(
            "`{}` is {article}{}",
            generic(path),
            found.map(|f| format!(", not {f}")).unwrap_or_default()
        );
    }
    format!("`{path}`: {}", serde_message.trim())
}

/// What serde says it found, in words: `invalid type: string "5", expected u64` is
/// `a string ("5")`.
fn found_of(serde_message: &str) -> Option<String> {
    if let Some(rest) = serde_message.strip_prefix("unknown variant ") {
        let value = rest.split(',').next().unwrap_or(rest).trim();
        return Some(value.replace('`', "\""));
    }
    let rest = serde_message.strip_prefix("invalid type: ")?;
    let what = rest.split(", expected").next().unwrap_or(rest).trim();
    let (kind, value) = what.split_once(' ').unwrap_or((what, ""));
    let kind = match kind {
        "string" => "a string",
        "integer" => "a whole number",
        "floating" => "a number with a fraction",
        "boolean" => "true or false",
        "sequence" => "a list",
        "map" => "a table",
        other => other,
    };
    let value = value.trim_start_matches("point").trim();
    Some(if value.is_empty() || kind == "true or false" {
        kind.to_owned()
    } else {
        format!("{kind} ({value})")
    })
}

/// The known key closest to `name` (at most two edits away).
fn nearest<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    known
        .iter()
        .map(|k| (edits(name, k), *k))
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Levenshtein distance.
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let here = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            prev = here;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_key_what_it_takes_and_what_was_found() {
        let m = message(
            Some("bash.timeout"),
            "invalid type: string \"5\", expected u64",
        );
        assert_eq!(
            m,
            "`bash.timeout` takes a whole number of seconds, at least 1 (as --bash-timeout), \
             not a string (\"5\"); e.g. timeout = 10"
        );
        let m = message(
            Some("bash.sandbox"),
            "unknown variant `maybe`, expected `on` or `off`",
        );
        assert!(
            m.contains(r#"takes "on" or "off""#) && m.contains(r#"not "maybe""#),
            "{m}"
        );
        let m = message(
            Some("bash.timeot"),
            "unknown field `timeot`, expected one of ...",
        );
        assert!(
            m.starts_with("`timeot` is not a key of [bash] (did you mean `timeout`?)"),
            "{m}"
        );
        let m = message(Some("rootz"), "unknown field `rootz`");
        assert!(
            m.contains("(did you mean `roots`?)") && m.contains("its keys: roots,"),
            "{m}"
        );
        let m = message(Some("principal[1].rules.alow"), "unknown field `alow`");
        assert!(
            m.contains("not a key of [principal.rules] (did you mean `allow`?)"),
            "{m}"
        );
        let m = message(
            Some("roots"),
            "invalid type: string \".\", expected a sequence",
        );
        assert!(
            m.contains("takes a list of directories") && m.contains("not a string"),
            "{m}"
        );
        let m = message(Some("bash"), "invalid type: integer `3`, expected a table");
        assert_eq!(m, "`bash` is a table, not a whole number (`3`)");
    }
}
