//! Reading long text in windows: at most [`MAX_CONTENT_CHARS`] characters per answer, with a
//! `start_index` to read on from.
//!
//! Offsets count Unicode scalar values (Rust `char`s), never bytes, so a window never splits a
//! character and the numbers mean the same to every caller.

use super::error::WebError;

/// The most characters of page text one answer carries (seed 000: "Content truncated to 40k
/// characters").
pub const MAX_CONTENT_CHARS: usize = 40_000;

/// One window of a longer text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextWindow {
    /// The characters `start_index .. start_index + content.chars().count()` of the text.
    pub content: String,
    /// Where the window starts, in characters.
    pub start_index: usize,
    /// Where the next window starts, if the text goes on.
    pub next_start_index: Option<usize>,
    /// The length of the whole text in characters.
    pub total_chars: usize,
}

impl TextWindow {
    /// Whether the text goes on past this window.
    pub fn truncated(&self) -> bool {
        self.next_start_index.is_some()
    }
}

/// Cut the window of at most `max_chars` characters (at least 1) starting at character
/// `start_index` out of `text`.
///
/// `start_index` 0 on an empty text gives an empty window; any other `start_index` at or past
/// the end is an error that names the text's length.
///
/// ```
/// use tool_std::web::window;
///
/// let w = window("héllo wörld", 6, 3)?;
/// assert_eq!(w.content, "wör");
/// assert_eq!(w.next_start_index, Some(9));
/// assert_eq!(w.total_chars, 11);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn window(text: &str, start_index: usize, max_chars: usize) -> Result<TextWindow, WebError> {
    let max_chars = max_chars.max(1);
    let total_chars = text.chars().count();
    if start_index > 0 && start_index >= total_chars {
        return Err(WebError::StartIndexOutOfRange {
            start_index,
            total_chars,
        });
    }
    let byte_at = |char_index: usize| {
        text.char_indices()
            .nth(char_index)
            .map_or(text.len(), |(i, _)| i)
    };
    let start = byte_at(start_index);
    let rest = &text[start..];
    let len = rest
        .char_indices()
        .nth(max_chars)
        .map_or(rest.len(), |(i, _)| i);
    let content = rest[..len].to_owned();
    let end_index = start_index + content.chars().count();
    Ok(TextWindow {
        content,
        start_index,
        next_start_index: (end_index < total_chars).then_some(end_index),
        total_chars,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_text_fits() {
        let w = window("hello", 0, 40_000).unwrap();
        assert_eq!(w.content, "hello");
        assert_eq!(w.next_start_index, None);
        assert!(!w.truncated());
        assert_eq!(w.total_chars, 5);
    }

    #[test]
    fn windows_cover_the_text_exactly() {
        let text: String = (0..1000)
            .map(|i| if i % 7 == 0 { 'é' } else { 'a' })
            .collect();
        let mut start = 0;
        let mut seen = String::new();
        loop {
            let w = window(&text, start, 300).unwrap();
            assert!(w.content.chars().count() <= 300);
            seen.push_str(&w.content);
            match w.next_start_index {
                Some(next) => start = next,
                None => break,
            }
        }
        assert_eq!(seen, text);
    }

    #[test]
    fn multibyte_boundaries() {
        let w = window("日本語のテキスト", 2, 3).unwrap();
        assert_eq!(w.content, "語のテ");
        assert_eq!(w.next_start_index, Some(5));
        let w = window("🦀🦀🦀", 2, 40_000).unwrap();
        assert_eq!(w.content, "🦀");
        assert_eq!(w.next_start_index, None);
    }

    #[test]
    fn out_of_range_and_edge_cases() {
        assert_eq!(window("", 0, 10).unwrap().content, "");
        let err = window("abc", 3, 10).unwrap_err();
        assert_eq!(
            err,
            WebError::StartIndexOutOfRange {
                start_index: 3,
                total_chars: 3
            }
        );
        assert!(err.to_string().contains("3 characters"));
        assert!(window("", 1, 10).is_err());
        assert!(window("abc", usize::MAX, 10).is_err());
        assert_eq!(window("abc", 0, 0).unwrap().content, "a");
    }
}
