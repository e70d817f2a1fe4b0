//! What a call does, as the rules see it: its command line, the paths it names (as the tools
//! read them), its host or its action.

use std::sync::Arc;

use serde_json::Value;
use tool_core::{Effect, Match, PolicyCall};

use super::{Pattern, is_path_tool};
use crate::trust::command::{CommandLine, wildcard};
use crate::trust::net::host_of_url;
use crate::workspace::Workspace;

/// What a call does, as rules see it.
pub(super) enum Subjects {
    /// A command line and its simple commands.
    Commands(Arc<CommandLine>),
    /// Paths as (root name, relative path); `None` where the workspace refuses the path.
    Paths(Vec<Option<(String, String)>>),
    /// `web`'s action and, for `fetch`, the host and port.
    Web(String, Option<(String, u16)>),
    /// A polymorphic tool's action.
    Action(Option<String>),
}

impl Subjects {
    pub(super) fn new(call: &PolicyCall<'_>, workspace: &Workspace) -> Subjects {
        let args = call.arguments;
        let text = |key: &str| args.get(key).and_then(Value::as_str);
        match call.tool {
            "bash" => Subjects::Commands(Arc::new(CommandLine::parse(
                text("command").unwrap_or_default(),
            ))),
            "web" => {
                let action = call
                    .action
                    .or(text("action"))
                    .unwrap_or_default()
                    .to_owned();
                let host = (action == "fetch")
                    .then(|| text("query_or_url").and_then(host_of_url))
                    .flatten();
                Subjects::Web(action, host)
            }
            tool if is_path_tool(tool) => {
                let mut paths = Vec::new();
                for given in named_paths(tool, args) {
                    paths.extend(resolved(workspace, &given));
                }
                Subjects::Paths(paths)
            }
            _ => Subjects::Action(call.action.map(str::to_owned)),
        }
    }

    pub(super) fn matches(&self, pattern: &Pattern, effect: Effect) -> Match {
        let tally = |hits: usize, total: usize| match (hits, total) {
            (_, 0) | (0, _) => Match::No,
            (h, t) if h == t => Match::All,
            _ => Match::Some,
        };
        match (self, pattern) {
            // A line the checks cannot read whole is allowed by no rule.
            (Subjects::Commands(line), Pattern::Command(_))
                if effect == Effect::Allow && line.unreadable().is_some() =>
            {
                Match::No
            }
            (Subjects::Commands(line), Pattern::Command(p)) => {
                let parts = line.parts();
                let hits = parts
                    .iter()
                    .filter(|part| match effect {
                        Effect::Allow => {
                            !part.writes
                                && (p.matches(&part.all)
                                    || part.plain_prefix && p.matches(&part.program))
                        }
                        Effect::Ask | Effect::Deny => {
                            p.matches(&part.all) || p.matches(&part.program)
                        }
                    })
                    .count();
                tally(hits, parts.len())
            }
            (Subjects::Paths(paths), Pattern::Path(p)) => {
                let hits = paths
                    .iter()
                    .filter(|x| x.as_ref().is_some_and(|(root, rel)| p.matches(root, rel)))
                    .count();
                tally(hits, paths.len())
            }
            (Subjects::Web(action, target), Pattern::Web(p)) => {
                let target = target.as_ref().map(|(h, port)| (h.as_str(), *port));
                tally(usize::from(p.matches(action, target)), 1)
            }
            (Subjects::Action(Some(action)), Pattern::Action(p)) => {
                tally(usize::from(wildcard(p, action)), 1)
            }
            _ => Match::No,
        }
    }
}

/// The paths a call of a path tool names, as given.
pub(super) fn named_paths(tool: &str, args: &Value) -> Vec<String> {
    let strings = |key: &str| -> Vec<String> {
        match args.get(key) {
            Some(Value::String(s)) => vec![s.clone()],
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
            _ => Vec::new(),
        }
    };
    match tool {
        "read_file" => strings("paths")
            .iter()
            .map(|p| crate::file::read_file::split_range(p).0.to_owned())
            .collect(),
        "delete_file" => strings("paths"),
        "apply_patch" => {
            let patch = args
                .get("patch")
                .and_then(Value::as_str)
                .unwrap_or_default();
            match crate::file::apply_patch::parser::parse(patch) {
                Ok(p) => p
                    .operations
                    .iter()
                    .flat_map(|op| {
                        let moved = match op {
                            crate::file::apply_patch::parser::FileOp::Update {
                                move_to, ..
                            } => move_to.clone(),
                            _ => None,
                        };
                        std::iter::once(op.path().to_owned()).chain(moved)
                    })
                    .collect(),
                Err(_) => Vec::new(),
            }
        }
        _ => {
            let given = strings("path");
            if given.is_empty() {
                vec![String::new()]
            } else {
                given
            }
        }
    }
}

/// A path as the tools read it, and where it exists, with its links followed inside the
/// root: one or two subjects; `None` where the workspace refuses it.
pub(super) fn resolved(workspace: &Workspace, given: &str) -> Vec<Option<(String, String)>> {
    let Ok(lexical) = workspace.resolve(given) else {
        return vec![None];
    };
    let named = |p: &crate::workspace::WsPath| {
        let rel = p.relative().to_str()?.to_owned();
        Some((workspace.roots()[p.root()].name().to_owned(), rel))
    };
    let mut out = vec![named(&lexical)];
    match workspace.canonicalize(&lexical, true) {
        Ok(c) if c.path != lexical => out.push(named(&c.path)),
        Ok(_) => {}
        // A link that leaves the root: the tool refuses it, and no rule may allow it.
        Err(_) => out.push(None),
    }
    out
}
