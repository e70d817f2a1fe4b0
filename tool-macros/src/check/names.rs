//! Names: what providers accept as a name, the closed sets of modes and permissions, and the
//! parameters `error_context` may name.

use proc_macro2::Span;
use syn::Ident;

use crate::attr::Named;
use crate::ctxt::{Ctxt, did_you_mean, unknown};
use crate::symbol;

/// Names (tools, aliases, actions, parameters) are what providers accept: 1 to 64 characters
/// of `[A-Za-z0-9_-]` (OpenAI, Anthropic and Gemini agree), the same rule as
/// `tool_core::validate_name`, checked here so a bad name never compiles.
pub(crate) fn name(cx: &Ctxt, what: &str, name: &str, span: Span) -> bool {
    if name.is_empty() {
        cx.error_at(
            span,
            format!(
                "the {what} is empty; use 1 to {} characters of [A-Za-z0-9_-]",
                symbol::MAX_NAME_LEN
            ),
        );
        return false;
    }
    let len = name.chars().count();
    if len > symbol::MAX_NAME_LEN {
        cx.error_at(
            span,
            format!(
                "the {what} is {len} characters long; shorten it to at most {}",
                symbol::MAX_NAME_LEN
            ),
        );
        return false;
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
    {
        cx.error_at(
            span,
            format!("the {what} `{name}` contains {bad:?}; use only [A-Za-z0-9_-]"),
        );
        return false;
    }
    true
}

/// A list of names (toolsets, aliases, `error_context`): each a valid name, none twice (a
/// second one would say nothing more).
pub(crate) fn names(cx: &Ctxt, what: &str, given: &[Named]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for n in given {
        if out.contains(&n.value) {
            cx.error_at(n.span, format!("duplicate {what} `{}`", n.value));
        } else if name(cx, what, &n.value, n.span) {
            out.push(n.value.clone());
        }
    }
    out
}

/// Modes and permissions are closed sets in tool-core: an unknown one is a typo, caught here
/// rather than at registration.
fn closed_set(cx: &Ctxt, what: &str, given: &[Named], set: &[(&str, &str)]) -> Vec<Ident> {
    let spellings: Vec<&str> = set.iter().map(|(s, _)| *s).collect();
    let mut out: Vec<Ident> = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for n in given {
        match set.iter().find(|(s, _)| *s == n.value) {
            Some((s, variant)) => {
                if seen.contains(s) {
                    cx.error_at(n.span, format!("duplicate {what} `{s}`"));
                    continue;
                }
                seen.push(s);
                out.push(Ident::new(variant, n.span));
            }
            None => cx.error_at(n.span, unknown(what, &n.value, &spellings)),
        }
    }
    out
}

/// `modes(..)`: the `Mode` variants.
pub(crate) fn modes(cx: &Ctxt, given: &[Named]) -> Vec<Ident> {
    closed_set(cx, "mode", given, symbol::MODES)
}

/// `permissions(..)`: the `Permission` variants.
pub(crate) fn permissions(cx: &Ctxt, given: &[Named]) -> Vec<Ident> {
    closed_set(cx, "permission", given, symbol::PERMISSIONS)
}

/// `error_context(..)` echoes parameters of the tool: a name that is none of them would echo
/// nothing, ever, so it is a typo. `params` are the tool's parameter names when the macro
/// knows them (named parameters, or the actions' and the discriminator); with one `args`
/// type they are not known here and registration checks the names instead.
pub(crate) fn error_context(cx: &Ctxt, given: &[Named], params: &[&str]) {
    for n in given {
        if params.contains(&n.value.as_str()) {
            continue;
        }
        let hint = match did_you_mean(&n.value, params) {
            Some(near) => format!("did you mean `{near}`?"),
            None if params.is_empty() => "the tool has no parameters".to_owned(),
            None => format!("the tool's parameters are: {}", params.join(", ")),
        };
        cx.error_at(
            n.span,
            format!(
                "`error_context` names `{}`, which is not a parameter of this tool; {hint}",
                n.value
            ),
        );
    }
}
