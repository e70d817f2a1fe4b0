//! The text builder behind [`html_to_text`](super::html_to_text): whitespace collapsing, line
//! and paragraph breaks, line markers (`# `, `- `) and link text.
//!
//! Breaks and spaces are not written when asked for but held as pending and written right before
//! the next content, so the text never starts or ends with blank lines, never has more than one
//! blank line in a row, and a marker whose element turns out empty can be taken back.

/// An open link: its text is collected apart and written as `[text](href)` when it closes.
struct LinkFrame {
    href: Option<String>,
    text: String,
    parent_break: u8,
    parent_space: bool,
}

/// A marker written on opening an element (`## `, `- `), to be taken back if nothing followed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Marker {
    link_depth: usize,
    before: usize,
    after: usize,
}

/// Builds Markdown-like text out of text runs and structure events.
pub(crate) struct TextBuilder {
    out: String,
    limit: usize,
    links: Vec<LinkFrame>,
    /// 0: none, 1: line break, 2: blank line, before the next content.
    pending_break: u8,
    pending_space: bool,
    /// Whitespace right after a marker (`- `, `` ` ``) is dropped.
    suppress_space: bool,
    /// A line marker was written and no content yet: block breaks would split it from its
    /// content (`<li><p>text</p></li>` is `- text`).
    after_marker: bool,
    pre_depth: usize,
    cell_depth: usize,
}

impl TextBuilder {
    /// A builder that stops growing at about `limit` bytes.
    pub(crate) fn new(limit: usize) -> Self {
        TextBuilder {
            out: String::new(),
            limit,
            links: Vec::new(),
            pending_break: 0,
            pending_space: false,
            suppress_space: false,
            after_marker: false,
            pre_depth: 0,
            cell_depth: 0,
        }
    }

    /// Whether the text reached its size limit.
    pub(crate) fn is_full(&self) -> bool {
        self.out.len() >= self.limit
    }

    fn buf(&mut self) -> &mut String {
        match self.links.last_mut() {
            Some(link) => &mut link.text,
            None => &mut self.out,
        }
    }

    /// Ask for a line break (1) or a blank line (2) before the next content. Inside a table
    /// cell or a link it is a space, and right after a line marker nothing.
    pub(crate) fn block(&mut self, level: u8) {
        if self.after_marker {
            return;
        }
        if self.cell_depth > 0 && self.pre_depth == 0 {
            self.pending_space = true;
            return;
        }
        self.pending_break = self.pending_break.max(level);
    }

    /// A `<br>`: a line break, and a blank line when two follow each other.
    pub(crate) fn line_break(&mut self) {
        let level = (self.pending_break + 1).min(2);
        self.block(level);
    }

    /// The break between two list items: exactly one line break, whatever the previous item
    /// asked for.
    pub(crate) fn item_break(&mut self) {
        self.after_marker = false;
        if self.links.is_empty() && self.cell_depth == 0 {
            self.pending_break = 1;
        } else {
            self.block(1);
        }
    }

    /// Ask for a block break even right after a marker (a list nested in a list item).
    pub(crate) fn hard_block(&mut self, level: u8) {
        self.after_marker = false;
        self.block(level);
    }

    /// Write pending breaks and spaces, right before content.
    fn flush(&mut self) {
        self.after_marker = false;
        if self.pending_break > 0 {
            let level = usize::from(self.pending_break);
            self.pending_break = 0;
            if self.links.is_empty() {
                self.pending_space = false;
                if !self.out.is_empty() {
                    let trimmed_len = self.out.trim_end_matches([' ', '\t']).len();
                    self.out.truncate(trimmed_len);
                    let have = self.out.len() - self.out.trim_end_matches('\n').len();
                    for _ in have.min(level)..level {
                        self.out.push('\n');
                    }
                }
            } else {
                self.pending_space = true; // no line breaks inside link text
            }
        }
        if std::mem::take(&mut self.pending_space) {
            let buf = self.buf();
            if !buf.is_empty() && !buf.ends_with([' ', '\n']) {
                buf.push(' ');
            }
        }
    }

    /// Add a text run: whitespace collapses to one space, except inside `<pre>`.
    pub(crate) fn text(&mut self, text: &str) {
        if self.pre_depth > 0 {
            if !text.is_empty() {
                self.flush();
                self.buf().push_str(text);
            }
            return;
        }
        for c in text.chars() {
            if c.is_whitespace() {
                if !self.suppress_space {
                    self.pending_space = true;
                }
            } else {
                self.suppress_space = false;
                self.flush();
                self.buf().push(c);
            }
        }
    }

    /// Write a marker (`## `, `- `, ` | `) that starts content; whitespace and block breaks
    /// right after it are dropped.
    pub(crate) fn marker(&mut self, marker: &str) -> Marker {
        self.flush();
        let link_depth = self.links.len();
        let buf = self.buf();
        let before = buf.len();
        buf.push_str(marker);
        let after = buf.len();
        self.suppress_space = true;
        self.after_marker = true;
        Marker {
            link_depth,
            before,
            after,
        }
    }

    /// Write a standalone piece (`---`, a code fence, a backtick) where it stands.
    pub(crate) fn literal(&mut self, literal: &str) {
        self.flush();
        self.buf().push_str(literal);
    }

    /// Take a marker back if nothing was written after it.
    pub(crate) fn drop_if_empty(&mut self, marker: Option<Marker>) {
        let Some(m) = marker else { return };
        if m.link_depth != self.links.len() {
            return;
        }
        let buf = self.buf();
        if buf.len() == m.after {
            buf.truncate(m.before);
            self.after_marker = false;
        }
    }

    /// Start a `<pre>` block: a code fence, then text kept as it is.
    pub(crate) fn open_pre(&mut self) {
        self.hard_block(2);
        self.literal("```\n");
        self.pre_depth += 1;
    }

    /// End a `<pre>` block.
    pub(crate) fn close_pre(&mut self) {
        self.pre_depth = self.pre_depth.saturating_sub(1);
        let buf = self.buf();
        if !buf.ends_with('\n') {
            buf.push('\n');
        }
        buf.push_str("```");
        self.block(2);
    }

    /// Whether text is inside `<pre>`.
    pub(crate) fn in_pre(&self) -> bool {
        self.pre_depth > 0
    }

    /// Enter or leave a table cell (block breaks inside become spaces).
    pub(crate) fn cell(&mut self, entering: bool) {
        if entering {
            self.cell_depth += 1;
        } else {
            self.cell_depth = self.cell_depth.saturating_sub(1);
        }
    }

    /// Close an inline code span opened with a backtick (an empty span vanishes).
    pub(crate) fn close_code(&mut self) {
        let buf = self.buf();
        if buf.ends_with('`') {
            buf.pop();
        } else {
            buf.push('`');
        }
    }

    /// Whether text goes into a link.
    pub(crate) fn in_link(&self) -> bool {
        !self.links.is_empty()
    }

    /// Start collecting a link's text.
    pub(crate) fn open_link(&mut self, href: Option<String>) {
        self.links.push(LinkFrame {
            href,
            text: String::new(),
            parent_break: std::mem::take(&mut self.pending_break),
            parent_space: std::mem::take(&mut self.pending_space),
        });
    }

    /// Write the innermost link as `[text](href)` (or its bare text without a target).
    pub(crate) fn close_link(&mut self) {
        let Some(link) = self.links.pop() else { return };
        let trailing_space = self.pending_space;
        self.pending_break = self.pending_break.max(link.parent_break);
        self.pending_space = link.parent_space;
        let text = link.text.trim();
        // A link without a target and without a letter or digit is a permalink anchor
        // (`#`, `¶`, `🔗` beside a heading): noise in text.
        let anchor = link.href.is_none() && !text.chars().any(char::is_alphanumeric);
        if text.is_empty() || anchor {
            self.pending_space |= trailing_space;
            return;
        }
        self.suppress_space = false;
        self.flush();
        let written = match &link.href {
            Some(href) => format!("[{text}]({href})"),
            None => text.to_owned(),
        };
        self.buf().push_str(&written);
        self.pending_space = trailing_space;
    }

    /// The text, with open links closed and trailing whitespace removed.
    pub(crate) fn finish(mut self) -> String {
        while !self.links.is_empty() {
            self.close_link();
        }
        let len = self.out.trim_end().len();
        self.out.truncate(len);
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn breaks_are_held_until_content() {
        let mut t = TextBuilder::new(1 << 20);
        t.block(2);
        t.text("  a   b ");
        t.block(1);
        t.block(2);
        t.text("c");
        t.line_break();
        t.line_break();
        t.text("d");
        t.block(2);
        assert_eq!(t.finish(), "a b\n\nc\n\nd");
    }

    #[test]
    fn markers_and_links() {
        let mut t = TextBuilder::new(1 << 20);
        let m = t.marker("- ");
        t.block(2); // <li><p>: stays on the marker's line
        t.text(" item ");
        t.open_link(Some("https://x/".into()));
        t.text(" link ");
        t.block(1);
        t.text("text ");
        t.close_link();
        t.text("after");
        t.drop_if_empty(Some(m));
        t.block(1);
        let empty = t.marker("- ");
        t.drop_if_empty(Some(empty));
        assert_eq!(t.finish(), "- item [link text](https://x/) after");
    }
}
