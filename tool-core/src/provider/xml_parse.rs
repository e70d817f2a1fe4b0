//! Reading XML tool calls (`<tool:NAME><param:X>..</param:X></tool:NAME>`) out of a model's
//! message: a linear scanner, no XML library, because the syntax is not XML (values are
//! literal text, tag names carry a colon, the rest of the message is prose).

use super::error::ImportError;

/// One call as written: the tool name and its parameters' texts, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RawCall {
    pub(crate) name: String,
    pub(crate) params: Vec<(String, String)>,
    /// The first text found outside the parameter tags, if any (cut short).
    pub(crate) stray: Option<String>,
}

/// The caps of one scan.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub(crate) max_bytes: usize,
    pub(crate) max_calls: usize,
    pub(crate) max_params: usize,
}

const TOOL_OPEN: &str = "<tool:";
const PARAM_OPEN: &str = "<param:";
const CDATA_OPEN: &str = "<![CDATA[";
const CDATA_CLOSE: &str = "]]>";

fn tag_name(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .unwrap_or(s.len());
    &s[..end]
}

/// The first `needle` at or after `from` that is not inside a CDATA section; `Err` with the
/// offset of a CDATA section that is never closed.
fn find_outside_cdata(hay: &str, from: usize, needle: &str) -> Result<Option<usize>, usize> {
    let mut i = from;
    while let Some(rel) = hay.get(i..).and_then(|s| s.find('<')) {
        let at = i + rel;
        let rest = &hay[at..];
        if rest.starts_with(needle) {
            return Ok(Some(at));
        }
        if rest.starts_with(CDATA_OPEN) {
            match hay[at + CDATA_OPEN.len()..].find(CDATA_CLOSE) {
                Some(e) => {
                    i = at + CDATA_OPEN.len() + e + CDATA_CLOSE.len();
                    continue;
                }
                None => return Err(at),
            }
        }
        i = at + 1;
    }
    Ok(None)
}

/// A parameter's value from the text between its tags: the block form's line breaks
/// dropped, CDATA sections unwrapped, everything else literal.
pub(crate) fn decode_value(raw: &str) -> String {
    let mut r = raw;
    if let Some(s) = r.strip_prefix("\r\n").or_else(|| r.strip_prefix('\n')) {
        r = s
            .strip_suffix("\r\n")
            .or_else(|| s.strip_suffix('\n'))
            .unwrap_or(s);
    }
    if !r.contains(CDATA_OPEN) {
        return r.to_owned();
    }
    let mut out = String::with_capacity(r.len());
    let mut i = 0;
    while let Some(rel) = r[i..].find(CDATA_OPEN) {
        let open = i + rel;
        out.push_str(&r[i..open]);
        let start = open + CDATA_OPEN.len();
        match r[start..].find(CDATA_CLOSE) {
            Some(e) => {
                out.push_str(&r[start..start + e]);
                i = start + e + CDATA_CLOSE.len();
            }
            None => {
                out.push_str(&r[open..]);
                i = r.len();
            }
        }
    }
    out.push_str(&r[i..]);
    out
}

fn excerpt(s: &str) -> String {
    let t = s.trim();
    let mut out: String = t.chars().take(40).collect();
    if t.chars().count() > 40 {
        out.push('…');
    }
    out
}

/// Every XML call in `text`, in order; a malformed one is an error in its place.
pub(crate) fn scan(text: &str, limits: Limits) -> Vec<Result<RawCall, ImportError>> {
    if text.len() > limits.max_bytes {
        return vec![Err(ImportError::TooLarge {
            what: "bytes of XML",
            value: text.len(),
            max: limits.max_bytes,
        })];
    }
    let mut out = Vec::new();
    let mut pos = 0;
    while let Some(rel) = text[pos..].find(TOOL_OPEN) {
        let start = pos + rel;
        if out.len() >= limits.max_calls {
            out.push(Err(ImportError::TooLarge {
                what: "tool calls in one message",
                value: out.len() + 1,
                max: limits.max_calls,
            }));
            break;
        }
        let name_start = start + TOOL_OPEN.len();
        let name = tag_name(&text[name_start..]);
        let after = name_start + name.len();
        if name.is_empty() || !text[after..].starts_with('>') {
            out.push(Err(ImportError::Xml {
                tool: (!name.is_empty()).then(|| name.to_owned()),
                message: "an opening tag must be `<tool:NAME>`: the name right after `tool:`, \
                          then `>`"
                    .to_owned(),
                offset: start,
            }));
            pos = name_start;
            continue;
        }
        let body_start = after + 1;
        let close = format!("</tool:{name}>");
        match find_outside_cdata(text, body_start, &close) {
            Err(cdata) => {
                out.push(Err(ImportError::Xml {
                    tool: Some(name.to_owned()),
                    message: "a `<![CDATA[` section is not closed with `]]>`".to_owned(),
                    offset: cdata,
                }));
                pos = body_start;
            }
            Ok(None) => {
                out.push(Err(ImportError::Xml {
                    tool: Some(name.to_owned()),
                    message: format!("the call is not closed: `{close}` is missing"),
                    offset: start,
                }));
                pos = body_start;
            }
            Ok(Some(end)) => {
                out.push(parse_body(name, &text[body_start..end], body_start, limits));
                pos = end + close.len();
            }
        }
    }
    out
}

fn parse_body(tool: &str, body: &str, base: usize, limits: Limits) -> Result<RawCall, ImportError> {
    let xml_err = |message: String, offset: usize| ImportError::Xml {
        tool: Some(tool.to_owned()),
        message,
        offset,
    };
    let mut params = Vec::new();
    let mut stray: Option<String> = None;
    let mut p = 0;
    loop {
        let next = body[p..].find(PARAM_OPEN).map(|n| p + n);
        let between = &body[p..next.unwrap_or(body.len())];
        if stray.is_none() && !between.trim().is_empty() {
            stray = Some(excerpt(between));
        }
        let Some(tag) = next else { break };
        if params.len() >= limits.max_params {
            return Err(ImportError::TooLarge {
                what: "parameters in one call",
                value: params.len() + 1,
                max: limits.max_params,
            });
        }
        let name_start = tag + PARAM_OPEN.len();
        let name = tag_name(&body[name_start..]);
        let after = name_start + name.len();
        if name.is_empty() || !body[after..].starts_with('>') {
            return Err(xml_err(
                "a parameter tag must be `<param:NAME>`: the name right after `param:`, then `>`"
                    .to_owned(),
                base + tag,
            ));
        }
        let value_start = after + 1;
        let close = format!("</param:{name}>");
        match find_outside_cdata(body, value_start, &close) {
            Err(cdata) => {
                return Err(xml_err(
                    "a `<![CDATA[` section is not closed with `]]>`".to_owned(),
                    base + cdata,
                ));
            }
            Ok(None) => {
                return Err(xml_err(
                    format!("parameter `{name}` is not closed: `{close}` is missing"),
                    base + tag,
                ));
            }
            Ok(Some(end)) => {
                params.push((name.to_owned(), decode_value(&body[value_start..end])));
                p = end + close.len();
            }
        }
    }
    Ok(RawCall {
        name: tool.to_owned(),
        params,
        stray,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits {
        max_bytes: 1 << 20,
        max_calls: 8,
        max_params: 8,
    };

    #[test]
    fn reads_calls_among_text() {
        let text = "Let me look.\n<tool:read_file>\n<param:path>a.rs</param:path>\n\
                    <param:path>b.rs</param:path>\n</tool:read_file>\nand <tool:x></tool:x>";
        let calls: Vec<RawCall> = scan(text, LIMITS).into_iter().map(Result::unwrap).collect();
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].name, "read_file");
        assert_eq!(
            calls[0].params,
            vec![
                ("path".into(), "a.rs".into()),
                ("path".into(), "b.rs".into())
            ]
        );
        assert!(calls[1].params.is_empty());
    }

    #[test]
    fn values() {
        assert_eq!(decode_value("\na\nb\n"), "a\nb");
        assert_eq!(decode_value("a\n"), "a\n");
        assert_eq!(decode_value("<![CDATA[</param:x>]]>"), "</param:x>");
        assert_eq!(decode_value("x<![CDATA[a]]]]><![CDATA[>b]]>y"), "xa]]>by");
        assert_eq!(decode_value("&lt;"), "&lt;");
    }

    #[test]
    fn cdata_hides_closing_tags() {
        let text = "<tool:w><param:c><![CDATA[</param:c></tool:w>]]></param:c></tool:w>";
        let call = scan(text, LIMITS).remove(0).unwrap();
        assert_eq!(call.params[0].1, "</param:c></tool:w>");
    }
}
