//! Content versions: what a model carries from a read to its edits, so an edit of a file that
//! changed meanwhile is refused whichever process, replica or session answers it.
//!
//! A [`Version`] is the first [`VERSION_DIGITS`] lowercase hex digits of the SHA-256 of a
//! file's whole content (`3f2a9c1b7d4e`): short enough to cost the model a few tokens, long
//! enough (48 bits) that two contents a model edits never share one by chance. A [`Stamp`] is
//! a version with the size and line count of the same bytes, for the errors that say what
//! changed.

use std::fmt;
use std::io::{self, Read};

use sha2::{Digest, Sha256};

/// Hex digits in a [`Version`].
pub const VERSION_DIGITS: usize = 12;

/// A file's content version: the first [`VERSION_DIGITS`] lowercase hex digits of the SHA-256
/// of its bytes. It depends on the content only, not on the file's name, time or inode.
///
/// ```
/// use tool_std::workspace::Version;
///
/// let v = Version::of(b"hello\n");
/// assert_eq!(v.to_string(), "5891b5b522d5");
/// assert_eq!(Version::parse(" 5891B5B522D5 "), Some(v));
/// assert_eq!(Version::parse("5891b5b5"), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Version([u8; VERSION_DIGITS / 2]);

impl Version {
    /// The version of `bytes`.
    pub fn of(bytes: &[u8]) -> Version {
        Version::from_digest(&Sha256::digest(bytes))
    }

    fn from_digest(digest: &[u8]) -> Version {
        let mut v = [0u8; VERSION_DIGITS / 2];
        v.copy_from_slice(&digest[..VERSION_DIGITS / 2]);
        Version(v)
    }

    /// Reads a version as [`Display`](fmt::Display) writes it: exactly [`VERSION_DIGITS`] hex
    /// digits, either case; whitespace around them is ignored. `None` for anything else.
    pub fn parse(text: &str) -> Option<Version> {
        let mut v = [0u8; VERSION_DIGITS / 2];
        hex::decode_to_slice(text.trim(), &mut v).ok()?;
        Some(Version(v))
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&hex::encode(self.0))
    }
}

/// A file's content summed up: its [`Version`], bytes and lines (a last line without a
/// newline counts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Stamp {
    /// The content's version.
    pub version: Version,
    /// Its length in bytes.
    pub bytes: u64,
    /// Its lines.
    pub lines: u64,
}

impl Stamp {
    /// The stamp of `bytes`.
    ///
    /// ```
    /// use tool_std::workspace::{Stamp, Version};
    ///
    /// let s = Stamp::of(b"one\ntwo");
    /// assert_eq!((s.bytes, s.lines, s.version), (7, 2, Version::of(b"one\ntwo")));
    /// ```
    pub fn of(bytes: &[u8]) -> Stamp {
        let mut h = StampHasher::default();
        h.update(bytes);
        h.finish()
    }
}

/// Computes a [`Stamp`] over bytes given in pieces.
#[derive(Debug, Clone, Default)]
pub(crate) struct StampHasher {
    sha: Sha256,
    bytes: u64,
    newlines: u64,
    last: Option<u8>,
}

impl StampHasher {
    pub(crate) fn update(&mut self, piece: &[u8]) {
        if piece.is_empty() {
            return;
        }
        self.sha.update(piece);
        self.bytes += piece.len() as u64;
        self.newlines += memchr::memchr_iter(b'\n', piece).count() as u64;
        self.last = piece.last().copied();
    }

    /// Bytes seen so far.
    pub(crate) fn len(&self) -> u64 {
        self.bytes
    }

    pub(crate) fn finish(self) -> Stamp {
        let unterminated = u64::from(self.last.is_some_and(|b| b != b'\n'));
        Stamp {
            version: Version::from_digest(&self.sha.finalize()),
            bytes: self.bytes,
            lines: self.newlines + unterminated,
        }
    }
}

/// A reader that stamps every byte read through it, in order.
#[derive(Debug)]
pub(crate) struct StampingReader<R> {
    inner: R,
    hasher: StampHasher,
}

impl<R: Read> StampingReader<R> {
    pub(crate) fn new(inner: R) -> Self {
        StampingReader {
            inner,
            hasher: StampHasher::default(),
        }
    }

    /// Reads the rest of the input, up to `limit` bytes in all, and returns the stamp of
    /// everything read; `None` when the input holds more than `limit` bytes.
    pub(crate) fn finish_within(mut self, limit: u64) -> io::Result<Option<Stamp>> {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            if self.hasher.len() > limit {
                return Ok(None);
            }
            match self.read(&mut buf) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok((self.hasher.len() <= limit).then(|| self.hasher.finish()))
    }
}

impl<R: Read> Read for StampingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
}

/// The stamp of everything `reader` yields, if that is at most `limit` bytes.
pub(crate) fn stamp_within(reader: impl Read, limit: u64) -> io::Result<Option<Stamp>> {
    StampingReader::new(reader).finish_within(limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_is_the_sha256_prefix() {
        // sha256("") = e3b0c44298fc1c14...
        assert_eq!(Version::of(b"").to_string(), "e3b0c44298fc");
        assert_eq!(Version::parse("E3B0C44298FC"), Some(Version::of(b"")));
        for bad in [
            "",
            "e3b0c44298f",
            "e3b0c44298fc1",
            "e3b0c44298fg",
            "é3b0c44298f",
        ] {
            assert_eq!(Version::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn pieces_and_readers_stamp_like_the_whole() {
        let text = b"one\r\ntwo\nthree";
        let whole = Stamp::of(text);
        assert_eq!((whole.bytes, whole.lines), (14, 3));
        let mut h = StampHasher::default();
        for piece in text.chunks(3) {
            h.update(piece);
        }
        assert_eq!(h.finish(), whole);
        assert_eq!(stamp_within(&text[..], 14).unwrap(), Some(whole));
        assert_eq!(stamp_within(&text[..], 13).unwrap(), None);
        assert_eq!(Stamp::of(b"a\n").lines, 1);
        assert_eq!(Stamp::of(b"").lines, 0);
    }
}
