//! The crate's layers, read from the sources' paths: no tool family reaches into another family
//! or the rules, and the shared rooms (`workspace`, the trust room's `command`, `net` and
//! `sandbox`) reach into no family (see `tool_std::trust`).

use std::path::{Path, PathBuf};

/// The tool families: each may use itself and the shared rooms only.
const FAMILIES: &[&str] = &["file", "plan", "prompt", "search", "shell", "web"];

/// The rooms every family may use.
const SHARED: &[&[&str]] = &[
    &["workspace"],
    &["numbers"],
    &["trust", "command"],
    &["trust", "net"],
    &["trust", "sandbox"],
];

/// The room a module belongs to, by its path in the crate: a family, a shared room, the
/// rules, or the crate's root (which declares the rest and may name anything).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Room {
    Family(String),
    Shared(Vec<String>),
    Rules,
    Root,
}

fn room_of(module: &[String]) -> Room {
    let names: Vec<&str> = module.iter().map(String::as_str).collect();
    match names.as_slice() {
        [] | ["trust"] | ["bin", ..] => Room::Root,
        ["trust", "rules", ..] => Room::Rules,
        [first, ..] if FAMILIES.contains(first) => Room::Family((*first).to_owned()),
        _ => match SHARED.iter().find(|s| names.starts_with(s)) {
            Some(shared) => Room::Shared(shared.iter().map(|s| (*s).to_owned()).collect()),
            None => Room::Root,
        },
    }
}

/// Whether a module in `from` may name `target` (a path from the crate's root).
fn allowed(from: &Room, target: &[String]) -> bool {
    let to = room_of(target);
    match (from, &to) {
        (Room::Root | Room::Rules, _) => true,
        // Only `crate::trust` itself; anything else at the root (the re-export of the rules
        // included) is no shared room.
        (_, Room::Root) => target == ["trust"],
        (_, Room::Shared(_)) => true,
        (Room::Family(f), Room::Family(g)) => f == g,
        (Room::Family(_) | Room::Shared(_), Room::Rules) => false,
        (Room::Shared(_), Room::Family(_)) => false,
    }
}

/// The module path of a source file below `src` (`trust/sandbox/mod.rs` is
/// `["trust", "sandbox"]`; `lib.rs` is the root).
fn module_of(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if let Some(last) = parts.pop() {
        let stem = last.trim_end_matches(".rs");
        if stem != "mod" && stem != "lib" {
            parts.push(stem.to_owned());
        }
    }
    parts
}

/// The code of a line: comments and string literals left out (a doc link or a message
/// naming a path is no edge).
fn code_of(line: &str) -> String {
    let mut out = String::new();
    let mut in_string = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if in_string => {
                chars.next();
            }
            '"' => in_string = !in_string,
            '/' if !in_string && chars.peek() == Some(&'/') => break,
            _ if !in_string => out.push(c),
            _ => {}
        }
    }
    out
}

/// The name of an inline module a line opens (`mod tests {`), with the line's indentation.
fn inline_module(line: &str) -> Option<(usize, String)> {
    let indent = line.len() - line.trim_start().len();
    let rest = line.trim_start();
    let rest = rest
        .strip_prefix("pub(crate) ")
        .or(rest.strip_prefix("pub "))
        .unwrap_or(rest);
    let name = rest.strip_prefix("mod ")?.strip_suffix('{')?.trim();
    (!name.is_empty()).then(|| (indent, name.to_owned()))
}

/// The crate paths a source file names (`crate::a::b`, `super::x`, `crate::{a, b}`),
/// resolved from `module` and the inline modules around them (`mod tests { ... }`, closed
/// by a `}` at its own indentation), each with its line number.
fn targets(file_module: &[String], source: &str) -> Vec<(usize, Vec<String>)> {
    let mut inline: Vec<(usize, String)> = Vec::new();
    let mut found = Vec::new();
    let ident = |s: &str| -> Vec<String> {
        s.split("::")
            .map(|p| {
                p.chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect::<String>()
            })
            .take_while(|p| !p.is_empty())
            .collect()
    };
    for (n, line) in source.lines().enumerate() {
        if let Some(opened) = inline_module(line) {
            inline.push(opened);
            continue;
        }
        if line.trim() == "}"
            && inline
                .last()
                .is_some_and(|(indent, _)| line.len() - line.trim_start().len() == *indent)
        {
            inline.pop();
            continue;
        }
        let mut module = file_module.to_vec();
        module.extend(inline.iter().map(|(_, name)| name.clone()));
        let code = code_of(line);
        let mut rest = code.as_str();
        while let Some(at) = rest.find(['c', 's']) {
            let here = &rest[at..];
            let before = rest[..at].chars().last();
            rest = &rest[at + 1..];
            if before.is_some_and(|b| b.is_alphanumeric() || b == '_' || b == ':') {
                continue;
            }
            let (base, path) = if let Some(p) = here.strip_prefix("crate::") {
                (Vec::new(), p)
            } else if here.starts_with("super::") {
                let mut base = module.to_vec();
                let mut p = here;
                while let Some(next) = p.strip_prefix("super::") {
                    base.pop();
                    p = next;
                }
                (base, p)
            } else {
                continue;
            };
            let groups: Vec<String> = match path.strip_prefix('{') {
                Some(inside) => inside
                    .split('}')
                    .next()
                    .unwrap_or_default()
                    .split(',')
                    .map(|s| s.trim().to_owned())
                    .filter(|s| !s.is_empty())
                    .collect(),
                None => vec![path.to_owned()],
            };
            for g in groups {
                let mut target = base.clone();
                target.extend(ident(&g));
                found.push((n + 1, target));
            }
        }
    }
    found
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every edge of the crate's sources that breaks the layers, as `file:line: from -> to`.
fn broken_edges(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    sources(src, &mut files);
    files.sort();
    let mut broken = Vec::new();
    for file in files {
        let relative = file.strip_prefix(src).expect("below src");
        let module = module_of(relative);
        let from = room_of(&module);
        let source = std::fs::read_to_string(&file).expect("read source");
        for (line, target) in targets(&module, &source) {
            if !allowed(&from, &target) {
                broken.push(format!(
                    "{}:{line}: {} -> {}",
                    relative.display(),
                    module.join("::"),
                    target.join("::")
                ));
            }
        }
    }
    broken
}

#[test]
fn no_family_imports_another_family_or_the_rules() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let broken = broken_edges(&src);
    assert!(
        broken.is_empty(),
        "edges across the layers (see tool_std::trust):\n{}",
        broken.join("\n")
    );
}

#[test]
fn the_checker_sees_each_kind_of_edge() {
    let module = |p: &str| module_of(Path::new(p));
    let edges = |file: &str, source: &str| -> Vec<bool> {
        let m = module(file);
        targets(&m, source)
            .iter()
            .map(|(_, t)| allowed(&room_of(&m), t))
            .collect()
    };
    // A family into another family, or into the rules: refused.
    assert_eq!(edges("shell/bash.rs", "use crate::web::classify;"), [false]);
    // `crate::rules` is the root's re-export of the rules: still the rules.
    assert_eq!(
        edges("shell/sandbox/mod.rs", "x || crate::rules::every(c)"),
        [false]
    );
    assert_eq!(
        edges("shell/bash.rs", "crate::trust::rules::StandardPolicy"),
        [false]
    );
    assert_eq!(edges("web/tool.rs", "use super::super::file::x;"), [false]);
    assert_eq!(
        edges(
            "file/read_file.rs",
            "use crate::{workspace::Workspace, search::grep};"
        ),
        [true, false]
    );
    // A shared room into a family: refused.
    assert_eq!(
        edges("trust/sandbox/proxy.rs", "crate::web::classify(ip)"),
        [false]
    );
    assert_eq!(
        edges("workspace/mod.rs", "use crate::shell::ShellConfig;"),
        [false]
    );
    // What is allowed.
    assert_eq!(
        edges(
            "shell/bash.rs",
            "use crate::trust::sandbox::{Program, Sandbox};"
        ),
        [true]
    );
    assert_eq!(
        edges("shell/bash.rs", "use super::config::ShellConfig;"),
        [true]
    );
    assert_eq!(
        edges("trust/rules/mod.rs", "use crate::shell::ShellConfig;"),
        [true]
    );
    assert_eq!(
        edges(
            "trust/sandbox/mod.rs",
            "use crate::trust::net::HostPattern;"
        ),
        [true]
    );
    // Comments and strings are no edges.
    assert!(edges("shell/bash.rs", "// see crate::web::classify").is_empty());
    assert!(edges("shell/bash.rs", "let s = \"crate::web::x\";").is_empty());
}
