//! The text model of the edits: a file's bytes as text the model edits with `\n` line ends,
//! and back to bytes with the file's own byte-order mark and line ends.
//!
//! A file is edited as text only if it is UTF-8 without NUL bytes ([`decode`]). A UTF-8
//! byte-order mark is taken off and put back on. A file whose every line ends in `\r\n` is
//! edited with `\n` and written with `\r\n` again, so `find` and `content` written with `\n`
//! match and land as the file's own line ends; a file with mixed line ends is edited byte for
//! byte, as it is.

use tool_core::ToolError;

/// The UTF-8 byte-order mark.
pub(crate) const BOM: &str = "\u{feff}";

/// A file's content as text, with what is needed to write it back the same way.
#[derive(Debug, Clone)]
pub(crate) struct TextFile {
    /// The content, BOM taken off, `\r\n` turned into `\n` when `crlf`.
    pub(crate) text: String,
    /// Whether the file starts with a byte-order mark.
    pub(crate) bom: bool,
    /// Whether every line of the file ends in `\r\n` (and there is at least one).
    pub(crate) crlf: bool,
}

impl TextFile {
    /// Decodes a file's bytes; binary content (a NUL byte, invalid UTF-8) is refused.
    pub(crate) fn decode(shown: &str, bytes: Vec<u8>) -> Result<TextFile, ToolError> {
        if memchr::memchr(0, &bytes).is_some() {
            return Err(binary_error(shown));
        }
        let mut text = String::from_utf8(bytes).map_err(|_| binary_error(shown))?;
        let bom = text.starts_with(BOM);
        if bom {
            text.drain(..BOM.len());
        }
        let crlf = is_pure_crlf(&text);
        if crlf {
            text = text.replace("\r\n", "\n");
        }
        Ok(TextFile { text, bom, crlf })
    }

    /// How a new file (or an empty one) is written: no BOM, `\n`.
    pub(crate) fn plain(text: String) -> TextFile {
        TextFile {
            text,
            bom: false,
            crlf: false,
        }
    }

    /// Text the model gave (`find`, `content`), in the form of this file's edited text: with a
    /// CRLF file, `\r\n` becomes `\n` (it is put back on write).
    pub(crate) fn normalize_input(&self, input: &str) -> String {
        if self.crlf {
            input.replace("\r\n", "\n")
        } else {
            input.to_owned()
        }
    }

    /// The bytes of `text` written the way this file is: BOM and line ends restored.
    pub(crate) fn encode(&self, text: &str) -> Vec<u8> {
        let mut out = Vec::with_capacity(text.len() + text.len() / 32 + 3);
        if self.bom {
            out.extend_from_slice(BOM.as_bytes());
        }
        if self.crlf {
            let mut rest = text.as_bytes();
            while let Some(i) = memchr::memchr(b'\n', rest) {
                out.extend_from_slice(&rest[..i]);
                out.extend_from_slice(b"\r\n");
                rest = &rest[i + 1..];
            }
            out.extend_from_slice(rest);
        } else {
            out.extend_from_slice(text.as_bytes());
        }
        out
    }
}

/// Whether every `\n` of `text` follows a `\r` (and there is one).
fn is_pure_crlf(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut any = false;
    for i in memchr::memchr_iter(b'\n', bytes) {
        if i == 0 || bytes[i - 1] != b'\r' {
            return false;
        }
        any = true;
    }
    any
}

/// The error for a file that is not text.
pub(crate) fn binary_error(shown: &str) -> ToolError {
    ToolError::user(format!(
        "`{shown}` is a binary file (it holds NUL bytes or is not UTF-8); only text files are read or edited by the file tools"
    ))
    .with_suggestion("Inspect binary files with the bash tool (`file`, `xxd | head`).")
}

/// Whether the first bytes of a file say it is binary: a NUL byte, or bytes that are not UTF-8
/// (a multi-byte character cut at the end of the sample is fine).
pub(crate) fn looks_binary(sample: &[u8]) -> bool {
    if memchr::memchr(0, sample).is_some() {
        return true;
    }
    match std::str::from_utf8(sample) {
        Ok(_) => false,
        Err(e) => e.error_len().is_some(),
    }
}

/// The byte offset where each line starts (the first is 0).
pub(crate) fn line_starts(text: &str) -> Vec<usize> {
    let mut starts = Vec::with_capacity(text.len() / 40 + 1);
    starts.push(0);
    starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
    starts
}

/// The 0-based line holding byte `offset`, given [`line_starts`].
pub(crate) fn line_of(starts: &[usize], offset: usize) -> usize {
    starts.partition_point(|&s| s <= offset).saturating_sub(1)
}

/// The number of lines of a text: a last line without `\n` counts, an empty text has none.
pub(crate) fn count_lines(text: &str) -> usize {
    let newlines = memchr::memchr_iter(b'\n', text.as_bytes()).count();
    if text.is_empty() || text.ends_with('\n') {
        newlines
    } else {
        newlines + 1
    }
}

/// A rough token count (seed 004's estimate): one token per four characters.
pub(crate) fn estimate_tokens(chars: usize) -> usize {
    chars.div_ceil(4)
}

/// At most `max` characters of `s` (on a character boundary) and whether it was cut.
pub(crate) fn cut_chars(s: &str, max: usize) -> (&str, bool) {
    match s.char_indices().nth(max) {
        Some((i, _)) => (&s[..i], true),
        None => (s, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crlf_and_bom_round_trip() {
        let raw = "\u{feff}a\r\nb\r\n".as_bytes().to_vec();
        let f = TextFile::decode("x", raw.clone()).unwrap();
        assert!(f.bom && f.crlf);
        assert_eq!(f.text, "a\nb\n");
        assert_eq!(f.encode(&f.text), raw);
        let mixed = TextFile::decode("x", b"a\r\nb\n".to_vec()).unwrap();
        assert!(!mixed.crlf);
        assert_eq!(mixed.encode(&mixed.text), b"a\r\nb\n");
    }

    #[test]
    fn binary_and_lines() {
        assert!(looks_binary(b"a\0b"));
        assert!(looks_binary(&[0xff, 0xfe, b'a']));
        assert!(!looks_binary("é".as_bytes()));
        assert!(!looks_binary(&"é".as_bytes()[..1]));
        assert_eq!(count_lines(""), 0);
        assert_eq!(count_lines("a"), 1);
        assert_eq!(count_lines("a\n"), 1);
        assert_eq!(count_lines("a\nb"), 2);
        let s = line_starts("ab\ncd\n");
        assert_eq!(s, [0, 3, 6]);
        assert_eq!(line_of(&s, 4), 1);
        assert_eq!(cut_chars("héllo", 2), ("hé", true));
    }
}
