//! A background process's output: the last bytes it printed, as whole lines, each at a byte
//! offset counted from its start.

use std::collections::VecDeque;

/// The output kept of one process: whole lines, the oldest dropped past the capacity.
#[derive(Debug)]
pub(crate) struct Ring {
    lines: VecDeque<String>,
    /// Bytes kept (the sum of `lines`' lengths).
    kept: usize,
    /// The offset of the first byte kept.
    start: u64,
    capacity: usize,
}

/// A piece of the output read from an offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Slice {
    pub(crate) text: String,
    /// The offset `text` starts at (later than asked when those bytes were dropped).
    pub(crate) from: u64,
    /// The offset after `text`: where the next read starts.
    pub(crate) to: u64,
    /// Bytes asked for that the ring no longer held.
    pub(crate) dropped: u64,
    /// Whether more output was there than the read's limit gave.
    pub(crate) more: bool,
}

impl Ring {
    pub(crate) fn new(capacity: usize) -> Ring {
        Ring {
            lines: VecDeque::new(),
            kept: 0,
            start: 0,
            capacity: capacity.max(1),
        }
    }

    /// The offset after the last byte printed.
    pub(crate) fn end(&self) -> u64 {
        self.start + self.kept as u64
    }

    /// Adds a line (or the last, unfinished part of the output), dropping the oldest lines
    /// past the capacity.
    pub(crate) fn push(&mut self, line: String) {
        self.kept += line.len();
        self.lines.push_back(line);
        while self.kept > self.capacity && self.lines.len() > 1 {
            if let Some(old) = self.lines.pop_front() {
                self.kept -= old.len();
                self.start += old.len() as u64;
            }
        }
        // One piece larger than the whole ring keeps its end.
        if self.kept > self.capacity
            && let Some(only) = self.lines.front_mut()
        {
            let mut cut = self.kept - self.capacity;
            while !only.is_char_boundary(cut) {
                cut += 1;
            }
            only.drain(..cut);
            self.kept -= cut;
            self.start += cut as u64;
        }
    }

    /// At most `limit` bytes from `offset` (cut at character boundaries).
    pub(crate) fn read(&self, offset: u64, limit: usize) -> Slice {
        let offset = offset.min(self.end());
        let dropped = self.start.saturating_sub(offset);
        let mut from = offset.max(self.start);
        let mut text = String::new();
        let mut at = self.start;
        let mut more = false;
        for line in &self.lines {
            let line_end = at + line.len() as u64;
            if line_end <= from {
                at = line_end;
                continue;
            }
            let skip = usize::try_from(from.saturating_sub(at)).unwrap_or(usize::MAX);
            let first = floor_boundary(line, skip);
            if text.is_empty() {
                from = at + first as u64;
            }
            let part = &line[first..];
            let room = limit - text.len();
            if part.len() > room {
                text.push_str(&part[..floor_boundary(part, room)]);
                more = true;
                break;
            }
            text.push_str(part);
            at = line_end;
        }
        Slice {
            to: from + text.len() as u64,
            text,
            from,
            dropped,
            more,
        }
    }
}

/// The largest character boundary of `s` at or below `i`.
fn floor_boundary(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_from_an_offset_and_says_what_was_dropped() {
        let mut r = Ring::new(10);
        r.push("one\n".into());
        r.push("two\n".into());
        assert_eq!(r.read(0, 100).text, "one\ntwo\n");
        assert_eq!(r.read(4, 100).text, "two\n");
        assert_eq!(r.read(4, 100).to, 8);
        r.push("three\n".into());
        // "one\n" is dropped: 4 + 6 = 10 bytes kept.
        let s = r.read(0, 100);
        assert_eq!((s.text.as_str(), s.from, s.dropped), ("two\nthree\n", 4, 4));
        assert_eq!(r.end(), 14);
        assert_eq!(r.read(14, 100).text, "");
        assert_eq!(r.read(99, 100).from, 14);
        // A piece larger than the ring keeps its end.
        r.push("0123456789abcdef\n".into());
        let s = r.read(0, 100);
        assert_eq!((s.text.as_str(), s.from, r.end()), ("789abcdef\n", 21, 31));
    }

    #[test]
    fn a_read_past_its_limit_says_there_is_more() {
        let mut r = Ring::new(100);
        r.push("héllo\n".into());
        r.push("world\n".into());
        let s = r.read(0, 2);
        // "h" and the two bytes of "é" do not fit in 2: "h" alone.
        assert_eq!((s.text.as_str(), s.more, s.to), ("h", true, 1));
        let s = r.read(s.to, 100);
        assert_eq!(s.text, "éllo\nworld\n");
        assert!(!s.more);
    }
}
