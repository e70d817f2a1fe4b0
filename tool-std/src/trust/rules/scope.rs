//! A call's scope: the narrowest `allow` rules that let it run and no call that does something
//! else ([`CallPolicy::scope`](tool_core::CallPolicy::scope)). What "allow for this
//! session" grants and what a refusal suggests adding to the file.
//!
//! - `bash`: a rule per simple command of the line. A command whose every form only reads
//!   (`ls`, `cat`, `git status`, `git log`...) is scoped to its program (and subcommand) with
//!   any arguments: `bash(git status *)`, which also matches `git status` alone. Any other is
//!   scoped to itself, word for word, its wildcard characters escaped: `rm -rf src` gives
//!   `bash(rm -rf src)`, `rm *.o` gives `bash(rm \*.o)`.
//! - File and search tools: a rule per path the call names, as the tool reads it (relative
//!   to its root, `root:path` in a workspace of several roots), glob characters escaped.
//! - `web`: `web(search)`, or `web(fetch:HOST)` for the host fetched.
//! - Other tools with actions: `tool(action)`. Tools without: none (the whole tool).

use serde_json::Value;
use tool_core::PolicyCall;

use super::is_path_tool;
use super::subjects::{named_paths, resolved};
use crate::trust::command::{CommandLine, escape_wildcards};
use crate::trust::net::host_of_url;
use crate::workspace::{Workspace, escape_glob};

/// Programs whose every form only reads: their scope is the program with any arguments.
const READING_PROGRAMS: &[&str] = &[
    "ls", "cat", "head", "tail", "wc", "pwd", "echo", "grep", "rg", "which", "whoami", "stat",
    "file", "du", "df", "diff", "cmp", "jq", "basename", "dirname", "realpath", "readlink",
    "uname", "id", "nl", "true", "false",
];

/// Subcommands whose every form only reads, by program.
const READING_SUBCOMMANDS: &[(&str, &[&str])] = &[(
    "git",
    &[
        "status",
        "log",
        "diff",
        "show",
        "blame",
        "rev-parse",
        "ls-files",
        "describe",
        "shortlog",
    ],
)];

/// The scope of `call` (see the [module documentation](self)).
pub(super) fn of(call: &PolicyCall<'_>, workspace: &Workspace) -> Vec<String> {
    let args = call.arguments;
    let text = |key: &str| args.get(key).and_then(Value::as_str);
    let mut out: Vec<String> = match call.tool {
        "bash" => CommandLine::parse(text("command").unwrap_or_default())
            .parts()
            .iter()
            .map(|part| format!("bash({})", command_scope(&part.all)))
            .collect(),
        "web" => {
            let action = call.action.or(text("action")).unwrap_or_default();
            match (action, text("query_or_url").and_then(host_of_url)) {
                ("fetch", Some((host, port))) if port == 80 || port == 443 => {
                    vec![format!("web(fetch:{host})")]
                }
                ("fetch", Some((host, port))) => vec![format!("web(fetch:{host}:{port})")],
                ("fetch", None) => Vec::new(),
                (action, _) => vec![format!("web({action})")],
            }
        }
        tool if is_path_tool(tool) => {
            let several = workspace.roots().len() > 1;
            named_paths(tool, args)
                .iter()
                .filter_map(|given| resolved(workspace, given).into_iter().next().flatten())
                .map(|(root, rel)| {
                    let glob = escape_glob(&rel);
                    match several {
                        true => format!("{tool}({root}:{glob})"),
                        false if glob.is_empty() => format!("{tool}(.)"),
                        false => format!("{tool}({glob})"),
                    }
                })
                .collect()
        }
        tool => call
            .action
            .map(|action| vec![format!("{tool}({action})")])
            .unwrap_or_default(),
    };
    out.dedup();
    out
}

/// A simple command's scope: its program (and subcommand) with any arguments when every form
/// of it only reads, else the command itself, word for word.
fn command_scope(words: &str) -> String {
    let mut split = words.split(' ');
    let program = split.next().unwrap_or_default();
    if READING_PROGRAMS.contains(&program) {
        return format!("{program} *");
    }
    if let Some(sub) = split.next()
        && READING_SUBCOMMANDS
            .iter()
            .any(|(p, subs)| *p == program && subs.contains(&sub))
    {
        return format!("{program} {sub} *");
    }
    escape_wildcards(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_that_only_read_are_scoped_to_their_program_and_others_to_themselves() {
        assert_eq!(command_scope("ls"), "ls *");
        assert_eq!(command_scope("ls -la src"), "ls *");
        assert_eq!(command_scope("git status --short"), "git status *");
        assert_eq!(
            command_scope("git push origin main"),
            "git push origin main"
        );
        assert_eq!(command_scope("git"), "git");
        assert_eq!(command_scope("rm -rf src"), "rm -rf src");
        assert_eq!(command_scope("rm *.o"), "rm \\*.o");
        assert_eq!(command_scope("lsof -i"), "lsof -i");
    }
}
