//! What a response body is, and how to read it as text.
//!
//! HTML (`text/html`, `application/xhtml+xml`) is converted to text; other text (`text/*`, JSON,
//! XML, JavaScript, YAML, TOML, CSV and their `+json` / `+xml` variants) is passed through; every
//! other media type is binary and refused, before its body is read. Without a `Content-Type` the
//! first bytes decide. Bodies are decoded as UTF-8 (invalid bytes become U+FFFD), or as
//! windows-1252 when the charset says Latin-1 / windows-1252 (WHATWG treats the labels alike).

use super::error::WebError;

/// How a body becomes text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContentKind {
    /// HTML, converted to readable text.
    Html,
    /// Text passed through as it is.
    Text,
}

/// A parsed `Content-Type` header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaType {
    /// The lower-case `type/subtype`, without parameters (`text/html`).
    pub essence: String,
    /// The lower-case `charset` parameter, if any.
    pub charset: Option<String>,
}

impl MediaType {
    /// Parse a `Content-Type` header value (`text/html; charset=UTF-8`).
    pub fn parse(header: &str) -> MediaType {
        let mut parts = header.split(';');
        let essence = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let charset = parts.find_map(|p| {
            let (key, value) = p.split_once('=')?;
            key.trim()
                .eq_ignore_ascii_case("charset")
                .then(|| value.trim().trim_matches(['"', '\'']).to_ascii_lowercase())
        });
        MediaType { essence, charset }
    }

    /// How this media type becomes text, or `None` for binary content.
    pub fn kind(&self) -> Option<ContentKind> {
        let essence = self.essence.as_str();
        if matches!(essence, "text/html" | "application/xhtml+xml") {
            return Some(ContentKind::Html);
        }
        let (top, sub) = essence.split_once('/').unwrap_or((essence, ""));
        let textual_app = matches!(
            sub,
            "json"
                | "xml"
                | "javascript"
                | "ecmascript"
                | "x-javascript"
                | "yaml"
                | "x-yaml"
                | "toml"
                | "x-toml"
                | "csv"
                | "markdown"
                | "x-ndjson"
                | "ndjson"
                | "x-sh"
                | "sql"
                | "graphql"
        ) || sub.ends_with("+json")
            || sub.ends_with("+xml")
            || sub.ends_with("+yaml");
        match top {
            "text" => Some(ContentKind::Text),
            "application" if textual_app => Some(ContentKind::Text),
            _ => None,
        }
    }

    /// The error for a media type that [`MediaType::kind`] calls binary.
    pub fn refusal(&self) -> WebError {
        WebError::UnsupportedContentType {
            content_type: if self.essence.is_empty() {
                "unknown".to_owned()
            } else {
                self.essence.clone()
            },
        }
    }
}

/// Guess what a body without a `Content-Type` is from its first bytes: HTML when it starts like
/// HTML, text when it has no NUL byte and decodes as UTF-8, otherwise binary (refused).
pub fn sniff(body: &[u8]) -> Result<(ContentKind, &'static str), WebError> {
    let head = &body[..body.len().min(1024)];
    let start = String::from_utf8_lossy(head);
    let lower = start
        .trim_start_matches('\u{feff}')
        .trim_start()
        .to_ascii_lowercase();
    if lower.starts_with("<!doctype html")
        || lower.starts_with("<html")
        || lower.starts_with("<head")
        || lower.starts_with("<body")
    {
        return Ok((ContentKind::Html, "text/html"));
    }
    // A cut at the end of `head` may split a character; only complain about real errors.
    let valid = match std::str::from_utf8(head) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none(),
    };
    if valid && !head.contains(&0) {
        Ok((ContentKind::Text, "text/plain"))
    } else {
        Err(WebError::UnsupportedContentType {
            content_type: "application/octet-stream (no Content-Type; the body looks binary)"
                .to_owned(),
        })
    }
}

/// The characters windows-1252 puts at 0x80..=0x9F (U+FFFD for the five unassigned bytes).
const WINDOWS_1252_HIGH: [char; 32] = [
    '€', '\u{fffd}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{fffd}', 'Ž',
    '\u{fffd}', '\u{fffd}', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{fffd}',
    'ž', 'Ÿ',
];

/// `body` without a UTF-8 sequence left incomplete at its end (by cutting the body at the byte
/// cap), so the cut does not show as U+FFFD.
pub fn trim_cut_char(body: &[u8]) -> &[u8] {
    let n = body.len();
    for back in 1..=n.min(4) {
        let b = body[n - back];
        if b & 0xc0 != 0x80 {
            let needed = match b {
                0xf0.. => 4,
                0xe0.. => 3,
                0xc0.. => 2,
                _ => 1,
            };
            return if needed > back {
                &body[..n - back]
            } else {
                body
            };
        }
    }
    body
}

/// Decode a body as text using the charset from its `Content-Type`; `cut` says the body was
/// cut at the byte cap, so a character left incomplete at its end is dropped.
pub fn decode_text(body: &[u8], charset: Option<&str>, cut: bool) -> String {
    let latin = matches!(
        charset,
        Some(
            "iso-8859-1"
                | "iso8859-1"
                | "latin1"
                | "latin-1"
                | "l1"
                | "windows-1252"
                | "cp1252"
                | "x-cp1252"
                | "us-ascii"
                | "ascii"
        )
    );
    let text = if latin {
        body.iter()
            .map(|&b| match b {
                0x80..=0x9f => WINDOWS_1252_HIGH[usize::from(b - 0x80)],
                _ => char::from(b),
            })
            .collect()
    } else if cut {
        String::from_utf8_lossy(trim_cut_char(body)).into_owned()
    } else {
        String::from_utf8_lossy(body).into_owned()
    };
    match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_owned(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn media_types() {
        let m = MediaType::parse("Text/HTML; Charset=\"UTF-8\"");
        assert_eq!(m.essence, "text/html");
        assert_eq!(m.charset.as_deref(), Some("utf-8"));
        assert_eq!(m.kind(), Some(ContentKind::Html));
        for t in [
            "text/plain",
            "text/markdown",
            "text/xml",
            "application/json",
            "application/ld+json",
            "application/rss+xml",
            "application/xml; charset=utf-8",
            "application/javascript",
        ] {
            assert_eq!(MediaType::parse(t).kind(), Some(ContentKind::Text), "{t}");
        }
        for t in [
            "image/png",
            "application/pdf",
            "application/octet-stream",
            "video/mp4",
            "",
        ] {
            let m = MediaType::parse(t);
            assert_eq!(m.kind(), None, "{t}");
            assert!(m.refusal().to_string().contains("binary content"));
        }
        assert!(
            MediaType::parse("image/png")
                .refusal()
                .to_string()
                .contains("image/png")
        );
    }

    #[test]
    fn sniffing() {
        assert_eq!(
            sniff(b"  <!DOCTYPE html><p>x").unwrap().0,
            ContentKind::Html
        );
        assert_eq!(
            sniff("\u{feff}<html>".as_bytes()).unwrap().0,
            ContentKind::Html
        );
        assert_eq!(sniff(b"just words").unwrap().0, ContentKind::Text);
        assert_eq!(sniff(b"").unwrap().0, ContentKind::Text);
        assert!(sniff(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").is_err());
        assert!(sniff(&[0xff, 0xfe, 0xfd, b'a', b'b']).is_err());
        // A multi-byte character cut by the 1024-byte window is still text.
        let mut body = vec![b'a'; 1023];
        body.extend_from_slice("é".as_bytes());
        assert!(sniff(&body).is_ok());
    }

    #[test]
    fn cut_characters_are_trimmed() {
        let crab = "a🦀".as_bytes();
        for cut in 2..crab.len() {
            assert_eq!(trim_cut_char(&crab[..cut]), b"a", "{cut}");
        }
        assert_eq!(trim_cut_char(crab), crab);
        assert_eq!(trim_cut_char("é".as_bytes()), "é".as_bytes());
        assert_eq!(trim_cut_char(b""), b"");
        assert_eq!(
            trim_cut_char(b"\x80\x80\x80\x80\x80"),
            b"\x80\x80\x80\x80\x80"
        );
    }

    #[test]
    fn decoding() {
        assert_eq!(decode_text("héllo".as_bytes(), None, false), "héllo");
        assert_eq!(
            decode_text(b"caf\xe9 \x80\xc3", Some("iso-8859-1"), true),
            "café €Ã"
        );
        assert_eq!(
            decode_text(b"bad \xff", Some("utf-8"), false),
            "bad \u{fffd}"
        );
        assert_eq!(decode_text("\u{feff}bom".as_bytes(), None, false), "bom");
        assert_eq!(decode_text(b"cut \xc3", None, true), "cut ");
        assert_eq!(decode_text(b"end \xc3", None, false), "end \u{fffd}");
    }
}
