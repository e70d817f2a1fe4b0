//! Attribute parsing: `#[tool(...)]`, `#[action(...)]` and `#[param(...)]` into plain data
//! that keeps the original syn nodes, so every later error can point at the user's token.
//!
//! Parsing goes on after a mistake: an unknown or duplicate key, or a value of the wrong
//! shape, is recorded in the [`Ctxt`] and the next key is read.

use proc_macro2::{Span, TokenStream};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, Ident, Lit, LitStr, Meta, Path, Token};

use crate::constraint::Range;
use crate::ctxt::{Ctxt, unknown};
use crate::symbol;

/// A boolean key: `read_only` or `read_only = false`.
#[derive(Clone, Copy)]
pub(crate) struct Flag {
    pub(crate) value: bool,
    pub(crate) span: Span,
}

/// A name in a list (`modes(agent, mcp)`, `aliases("web_search")`) or a string value.
#[derive(Clone)]
pub(crate) struct Named {
    pub(crate) value: String,
    pub(crate) span: Span,
}

/// A duration in milliseconds.
#[derive(Clone, Copy)]
pub(crate) struct Timeout {
    pub(crate) millis: u64,
}

/// Everything `#[tool(...)]` may say.
#[derive(Default)]
pub(crate) struct ToolAttrs {
    pub(crate) name: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) description_file: Option<LitStr>,
    pub(crate) modes: Vec<Named>,
    pub(crate) permissions: Vec<Named>,
    pub(crate) requires_approval: Option<Flag>,
    pub(crate) category: Option<LitStr>,
    pub(crate) toolsets: Vec<Named>,
    pub(crate) aliases: Vec<Named>,
    pub(crate) user_facing: Option<Flag>,
    pub(crate) suppress_execution_animation: Option<Flag>,
    pub(crate) read_only: Option<Flag>,
    pub(crate) destructive: Option<Flag>,
    pub(crate) idempotent: Option<Flag>,
    pub(crate) open_world: Option<Flag>,
    pub(crate) timeout: Option<Timeout>,
    pub(crate) error_context: Vec<Named>,
    pub(crate) text_output: Option<Flag>,
    pub(crate) defer_loading: Option<Flag>,
    pub(crate) namespace: Option<LitStr>,
    pub(crate) register: Option<Flag>,
    pub(crate) constructor: Option<Path>,
    pub(crate) tool_type: Option<Ident>,
    pub(crate) krate: Option<Path>,
}

/// `#[action(...)]` on a variant or a method.
#[derive(Default, Clone)]
pub(crate) struct ActionAttrs {
    pub(crate) rename: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) requires_approval: Option<Flag>,
    pub(crate) permissions: Vec<Named>,
    pub(crate) read_only: Option<Flag>,
}

/// `#[action(...)]` on an `Action` enum.
#[derive(Default)]
pub(crate) struct EnumAttrs {
    pub(crate) tag: Option<LitStr>,
    pub(crate) serialize: Option<Flag>,
    pub(crate) krate: Option<Path>,
}

/// A parameter's default: `#[param(default)]` or `#[param(default = expr)]`.
#[derive(Clone)]
pub(crate) enum DefaultValue {
    Trait(Span),
    Expr(Box<Expr>),
}

/// `#[param(...)]` on a field or a function parameter.
#[derive(Default, Clone)]
pub(crate) struct ParamAttrs {
    pub(crate) rename: Option<LitStr>,
    /// `alias = "..."`, repeatable: other names a call may give the parameter under.
    pub(crate) aliases: Vec<LitStr>,
    /// `negated_alias = "..."`, repeatable: other names whose boolean means the opposite.
    pub(crate) negated_aliases: Vec<LitStr>,
    pub(crate) default: Option<DefaultValue>,
    pub(crate) description: Option<LitStr>,
    /// `example = value`, repeatable: values shown in the schema's `examples`.
    pub(crate) examples: Vec<Expr>,
    /// `range(min = .., max = ..)`: inclusive bounds of a number.
    pub(crate) range: Option<Box<Range>>,
}

type Metas = Punctuated<Meta, Token![,]>;

fn parse_metas(cx: &Ctxt, tokens: TokenStream) -> Metas {
    match Metas::parse_terminated.parse2(tokens) {
        Ok(m) => m,
        Err(e) => {
            cx.syn_error(e);
            Metas::new()
        }
    }
}

/// The arguments of an attribute: none for `#[action]`, the list for `#[action(...)]`.
fn attr_metas(cx: &Ctxt, attr: &Attribute) -> Metas {
    match &attr.meta {
        Meta::Path(_) => Metas::new(),
        Meta::List(list) => parse_metas(cx, list.tokens.clone()),
        Meta::NameValue(nv) => {
            cx.error_spanned_by(
                nv,
                format!(
                    "expected `#[{}(...)]`",
                    attr.path()
                        .segments
                        .last()
                        .map_or(String::new(), |s| s.ident.to_string())
                ),
            );
            Metas::new()
        }
    }
}

/// Walks the keys: an unknown or repeated key is an error; every other one is handed to
/// `f` with its spelling.
fn for_each_key(
    cx: &Ctxt,
    metas: &Metas,
    what: &str,
    keys: &[&str],
    mut f: impl FnMut(&str, &Meta),
) {
    let mut seen: Vec<String> = Vec::new();
    for meta in metas {
        let Some(ident) = meta.path().get_ident() else {
            cx.error_spanned_by(meta.path(), format!("expected a {what} key, not a path"));
            continue;
        };
        let key = ident.to_string();
        let key = key.trim_start_matches("r#");
        if !keys.contains(&key) {
            cx.error_spanned_by(ident, unknown(&format!("{what} attribute"), key, keys));
            continue;
        }
        // `alias`, `negated_alias` and `example` may be given several times (each another
        // name or value).
        if key != symbol::param::ALIAS
            && key != symbol::param::NEGATED_ALIAS
            && key != symbol::param::EXAMPLE
            && seen.iter().any(|k| k == key)
        {
            cx.error_spanned_by(
                ident,
                format!("duplicate {what} attribute `{key}`; keep one"),
            );
            continue;
        }
        seen.push(key.to_owned());
        f(key, meta);
    }
}

fn lit_str(cx: &Ctxt, meta: &Meta, key: &str) -> Option<LitStr> {
    if let Meta::NameValue(nv) = meta
        && let Expr::Lit(lit) = &nv.value
        && let Lit::Str(s) = &lit.lit
    {
        return Some(s.clone());
    }
    cx.error_spanned_by(meta, format!("expected a string: `{key} = \"...\"`"));
    None
}

fn flag(cx: &Ctxt, meta: &Meta, key: &str) -> Option<Flag> {
    match meta {
        Meta::Path(p) => Some(Flag {
            value: true,
            span: p.span(),
        }),
        Meta::NameValue(nv) => {
            if let Expr::Lit(lit) = &nv.value
                && let Lit::Bool(b) = &lit.lit
            {
                return Some(Flag {
                    value: b.value,
                    span: nv.path.span(),
                });
            }
            cx.error_spanned_by(
                &nv.value,
                format!("expected `{key}` or `{key} = true|false`"),
            );
            None
        }
        Meta::List(_) => {
            cx.error_spanned_by(meta, format!("expected `{key}` or `{key} = true|false`"));
            None
        }
    }
}

/// `modes()` reads as "no mode" but would mean every mode (the default): a tool that no
/// mode may call is a mistake, and leaving the key out is how to say "every mode".
fn empty_modes(cx: &Ctxt, meta: &Meta) {
    if let Meta::List(list) = meta
        && list.tokens.is_empty()
    {
        cx.error_spanned_by(
            meta,
            "`modes()` lists no mode; leave `modes` out for every mode, or name the modes: `modes(agent, mcp)`",
        );
    }
}

/// A list of names, as identifiers or strings: `modes(agent, mcp)`, `aliases("web_search")`.
fn names(cx: &Ctxt, meta: &Meta, key: &str) -> Vec<Named> {
    let Meta::List(list) = meta else {
        cx.error_spanned_by(meta, format!("expected a list: `{key}(...)`"));
        return Vec::new();
    };
    let parser = Punctuated::<Expr, Token![,]>::parse_terminated;
    let items = match parser.parse2(list.tokens.clone()) {
        Ok(items) => items,
        Err(e) => {
            cx.syn_error(e);
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    for item in &items {
        match item {
            Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
                let ident = p
                    .path
                    .get_ident()
                    .map(ToString::to_string)
                    .unwrap_or_default();
                out.push(Named {
                    value: ident.trim_start_matches("r#").to_owned(),
                    span: p.span(),
                });
            }
            Expr::Lit(l) if matches!(l.lit, Lit::Str(_)) => {
                if let Lit::Str(s) = &l.lit {
                    out.push(Named {
                        value: s.value(),
                        span: s.span(),
                    });
                }
            }
            other => cx.error_spanned_by(other, format!("expected a name in `{key}(...)`")),
        }
    }
    out
}

/// A path value: `crate = ::tool_core`, `constructor = Client::new` (a string holding a path
/// is accepted too, as serde does).
fn path(cx: &Ctxt, meta: &Meta, key: &str) -> Option<Path> {
    if let Meta::NameValue(nv) = meta {
        match &nv.value {
            Expr::Path(p) if p.qself.is_none() => return Some(p.path.clone()),
            Expr::Lit(l) => {
                if let Lit::Str(s) = &l.lit {
                    match s.parse::<Path>() {
                        Ok(p) => return Some(p),
                        Err(e) => {
                            cx.syn_error(e);
                            return None;
                        }
                    }
                }
            }
            _ => {}
        }
    }
    cx.error_spanned_by(meta, format!("expected a path: `{key} = path::to::item`"));
    None
}

fn ident(cx: &Ctxt, meta: &Meta, key: &str) -> Option<Ident> {
    if let Meta::NameValue(nv) = meta
        && let Expr::Path(p) = &nv.value
        && let Some(i) = p.path.get_ident()
    {
        return Some(i.clone());
    }
    cx.error_spanned_by(meta, format!("expected a type name: `{key} = MyTool`"));
    None
}

/// `timeout = "30s"`: a whole number with a unit, `ms`, `s`, `m` or `h`.
fn timeout(cx: &Ctxt, meta: &Meta) -> Option<Timeout> {
    const HINT: &str =
        "write the timeout as a string with a unit: `timeout = \"30s\"` (units: ms, s, m, h)";
    let Meta::NameValue(nv) = meta else {
        cx.error_spanned_by(meta, HINT);
        return None;
    };
    let Expr::Lit(l) = &nv.value else {
        cx.error_spanned_by(&nv.value, HINT);
        return None;
    };
    let Lit::Str(s) = &l.lit else {
        cx.error_spanned_by(&l.lit, HINT);
        return None;
    };
    let text = s.value();
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    let factor = match unit.trim() {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        _ => {
            cx.error_spanned_by(s, HINT);
            return None;
        }
    };
    let millis = digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(factor));
    match millis {
        Some(0) => {
            cx.error_spanned_by(s, "the timeout must be longer than zero");
            None
        }
        Some(millis) => Some(Timeout { millis }),
        None => {
            cx.error_spanned_by(s, HINT);
            None
        }
    }
}

/// Parses the arguments of `#[tool(...)]`.
pub(crate) fn tool_attrs(cx: &Ctxt, args: TokenStream) -> ToolAttrs {
    use symbol::tool as k;
    let metas = parse_metas(cx, args);
    let mut a = ToolAttrs::default();
    for_each_key(cx, &metas, "tool", k::ALL, |key, meta| match key {
        k::NAME => a.name = lit_str(cx, meta, key),
        k::DESCRIPTION => a.description = lit_str(cx, meta, key),
        k::DESCRIPTION_FILE => a.description_file = lit_str(cx, meta, key),
        k::MODES => {
            empty_modes(cx, meta);
            a.modes = names(cx, meta, key);
        }
        k::PERMISSIONS => a.permissions = names(cx, meta, key),
        k::REQUIRES_APPROVAL => a.requires_approval = flag(cx, meta, key),
        k::CATEGORY => a.category = lit_str(cx, meta, key),
        k::TOOLSETS => a.toolsets = names(cx, meta, key),
        k::ALIASES => a.aliases = names(cx, meta, key),
        k::USER_FACING => a.user_facing = flag(cx, meta, key),
        k::SUPPRESS_EXECUTION_ANIMATION => a.suppress_execution_animation = flag(cx, meta, key),
        k::READ_ONLY => a.read_only = flag(cx, meta, key),
        k::DESTRUCTIVE => a.destructive = flag(cx, meta, key),
        k::IDEMPOTENT => a.idempotent = flag(cx, meta, key),
        k::OPEN_WORLD => a.open_world = flag(cx, meta, key),
        k::TIMEOUT => a.timeout = timeout(cx, meta),
        k::ERROR_CONTEXT => a.error_context = names(cx, meta, key),
        k::TEXT_OUTPUT => a.text_output = flag(cx, meta, key),
        k::DEFER_LOADING => a.defer_loading = flag(cx, meta, key),
        k::NAMESPACE => a.namespace = lit_str(cx, meta, key),
        k::REGISTER => a.register = flag(cx, meta, key),
        k::CONSTRUCTOR => a.constructor = path(cx, meta, key),
        k::TOOL_TYPE => a.tool_type = ident(cx, meta, key),
        k::CRATE => a.krate = path(cx, meta, key),
        _ => {}
    });
    a
}

/// Parses every `#[action(...)]` of a variant or method (usually one).
pub(crate) fn action_attrs(cx: &Ctxt, attrs: &[Attribute]) -> ActionAttrs {
    use symbol::action as k;
    let mut a = ActionAttrs::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident(symbol::ACTION)) {
        let metas = attr_metas(cx, attr);
        for_each_key(cx, &metas, "action", k::ALL, |key, meta| match key {
            k::RENAME => a.rename = lit_str(cx, meta, key),
            k::DESCRIPTION => a.description = lit_str(cx, meta, key),
            k::REQUIRES_APPROVAL => a.requires_approval = flag(cx, meta, key),
            k::PERMISSIONS => a.permissions = names(cx, meta, key),
            k::READ_ONLY => a.read_only = flag(cx, meta, key),
            _ => {}
        });
    }
    a
}

/// Parses `#[action(...)]` on an `Action` enum.
pub(crate) fn enum_attrs(cx: &Ctxt, attrs: &[Attribute]) -> EnumAttrs {
    use symbol::enum_ as k;
    let mut a = EnumAttrs::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident(symbol::ACTION)) {
        let metas = attr_metas(cx, attr);
        for_each_key(cx, &metas, "enum", k::ALL, |key, meta| match key {
            k::TAG => a.tag = lit_str(cx, meta, key),
            k::SERIALIZE => a.serialize = flag(cx, meta, key),
            k::CRATE => a.krate = path(cx, meta, key),
            _ => {}
        });
    }
    a
}

/// Parses every `#[param(...)]` of a field or parameter.
pub(crate) fn param_attrs(cx: &Ctxt, attrs: &[Attribute]) -> ParamAttrs {
    use symbol::param as k;
    let mut a = ParamAttrs::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident(symbol::PARAM)) {
        let metas = attr_metas(cx, attr);
        for_each_key(cx, &metas, "param", k::ALL, |key, meta| match key {
            k::RENAME => a.rename = lit_str(cx, meta, key),
            k::ALIAS => a.aliases.extend(lit_str(cx, meta, key)),
            k::NEGATED_ALIAS => a.negated_aliases.extend(lit_str(cx, meta, key)),
            k::DESCRIPTION => a.description = lit_str(cx, meta, key),
            k::EXAMPLE => match meta {
                Meta::NameValue(nv) => a.examples.push(nv.value.clone()),
                _ => cx.error_spanned_by(meta, "expected `example = value`"),
            },
            k::RANGE => a.range = crate::constraint::parse_range(cx, meta).map(Box::new),
            k::DEFAULT => {
                a.default = match meta {
                    Meta::Path(p) => Some(DefaultValue::Trait(p.span())),
                    Meta::NameValue(nv) => Some(DefaultValue::Expr(Box::new(nv.value.clone()))),
                    Meta::List(_) => {
                        cx.error_spanned_by(meta, "expected `default` or `default = value`");
                        None
                    }
                }
            }
            _ => {}
        });
    }
    a
}

/// The text of the doc comments: one leading space per line removed, outer blank lines
/// trimmed.
pub(crate) fn docs(attrs: &[Attribute]) -> String {
    let mut lines: Vec<String> = Vec::new();
    for attr in attrs {
        if !attr.path().is_ident(symbol::DOC) {
            continue;
        }
        if let Meta::NameValue(nv) = &attr.meta
            && let Expr::Lit(l) = &nv.value
            && let Lit::Str(s) = &l.lit
        {
            for line in s.value().split('\n') {
                let line = line.strip_prefix(' ').unwrap_or(line);
                lines.push(line.trim_end().to_owned());
            }
        }
    }
    lines.join("\n").trim().to_owned()
}

/// The first paragraph of a doc text on one line (an action's one-line description).
pub(crate) fn first_paragraph(text: &str) -> String {
    text.split("\n\n")
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// A doc text with each paragraph's lines joined by a space and paragraphs kept apart by a
/// blank line (a parameter's description, one line per paragraph like an action's). A line
/// starting a list item (`- `, `* `) keeps its line break.
pub(crate) fn joined_paragraphs(text: &str) -> String {
    text.split("\n\n")
        .map(|para| {
            let mut out = String::new();
            for line in para.lines().map(str::trim).filter(|l| !l.is_empty()) {
                if !out.is_empty() {
                    let item = line.starts_with("- ") || line.starts_with("* ");
                    out.push(if item { '\n' } else { ' ' });
                }
                out.push_str(line);
            }
            out
        })
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// Whether an attribute is one the macros consume (and strip before emitting the item).
pub(crate) fn is_ours(attr: &Attribute) -> bool {
    let p = attr.path();
    p.is_ident(symbol::ACTION) || p.is_ident(symbol::PARAM) || p.is_ident(symbol::ARGS)
}
