//! Bounding how deeply HTML nests, before it is parsed.
//!
//! The HTML tree builder checks "is there an element in scope" by walking the stack of open
//! elements, so a page of a million nested `<div>`s costs a million times a million steps: a
//! few kilobytes of markup can keep a CPU busy for hours, and page conversion cannot be cancelled
//! once started. Browsers cap the depth for the same reason (Chromium's parser at 512). [`limit_nesting`]
//! does it on the markup: a linear scan that follows start and end tags and leaves out the tags
//! that would nest deeper than the limit, keeping their text, so the parser never sees a deep
//! stack. Many tags just under the limit still cost depth times count, so a work budget
//! ([`MAX_WORK`]) bounds the total: past it, the rest of the markup loses its structure but not
//! its text.
//!
//! The scan is a conservative estimate, not a parser: elements the parser closes implicitly
//! (`p`, `li`, `td`, ...) and void elements (`br`, `img`, ...) do not count, comments and the
//! bodies of `script`, `style`, `textarea`, `title` and friends are skipped as the parser skips
//! them, and a quoted `>` inside an attribute does not end a tag.

use std::borrow::Cow;

/// The deepest nesting of (counted) elements kept. Real pages stay far below it; the parser's
/// work per tag grows with it (a 5 MB page nested this deep converts in about a second with
/// optimizations on).
pub const MAX_NESTING: usize = 256;

/// The most parser work kept, counted as the sum of the depths at which counted start tags open
/// (the length of the stack walks they cost). Ordinary pages use a small fraction of it; past
/// it, the remaining counted tags are left out too and the rest of the page is read as flat text.
pub const MAX_WORK: usize = 16_000_000;

/// Elements that never have children or that the parser closes by itself when a sibling
/// starts; they do not add to the depth.
fn is_uncounted(name: &str) -> bool {
    matches!(
        name,
        "area"
            | "base"
            | "br"
            | "col"
            | "embed"
            | "hr"
            | "img"
            | "input"
            | "link"
            | "meta"
            | "param"
            | "source"
            | "track"
            | "wbr"
            | "p"
            | "li"
            | "dt"
            | "dd"
            | "tr"
            | "td"
            | "th"
            | "option"
            | "optgroup"
            | "rb"
            | "rt"
            | "rtc"
            | "rp"
            | "thead"
            | "tbody"
            | "tfoot"
            | "colgroup"
            | "caption"
            | "html"
            | "head"
            | "body"
    )
}

/// Elements whose content is raw text up to the matching end tag.
fn is_raw_text(name: &str) -> bool {
    matches!(
        name,
        "script" | "style" | "textarea" | "title" | "xmp" | "iframe" | "noembed" | "noframes"
    )
}

/// The end of a tag that starts at `start` (the index after `>`), skipping quoted values.
fn tag_end(bytes: &[u8], start: usize) -> usize {
    let mut quote = None;
    let mut i = start;
    while i < bytes.len() {
        match (quote, bytes[i]) {
            (None, b'>') => return i + 1,
            (None, q @ (b'"' | b'\'')) => quote = Some(q),
            (Some(q), c) if c == q => quote = None,
            _ => {}
        }
        i += 1;
    }
    bytes.len()
}

/// The lower-case tag name starting at `start`, and where it ends.
fn tag_name(bytes: &[u8], start: usize) -> (String, usize) {
    let end = bytes[start..]
        .iter()
        .position(|b| !(b.is_ascii_alphanumeric() || *b == b'-' || *b == b':'))
        .map_or(bytes.len(), |n| start + n);
    (
        String::from_utf8_lossy(&bytes[start..end]).to_ascii_lowercase(),
        end,
    )
}

/// Find `needle` (ASCII, lower-case) in `bytes` from `from`, ignoring ASCII case.
fn find_ignore_case(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || from >= bytes.len() {
        return None;
    }
    bytes[from..]
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
        .map(|n| from + n)
}

/// Leave out the tags of `html` that nest deeper than `max_depth` counted elements, with their
/// matching end tags; text is kept. Returns the input unchanged when nothing nests that deep.
///
/// ```
/// use tool_std::web::depth::limit_nesting;
///
/// let deep = format!("{}x{}", "<div>".repeat(5), "</div>".repeat(5));
/// assert_eq!(limit_nesting(&deep, 2), "<div><div>x</div></div>");
/// assert_eq!(limit_nesting("<p>a<p>b<br>c", 1), "<p>a<p>b<br>c");
/// ```
pub fn limit_nesting(html: &str, max_depth: usize) -> Cow<'_, str> {
    let bytes = html.as_bytes();
    let mut depth = 0usize;
    let mut dropped = 0usize;
    let mut work = 0usize;
    // Byte ranges of tags to leave out; the rest is copied.
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while let Some(offset) = bytes[i..].iter().position(|&b| b == b'<') {
        let lt = i + offset;
        let next = bytes.get(lt + 1).copied().unwrap_or(0);
        i = if bytes[lt..].starts_with(b"<!--") {
            find_ignore_case(bytes, lt + 4, b"-->").map_or(bytes.len(), |n| n + 3)
        } else if next == b'!' || next == b'?' {
            tag_end(bytes, lt + 2)
        } else if next == b'/' && bytes.get(lt + 2).is_some_and(u8::is_ascii_alphabetic) {
            let (name, after) = tag_name(bytes, lt + 2);
            let end = tag_end(bytes, after);
            if !is_uncounted(&name) {
                if work > MAX_WORK {
                    cuts.push((lt, end));
                } else if dropped > 0 {
                    dropped -= 1;
                    cuts.push((lt, end));
                } else {
                    depth = depth.saturating_sub(1);
                }
            }
            end
        } else if next.is_ascii_alphabetic() {
            let (name, after) = tag_name(bytes, lt + 1);
            let end = tag_end(bytes, after);
            if is_raw_text(&name) {
                // Skip to the end tag; the element opens and closes here.
                let closing = format!("</{name}");
                find_ignore_case(bytes, end, closing.as_bytes())
                    .map_or(bytes.len(), |n| tag_end(bytes, n + closing.len()))
            } else {
                if !is_uncounted(&name) {
                    if work > MAX_WORK {
                        cuts.push((lt, end));
                    } else if depth >= max_depth {
                        dropped += 1;
                        cuts.push((lt, end));
                    } else {
                        depth += 1;
                        work += depth;
                    }
                }
                end
            }
        } else {
            lt + 1
        };
    }
    if cuts.is_empty() {
        return Cow::Borrowed(html);
    }
    let mut out = String::with_capacity(html.len());
    let mut copied = 0;
    for (start, end) in cuts {
        // Tags start at '<' and end after '>' (or at the end), both ASCII: char boundaries.
        out.push_str(html.get(copied..start).unwrap_or_default());
        copied = end;
    }
    out.push_str(html.get(copied..).unwrap_or_default());
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shallow_html_is_untouched() {
        let html =
            r#"<html><body><div class="a>b"><p>x<p>y<ul><li>1<li>2</ul></div></body></html>"#;
        assert!(matches!(limit_nesting(html, 3), Cow::Borrowed(_)));
    }

    #[test]
    fn deep_tags_are_left_out_with_their_end_tags() {
        let html = "<div><span><b>x</b></span>tail</div>";
        assert_eq!(limit_nesting(html, 1), "<div>xtail</div>");
        assert_eq!(limit_nesting(html, 2), "<div><span>x</span>tail</div>");
    }

    #[test]
    fn raw_text_and_comments_are_skipped() {
        let html = "<div><script>for(;;){ '<div><div><div>' }</script><!-- <div><div> --><textarea><div></TEXTAREA>x</div>";
        assert!(matches!(limit_nesting(html, 1), Cow::Borrowed(_)));
    }

    #[test]
    fn work_is_bounded() {
        let html = format!(
            "{}{}",
            "<div>".repeat(100),
            "<b>x</b>".repeat(MAX_WORK / 100 + 10)
        );
        let limited = limit_nesting(&html, MAX_NESTING);
        assert!(limited.starts_with(&"<div>".repeat(100)));
        assert!(limited.ends_with("xxxxxxxxxx"), "the tail is flat text");
        assert!(limited.contains("<b>x</b>"), "the head keeps its tags");
    }

    #[test]
    fn odd_input_does_not_panic() {
        for html in [
            "<",
            "</",
            "<a",
            "<!--",
            "<script>",
            "<a href='>",
            "é<é>",
            "<\u{0}>",
            "</é>",
        ] {
            let _ = limit_nesting(html, 0);
        }
        assert_eq!(limit_nesting("<div><div", 1), "<div>");
    }
}
