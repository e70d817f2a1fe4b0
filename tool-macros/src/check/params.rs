//! The named parameters of a plain tool function or a `call` method.

use crate::ast::Param;
use crate::ctxt::Ctxt;

use super::names::name;

/// Each parameter is a member of the call's object: a valid name, and none twice (two
/// parameters renamed to one name would read one member).
pub(crate) fn function<'a>(cx: &Ctxt, params: impl IntoIterator<Item = &'a Param>) {
    let params: Vec<&Param> = params.into_iter().collect();
    let mut seen: Vec<&str> = Vec::new();
    for p in &params {
        if !name(cx, "parameter name", &p.name, p.name_span) {
            continue;
        }
        if seen.contains(&p.name.as_str()) {
            cx.error_at(p.name_span, format!("duplicate parameter `{}`", p.name));
        }
        seen.push(&p.name);
        crate::constraint::check_examples(cx, &p.examples, p.range.as_deref());
    }
    // An alias is another member name of the call's object: a valid name, no parameter's,
    // and no other alias's (the call could not say which parameter it meant).
    let mut aliases: Vec<String> = Vec::new();
    for p in &params {
        if !p.negated_aliases.is_empty() && !is_bool(&p.ty) {
            cx.error_at(
                p.negated_aliases[0].span(),
                format!(
                    "`negated_alias` reads a boolean as its opposite, but `{}` is no `bool`; \
                     use `alias` instead",
                    p.name
                ),
            );
        }
        for alias in p.aliases.iter().chain(&p.negated_aliases) {
            let a = alias.value();
            if !name(cx, "parameter alias", &a, alias.span()) {
                continue;
            }
            if seen.contains(&a.as_str()) {
                cx.error_at(
                    alias.span(),
                    format!(
                        "alias `{a}` is the name of a parameter; an alias must be another name"
                    ),
                );
            } else if aliases.contains(&a) {
                cx.error_at(alias.span(), format!("duplicate alias `{a}`"));
            }
            aliases.push(a);
        }
    }
}

/// Whether a parameter's type is `bool` (an `Option<bool>` too: its alias may still be
/// negated when given).
fn is_bool(ty: &syn::Type) -> bool {
    let syn::Type::Path(p) = ty else {
        return false;
    };
    let Some(last) = p.path.segments.last() else {
        return false;
    };
    if last.ident == "bool" {
        return true;
    }
    if last.ident == "Option"
        && let syn::PathArguments::AngleBracketed(args) = &last.arguments
        && let Some(syn::GenericArgument::Type(inner)) = args.args.first()
    {
        return is_bool(inner);
    }
    false
}
