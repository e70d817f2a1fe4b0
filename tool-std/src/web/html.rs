//! HTML to readable, Markdown-like text.
//!
//! The page is parsed with html5ever (through `scraper`), the parser browsers' behaviour is
//! specified by, so unclosed tags and broken markup come out as a browser would show them. The
//! converter then keeps the main content and drops the rest:
//!
//! - The content root is the first `<main>` (or `role="main"`), else the first `<article>`,
//!   else `<body>`; if that root holds no text, `<body>` is used.
//! - Dropped: `script`, `style`, `noscript`, `template`, `nav`, `aside`, `form` and form
//!   controls, `svg`, `math`, `iframe`, `object`, `embed`, `canvas`, `dialog`, anything `hidden`
//!   or `aria-hidden="true"` or `display:none`, and page-level `header` and `footer` (a header
//!   inside an `article`, `section` or `main` is that content's own title block and is kept).
//! - Headings become `#` to `######`, links `[text](href)` with `href` resolved against the page
//!   URL, list items `- ` or `1. ` (nested lists indented), table cells are separated by ` | `,
//!   `<pre>` blocks are kept verbatim between triple backticks, inline `<code>` in backticks.
//! - Entities are decoded by the parser; runs of whitespace collapse to one space; paragraphs
//!   are separated by a blank line.
//!
//! Nesting deeper than [`MAX_NESTING`] elements is flattened before parsing (see
//! [`limit_nesting`]), the walk is iterative (no recursion), so deeply nested markup can neither
//! exhaust the stack nor make parsing quadratic, and the output is bounded by [`MAX_TEXT_BYTES`].

use ego_tree::NodeRef;
use scraper::{Html, Node};
use url::Url;

use super::depth::{MAX_NESTING, limit_nesting};
use super::text::{Marker, TextBuilder};

/// The most bytes of text one conversion produces; the rest of the page is dropped.
pub const MAX_TEXT_BYTES: usize = 16 * 1024 * 1024;

/// Deepest list nesting that still adds indentation.
const MAX_INDENT_LEVELS: usize = 8;

/// Convert an HTML document to readable text; links are resolved against `base` when given.
///
/// ```
/// use tool_std::web::html_to_text;
///
/// let html = r#"<html><body><nav>Menu</nav><main>
///   <h1>Title</h1><p>Hello &amp; <a href="/about">welcome</a>.</p>
///   <ul><li>one</li><li>two</li></ul><script>alert(1)</script>
/// </main></body></html>"#;
/// let base = url::Url::parse("https://example.com/docs/")?;
/// assert_eq!(
///     html_to_text(html, Some(&base)),
///     "# Title\n\nHello & [welcome](https://example.com/about).\n\n- one\n- two"
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn html_to_text(html: &str, base: Option<&Url>) -> String {
    let document = Html::parse_document(&limit_nesting(html, MAX_NESTING));
    let roots = find_roots(document.tree.root());
    let text = convert(roots.content, base);
    if text.is_empty() && roots.content.id() != roots.body.id() {
        return convert(roots.body, base);
    }
    text
}

/// Where the content is: the preferred root and the body to fall back to.
struct Roots<'a> {
    content: NodeRef<'a, Node>,
    body: NodeRef<'a, Node>,
}

/// Find `<main>` / `role="main"`, `<article>` and `<body>` in one pass.
fn find_roots(document: NodeRef<'_, Node>) -> Roots<'_> {
    let (mut main, mut article, mut body) = (None, None, None);
    for node in document.descendants() {
        let Some(element) = node.value().as_element() else {
            continue;
        };
        let role_main = element
            .attr("role")
            .is_some_and(|r| r.eq_ignore_ascii_case("main"));
        match element.name() {
            _ if role_main && main.is_none() => main = Some(node),
            "main" if main.is_none() => main = Some(node),
            "article" if article.is_none() => article = Some(node),
            "body" if body.is_none() => body = Some(node),
            _ => {}
        }
        if main.is_some() {
            break; // <main> wins; nothing later can change the choice
        }
    }
    let body = body.unwrap_or(document);
    Roots {
        content: main.or(article).unwrap_or(body),
        body,
    }
}

/// Elements whose whole subtree is never content.
fn is_dropped(name: &str) -> bool {
    matches!(
        name,
        "script"
            | "style"
            | "noscript"
            | "template"
            | "head"
            | "title"
            | "meta"
            | "link"
            | "nav"
            | "aside"
            | "form"
            | "button"
            | "input"
            | "select"
            | "textarea"
            | "option"
            | "svg"
            | "math"
            | "iframe"
            | "frame"
            | "frameset"
            | "object"
            | "embed"
            | "canvas"
            | "audio"
            | "video"
            | "map"
            | "dialog"
    )
}

/// Whether an element hides itself (`hidden`, `aria-hidden="true"`, `display:none`, or a
/// navigation role).
fn is_hidden(element: &scraper::node::Element) -> bool {
    if element.attr("hidden").is_some() {
        return true;
    }
    if element
        .attr("aria-hidden")
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
    {
        return true;
    }
    if element
        .attr("role")
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("navigation"))
    {
        return true;
    }
    element.attr("style").is_some_and(|style| {
        let compact: String = style
            .chars()
            .filter(|c| !c.is_whitespace())
            .flat_map(char::to_lowercase)
            .collect();
        compact.contains("display:none") || compact.contains("visibility:hidden")
    })
}

/// Convert the subtree under `root` with an iterative depth-first walk.
fn convert(root: NodeRef<'_, Node>, base: Option<&Url>) -> String {
    let mut w = Converter::new(base);
    let mut node = root;
    loop {
        if w.enter(node) {
            if let Some(child) = node.first_child() {
                node = child;
                continue;
            }
            w.leave(node);
        }
        // Go on with the next sibling, leaving every ancestor whose children are all done.
        loop {
            if node.id() == root.id() || w.is_full() {
                return w.finish();
            }
            if let Some(sibling) = node.next_sibling() {
                node = sibling;
                break;
            }
            match node.parent() {
                Some(parent) => {
                    node = parent;
                    w.leave(node);
                }
                None => return w.finish(),
            }
        }
    }
}

/// How the current list numbers its items.
enum Numbering {
    Unordered,
    Ordered(u64),
}

/// An open list.
struct List {
    numbering: Numbering,
    items: usize,
}

/// The element rules: what each element adds to the text.
struct Converter<'u> {
    base: Option<&'u Url>,
    out: TextBuilder,
    code_depth: usize,
    sectioning_depth: usize,
    lists: Vec<List>,
    rows: Vec<usize>,
    markers: Vec<Option<Marker>>,
}

/// Elements that start a new paragraph (blank line before and after).
fn is_paragraph(name: &str) -> bool {
    matches!(
        name,
        "p" | "blockquote" | "figure" | "table" | "dl" | "address"
    )
}

/// Elements that start a new line.
fn is_line_block(name: &str) -> bool {
    matches!(
        name,
        "div"
            | "header"
            | "footer"
            | "figcaption"
            | "details"
            | "summary"
            | "dt"
            | "dd"
            | "caption"
            | "center"
            | "fieldset"
            | "legend"
            | "main"
            | "article"
            | "section"
    )
}

impl<'u> Converter<'u> {
    fn new(base: Option<&'u Url>) -> Self {
        Converter {
            base,
            out: TextBuilder::new(MAX_TEXT_BYTES),
            code_depth: 0,
            sectioning_depth: 0,
            lists: Vec::new(),
            rows: Vec::new(),
            markers: Vec::new(),
        }
    }

    fn is_full(&self) -> bool {
        self.out.is_full()
    }

    fn finish(self) -> String {
        self.out.finish()
    }

    /// Handle an opening node; returns whether to walk into its children.
    fn enter(&mut self, node: NodeRef<'_, Node>) -> bool {
        match node.value() {
            Node::Text(text) => {
                self.out.text(text);
                false
            }
            Node::Element(element) => {
                let name = element.name();
                if is_dropped(name) || is_hidden(element) {
                    return false;
                }
                let is_page_chrome = matches!(name, "header" | "footer")
                    || element.attr("role").is_some_and(|r| {
                        r.eq_ignore_ascii_case("banner") || r.eq_ignore_ascii_case("contentinfo")
                    });
                if is_page_chrome && self.sectioning_depth == 0 {
                    return false;
                }
                let marker = self.open(name, element);
                self.markers.push(marker);
                true
            }
            Node::Document | Node::Fragment => true,
            _ => false, // comments, doctype, processing instructions
        }
    }

    /// Open an element; returns the marker to take back if the element stays empty.
    fn open(&mut self, name: &str, element: &scraper::node::Element) -> Option<Marker> {
        match name {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                let level = usize::from(name.as_bytes()[1].saturating_sub(b'0'));
                self.out.block(2);
                return Some(self.out.marker(&format!("{} ", "#".repeat(level))));
            }
            "main" | "article" | "section" => {
                self.sectioning_depth += 1;
                self.out.block(1);
            }
            _ if is_paragraph(name) => self.out.block(2),
            _ if is_line_block(name) => self.out.block(1),
            "br" => self.out.line_break(),
            "hr" => {
                self.out.hard_block(2);
                self.out.literal("---");
                self.out.block(2);
            }
            "pre" => self.out.open_pre(),
            "code" | "kbd" | "samp" if !self.out.in_pre() => {
                if self.code_depth == 0 {
                    self.out.literal("`");
                }
                self.code_depth += 1;
            }
            "ul" | "ol" | "menu" => {
                self.out
                    .hard_block(if self.lists.is_empty() { 2 } else { 1 });
                let numbering = if name == "ol" {
                    let start = element
                        .attr("start")
                        .and_then(|s| s.trim().parse::<u64>().ok())
                        .unwrap_or(1);
                    Numbering::Ordered(start.min(1_000_000_000))
                } else {
                    Numbering::Unordered
                };
                self.lists.push(List {
                    numbering,
                    items: 0,
                });
            }
            "li" => {
                let depth = self.lists.len().saturating_sub(1).min(MAX_INDENT_LEVELS);
                let list = self.lists.last_mut();
                if list.as_ref().is_some_and(|l| l.items > 0) {
                    // Items stay on consecutive lines, even after a paragraph inside one.
                    self.out.item_break();
                } else {
                    self.out.hard_block(1);
                }
                let bullet = match list {
                    Some(list) => {
                        list.items += 1;
                        match &mut list.numbering {
                            Numbering::Ordered(n) => {
                                let bullet = format!("{n}. ");
                                *n = n.saturating_add(1);
                                bullet
                            }
                            Numbering::Unordered => "- ".to_owned(),
                        }
                    }
                    None => "- ".to_owned(),
                };
                return Some(self.out.marker(&format!("{}{bullet}", "  ".repeat(depth))));
            }
            "tr" => {
                self.out.block(1);
                self.rows.push(0);
            }
            "td" | "th" => {
                if let Some(cells) = self.rows.last_mut() {
                    *cells += 1;
                    if *cells > 1 {
                        self.out.text(" ");
                        self.out.marker("| ");
                    }
                }
                self.out.cell(true);
            }
            "a" => {
                let href = element.attr("href").and_then(|h| self.resolve(h));
                self.out.open_link(href);
            }
            "img" if self.out.in_link() => {
                if let Some(alt) = element.attr("alt") {
                    self.out.text(alt);
                }
            }
            _ => {}
        }
        None
    }

    /// Handle the end of a node that [`Converter::enter`] walked into.
    fn leave(&mut self, node: NodeRef<'_, Node>) {
        let Some(element) = node.value().as_element() else {
            return;
        };
        let marker = self.markers.pop().flatten();
        let name = element.name();
        match name {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                self.out.drop_if_empty(marker);
                self.out.block(2);
            }
            "main" | "article" | "section" => {
                self.sectioning_depth = self.sectioning_depth.saturating_sub(1);
                self.out.block(1);
            }
            _ if is_paragraph(name) => self.out.block(2),
            _ if is_line_block(name) => self.out.block(1),
            "pre" => self.out.close_pre(),
            "code" | "kbd" | "samp" if !self.out.in_pre() && self.code_depth > 0 => {
                self.code_depth -= 1;
                if self.code_depth == 0 {
                    self.out.close_code();
                }
            }
            "ul" | "ol" | "menu" => {
                self.lists.pop();
                self.out.block(if self.lists.is_empty() { 2 } else { 1 });
            }
            "li" => {
                self.out.drop_if_empty(marker);
                self.out.block(1);
            }
            "tr" => {
                self.rows.pop();
                self.out.block(1);
            }
            "td" | "th" => self.out.cell(false),
            "a" => self.out.close_link(),
            _ => {}
        }
    }

    /// Resolve a link target; `None` for targets that are not worth showing (script, fragment).
    fn resolve(&self, href: &str) -> Option<String> {
        let href = href.trim();
        let lower = href.get(..11).unwrap_or(href).to_ascii_lowercase();
        if href.is_empty()
            || href.starts_with('#')
            || lower.starts_with("javascript:")
            || lower.starts_with("data:")
        {
            return None;
        }
        let resolved = match self.base {
            Some(base) => base.join(href).ok()?,
            None => match Url::parse(href) {
                Ok(url) => url,
                Err(_) => return Some(href.replace(['\n', '\r'], "")),
            },
        };
        matches!(resolved.scheme(), "http" | "https" | "mailto" | "ftp")
            .then(|| resolved.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(html: &str) -> String {
        let base = Url::parse("https://example.com/dir/page.html").unwrap();
        html_to_text(html, Some(&base))
    }

    #[test]
    fn plain_body() {
        assert_eq!(text("<html><body>Hello World</body></html>"), "Hello World");
        assert_eq!(text(""), "");
        assert_eq!(text("just text, no tags"), "just text, no tags");
    }

    #[test]
    fn headings_paragraphs_and_whitespace() {
        let html =
            "<body><h1> Big   title </h1><p>First\n   para.</p><p>Second</p><h3>Small</h3>x</body>";
        assert_eq!(
            text(html),
            "# Big title\n\nFirst para.\n\nSecond\n\n### Small\n\nx"
        );
    }

    #[test]
    fn links_resolved_against_the_page() {
        let html = r##"<p>See <a href="other.html">the other page</a>, <a href="/abs">abs</a>,
            <a href="https://x.org/">x</a>, <a href="#top">top</a>, <a href="javascript:void(0)">js</a>
            and <a href="x.html"><img src="i.png" alt="a picture"></a>.</p><h2>Part<a href="#part">¶</a></h2>"##;
        assert_eq!(
            text(html),
            "See [the other page](https://example.com/dir/other.html), \
             [abs](https://example.com/abs), [x](https://x.org/), top, js and \
             [a picture](https://example.com/dir/x.html).\n\n## Part"
        );
    }

    #[test]
    fn lists_nested_and_numbered() {
        let html = "<ul><li>a</li><li>b<ul><li>b1</li></ul></li></ul><ol start=3><li>three</li><li>four</li></ol>";
        assert_eq!(text(html), "- a\n- b\n  - b1\n\n3. three\n4. four");
    }

    #[test]
    fn blocks_inside_items_and_cells_stay_on_their_line() {
        let html = "<ul><li><p>para item</p></li><li><div>div item</div><p>more</p></li></ul>\
                    <table><tr><td><p>a</p><p>b</p></td><td>c</td></tr></table>";
        assert_eq!(
            text(html),
            "- para item\n- div item\n\n  more\n\na b | c".replace("\n\n  more", "\n\nmore")
        );
    }

    #[test]
    fn drops_chrome_and_scripts() {
        let html = r#"<html><head><title>T</title><style>p{}</style></head><body>
            <header>Site header</header><nav><a href="/">Home</a></nav>
            <div>Body text<script>var x = "<p>no</p>";</script><noscript>enable js</noscript></div>
            <aside>ads</aside><form><input value=x><button>Go</button>form text</form>
            <svg><text>svg</text></svg><div hidden>secret</div><p style="display: none">gone</p>
            <footer>Copyright</footer></body></html>"#;
        assert_eq!(text(html), "Body text");
    }

    #[test]
    fn prefers_main_then_article() {
        let html = "<body><p>outside</p><main><p>inside main</p></main></body>";
        assert_eq!(text(html), "inside main");
        let html = "<body><p>outside</p><article><header><h2>Post</h2></header><p>body</p></article></body>";
        assert_eq!(text(html), "## Post\n\nbody");
        let html = r#"<body><div role="main">role main</div><p>other</p></body>"#;
        assert_eq!(text(html), "role main");
        // An empty <main> falls back to the body.
        let html = "<body><main> </main><p>real content</p></body>";
        assert_eq!(text(html), "real content");
    }

    #[test]
    fn pre_and_code() {
        let html = "<p>Run <code>cargo test</code> now.</p><pre>fn main() {\n    println!(\"&lt;hi&gt;\");\n}</pre><p>after</p>";
        assert_eq!(
            text(html),
            "Run `cargo test` now.\n\n```\nfn main() {\n    println!(\"<hi>\");\n}\n```\n\nafter"
        );
    }

    #[test]
    fn entities_tables_and_breaks() {
        let html = "<p>a&nbsp;&amp;&lt;b&gt; &eacute; &#x1F980;</p><table><tr><th>k</th><th>v</th></tr><tr><td>1</td><td>2</td></tr></table>line<br>next<hr>end";
        assert_eq!(
            text(html),
            "a &<b> é 🦀\n\nk | v\n1 | 2\n\nline\nnext\n\n---\n\nend"
        );
    }

    #[test]
    fn broken_markup_does_not_panic() {
        for html in [
            "<p>unclosed <b>bold <i>both</p> after",
            "<ul><li>one<li>two</ul>",
            "<a href='x'>a<a href='y'>b</a>",
            "</div></div><<<>>>&&&;;",
            "<h1></h1><li></li><a href=x></a><code></code>",
            "<table><td>cell<tr>row</table>",
            "<pre></pre>",
            "<a href='\u{0}\n'>nul</a>",
        ] {
            let _ = text(html);
        }
        assert_eq!(text("<ul><li>one<li>two</ul>"), "- one\n- two");
        assert_eq!(text("<h1></h1><li></li><code></code>x"), "x");
    }

    #[test]
    fn deep_nesting_is_fine() {
        let depth = 20_000;
        let html = format!("{}deep{}", "<div>".repeat(depth), "</div>".repeat(depth));
        assert_eq!(text(&html), "deep");
        let html = format!("{}deep", "<ul><li>".repeat(2_000));
        assert!(text(&html).ends_with("- deep"));
        let html = format!("{}x", "<a href=a>".repeat(2_000));
        assert!(text(&html).contains('x'));
    }
}
