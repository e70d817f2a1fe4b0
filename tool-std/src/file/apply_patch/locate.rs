//! Finding where a hunk's lines are in a file, level by level, and the nearest text when
//! they are nowhere.
//!
//! [`seek`] looks for a run of lines at or after a cursor, trying each [`MatchLevel`] over the
//! whole range before the next, looser one: an exact match further down wins over a loose one
//! nearer the cursor. Among matches at the same level the first one wins. That is Codex's
//! rule, and the format leans on it: hunks come in file order, each is searched for below the
//! previous one, and `@@ anchor` lines move the cursor below the anchor first, so a model makes
//! a repeated snippet unique by naming the function it is in rather than by line numbers.
//!
//! When nothing matches, [`nearest`] scores every window of the file by how many of its lines
//! equal the hunk's at the loosest level, so the error can show the model the text it probably
//! meant, with line numbers.

use std::borrow::Cow;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How loosely a hunk's lines had to be compared to find them, strictest first.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum MatchLevel {
    /// Byte for byte.
    Exact,
    /// Ignoring whitespace at the ends of lines.
    TrailingWhitespace,
    /// Ignoring whitespace at both ends of lines (indentation too).
    SurroundingWhitespace,
    /// As the previous level, with typographic punctuation folded to ASCII: dashes to `-`,
    /// curly quotes to `'` and `"`, non-breaking and other odd spaces to ` `.
    Typographic,
}

impl MatchLevel {
    /// Every level, strictest first.
    pub const ALL: [MatchLevel; 4] = [
        MatchLevel::Exact,
        MatchLevel::TrailingWhitespace,
        MatchLevel::SurroundingWhitespace,
        MatchLevel::Typographic,
    ];

    /// The level's name as the result shows it (`exact`, `trailing_whitespace`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            MatchLevel::Exact => "exact",
            MatchLevel::TrailingWhitespace => "trailing_whitespace",
            MatchLevel::SurroundingWhitespace => "surrounding_whitespace",
            MatchLevel::Typographic => "typographic",
        }
    }

    /// Whether two lines are equal at this level.
    pub fn equal(self, a: &str, b: &str) -> bool {
        match self {
            MatchLevel::Exact => a == b,
            MatchLevel::TrailingWhitespace => a.trim_end() == b.trim_end(),
            MatchLevel::SurroundingWhitespace => a.trim() == b.trim(),
            MatchLevel::Typographic => a.trim().chars().map(fold).eq(b.trim().chars().map(fold)),
        }
    }
}

/// Folds typographic punctuation to its ASCII look-alike.
pub fn fold(c: char) -> char {
    match c {
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}'
        | '\u{2212}' | '\u{FE58}' | '\u{FE63}' | '\u{FF0D}' => '-',
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' | '\u{FF07}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' | '\u{FF02}' => '"',
        '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => ' ',
        other => other,
    }
}

/// Where [`seek`] found a run of lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    /// Index of the first line (0-based).
    pub start: usize,
    /// The level it took.
    pub level: MatchLevel,
}

/// Finds `pattern` in `lines` at or after `from`, strictest level first (see the [module
/// documentation](self)). With `at_end` the run must end at the last line. An empty pattern
/// is found at `from` (or at the end with `at_end`).
///
/// ```
/// use tool_std::file::apply_patch::locate::{MatchLevel, seek};
///
/// let file = ["fn a() {", "    x();  ", "}", "fn b() {", "    x();", "}"];
/// // The exact match in b() wins over the looser one in a().
/// let found = seek(&file, &["    x();"], 0, false).unwrap();
/// assert_eq!((found.start, found.level), (4, MatchLevel::Exact));
/// // Nothing matches below line 5, at any level.
/// assert!(seek(&file, &["    x();"], 5, false).is_none());
/// ```
pub fn seek<L: AsRef<str>, P: AsRef<str>>(
    lines: &[L],
    pattern: &[P],
    from: usize,
    at_end: bool,
) -> Option<Found> {
    if pattern.len() > lines.len() {
        return None;
    }
    let last_start = lines.len() - pattern.len();
    if pattern.is_empty() {
        let start = if at_end {
            lines.len()
        } else {
            from.min(lines.len())
        };
        return Some(Found {
            start,
            level: MatchLevel::Exact,
        });
    }
    let range = if at_end {
        if last_start < from {
            return None;
        }
        last_start..=last_start
    } else {
        if from > last_start {
            return None;
        }
        from..=last_start
    };
    for level in MatchLevel::ALL {
        for start in range.clone() {
            let window = &lines[start..start + pattern.len()];
            if window
                .iter()
                .zip(pattern)
                .all(|(l, p)| level.equal(l.as_ref(), p.as_ref()))
            {
                return Some(Found { start, level });
            }
        }
    }
    None
}

/// The text of a file most like a pattern that was not found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Nearest {
    /// Index of its first line (0-based).
    pub start: usize,
    /// Its lines (at most [`NEAREST_MAX_LINES`]).
    pub lines: Vec<String>,
    /// How many of the pattern's non-blank lines it matches (at the loosest level).
    pub matching: usize,
    /// How many non-blank lines the pattern has.
    pub of: usize,
}

/// The most lines of nearest text an error shows.
pub const NEAREST_MAX_LINES: usize = 8;

/// Pattern lines beyond this many are not scored (bounds the work on a large file).
const SCORED_PATTERN_LINES: usize = 64;

/// The window of `lines` most like `pattern`: the one where most non-blank pattern lines are
/// equal at the loosest level; ties go to the first window at or after `prefer_from`, then to
/// the first. If no line matches at all, the single line most like the pattern's first
/// non-blank line (by shared character pairs), when it is at least half alike.
///
/// ```
/// use tool_std::file::apply_patch::locate::nearest;
///
/// let file = ["def greet():", "    print(\"Hello\")", "    return 1"];
/// let near = nearest(&file, &["def greet():", "    print(\"Hi\")"], 0).unwrap();
/// assert_eq!((near.start, near.matching, near.of), (0, 1, 2));
/// ```
pub fn nearest<L: AsRef<str>, P: AsRef<str>>(
    lines: &[L],
    pattern: &[P],
    prefer_from: usize,
) -> Option<Nearest> {
    let scored: Vec<(usize, &str)> = pattern
        .iter()
        .take(SCORED_PATTERN_LINES)
        .enumerate()
        .map(|(i, p)| (i, p.as_ref()))
        .filter(|(_, p)| !p.trim().is_empty())
        .collect();
    let of = pattern
        .iter()
        .filter(|p| !p.as_ref().trim().is_empty())
        .count();
    if scored.is_empty() || lines.is_empty() {
        return None;
    }
    let mut best: Option<(usize, usize)> = None; // (score, start)
    for start in 0..lines.len() {
        let score = scored
            .iter()
            .filter(|(i, p)| {
                lines
                    .get(start + i)
                    .is_some_and(|l| MatchLevel::Typographic.equal(l.as_ref(), p))
            })
            .count();
        if score == 0 {
            continue;
        }
        best = match best {
            None => Some((score, start)),
            Some((s, b))
                if score > s || (score == s && b < prefer_from && start >= prefer_from) =>
            {
                Some((score, start))
            }
            keep => keep,
        };
    }
    let window = |start: usize, matching: usize| {
        let len = pattern.len().clamp(1, NEAREST_MAX_LINES);
        Nearest {
            start,
            lines: lines[start..(start + len).min(lines.len())]
                .iter()
                .map(|l| l.as_ref().to_owned())
                .collect(),
            matching,
            of,
        }
    };
    if let Some((score, start)) = best {
        // Start the window at the first pattern line, even when that one differs.
        return Some(window(start, score));
    }
    let first = scored[0].1.trim();
    let (similarity, index) = lines
        .iter()
        .enumerate()
        .map(|(i, l)| (similarity(first, l.as_ref().trim()), i))
        .fold((0.0f64, 0usize), |acc, x| if x.0 > acc.0 { x } else { acc });
    (similarity >= 0.5).then(|| window(index.saturating_sub(scored[0].0), 0))
}

/// Dice coefficient over character pairs (1.0 for equal strings, 0.0 for nothing shared).
fn similarity(a: &str, b: &str) -> f64 {
    let pairs = |s: &str| -> Vec<(char, char)> {
        let chars: Vec<char> = s.chars().map(fold).collect();
        let mut v: Vec<(char, char)> = chars.windows(2).map(|w| (w[0], w[1])).collect();
        v.sort_unstable();
        v
    };
    let (a, b) = (pairs(a), pairs(b));
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let (mut i, mut j, mut shared) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    (2 * shared) as f64 / (a.len() + b.len()) as f64
}

/// A line as an error shows it: tabs and other control characters made visible enough, cut to
/// 200 characters.
pub(crate) fn shown_line(line: &str) -> Cow<'_, str> {
    if line.chars().count() <= 200 && !line.contains(['\r']) {
        Cow::Borrowed(line)
    } else {
        Cow::Owned(super::patch::cut(&line.replace('\r', "\\r"), 200))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_level_in_turn() {
        let file = ["a  ", "  b", "c \u{2014} \u{201C}d\u{201D}\u{00A0}e"];
        assert_eq!(
            seek(&file, &["a  "], 0, false).unwrap().level,
            MatchLevel::Exact
        );
        assert_eq!(
            seek(&file, &["a"], 0, false).unwrap().level,
            MatchLevel::TrailingWhitespace
        );
        assert_eq!(
            seek(&file, &["b"], 0, false).unwrap().level,
            MatchLevel::SurroundingWhitespace
        );
        let found = seek(&file, &["c - \"d\" e"], 0, false).unwrap();
        assert_eq!((found.start, found.level), (2, MatchLevel::Typographic));
        assert!(seek(&file, &["c - 'd' e"], 0, false).is_none());
    }

    #[test]
    fn first_match_at_or_after_the_cursor() {
        let file = ["x", "y", "x", "y"];
        assert_eq!(seek(&file, &["x", "y"], 0, false).unwrap().start, 0);
        assert_eq!(seek(&file, &["x", "y"], 1, false).unwrap().start, 2);
        assert!(seek(&file, &["x", "y"], 3, false).is_none());
    }

    #[test]
    fn end_of_file_anchors_at_the_last_lines() {
        let file = ["x", "y", "x", "y"];
        assert_eq!(seek(&file, &["x", "y"], 0, true).unwrap().start, 2);
        assert!(seek(&file, &["x"], 0, true).is_none());
        assert_eq!(seek(&file, &[] as &[&str], 1, true).unwrap().start, 4);
    }

    #[test]
    fn longer_than_the_file_is_not_found() {
        assert!(seek(&["a"], &["a", "b"], 0, false).is_none());
        assert!(seek(&[] as &[&str], &["a"], 0, true).is_none());
    }

    #[test]
    fn nearest_prefers_most_matching_lines_then_the_cursor() {
        let file = ["a", "b", "z", "a", "b", "z"];
        let near = nearest(&file, &["a", "b", "c"], 2).unwrap();
        assert_eq!((near.start, near.matching, near.of), (3, 2, 3));
        assert_eq!(near.lines, vec!["a", "b", "z"]);
    }

    #[test]
    fn nearest_falls_back_to_a_similar_line() {
        let file = ["fn main() {", "    println!(\"hello world\");", "}"];
        let near = nearest(&file, &["    println!(\"hello, world\");"], 0).unwrap();
        assert_eq!((near.start, near.matching), (1, 0));
        assert!(nearest(&file, &["completely unrelated text"], 0).is_none());
    }
}
