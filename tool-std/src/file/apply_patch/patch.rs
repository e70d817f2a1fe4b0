//! What a patch is once parsed: file operations, hunks and their lines, and the error a
//! patch that does not parse is answered with. The grammar is in [`super::parser`].

use std::fmt;

/// A parsed patch: the file operations in the order they were written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    /// The operations, in patch order.
    pub operations: Vec<FileOp>,
}

/// One file operation of a patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileOp {
    /// `*** Add File:`: create a file with these lines (each ends with a newline).
    Add {
        /// The path as written.
        path: String,
        /// The new file's lines, without their `+`.
        lines: Vec<String>,
        /// The header's line in the patch (1-based).
        line: usize,
    },
    /// `*** Delete File:`: remove a file.
    Delete {
        /// The path as written.
        path: String,
        /// The header's line in the patch (1-based).
        line: usize,
    },
    /// `*** Update File:`: change a file in place, optionally renaming it.
    Update {
        /// The path as written.
        path: String,
        /// `*** Move to:`'s path, if the file is renamed.
        move_to: Option<String>,
        /// The hunks, in file order.
        hunks: Vec<Hunk>,
        /// The header's line in the patch (1-based).
        line: usize,
    },
}

impl FileOp {
    /// The path the operation names first (the source of a move).
    pub fn path(&self) -> &str {
        match self {
            FileOp::Add { path, .. }
            | FileOp::Delete { path, .. }
            | FileOp::Update { path, .. } => path,
        }
    }

    /// The header's line in the patch.
    pub fn line(&self) -> usize {
        match self {
            FileOp::Add { line, .. }
            | FileOp::Delete { line, .. }
            | FileOp::Update { line, .. } => *line,
        }
    }
}

/// One line of a hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HunkLine {
    /// ` text`: a line that stays.
    Context(String),
    /// `-text`: a line that goes.
    Remove(String),
    /// `+text`: a line that comes.
    Add(String),
}

impl HunkLine {
    /// The line's text, without its prefix.
    pub fn text(&self) -> &str {
        match self {
            HunkLine::Context(t) | HunkLine::Remove(t) | HunkLine::Add(t) => t,
        }
    }

    /// The line as the patch wrote it, prefix included.
    pub fn as_patch_line(&self) -> String {
        match self {
            HunkLine::Context(t) => format!(" {t}"),
            HunkLine::Remove(t) => format!("-{t}"),
            HunkLine::Add(t) => format!("+{t}"),
        }
    }
}

/// A change to a run of lines: where to look (`@@` anchors), what is there (context and `-`
/// lines), what replaces it (context and `+` lines).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    /// The `@@ anchor` texts, outermost first; each is a line searched for in turn, and the
    /// hunk's lines are looked for below the last one found.
    pub anchors: Vec<String>,
    /// The lines, in order.
    pub lines: Vec<HunkLine>,
    /// `*** End of File`: the lines must be the last of the file.
    pub end_of_file: bool,
    /// The hunk's first line in the patch (1-based).
    pub line: usize,
}

impl Hunk {
    /// The lines the file must hold where the hunk applies: context and `-` lines.
    pub fn old_lines(&self) -> Vec<&str> {
        self.lines
            .iter()
            .filter(|l| !matches!(l, HunkLine::Add(_)))
            .map(HunkLine::text)
            .collect()
    }

    /// How many `+` lines.
    pub fn added(&self) -> usize {
        self.lines
            .iter()
            .filter(|l| matches!(l, HunkLine::Add(_)))
            .count()
    }

    /// How many `-` lines.
    pub fn removed(&self) -> usize {
        self.lines
            .iter()
            .filter(|l| matches!(l, HunkLine::Remove(_)))
            .count()
    }
}

/// What kind of mistake a [`ParseError`] is; it decides the example the error shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// The `*** Begin Patch` / `*** End Patch` envelope is missing or broken, or the patch is
    /// empty or too large.
    Envelope,
    /// A line where a file operation header was expected.
    FileHeader,
    /// A line of an added file without its `+`.
    AddLine,
    /// A malformed hunk.
    Hunk,
}

impl ParseErrorKind {
    /// The syntax expected, with a short example patch.
    pub fn example(self) -> &'static str {
        match self {
            ParseErrorKind::Envelope => {
                "A patch is `*** Begin Patch`, one or more file operations, then `*** End Patch`, for example:\n\
                 *** Begin Patch\n*** Update File: src/app.py\n@@ def greet():\n-    print(\"Hi\")\n+    print(\"Hello\")\n*** End Patch"
            }
            ParseErrorKind::FileHeader => {
                "Each file operation starts with `*** Add File: <path>`, `*** Delete File: <path>` or `*** Update File: <path>`, for example:\n\
                 *** Begin Patch\n*** Add File: notes.txt\n+first line\n*** Delete File: old.txt\n*** Update File: src/app.py\n@@\n-old line\n+new line\n*** End Patch"
            }
            ParseErrorKind::AddLine => {
                "Every line of an added file starts with `+` (a lone `+` for an empty line), for example:\n\
                 *** Add File: notes.txt\n+first line\n+\n+third line"
            }
            ParseErrorKind::Hunk => {
                "A hunk starts with `@@` (optionally `@@ <a line above the change>`, such as a function's first line); each of its lines starts with ` ` (context), `-` (removed) or `+` (added), for example:\n\
                 *** Update File: src/app.py\n@@ def greet():\n     name = \"world\"\n-    print(\"Hi\")\n+    print(\"Hello\", name)"
            }
        }
    }
}

/// A patch that does not follow the grammar: where, what, and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// The offending line (1-based).
    pub line: usize,
    /// The offending line's text (cut to 200 characters).
    pub text: String,
    /// What is wrong and what was expected there.
    pub message: String,
    /// The kind of mistake.
    pub kind: ParseErrorKind,
}

impl ParseError {
    pub(crate) fn new(
        kind: ParseErrorKind,
        line: usize,
        text: &str,
        message: impl Into<String>,
    ) -> Self {
        ParseError {
            line,
            text: cut(text, 200),
            message: message.into(),
            kind,
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid patch, line {} `{}`: {}",
            self.line, self.text, self.message
        )
    }
}

impl std::error::Error for ParseError {}

/// At most `max` characters of `s`, with `…` when cut.
pub(crate) fn cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_owned(),
        Some((i, _)) => format!("{}…", &s[..i]),
    }
}
