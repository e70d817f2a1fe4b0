//! Unified diffs of edits, computed on the changed windows only.
//!
//! An edit knows where it changed the text, so the diff is taken over those regions with a few
//! lines around them, not over the whole file: a one-line replacement in a 10 MB file costs a
//! few lines of diffing. The hunks are the same as a whole-file diff's (three lines of context,
//! line numbers of the whole file).

use std::fmt::Write as _;

use std::time::{Duration, Instant};

use similar::{Algorithm, ChangeTag, TextDiff};

use super::text::{cut_chars, line_of, line_starts};

/// Lines of context around each change.
pub(crate) const CONTEXT: usize = 3;

/// The most lines one diff window spans before the next change starts a window of its own
/// (many changes close together would otherwise make one window as large as the file).
const MAX_WINDOW_LINES: usize = 1_000;

/// The time one window's diff may take; past it `similar` answers with a coarser diff.
const WINDOW_DEADLINE: Duration = Duration::from_millis(500);

/// One changed region: byte ranges in the old and the new text.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Change {
    pub(crate) old: (usize, usize),
    pub(crate) new: (usize, usize),
}

/// A unified diff (`--- a/path`, `+++ b/path`, hunks) of `old` → `new`, whose differences all
/// lie in `changes` (sorted, not overlapping), cut at `max_chars`. Returns the diff and whether
/// it was cut.
pub(crate) fn unified(
    path: &str,
    old: &str,
    new: &str,
    changes: &[Change],
    max_chars: usize,
) -> (String, bool) {
    let mut out = format!("--- a/{path}\n+++ b/{path}\n");
    if changes.is_empty() || old == new {
        return (String::new(), false);
    }
    let old_starts = line_starts(old);
    let new_starts = line_starts(new);
    // Line windows [start, end) in both texts, widened by the context and merged.
    let mut windows: Vec<[usize; 4]> = Vec::new();
    for c in changes {
        let o0 = line_of(&old_starts, c.old.0).saturating_sub(CONTEXT);
        let o1 = (line_of(&old_starts, c.old.1) + 1 + CONTEXT).min(old_starts.len());
        let n0 = line_of(&new_starts, c.new.0).saturating_sub(CONTEXT);
        let n1 = (line_of(&new_starts, c.new.1) + 1 + CONTEXT).min(new_starts.len());
        match windows.last_mut() {
            // Merge with the previous window while it stays small enough to diff cheaply.
            Some(w) if o0 <= w[1] && w[1] - w[0] < MAX_WINDOW_LINES => {
                w[1] = w[1].max(o1);
                w[3] = w[3].max(n1);
            }
            _ => windows.push([o0, o1, n0, n1]),
        }
    }
    let slice = |text: &'_ str, starts: &[usize], a: usize, b: usize| -> (usize, usize) {
        let from = starts.get(a).copied().unwrap_or(text.len());
        let to = starts.get(b).copied().unwrap_or(text.len());
        (from, to)
    };
    for [o0, o1, n0, n1] in windows {
        let (ob, oe) = slice(old, &old_starts, o0, o1);
        let (nb, ne) = slice(new, &new_starts, n0, n1);
        write_hunks(&mut out, &old[ob..oe], &new[nb..ne], o0, n0);
        if out.len() > max_chars {
            break;
        }
    }
    let (kept, cut) = cut_chars(&out, max_chars);
    if cut {
        let mut kept = kept.to_owned();
        let _ = write!(
            kept,
            "\n[diff cut at {max_chars} characters; read the file to see the rest]\n"
        );
        return (kept, true);
    }
    (out, false)
}

/// Appends the hunks of one window, numbering lines from `old_line`/`new_line` (0-based).
fn write_hunks(out: &mut String, old: &str, new: &str, old_line: usize, new_line: usize) {
    let diff = TextDiff::configure()
        .algorithm(Algorithm::Myers)
        .deadline(Instant::now() + WINDOW_DEADLINE)
        .diff_lines(old, new);
    for group in diff.grouped_ops(CONTEXT) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let o = first.old_range().start..last.old_range().end;
        let n = first.new_range().start..last.new_range().end;
        let _ = writeln!(
            out,
            "@@ -{} +{} @@",
            range(old_line + o.start, o.len()),
            range(new_line + n.start, n.len())
        );
        for op in &group {
            for change in diff.iter_changes(op) {
                let sign = match change.tag() {
                    ChangeTag::Equal => ' ',
                    ChangeTag::Delete => '-',
                    ChangeTag::Insert => '+',
                };
                let value = change.value();
                out.push(sign);
                out.push_str(value);
                if !value.ends_with('\n') {
                    out.push_str("\n\\ No newline at end of file\n");
                }
            }
        }
    }
}

/// A hunk range as unified diffs write it: `start,len`, 1-based; an empty range names the line
/// before it.
fn range(start: usize, len: usize) -> String {
    if len == 0 {
        format!("{start},0")
    } else if len == 1 {
        format!("{}", start + 1)
    } else {
        format!("{},{len}", start + 1)
    }
}

/// The diff of two whole texts (small ones: a write of new content).
pub(crate) fn whole(path: &str, old: &str, new: &str, max_chars: usize) -> (String, bool) {
    let change = Change {
        old: (0, old.len()),
        new: (0, new.len()),
    };
    unified(path, old, new, &[change], max_chars)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_diff_matches_whole_file_numbers() {
        let old: String = (1..=100).map(|i| format!("line {i}\n")).collect();
        let new = old.replace("line 50\n", "LINE 50\n");
        let at = old.find("line 50").unwrap();
        let change = Change {
            old: (at, at + 8),
            new: (at, at + 8),
        };
        let (d, cut) = unified("f.txt", &old, &new, &[change], 10_000);
        assert!(!cut);
        assert!(d.contains("@@ -47,7 +47,7 @@"), "{d}");
        assert!(d.contains("-line 50\n+LINE 50\n"));
        let (w, _) = whole("f.txt", &old, &new, 10_000);
        assert_eq!(w, d);
    }

    #[test]
    fn no_newline_marker() {
        let (d, _) = whole("f", "a\nb", "a\nc", 1000);
        assert!(d.contains("-b\n\\ No newline at end of file\n+c\n\\ No newline"));
    }
}
