//! Bounded capture of a command's output: lines split as they arrive, each line cut at a
//! length, and of all lines only a head and a tail kept, so memory stays bounded whatever the
//! command prints.

use std::collections::VecDeque;

/// Splits bytes into lines as they arrive; a line longer than the cap keeps its first
/// `max_chars` characters and counts the bytes dropped, without holding them.
#[derive(Debug)]
pub(crate) struct LineSplitter {
    max_chars: usize,
    /// Bytes kept of the current line: at most `4 * max_chars` (a character is at most 4
    /// bytes of UTF-8), cut to `max_chars` characters when the line ends.
    current: Vec<u8>,
    /// Bytes of the current line dropped past the cap.
    dropped: u64,
}

impl LineSplitter {
    pub(crate) fn new(max_chars: usize) -> Self {
        LineSplitter {
            max_chars: max_chars.max(1),
            current: Vec::new(),
            dropped: 0,
        }
    }

    fn max_bytes(&self) -> usize {
        self.max_chars.saturating_mul(4)
    }

    /// Feeds bytes read; every line they complete (with its `\n`) is passed to `line`.
    pub(crate) fn feed(&mut self, mut data: &[u8], mut line: impl FnMut(String)) {
        while !data.is_empty() {
            let (part, done) = match memchr::memchr(b'\n', data) {
                Some(i) => (&data[..i], Some(i + 1)),
                None => (data, None),
            };
            let room = self.max_bytes().saturating_sub(self.current.len());
            let keep = part.len().min(room);
            self.current.extend_from_slice(&part[..keep]);
            self.dropped += (part.len() - keep) as u64;
            match done {
                Some(next) => {
                    line(self.take(true));
                    data = &data[next..];
                }
                None => break,
            }
        }
    }

    /// The last line, when the output did not end with a newline.
    pub(crate) fn finish(&mut self) -> Option<String> {
        (!self.current.is_empty() || self.dropped > 0).then(|| self.take(false))
    }

    fn take(&mut self, newline: bool) -> String {
        let bytes = std::mem::take(&mut self.current);
        let mut dropped = std::mem::take(&mut self.dropped);
        let mut text = String::from_utf8_lossy(&bytes).into_owned();
        if let Some((cut, _)) = text.char_indices().nth(self.max_chars) {
            dropped += (text.len() - cut) as u64;
            text.truncate(cut);
        }
        if dropped > 0 {
            text.push_str(&format!(" … [line cut: {dropped} more bytes]"));
        }
        if newline {
            text.push('\n');
        }
        text
    }
}

/// The lines of one stream: the first ones up to half the budget, then a rolling tail of
/// the last ones up to the other half; everything between is counted, not kept.
#[derive(Debug)]
pub(crate) struct Capture {
    half: usize,
    head: Vec<(String, usize)>,
    head_chars: usize,
    head_full: bool,
    tail: VecDeque<(String, usize)>,
    tail_chars: usize,
    /// Lines seen in all.
    lines: usize,
    /// Lines dropped from the tail (never to be shown).
    dropped: usize,
}

/// A capture rendered within a budget.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Rendered {
    pub(crate) text: String,
    pub(crate) omitted_lines: usize,
}

impl Capture {
    /// A capture keeping about `budget` characters (half head, half tail).
    pub(crate) fn new(budget: usize) -> Self {
        Capture {
            half: budget / 2,
            head: Vec::new(),
            head_chars: 0,
            head_full: false,
            tail: VecDeque::new(),
            tail_chars: 0,
            lines: 0,
            dropped: 0,
        }
    }

    /// Adds one line (with its `\n`, if it had one).
    pub(crate) fn push(&mut self, line: String) {
        let chars = line.chars().count();
        self.lines += 1;
        if !self.head_full {
            if self.head_chars + chars <= self.half {
                self.head_chars += chars;
                self.head.push((line, chars));
                return;
            }
            self.head_full = true;
        }
        self.tail_chars += chars;
        self.tail.push_back((line, chars));
        while self.tail_chars > self.half && self.tail.len() > 1 {
            if let Some((_, c)) = self.tail.pop_front() {
                self.tail_chars -= c;
                self.dropped += 1;
            }
        }
    }

    /// Lines seen in all.
    pub(crate) fn lines(&self) -> usize {
        self.lines
    }

    /// The characters of everything, when everything is still held; `None` once lines were
    /// dropped.
    pub(crate) fn full_chars(&self) -> Option<usize> {
        (self.dropped == 0).then_some(self.head_chars + self.tail_chars)
    }

    /// The text within `budget` characters: the head up to half of it, the tail in the
    /// rest, and between them a marker saying how many lines were left out.
    pub(crate) fn render(&self, budget: usize) -> Rendered {
        if self.full_chars().is_some_and(|c| c <= budget) {
            let mut text = String::with_capacity(self.head_chars + self.tail_chars);
            for (line, _) in self.head.iter().chain(self.tail.iter()) {
                text.push_str(line);
            }
            return Rendered {
                text,
                omitted_lines: 0,
            };
        }
        let head_budget = budget / 2;
        let mut used = 0;
        let mut head = 0;
        for (_, c) in &self.head {
            if used + c > head_budget {
                break;
            }
            used += c;
            head += 1;
        }
        // The tail gets what the head left; it never reaches back into the head's lines.
        let stored_tail: Vec<&(String, usize)> = self
            .head
            .iter()
            .skip(head)
            .chain(self.tail.iter())
            .collect();
        let mut tail = 0;
        for (_, c) in stored_tail.iter().rev() {
            if used + c > budget {
                break;
            }
            used += c;
            tail += 1;
        }
        let omitted = self.lines - head - tail;
        let mut text = String::with_capacity(used + 64);
        for (line, _) in &self.head[..head] {
            text.push_str(line);
        }
        if omitted > 0 {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&format!("[... omitted {omitted} lines ...]\n"));
        }
        for (line, _) in &stored_tail[stored_tail.len() - tail..] {
            text.push_str(line);
        }
        Rendered {
            text,
            omitted_lines: omitted,
        }
    }
}

/// Shares `total` characters between two captures: each gets half, and what one does not
/// need goes to the other.
pub(crate) fn split_budget(a: &Capture, b: &Capture, total: usize) -> (usize, usize) {
    let half = total / 2;
    let need = |c: &Capture| c.full_chars().unwrap_or(usize::MAX);
    let (na, nb) = (need(a), need(b));
    if na <= half {
        (na, total - na)
    } else if nb <= half {
        (total - nb, nb)
    } else {
        (half, total - half)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(data: &[u8], cap: usize) -> Vec<String> {
        let mut s = LineSplitter::new(cap);
        let mut out = Vec::new();
        for piece in data.chunks(3) {
            s.feed(piece, |l| out.push(l));
        }
        out.extend(s.finish());
        out
    }

    #[test]
    fn splits_across_reads_and_keeps_a_last_partial_line() {
        assert_eq!(lines(b"one\ntwo\nthree", 100), ["one\n", "two\n", "three"]);
        assert_eq!(lines(b"a\n\n", 100), ["a\n", "\n"]);
        assert!(lines(b"", 100).is_empty());
    }

    #[test]
    fn a_long_line_is_cut_and_counted() {
        let out = lines(&[b'x'; 100], 10);
        assert_eq!(
            out,
            [format!("{} … [line cut: 90 more bytes]", "x".repeat(10))]
        );
        let out = lines("é".repeat(20).as_bytes(), 5);
        assert!(out[0].starts_with("ééééé …"), "{out:?}");
    }

    #[test]
    fn keeps_head_and_tail_with_a_marker() {
        let mut c = Capture::new(40);
        for i in 0..1000 {
            c.push(format!("line {i:03}\n"));
        }
        assert_eq!(c.lines(), 1000);
        let r = c.render(40);
        assert!(r.text.starts_with("line 000\nline 001\n"), "{}", r.text);
        assert!(r.text.ends_with("line 998\nline 999\n"), "{}", r.text);
        assert_eq!(r.omitted_lines, 1000 - 4);
        assert!(r.text.contains("[... omitted 996 lines ...]"));
    }

    #[test]
    fn small_output_is_whole() {
        let mut c = Capture::new(1000);
        c.push("a\n".into());
        c.push("b".into());
        assert_eq!(
            c.render(1000),
            Rendered {
                text: "a\nb".into(),
                omitted_lines: 0
            }
        );
        let (a, b) = split_budget(&c, &Capture::new(1000), 100);
        assert_eq!((a, b), (3, 97));
    }
}
