//! The errors `apply_patch` answers with, worded for the model that wrote the patch: where,
//! what, what the file holds instead, and what to send next.

use tool_core::ToolError;

use super::locate::shown_line;
use super::parser::{Hunk, ParseError};
use super::text::{Missing, NotText, Unplaced};

/// The most hunk lines an error quotes.
const QUOTED_HUNK_LINES: usize = 4;

/// A grammar mistake: a `validation_error` quoting the line, with the expected syntax and a
/// short example as the suggestion.
pub(crate) fn parse_error(e: &ParseError) -> ToolError {
    ToolError::validation(e.to_string())
        .with_suggestion(e.kind.example())
        .with_field("line", e.line)
}

/// A hunk that could not be placed: a `user_error` naming the file, the hunk (number, patch
/// line, first lines) and the nearest text found, with line numbers.
pub(crate) fn hunk_error(shown: &str, hunks: &[Hunk], e: &Unplaced, file: &[&str]) -> ToolError {
    let hunk = &hunks[e.index];
    let place = if e.from == 0 {
        "in the file".to_owned()
    } else {
        format!(
            "below line {} (where the previous hunk or `@@` line matched)",
            e.from
        )
    };
    let what = match &e.missing {
        Missing::Anchor(anchor) => format!("its line `@@ {anchor}` was not found {place}"),
        Missing::Lines => format!("its context and `-` lines were not found {place}"),
        Missing::EndOfFile => {
            "it ends with `*** End of File`, but its lines are not the last lines of the file"
                .to_owned()
        }
    };
    let mut msg = format!(
        "`{shown}`: hunk {} of {} (patch line {}) does not apply: {what}; nothing was written.\nThe hunk begins:",
        e.index + 1,
        hunks.len(),
        hunk.line
    );
    let mut quoted: Vec<String> = hunk.anchors.iter().map(|a| format!("@@ {a}")).collect();
    if quoted.is_empty() {
        quoted.push("@@".to_owned());
    }
    quoted.extend(
        hunk.lines
            .iter()
            .take(QUOTED_HUNK_LINES)
            .map(|l| l.as_patch_line()),
    );
    for line in &quoted {
        msg.push_str("\n  ");
        msg.push_str(&shown_line(line));
    }
    if hunk.lines.len() > QUOTED_HUNK_LINES {
        msg.push_str(&format!(
            "\n  ({} more lines)",
            hunk.lines.len() - QUOTED_HUNK_LINES
        ));
    }
    let mut err = match &e.nearest {
        Some(near) => {
            let first = near.start + 1;
            let last = near.start + near.lines.len();
            let how = if near.matching > 0 {
                format!("{} of the {} non-blank lines equal", near.matching, near.of)
            } else {
                "a similar line".to_owned()
            };
            msg.push_str(&format!(
                "\nThe nearest text in the file, line{} {}{} ({how}):",
                if first == last { "" } else { "s" },
                first,
                if first == last {
                    String::new()
                } else {
                    format!("-{last}")
                },
            ));
            let width = last.to_string().len();
            for (k, line) in near.lines.iter().enumerate() {
                msg.push_str(&format!("\n  {:>width$} | {}", first + k, shown_line(line)));
            }
            ToolError::user(msg).with_field("nearest_line", first)
        }
        None => {
            msg.push_str(&format!(
                "\nNothing like it is in the file ({} lines).",
                file.len()
            ));
            ToolError::user(msg)
        }
    };
    err = err
        .with_field("path", shown)
        .with_field("hunk", e.index + 1)
        .with_suggestion(
            "Read the file again (read_file) and copy the context and `-` lines exactly as they \
             are now; if the snippet occurs more than once, add an `@@` line naming the function \
             or class it is in. Then send the whole patch again.",
        );
    err
}

/// A file to update that is not UTF-8 text.
pub(crate) fn not_text(shown: &str, e: NotText) -> ToolError {
    ToolError::user(format!(
        "`{shown}` is not UTF-8 text (invalid bytes at offset {}); apply_patch edits text files only",
        e.at
    ))
    .with_suggestion("Replace a binary file with create_file, or remove it with `*** Delete File:`.")
}
