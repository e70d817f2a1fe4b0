//! Files as the tool gives them to a server, and positions as models give them: a 1-based
//! line with the symbol's name on it (models count columns badly) or a 1-based column in
//! characters, turned into the protocol's 0-based line and UTF-16 offset, and back.

use std::io::Read;
use std::path::PathBuf;

use lsp_types::{Position, Url};
use tool_core::ToolError;

use super::config::CodeConfig;
use crate::workspace::{Workspace, WsPath};

/// A file read through the workspace, for a server.
#[derive(Debug, Clone)]
pub(crate) struct Source {
    /// The canonical path (links inside the root followed).
    pub(crate) path: WsPath,
    /// The path as the model named it.
    pub(crate) shown: String,
    pub(crate) uri: Url,
    pub(crate) language: String,
    pub(crate) text: String,
}

/// Reads `path` for a server (blocking): refused as the file tools refuse it (outside the
/// roots, hidden, protected), and when it is too large, not UTF-8 or of no known language.
pub(crate) fn load(ws: &Workspace, config: &CodeConfig, path: &str) -> Result<Source, ToolError> {
    let p = ws.resolve(path)?;
    let shown = p.to_string();
    let Some(language) = config.language_for(&shown) else {
        return Err(ToolError::user(format!(
            "`{shown}` is of no language the code tool knows by its extension"
        ))
        .with_field("languages", config.known_languages())
        .with_suggestion("Give a source file (.c, .py, .rs, ...); use grep for other files."));
    };
    let opened = ws.open_file(&p)?;
    if opened.info.len > config.max_file_bytes {
        return Err(ToolError::user(format!(
            "`{shown}` is {} bytes; the code tool gives servers files of at most {} bytes",
            opened.info.len, config.max_file_bytes
        ))
        .with_suggestion("Use grep on it instead."));
    }
    // Room for the whole file and the read that finds its end: one read where it fits.
    let mut bytes = Vec::with_capacity(usize::try_from(opened.info.len).unwrap_or(0) + 1);
    (&opened.file)
        .take(config.max_file_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ToolError::system(format!("reading `{shown}` failed: {e}")))?;
    let text = String::from_utf8(bytes).map_err(|_| {
        ToolError::user(format!(
            "`{shown}` is not UTF-8 text; a language server reads text"
        ))
    })?;
    let host = ws.host_path(&opened.path);
    let uri = uri_of(&host)?;
    Ok(Source {
        path: opened.path,
        shown,
        uri,
        language,
        text,
    })
}

/// The `file://` URI of a host path.
pub(crate) fn uri_of(host: &std::path::Path) -> Result<Url, ToolError> {
    Url::from_file_path(host)
        .map_err(|()| ToolError::system(format!("{} is not a path a URI can name", host.display())))
}

/// The host path of a `file://` URI.
pub(crate) fn path_of(uri: &Url) -> Option<PathBuf> {
    (uri.scheme() == "file")
        .then(|| uri.to_file_path().ok())
        .flatten()
}

/// The lines of a text, without their line ends.
pub(crate) fn lines(text: &str) -> impl Iterator<Item = &str> {
    text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l))
}

/// The protocol position of the model's `line` (1-based) and `symbol` on it, or `column`
/// (1-based, in characters); also the 1-based column found.
pub(crate) fn position(
    source: &Source,
    line: usize,
    symbol: Option<&str>,
    column: Option<usize>,
) -> Result<(Position, usize), ToolError> {
    let count = lines(&source.text).count();
    let shown = &source.shown;
    let Some(text) = line.checked_sub(1).and_then(|i| lines(&source.text).nth(i)) else {
        return Err(ToolError::validation(format!(
            "line {line} is not in `{shown}`, which has {count} lines (lines count from 1)"
        ))
        .with_suggestion("Read the file (read_file) or grep for the name to find its line."));
    };
    let col = match (symbol.filter(|s| !s.trim().is_empty()), column) {
        (Some(symbol), _) => column_of(text, symbol.trim()).ok_or_else(|| {
            ToolError::user(format!(
                "`{symbol}` is not on line {line} of `{shown}`, which reads: {}",
                cut(text.trim(), 200)
            ))
            .with_suggestion(
                "Give the line the name is on (grep for it), or its column instead of symbol.",
            )
        })?,
        (None, Some(c)) => {
            let chars = text.chars().count();
            if c == 0 || c > chars + 1 {
                return Err(ToolError::validation(format!(
                    "column {c} is not on line {line} of `{shown}`, which has {chars} characters \
                     (columns count from 1)"
                ))
                .with_suggestion("Give symbol (the name on that line) instead of a column."));
            }
            c
        }
        (None, None) => {
            return Err(ToolError::validation(
                "give symbol (the name on that line) or column (1-based)",
            )
            .with_suggestion(
                r#"Example: code(action="definition", path="src/main.c", line=12, symbol="parse")"#,
            ));
        }
    };
    let utf16: usize = text.chars().take(col - 1).map(char::len_utf16).sum();
    let character = u32::try_from(utf16).unwrap_or(u32::MAX);
    let at = Position::new(u32::try_from(line - 1).unwrap_or(u32::MAX), character);
    Ok((at, col))
}

/// The 1-based column (characters) of `symbol` on `text`: its first occurrence as a whole
/// word, else its first occurrence at all.
fn column_of(text: &str, symbol: &str) -> Option<usize> {
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let whole = text.match_indices(symbol).find(|(at, m)| {
        let before = text[..*at].chars().next_back();
        let after = text[at + m.len()..].chars().next();
        !before.is_some_and(word) && !after.is_some_and(word)
    });
    let (at, _) = whole.or_else(|| text.match_indices(symbol).next())?;
    Some(text[..at].chars().count() + 1)
}

/// The 1-based character column of a protocol offset (UTF-16 units) on `text`.
pub(crate) fn char_column(text: &str, utf16: u32) -> usize {
    let mut units = 0usize;
    let mut col = 1;
    for c in text.chars() {
        if units >= utf16 as usize {
            break;
        }
        units += c.len_utf16();
        col += 1;
    }
    col
}

/// `text` cut to `max` characters, with `…` where it was cut.
pub(crate) fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(text: &str) -> Source {
        Source {
            path: Workspace::single(std::env::temp_dir())
                .unwrap()
                .resolve("x.c")
                .unwrap(),
            shown: "x.c".into(),
            uri: Url::parse("file:///x.c").unwrap(),
            language: "c".into(),
            text: text.into(),
        }
    }

    #[test]
    fn a_symbol_is_found_as_a_whole_word_first() {
        assert_eq!(column_of("int add_one = add(1);", "add"), Some(15));
        assert_eq!(column_of("addx", "add"), Some(1));
        assert_eq!(column_of("x", "add"), None);
    }

    #[test]
    fn columns_are_characters_and_offsets_utf16() {
        let s = source("a\n  é𝄞 = f(x)\r\n");
        let (p, col) = position(&s, 2, Some("f"), None).unwrap();
        assert_eq!(col, 8);
        // two spaces, é (1 unit), 𝄞 (2 units), space, =, space
        assert_eq!((p.line, p.character), (1, 8));
        assert_eq!(char_column("  é𝄞 = f(x)", 8), 8);
        let (p, _) = position(&s, 1, None, Some(1)).unwrap();
        assert_eq!((p.line, p.character), (0, 0));
    }

    #[test]
    fn bad_positions_say_what_is_there() {
        let s = source("int x;\n");
        let e = position(&s, 9, Some("x"), None).unwrap_err();
        assert!(e.message().contains("has 2 lines"), "{}", e.message());
        let e = position(&s, 1, Some("y"), None).unwrap_err();
        assert!(
            e.message().contains("which reads: int x;"),
            "{}",
            e.message()
        );
        let e = position(&s, 1, None, Some(99)).unwrap_err();
        assert!(e.message().contains("6 characters"), "{}", e.message());
        assert!(position(&s, 1, None, None).is_err());
        assert!(position(&s, 0, Some("x"), None).is_err());
    }
}
