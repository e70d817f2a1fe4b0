//! Reading a range of lines from a file without loading it: a buffered reader skips to the
//! first line counting newlines with `memchr`, reads the lines asked for, and stops. A range
//! deep in a 100 MB file costs one pass up to the range, not a read of the whole file.

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read};

use tool_core::ToolError;

use super::text::{binary_error, cut_chars, estimate_tokens, looks_binary};

/// What part of a file to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LineRange {
    /// First line, 1-based.
    pub(crate) start: usize,
    /// Most lines to return.
    pub(crate) max_lines: usize,
}

/// Limits of one read.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReadLimits {
    pub(crate) max_line_chars: usize,
    /// Bytes of numbered output this file may take (the call's remaining output budget).
    pub(crate) budget: usize,
    pub(crate) sniff: usize,
    /// Count the lines after the range when at most this many bytes are left.
    pub(crate) count_rest_up_to: u64,
    /// The file's lines, when known already (from the stamp of its unchanged content): the
    /// rest is then neither read nor counted.
    pub(crate) known_lines: Option<u64>,
}

/// Why a read stopped before the end of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// It reached the end of the file.
    End,
    /// It returned the lines asked for (or the default number).
    Lines,
    /// The call's output cap was reached.
    Cap,
}

/// The lines read, numbered `cat -n` style.
#[derive(Debug, Clone)]
pub(crate) struct Excerpt {
    pub(crate) content: String,
    /// First and last line returned (1-based); `last < first` when none was.
    pub(crate) first: usize,
    pub(crate) last: usize,
    pub(crate) total_lines: Option<usize>,
    pub(crate) stop: Stop,
    /// Lines cut at `max_line_chars`.
    pub(crate) long_lines: usize,
    pub(crate) tokens: usize,
    /// The length of the numbered text ([`numbered`]) of `content`.
    pub(crate) shown_len: usize,
}

/// Reads `range` of the file `file` (of `len` bytes) through a buffered reader.
pub(crate) fn read_lines(
    shown: &str,
    file: impl Read,
    len: u64,
    range: LineRange,
    limits: ReadLimits,
) -> Result<Excerpt, ToolError> {
    let io = |e: std::io::Error| ToolError::system(format!("reading `{shown}` failed: {e}"));
    let mut reader = BufReader::with_capacity(256 * 1024, file);
    let head = reader.fill_buf().map_err(io)?;
    if looks_binary(&head[..head.len().min(limits.sniff)]) {
        return Err(binary_error(shown));
    }
    let mut consumed: u64 = 0;
    // Skip to the first line.
    let mut line = 1usize;
    while line < range.start {
        let buf = reader.fill_buf().map_err(io)?;
        if buf.is_empty() {
            break;
        }
        let need = range.start - line;
        let mut seen = 0usize;
        let mut cut = None;
        for i in memchr::memchr_iter(b'\n', buf) {
            seen += 1;
            if seen == need {
                cut = Some(i + 1);
                break;
            }
        }
        let n = cut.unwrap_or(buf.len());
        reader.consume(n);
        consumed += n as u64;
        line += seen;
    }
    let mut content = String::new();
    let mut shown_len = 0usize;
    let mut raw = Vec::new();
    let mut long_lines = 0usize;
    let mut chars = 0usize;
    let first = line;
    let mut stop = Stop::End;
    let mut returned = 0usize;
    if line == range.start {
        loop {
            if returned >= range.max_lines {
                stop = Stop::Lines;
                break;
            }
            raw.clear();
            let n = reader.read_until(b'\n', &mut raw).map_err(io)?;
            if n == 0 {
                break;
            }
            let mut body: &[u8] = &raw;
            if body.last() == Some(&b'\n') {
                body = &body[..body.len() - 1];
            }
            if body.last() == Some(&b'\r') {
                body = &body[..body.len() - 1];
            }
            let text = String::from_utf8_lossy(body);
            let (shown_text, cut) = cut_chars(&text, limits.max_line_chars);
            let before = content.len();
            let _ = write!(content, "{shown_text}");
            if cut {
                long_lines += 1;
                let _ = write!(
                    content,
                    " … [line cut at {} of {} characters]",
                    limits.max_line_chars,
                    text.chars().count()
                );
            }
            content.push('\n');
            // The budget is of the text the model reads, each line numbered like `cat -n`.
            let cost = number_width(line) + content.len() - before;
            if shown_len + cost > limits.budget {
                content.truncate(before);
                stop = Stop::Cap;
                // The line was not returned: leave it for the next read.
                break;
            }
            shown_len += cost;
            chars += shown_text.chars().count();
            consumed += n as u64;
            returned += 1;
            line += 1;
        }
    }
    let last = (first + returned).saturating_sub(1);
    let total_lines = match (stop, limits.known_lines) {
        (Stop::End, _) => Some(line - 1),
        (_, Some(total)) => {
            if consumed >= len && stop == Stop::Lines {
                stop = Stop::End;
            }
            Some(usize::try_from(total).unwrap_or(usize::MAX))
        }
        _ => {
            let left = len.saturating_sub(consumed);
            if left <= limits.count_rest_up_to {
                let mut rest = Vec::with_capacity(left as usize);
                reader
                    .take(limits.count_rest_up_to + 1)
                    .read_to_end(&mut rest)
                    .map_err(io)?;
                let newlines = memchr::memchr_iter(b'\n', &rest).count();
                let partial = usize::from(rest.last().is_some_and(|b| *b != b'\n'));
                if rest.is_empty() && stop == Stop::Lines {
                    stop = Stop::End;
                }
                // A line read but left out by the cap counts too.
                let pending = usize::from(stop == Stop::Cap);
                Some(line - 1 + pending + newlines + partial)
            } else {
                None
            }
        }
    };
    Ok(Excerpt {
        content,
        shown_len,
        first,
        last,
        total_lines,
        stop,
        long_lines,
        tokens: estimate_tokens(chars),
    })
}

/// The width of line `line`'s number in the numbered text: `{line:>6}\t`.
fn number_width(line: usize) -> usize {
    line.checked_ilog10().map_or(1, |d| d as usize + 1).max(6) + 1
}

/// `content` (whole lines, each ending in a newline) numbered like `cat -n` from `first`:
/// `{number:>6}\t{text}`.
pub(crate) fn numbered(content: &str, first: usize) -> String {
    let mut out = String::with_capacity(content.len() + 8 * content.lines().count());
    for (k, line) in content.split_inclusive('\n').enumerate() {
        let _ = write!(out, "{:>6}\t{line}", first + k);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(budget: usize) -> ReadLimits {
        ReadLimits {
            max_line_chars: 5,
            budget,
            sniff: 8192,
            count_rest_up_to: 1 << 20,
            known_lines: None,
        }
    }

    #[test]
    fn range_and_numbering() {
        let text = "one\ntwo\nthree\nfour\n";
        let r = LineRange {
            start: 2,
            max_lines: 2,
        };
        let e = read_lines("f", text.as_bytes(), text.len() as u64, r, limits(1000)).unwrap();
        assert_eq!(e.content, "two\nthree\n");
        assert_eq!(
            numbered(&e.content, e.first),
            "     2\ttwo\n     3\tthree\n"
        );
        assert_eq!(
            (e.first, e.last, e.total_lines, e.stop),
            (2, 3, Some(4), Stop::Lines)
        );
        let r = LineRange {
            start: 4,
            max_lines: 9,
        };
        let e = read_lines("f", text.as_bytes(), text.len() as u64, r, limits(1000)).unwrap();
        assert_eq!((e.first, e.last, e.stop), (4, 4, Stop::End));
    }

    #[test]
    fn long_lines_and_cap() {
        let text = "abcdefgh\r\nx\n";
        let r = LineRange {
            start: 1,
            max_lines: 10,
        };
        let e = read_lines("f", text.as_bytes(), text.len() as u64, r, limits(1000)).unwrap();
        assert!(
            e.content
                .starts_with("abcde … [line cut at 5 of 8 characters]\n")
        );
        assert_eq!(e.long_lines, 1);
        let e = read_lines("f", text.as_bytes(), text.len() as u64, r, limits(10)).unwrap();
        assert_eq!(e.stop, Stop::Cap);
        assert_eq!(e.content, "");
    }
}
