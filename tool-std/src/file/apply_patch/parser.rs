//! The patch grammar: text in, a [`Patch`] out, nothing read or written.
//!
//! ```text
//! patch     := "*** Begin Patch" NL { operation } "*** End Patch" NL?
//! operation := add | delete | update
//! add       := "*** Add File: " path NL { "+" text NL }
//! delete    := "*** Delete File: " path NL
//! update    := "*** Update File: " path NL [ "*** Move to: " path NL ] { hunk }
//! hunk      := { "@@" [ " " anchor ] NL } { (" " | "-" | "+") text NL } [ "*** End of File" NL ]
//! ```
//!
//! The parser is as lenient as the models that write patches need it to be, and no more:
//!
//! - the markers may be padded with spaces, the patch may be wrapped in a shell heredoc
//!   (`<<'EOF'` ... `EOF`), lines may end in `\r\n`, blank lines may separate operations;
//! - an empty line inside a hunk is an empty context line (editors strip the lone space);
//! - the first hunk of an update may leave out its `@@` line;
//! - several `@@ anchor` lines in a row narrow the search step by step (`@@ class A` then
//!   `@@ def run():`), as the format's instructions to models describe;
//! - a unified-diff range header (`@@ -12,7 +12,8 @@ fn main`) is read as `@@` followed by its
//!   section heading, if it has one;
//! - an update with a `*** Move to:` and no hunk is a plain rename.
//!
//! Everything else that does not fit is a [`ParseError`] naming the line (1-based, as in the
//! patch text), quoting it, and saying what was expected there.

pub use super::patch::{FileOp, Hunk, HunkLine, ParseError, ParseErrorKind, Patch};

/// The largest patch accepted, in bytes.
pub const MAX_PATCH_BYTES: usize = 4 * 1024 * 1024;

/// The most file operations one patch may hold.
pub const MAX_OPERATIONS: usize = 500;

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File:";
const DELETE: &str = "*** Delete File:";
const UPDATE: &str = "*** Update File:";
const MOVE_TO: &str = "*** Move to:";
const END_OF_FILE: &str = "*** End of File";

/// Parses a patch. See the [module documentation](self) for the grammar.
///
/// ```
/// use tool_std::file::apply_patch::parser::{FileOp, parse};
///
/// let patch = parse("*** Begin Patch\n*** Delete File: old.txt\n*** End Patch\n")?;
/// assert_eq!(patch.operations, vec![FileOp::Delete { path: "old.txt".into(), line: 2 }]);
///
/// let err = parse("*** Begin Patch\n*** Remove File: old.txt\n*** End Patch").unwrap_err();
/// assert_eq!(err.line, 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn parse(text: &str) -> Result<Patch, ParseError> {
    if text.len() > MAX_PATCH_BYTES {
        return Err(ParseError::new(
            ParseErrorKind::Envelope,
            1,
            "",
            format!(
                "the patch has {} bytes, more than the {MAX_PATCH_BYTES} accepted; split it into several patches",
                text.len()
            ),
        ));
    }
    let lines: Vec<&str> = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let (start, end) = envelope(&lines)?;
    let mut parser = Parser {
        lines: &lines,
        pos: start + 1,
        end,
    };
    let mut operations = Vec::new();
    while let Some(op) = parser.operation()? {
        if operations.len() == MAX_OPERATIONS {
            return Err(parser.error(
                ParseErrorKind::Envelope,
                op.line() - 1,
                format!(
                    "the patch has more than {MAX_OPERATIONS} file operations; split it into several patches"
                ),
            ));
        }
        operations.push(op);
    }
    if operations.is_empty() {
        return Err(parser.error(
            ParseErrorKind::Envelope,
            end,
            "the patch has no file operation; put at least one `*** Add File:`, `*** Delete File:` or `*** Update File:` before `*** End Patch`",
        ));
    }
    Ok(Patch { operations })
}

/// Finds the `*** Begin Patch` and `*** End Patch` lines (0-based indexes), unwrapping a
/// heredoc.
fn envelope(lines: &[&str]) -> Result<(usize, usize), ParseError> {
    let non_blank = |l: &&str| !l.trim().is_empty();
    let Some(mut first) = lines.iter().position(non_blank) else {
        return Err(ParseError::new(
            ParseErrorKind::Envelope,
            1,
            "",
            "the patch is empty; it must start with `*** Begin Patch`",
        ));
    };
    let mut last = lines.iter().rposition(non_blank).unwrap_or(first);
    if is_heredoc_start(lines[first].trim()) && last > first && lines[last].trim().ends_with("EOF")
    {
        let inner = &lines[first + 1..last];
        if let (Some(a), Some(b)) = (
            inner.iter().position(non_blank),
            inner.iter().rposition(non_blank),
        ) {
            last = first + 1 + b;
            first = first + 1 + a;
        }
    }
    if lines[first].trim() != BEGIN {
        return Err(ParseError::new(
            ParseErrorKind::Envelope,
            first + 1,
            lines[first],
            format!("the first line of a patch must be `{BEGIN}`"),
        ));
    }
    if let Some(i) = (first + 1..=last).find(|&i| lines[i].trim() == END) {
        if i != last {
            let junk = (i + 1..=last)
                .find(|&j| non_blank(&lines[j]))
                .unwrap_or(last);
            return Err(ParseError::new(
                ParseErrorKind::Envelope,
                junk + 1,
                lines[junk],
                format!("text after `{END}`; the patch must end there"),
            ));
        }
        return Ok((first, last));
    }
    Err(ParseError::new(
        ParseErrorKind::Envelope,
        last + 1,
        lines[last],
        format!("the last line of a patch must be `{END}`"),
    ))
}

fn is_heredoc_start(line: &str) -> bool {
    matches!(line, "<<EOF" | "<<'EOF'" | "<<\"EOF\"")
}

struct Parser<'a> {
    lines: &'a [&'a str],
    /// The next line to read (0-based).
    pos: usize,
    /// The `*** End Patch` line (0-based); parsing stops before it.
    end: usize,
}

impl Parser<'_> {
    fn error(&self, kind: ParseErrorKind, index: usize, message: impl Into<String>) -> ParseError {
        ParseError::new(kind, index + 1, self.lines[index], message)
    }

    fn current(&self) -> Option<&str> {
        (self.pos < self.end).then(|| self.lines[self.pos])
    }

    /// The next file operation, `None` at `*** End Patch`.
    fn operation(&mut self) -> Result<Option<FileOp>, ParseError> {
        while self.current().is_some_and(|l| l.trim().is_empty()) {
            self.pos += 1;
        }
        let Some(line) = self.current() else {
            return Ok(None);
        };
        let header = self.pos;
        let trimmed = line.trim();
        if let Some(rest) = trimmed.strip_prefix(ADD) {
            let path = self.path(rest, ADD)?;
            self.pos += 1;
            let lines = self.add_lines(&path)?;
            return Ok(Some(FileOp::Add {
                path,
                lines,
                line: header + 1,
            }));
        }
        if let Some(rest) = trimmed.strip_prefix(DELETE) {
            let path = self.path(rest, DELETE)?;
            self.pos += 1;
            return Ok(Some(FileOp::Delete {
                path,
                line: header + 1,
            }));
        }
        if let Some(rest) = trimmed.strip_prefix(UPDATE) {
            let path = self.path(rest, UPDATE)?;
            self.pos += 1;
            return self.update(path, header).map(Some);
        }
        let message = if trimmed.starts_with(MOVE_TO) {
            format!("`{MOVE_TO}` must come right after the `{UPDATE}` line of the file it renames")
        } else if trimmed == END_OF_FILE {
            format!("`{END_OF_FILE}` must come right after the last line of a hunk")
        } else {
            format!(
                "expected a file operation: `{ADD} <path>`, `{DELETE} <path>` or `{UPDATE} <path>`"
            )
        };
        Err(self.error(ParseErrorKind::FileHeader, self.pos, message))
    }

    fn path(&self, rest: &str, marker: &str) -> Result<String, ParseError> {
        let path = rest.trim();
        if path.is_empty() {
            return Err(self.error(
                ParseErrorKind::FileHeader,
                self.pos,
                format!("`{marker}` names no path; write the path after it: `{marker} src/app.py`"),
            ));
        }
        Ok(path.to_owned())
    }

    fn add_lines(&mut self, path: &str) -> Result<Vec<String>, ParseError> {
        let mut out = Vec::new();
        while let Some(line) = self.current() {
            if let Some(text) = line.strip_prefix('+') {
                out.push(text.to_owned());
            } else if line.trim().is_empty() {
                // An empty line between `+` lines stands for an empty line of the file (the
                // model dropped its `+`); before the next operation it is only a separator.
                let next = (self.pos..self.end).find(|&i| !self.lines[i].trim().is_empty());
                if !next.is_some_and(|i| self.lines[i].starts_with('+')) {
                    break;
                }
                out.push(String::new());
            } else if line.trim_start().starts_with("***") {
                break;
            } else {
                return Err(self.error(
                    ParseErrorKind::AddLine,
                    self.pos,
                    format!(
                        "every line of an added file starts with `+`; this line of `{ADD} {path}` does not"
                    ),
                ));
            }
            self.pos += 1;
        }
        Ok(out)
    }

    fn update(&mut self, path: String, header: usize) -> Result<FileOp, ParseError> {
        let mut move_to = None;
        if let Some(rest) = self.current().and_then(|l| l.trim().strip_prefix(MOVE_TO)) {
            move_to = Some(self.path(rest, MOVE_TO)?);
            self.pos += 1;
        }
        let mut hunks: Vec<Hunk> = Vec::new();
        loop {
            while self.current().is_some_and(|l| l.trim().is_empty()) {
                self.pos += 1;
            }
            let Some(line) = self.current() else { break };
            if line.starts_with('*') || line.trim_start().starts_with("*** ") {
                let t = line.trim();
                if t.starts_with(MOVE_TO) {
                    return Err(self.error(
                        ParseErrorKind::Hunk,
                        self.pos,
                        format!(
                            "`{MOVE_TO}` must come right after `{UPDATE} {path}`, before its hunks"
                        ),
                    ));
                }
                if t == END_OF_FILE {
                    return Err(self.error(
                        ParseErrorKind::Hunk,
                        self.pos,
                        format!("`{END_OF_FILE}` must come right after the last line of a hunk"),
                    ));
                }
                if [ADD, DELETE, UPDATE].iter().any(|m| t.starts_with(m)) || line.starts_with('*') {
                    break;
                }
            }
            let hunk = self.hunk(!hunks.is_empty())?;
            hunks.push(hunk);
        }
        if hunks.is_empty() && move_to.is_none() {
            return Err(self.error(
                ParseErrorKind::Hunk,
                header,
                format!("`{UPDATE} {path}` has no hunk; add at least one `@@` hunk with the lines to change"),
            ));
        }
        Ok(FileOp::Update {
            path,
            move_to,
            hunks,
            line: header + 1,
        })
    }

    /// One hunk; `needs_header` when it is not the first of its file.
    fn hunk(&mut self, needs_header: bool) -> Result<Hunk, ParseError> {
        let start = self.pos;
        let mut anchors = Vec::new();
        let mut headed = false;
        while let Some(rest) = self.current().and_then(|l| l.trim_end().strip_prefix("@@")) {
            headed = true;
            if let Some(anchor) = anchor_text(rest) {
                anchors.push(anchor);
            }
            self.pos += 1;
        }
        if !headed && needs_header {
            return Err(self.error(
                ParseErrorKind::Hunk,
                self.pos,
                "expected `@@` to start the next hunk (every line of a hunk starts with ` `, `-` or `+`)",
            ));
        }
        let mut lines = Vec::new();
        let mut end_of_file = false;
        while let Some(line) = self.current() {
            let parsed = match line.chars().next() {
                None => HunkLine::Context(String::new()),
                Some(' ') => HunkLine::Context(line[1..].to_owned()),
                Some('-') => HunkLine::Remove(line[1..].to_owned()),
                Some('+') => HunkLine::Add(line[1..].to_owned()),
                Some('*') if line.trim() == END_OF_FILE => {
                    if lines.is_empty() {
                        return Err(self.error(
                            ParseErrorKind::Hunk,
                            self.pos,
                            format!(
                                "`{END_OF_FILE}` must come right after the last line of a hunk"
                            ),
                        ));
                    }
                    end_of_file = true;
                    self.pos += 1;
                    break;
                }
                Some('*') => break,
                Some('@') if line.starts_with("@@") => break,
                Some(_) => {
                    return Err(self.error(
                        ParseErrorKind::Hunk,
                        self.pos,
                        "not a hunk line; every line of a hunk starts with ` ` (context), `-` (removed) or `+` (added)",
                    ));
                }
            };
            lines.push(parsed);
            self.pos += 1;
        }
        if lines.is_empty() {
            return Err(self.error(
                ParseErrorKind::Hunk,
                start,
                "the hunk has no lines; after `@@` come the lines to change, each starting with ` `, `-` or `+`",
            ));
        }
        if !lines.iter().any(|l| !matches!(l, HunkLine::Context(_))) {
            return Err(self.error(
                ParseErrorKind::Hunk,
                start,
                "the hunk changes nothing: it has no `-` or `+` line",
            ));
        }
        Ok(Hunk {
            anchors,
            lines,
            end_of_file,
            line: start + 1,
        })
    }
}

/// The anchor of an `@@` line (the text after `@@`), `None` for a bare `@@`. A unified-diff
/// range (`-12,7 +12,8 @@ heading`) gives its heading.
fn anchor_text(rest: &str) -> Option<String> {
    let mut text = rest.strip_prefix(' ').unwrap_or(rest);
    if let Some(after) = strip_unified_range(text) {
        text = after.trim_start();
    }
    let text = text.trim_end();
    (!text.trim().is_empty()).then(|| text.to_owned())
}

/// `-a[,b] +c[,d] @@` at the start of `s`: what follows it.
fn strip_unified_range(s: &str) -> Option<&str> {
    let s = s.trim_start().strip_prefix('-')?;
    let s = s.trim_start_matches(|c: char| c.is_ascii_digit() || c == ',');
    let s = s.strip_prefix(" +")?;
    let s = s.trim_start_matches(|c: char| c.is_ascii_digit() || c == ',');
    s.trim_start().strip_prefix("@@")
}

#[cfg(test)]
mod tests {
    use super::super::patch::cut;
    use super::*;

    fn ops(text: &str) -> Vec<FileOp> {
        parse(text).unwrap().operations
    }

    #[test]
    fn every_directive() {
        let got = ops(
            "*** Begin Patch\n*** Add File: a.txt\n+one\n+\n+three\n*** Delete File: b.txt\n*** Update File: c.py\n*** Move to: d.py\n@@ class A\n@@ def f():\n     x = 1\n-    y = 2\n+    y = 3\n*** End of File\n*** End Patch\n",
        );
        assert_eq!(
            got,
            vec![
                FileOp::Add {
                    path: "a.txt".into(),
                    lines: vec!["one".into(), "".into(), "three".into()],
                    line: 2
                },
                FileOp::Delete {
                    path: "b.txt".into(),
                    line: 6
                },
                FileOp::Update {
                    path: "c.py".into(),
                    move_to: Some("d.py".into()),
                    hunks: vec![Hunk {
                        anchors: vec!["class A".into(), "def f():".into()],
                        lines: vec![
                            HunkLine::Context("    x = 1".into()),
                            HunkLine::Remove("    y = 2".into()),
                            HunkLine::Add("    y = 3".into()),
                        ],
                        end_of_file: true,
                        line: 9,
                    }],
                    line: 7
                },
            ]
        );
    }

    #[test]
    fn lenient_envelope_padding_crlf_and_heredoc() {
        let got =
            ops("<<'EOF'\r\n*** Begin Patch \r\n  *** Delete File: x\r\n *** End Patch\r\nEOF\r\n");
        assert_eq!(
            got,
            vec![FileOp::Delete {
                path: "x".into(),
                line: 3
            }]
        );
    }

    #[test]
    fn first_hunk_may_omit_its_header_and_empty_lines_are_context() {
        let got = ops("*** Begin Patch\n*** Update File: f\n a\n\n-b\n+c\n*** End Patch");
        let FileOp::Update { hunks, .. } = &got[0] else {
            panic!("not an update")
        };
        assert_eq!(hunks[0].anchors, Vec::<String>::new());
        assert_eq!(hunks[0].old_lines(), vec!["a", "", "b"]);
    }

    #[test]
    fn unified_range_headers_give_their_heading() {
        assert_eq!(
            anchor_text(" -12,7 +12,8 @@ fn main() {"),
            Some("fn main() {".into())
        );
        assert_eq!(anchor_text(" -1 +1 @@"), None);
        assert_eq!(anchor_text(" def f():"), Some("def f():".into()));
        assert_eq!(anchor_text(""), None);
    }

    #[test]
    fn pure_rename_needs_no_hunk() {
        let got = ops("*** Begin Patch\n*** Update File: a\n*** Move to: b\n*** End Patch");
        assert!(
            matches!(&got[0], FileOp::Update { move_to: Some(m), hunks, .. } if m == "b" && hunks.is_empty())
        );
    }

    #[test]
    fn cut_marks_the_cut() {
        assert_eq!(cut("abcdef", 3), "abc…");
        assert_eq!(cut("abc", 3), "abc");
    }
}
