//! What a call would change, for the person asked to approve it: the patch of an
//! `apply_patch`, the lines a `replace_in_file` takes out and puts in, the content a write
//! puts down, the command `bash` runs. Made from the arguments alone (nothing is read or
//! run), and cut to [`MAX_PREVIEW_LINES`] lines of [`MAX_PREVIEW_LINE_CHARS`] characters.

use serde_json::Value;

/// The most lines a preview shows.
pub const MAX_PREVIEW_LINES: usize = 40;
/// The most characters of one preview line.
pub const MAX_PREVIEW_LINE_CHARS: usize = 200;

/// The preview of a call of `tool`, if it changes something a diff can show.
pub(crate) fn preview(tool: &str, args: &Value) -> Option<String> {
    let text = |key: &str| args.get(key).and_then(Value::as_str);
    let path = text("path").unwrap_or_default();
    let mut lines: Vec<String> = Vec::new();
    let mut prefixed = |prefix: &str, body: &str| {
        lines.extend(body.lines().map(|l| format!("{prefix}{l}")));
    };
    match tool {
        "apply_patch" => prefixed("", text("patch")?),
        "replace_in_file" => {
            prefixed("", &format!("--- {path}\n+++ {path}"));
            let regex = args.get("is_regex").and_then(Value::as_bool) == Some(true);
            if regex {
                prefixed("", "(the lines matching this regular expression)");
            }
            prefixed("-", text("find")?);
            prefixed("+", text("replace").unwrap_or_default());
        }
        "create_file" | "update_file" | "append_file" => {
            prefixed("", &format!("+++ {path}"));
            prefixed("+", text("content").unwrap_or_default());
        }
        "edit_lines" => {
            let op = text("operation").unwrap_or("edit");
            let start = args.get("start_line").and_then(Value::as_u64).unwrap_or(0);
            prefixed("", &format!("{op} at line {start} of {path}"));
            prefixed("+", text("content").unwrap_or_default());
        }
        "delete_file" => {
            let paths = args.get("paths")?.as_array()?;
            for p in paths.iter().filter_map(Value::as_str) {
                prefixed("", &format!("delete {p}"));
            }
        }
        "bash" => prefixed("$ ", text("command")?),
        _ => return None,
    }
    Some(cut(lines))
}

fn cut(lines: Vec<String>) -> String {
    let total = lines.len();
    let mut out: Vec<String> = lines
        .into_iter()
        .take(MAX_PREVIEW_LINES)
        .map(|l| match l.char_indices().nth(MAX_PREVIEW_LINE_CHARS) {
            Some((at, _)) => format!("{}…", &l[..at]),
            None => l,
        })
        .collect();
    if total > MAX_PREVIEW_LINES {
        out.push(format!("… ({} more lines)", total - MAX_PREVIEW_LINES));
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn edits_show_what_goes_out_and_in() {
        let p = preview(
            "replace_in_file",
            &json!({"path": "a.rs", "find": "old()", "replace": "new()"}),
        )
        .unwrap();
        assert_eq!(p, "--- a.rs\n+++ a.rs\n-old()\n+new()");
        let p = preview("create_file", &json!({"path": "n.txt", "content": "x\ny"})).unwrap();
        assert_eq!(p, "+++ n.txt\n+x\n+y");
        assert_eq!(preview("read_file", &json!({"paths": ["a"]})), None);
    }

    #[test]
    fn long_previews_are_cut() {
        let content = "line\n".repeat(100);
        let p = preview("update_file", &json!({"path": "f", "content": content})).unwrap();
        assert_eq!(p.lines().count(), MAX_PREVIEW_LINES + 1);
        assert!(p.ends_with("… (61 more lines)"), "{p}");
        let p = preview("bash", &json!({"command": "x".repeat(500)})).unwrap();
        assert_eq!(p.chars().count(), MAX_PREVIEW_LINE_CHARS + 1);
    }
}
