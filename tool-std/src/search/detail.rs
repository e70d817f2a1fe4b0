//! The lines of the matches a call returns: each file of the answer searched again for its
//! shown matches only, with line numbers, context lines and long lines cut around the match.

use std::path::Path;

use cap_std::fs::Dir;
use grep_matcher::Matcher;
use grep_regex::RegexMatcher;
use grep_searcher::{Searcher, Sink, SinkMatch};
use memchr::{memchr, memrchr};

use super::matcher::{Stop, Stoppable};
use super::results::{ContextLine, GrepMatch};
use super::scan::{Loaded, load, search_buffer, searcher};

/// What [`matches_of`] needs.
pub(crate) struct DetailSpec<'a> {
    pub(crate) root: &'a Dir,
    pub(crate) matcher: &'a RegexMatcher,
    pub(crate) stop: &'a Stop,
    pub(crate) multiline: bool,
    pub(crate) before: usize,
    pub(crate) after: usize,
    pub(crate) max_line_chars: usize,
    pub(crate) max_file_bytes: u64,
}

/// One match: its first line's number and byte span in the file, and where the match starts.
struct Raw {
    line: u64,
    start: usize,
    end: usize,
    at: usize,
}

struct DetailSink<'a> {
    matcher: &'a RegexMatcher,
    multiline: bool,
    want: usize,
    found: Vec<Raw>,
}

impl Sink for DetailSink<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, m: &SinkMatch<'_>) -> Result<bool, std::io::Error> {
        let base = m.absolute_byte_offset() as usize;
        let bytes = m.bytes();
        let first_line = m.line_number().unwrap_or(0);
        if !self.multiline {
            let at = self
                .matcher
                .find(bytes)
                .ok()
                .flatten()
                .map_or(0, |x| x.start());
            self.found.push(Raw {
                line: first_line,
                start: base,
                end: base + bytes.len(),
                at: base + at,
            });
            return Ok(self.found.len() < self.want);
        }
        // A multiline region may hold several matches; each is its own result, as counted.
        let mut spans = Vec::new();
        let _ = self.matcher.find_iter(bytes, |x| {
            spans.push((x.start(), x.end()));
            true
        });
        if spans.is_empty() {
            spans.push((0, bytes.len()));
        }
        for (s, e) in spans {
            let line_start = memrchr(b'\n', &bytes[..s]).map_or(0, |i| i + 1);
            let last = e.max(s + 1).min(bytes.len()).saturating_sub(1).max(s);
            let line_end = memchr(b'\n', &bytes[last.min(bytes.len())..])
                .map_or(bytes.len(), |i| last + i + 1);
            let line = first_line + bytes[..s].iter().filter(|&&b| b == b'\n').count() as u64;
            self.found.push(Raw {
                line,
                start: base + line_start,
                end: base + line_end.max(line_start),
                at: base + s,
            });
            if self.found.len() >= self.want {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// Drops a line's terminator.
fn trim_eol(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Shows at most `max` characters of `line`, cut around byte `at` (where the match starts)
/// with `…` where text was left out; the column (1-based, in characters) of `at`.
pub(crate) fn cut(line: &[u8], at: usize, max: usize) -> (String, u64) {
    let text = String::from_utf8_lossy(trim_eol(line));
    let at = at.min(line.len());
    let column = String::from_utf8_lossy(&line[..at]).chars().count();
    let total = text.chars().count();
    if total <= max {
        return (text.into_owned(), column as u64 + 1);
    }
    let lead = max / 4;
    let from = column.saturating_sub(lead).min(total.saturating_sub(max));
    let mut out = String::with_capacity(max + 8);
    if from > 0 {
        out.push('…');
    }
    out.extend(text.chars().skip(from).take(max));
    if from + max < total {
        out.push('…');
    }
    (out, column as u64 + 1)
}

/// The `n` lines before byte `start` (a line start), oldest first.
fn lines_before(
    buf: &[u8],
    start: usize,
    first_line: u64,
    n: usize,
    max: usize,
) -> Vec<ContextLine> {
    let mut out = Vec::new();
    let mut end = start;
    let mut line = first_line;
    while out.len() < n && end > 0 && line > 1 {
        let s = memrchr(b'\n', &buf[..end - 1]).map_or(0, |i| i + 1);
        line -= 1;
        out.push(ContextLine {
            line,
            text: cut(&buf[s..end], 0, max).0,
        });
        end = s;
    }
    out.reverse();
    out
}

/// The `n` lines from byte `end` (a line start) on.
fn lines_after(buf: &[u8], end: usize, next_line: u64, n: usize, max: usize) -> Vec<ContextLine> {
    let mut out = Vec::new();
    let mut s = end;
    while out.len() < n && s < buf.len() {
        let e = memchr(b'\n', &buf[s..]).map_or(buf.len(), |i| s + i + 1);
        out.push(ContextLine {
            line: next_line + out.len() as u64,
            text: cut(&buf[s..e], 0, max).0,
        });
        s = e;
    }
    out
}

/// The matches `skip..skip + take` of one file, with context.
pub(crate) fn matches_of(
    spec: &DetailSpec<'_>,
    rel: &Path,
    shown: &str,
    skip: usize,
    take: usize,
    buf: &mut Vec<u8>,
) -> Vec<GrepMatch> {
    if take == 0 || !matches!(load(spec.root, rel, spec.max_file_bytes, buf), Loaded::Text) {
        return Vec::new();
    }
    let mut searcher = searcher(spec.multiline, true);
    let matcher = Stoppable {
        inner: spec.matcher,
        stop: spec.stop,
    };
    let mut sink = DetailSink {
        matcher: spec.matcher,
        multiline: spec.multiline,
        want: skip + take,
        found: Vec::new(),
    };
    if search_buffer(&mut searcher, &matcher, buf, &mut sink).is_err() {
        return Vec::new();
    }
    // The transcoded (UTF-16) path reports offsets into the decoded text; without it the
    // offsets index `buf`. Guard either way.
    let buf: &[u8] = buf;
    sink.found
        .into_iter()
        .skip(skip)
        .take(take)
        .filter(|r| r.end <= buf.len() && r.start <= r.end)
        .map(|r| {
            let (text, _column) = cut(&buf[r.start..r.end], r.at - r.start, spec.max_line_chars);
            let lines = buf[r.start..r.end]
                .iter()
                .filter(|&&b| b == b'\n')
                .count()
                .max(1);
            GrepMatch {
                path: shown.to_owned(),
                line: r.line,
                text,
                before: lines_before(buf, r.start, r.line, spec.before, spec.max_line_chars),
                after: lines_after(
                    buf,
                    r.end,
                    r.line + lines as u64,
                    spec.after,
                    spec.max_line_chars,
                ),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_are_cut_around_the_match() {
        let line = format!("{}needle{}\n", "a".repeat(1000), "b".repeat(1000));
        let (text, column) = cut(line.as_bytes(), 1000, 100);
        assert_eq!(column, 1001);
        assert!(text.starts_with('…') && text.ends_with('…'), "{text}");
        assert!(text.contains("needle"));
        assert_eq!(text.chars().count(), 102);
        let (text, _) = cut(b"short line\r\n", 0, 100);
        assert_eq!(text, "short line");
    }

    #[test]
    fn context_lines_stop_at_the_file_ends() {
        let buf = b"one\ntwo\nthree\nfour\n";
        let before = lines_before(buf, 8, 3, 5, 100);
        assert_eq!(
            before
                .iter()
                .map(|c| (c.line, c.text.as_str()))
                .collect::<Vec<_>>(),
            [(1, "one"), (2, "two")]
        );
        let after = lines_after(buf, 14, 4, 5, 100);
        assert_eq!(
            after
                .iter()
                .map(|c| (c.line, c.text.as_str()))
                .collect::<Vec<_>>(),
            [(4, "four")]
        );
    }
}
