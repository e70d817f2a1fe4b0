//! A text file as lines that remember their own line endings, and the hunks of one
//! `*** Update File:` applied to it.
//!
//! A file is decoded once: a UTF-8 byte order mark is set aside, each line keeps the ending it
//! had (`\n` or `\r\n`, so a file mixing both keeps both), and whether the last line ended with
//! a newline is remembered. Lines a patch adds take the file's most common ending. Context
//! lines keep the file's text, not the patch's, so a hunk matched while ignoring whitespace
//! does not rewrite the indentation around the change. Encoding the result puts the BOM back
//! and keeps the end-of-file newline as it was (the format has no way to say otherwise).

use super::locate::{MatchLevel, Nearest, nearest, seek};
use super::parser::{Hunk, HunkLine};

/// A line ending.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Eol {
    /// `\n`.
    Lf,
    /// `\r\n`.
    CrLf,
}

impl Eol {
    fn as_str(self) -> &'static str {
        match self {
            Eol::Lf => "\n",
            Eol::CrLf => "\r\n",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Line {
    text: String,
    /// `None` for a line the patch added (it takes the file's ending) or a last line without
    /// a newline.
    eol: Option<Eol>,
}

/// A decoded text file; see the [module documentation](self).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextFile {
    bom: bool,
    lines: Vec<Line>,
    final_newline: bool,
    eol: Eol,
}

/// The bytes are not UTF-8 text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotText {
    /// Byte offset of the first invalid sequence.
    pub at: usize,
}

impl TextFile {
    /// Decodes a file's bytes.
    pub fn decode(bytes: &[u8]) -> Result<TextFile, NotText> {
        let (bom, body) = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
            Some(rest) => (true, rest),
            None => (false, bytes),
        };
        let text = std::str::from_utf8(body).map_err(|e| NotText {
            at: e.valid_up_to() + if bom { 3 } else { 0 },
        })?;
        let (mut lf, mut crlf) = (0usize, 0usize);
        let lines: Vec<Line> = text
            .split_inclusive('\n')
            .map(|piece| {
                if let Some(t) = piece.strip_suffix("\r\n") {
                    crlf += 1;
                    Line {
                        text: t.to_owned(),
                        eol: Some(Eol::CrLf),
                    }
                } else if let Some(t) = piece.strip_suffix('\n') {
                    lf += 1;
                    Line {
                        text: t.to_owned(),
                        eol: Some(Eol::Lf),
                    }
                } else {
                    Line {
                        text: piece.to_owned(),
                        eol: None,
                    }
                }
            })
            .collect();
        Ok(TextFile {
            bom,
            final_newline: text.is_empty() || text.ends_with('\n'),
            lines,
            eol: if crlf > lf { Eol::CrLf } else { Eol::Lf },
        })
    }

    /// A new file of these lines, `\n`-terminated (what `*** Add File:` creates).
    pub fn from_lines(lines: &[String]) -> TextFile {
        TextFile {
            bom: false,
            lines: lines
                .iter()
                .map(|t| Line {
                    text: t.clone(),
                    eol: Some(Eol::Lf),
                })
                .collect(),
            final_newline: true,
            eol: Eol::Lf,
        }
    }

    /// The file's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out =
            Vec::with_capacity(self.lines.iter().map(|l| l.text.len() + 2).sum::<usize>() + 3);
        if self.bom {
            out.extend_from_slice(b"\xEF\xBB\xBF");
        }
        let n = self.lines.len();
        for (i, line) in self.lines.iter().enumerate() {
            out.extend_from_slice(line.text.as_bytes());
            if i + 1 < n || self.final_newline {
                out.extend_from_slice(line.eol.unwrap_or(self.eol).as_str().as_bytes());
            }
        }
        out
    }

    /// The lines' texts, without their endings.
    pub fn texts(&self) -> Vec<&str> {
        self.lines.iter().map(|l| l.text.as_str()).collect()
    }

    /// How many lines.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Whether the file has no line.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Whether it starts with a UTF-8 byte order mark.
    pub fn has_bom(&self) -> bool {
        self.bom
    }

    /// The ending lines the patch adds get.
    pub fn eol(&self) -> Eol {
        self.eol
    }
}

/// Where one hunk applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Applied {
    /// The hunk's line in the file as it was (1-based; one past the end for an addition at
    /// the end of the file).
    pub line: usize,
    /// The level its lines matched at.
    pub level: MatchLevel,
}

/// What an update did to a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Updated {
    /// The new content.
    pub file: TextFile,
    /// Where each hunk applied, in hunk order.
    pub hunks: Vec<Applied>,
    /// Lines added.
    pub added: usize,
    /// Lines removed.
    pub removed: usize,
}

/// Why a hunk could not be placed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unplaced {
    /// The hunk's index (0-based).
    pub index: usize,
    /// What was not found.
    pub missing: Missing,
    /// The line (0-based) the search started from.
    pub from: usize,
    /// The text most like what was looked for.
    pub nearest: Option<Nearest>,
}

/// What part of a hunk was not found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Missing {
    /// An `@@ anchor` line.
    Anchor(String),
    /// The hunk's context and `-` lines.
    Lines,
    /// The hunk's lines exist, but not as the last lines of the file (`*** End of File`).
    EndOfFile,
}

/// Applies `hunks` to `file`: every hunk is placed first (see [`super::locate`]); if one
/// cannot be, nothing is applied.
///
/// Placement follows Codex: a hunk is looked for below the previous one; each `@@ anchor` is
/// looked for in turn and moves the search below it; a hunk whose last line is an empty
/// context line is tried again without it (models add a blank line the file does not have);
/// `*** End of File` requires the lines to be the file's last. A hunk with no context or `-`
/// line inserts its lines right below its anchor, or at the end of the file when it has none
/// (Codex always appends; below the anchor is what such a hunk means).
pub fn apply(file: &TextFile, hunks: &[Hunk]) -> Result<Updated, Unplaced> {
    let texts = file.texts();
    let mut cursor = 0usize;
    let mut edits: Vec<(usize, &[HunkLine])> = Vec::with_capacity(hunks.len());
    let mut placed = Vec::with_capacity(hunks.len());
    for (index, hunk) in hunks.iter().enumerate() {
        for anchor in &hunk.anchors {
            let Some(found) = seek(&texts, std::slice::from_ref(anchor), cursor, false) else {
                return Err(Unplaced {
                    index,
                    missing: Missing::Anchor(anchor.clone()),
                    from: cursor,
                    nearest: nearest(&texts, std::slice::from_ref(anchor), cursor),
                });
            };
            cursor = found.start + 1;
        }
        let mut ops: &[HunkLine] = &hunk.lines;
        let mut old = hunk.old_lines();
        if old.is_empty() {
            let at_anchor = !hunk.anchors.is_empty() && !hunk.end_of_file;
            let start = if at_anchor { cursor } else { texts.len() };
            edits.push((start, ops));
            placed.push(Applied {
                line: start + 1,
                level: MatchLevel::Exact,
            });
            continue;
        }
        let mut found = seek(&texts, &old, cursor, hunk.end_of_file);
        if found.is_none() && matches!(ops.last(), Some(HunkLine::Context(t)) if t.is_empty()) {
            ops = &ops[..ops.len() - 1];
            old.pop();
            found = seek(&texts, &old, cursor, hunk.end_of_file);
        }
        let Some(found) = found else {
            let full = hunk.old_lines();
            let missing = if hunk.end_of_file && seek(&texts, &full, cursor, false).is_some() {
                Missing::EndOfFile
            } else {
                Missing::Lines
            };
            return Err(Unplaced {
                index,
                missing,
                from: cursor,
                nearest: nearest(&texts, &full, cursor),
            });
        };
        edits.push((found.start, ops));
        placed.push(Applied {
            line: found.start + 1,
            level: found.level,
        });
        cursor = found.start + old.len();
    }
    edits.sort_by_key(|(start, _)| *start);

    let mut lines = Vec::with_capacity(file.lines.len());
    let (mut pos, mut added, mut removed) = (0usize, 0usize, 0usize);
    for (start, ops) in edits {
        lines.extend_from_slice(&file.lines[pos..start]);
        pos = start;
        for op in ops {
            match op {
                HunkLine::Context(_) => {
                    lines.push(file.lines[pos].clone());
                    pos += 1;
                }
                HunkLine::Remove(_) => {
                    removed += 1;
                    pos += 1;
                }
                HunkLine::Add(text) => {
                    added += 1;
                    lines.push(Line {
                        text: text.clone(),
                        eol: None,
                    });
                }
            }
        }
    }
    lines.extend_from_slice(&file.lines[pos..]);
    Ok(Updated {
        file: TextFile {
            bom: file.bom,
            lines,
            final_newline: file.final_newline,
            eol: file.eol,
        },
        hunks: placed,
        added,
        removed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::file::apply_patch::parser::{FileOp, parse};

    fn hunks(body: &str) -> Vec<Hunk> {
        let text = format!("*** Begin Patch\n*** Update File: f\n{body}\n*** End Patch");
        match parse(&text).unwrap().operations.remove(0) {
            FileOp::Update { hunks, .. } => hunks,
            other => panic!("{other:?}"),
        }
    }

    fn run(before: &str, body: &str) -> String {
        let file = TextFile::decode(before.as_bytes()).unwrap();
        String::from_utf8(apply(&file, &hunks(body)).unwrap().file.encode()).unwrap()
    }

    #[test]
    fn decode_encode_round_trips() {
        for s in [
            "",
            "a",
            "a\n",
            "a\r\nb\n",
            "\u{feff}x\r\ny",
            "\n\n",
            "é\u{2014}\n",
        ] {
            assert_eq!(
                TextFile::decode(s.as_bytes()).unwrap().encode(),
                s.as_bytes()
            );
        }
        assert_eq!(
            TextFile::decode(b"ok\n\xff").unwrap_err(),
            NotText { at: 3 }
        );
    }

    #[test]
    fn crlf_bom_and_missing_final_newline_are_kept() {
        assert_eq!(
            run("\u{feff}a\r\nb\r\nc", "@@\n a\n-b\n+B\n+B2"),
            "\u{feff}a\r\nB\r\nB2\r\nc"
        );
        assert_eq!(run("a\nb", "@@\n a\n-b\n+c\n+d"), "a\nc\nd");
    }

    #[test]
    fn context_keeps_the_files_own_text() {
        assert_eq!(run("  a  \nb\n", "@@\n a\n-b\n+c"), "  a  \nc\n");
    }

    #[test]
    fn pure_additions_go_below_the_anchor_or_at_the_end() {
        assert_eq!(run("f\ng\n", "@@ f\n+x"), "f\nx\ng\n");
        assert_eq!(run("f\ng\n", "@@\n+x"), "f\ng\nx\n");
        assert_eq!(run("", "@@\n+x"), "x\n");
    }

    #[test]
    fn a_trailing_blank_context_line_is_dropped_when_needed() {
        assert_eq!(run("a\nb\n", "@@\n-b\n+c\n"), "a\nc\n");
    }

    #[test]
    fn end_of_file_missing_is_told_apart() {
        let file = TextFile::decode(b"x\ny\nx\n").unwrap();
        let err = apply(&file, &hunks("@@\n-y\n+z\n*** End of File")).unwrap_err();
        assert_eq!(err.missing, Missing::EndOfFile);
    }
}
