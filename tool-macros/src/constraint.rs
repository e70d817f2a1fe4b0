//! A parameter's examples and range: `#[param(example = 10, range(min = 5, max = 30))]`.
//!
//! Both go into the parameter's schema (`examples`, `minimum`, `maximum`), so validation
//! enforces the range, the generated example call and the provider exports show the
//! examples, and a model reads both. What can be checked here is: a range names at least one
//! bound, each bound is a number literal, `min` is not above `max`, and an example written as
//! a number literal lies inside the range. That the type is a number, and that an example is
//! a value of the parameter's type, are checked by the compiler on the generated code.

use proc_macro2::{Literal, Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, ExprUnary, Lit, Meta, Path, Type, UnOp};

use crate::crate_path;
use crate::ctxt::Ctxt;

/// The keys of `range(...)`.
pub(crate) const RANGE_KEYS: &[&str] = &["min", "max"];

/// One bound of a range: its value, and the literal as the schema shows it.
#[derive(Clone)]
pub(crate) struct Bound {
    value: f64,
    literal: Literal,
}

/// `range(min = .., max = ..)`: inclusive bounds, at least one.
#[derive(Clone)]
pub(crate) struct Range {
    pub(crate) span: Span,
    min: Option<Bound>,
    max: Option<Bound>,
}

impl Range {
    /// `from 5 to 30`, `at least 5`, `at most 30`: how an error names the range.
    fn describe(&self) -> String {
        match (&self.min, &self.max) {
            (Some(lo), Some(hi)) => format!("from {} to {}", lo.literal, hi.literal),
            (Some(lo), None) => format!("at least {}", lo.literal),
            (None, Some(hi)) => format!("at most {}", hi.literal),
            (None, None) => String::new(),
        }
    }

    fn contains(&self, v: f64) -> bool {
        self.min.as_ref().is_none_or(|b| v >= b.value)
            && self.max.as_ref().is_none_or(|b| v <= b.value)
    }
}

/// Reads `range(min = 5, max = 30)`; a mistake is recorded and gives `None`.
pub(crate) fn parse_range(cx: &Ctxt, meta: &Meta) -> Option<Range> {
    let Meta::List(list) = meta else {
        cx.error_spanned_by(
            meta,
            "expected `range(min = .., max = ..)`, with one bound or both",
        );
        return None;
    };
    let metas = match list
        .parse_args_with(syn::punctuated::Punctuated::<Meta, syn::Token![,]>::parse_terminated)
    {
        Ok(m) => m,
        Err(e) => {
            cx.syn_error(e);
            return None;
        }
    };
    let mut range = Range {
        span: list.span(),
        min: None,
        max: None,
    };
    let mut ok = true;
    for m in &metas {
        let key = m.path().get_ident().map(ToString::to_string);
        let slot = match key.as_deref() {
            Some("min") => &mut range.min,
            Some("max") => &mut range.max,
            _ => {
                cx.error_spanned_by(
                    m.path(),
                    crate::ctxt::unknown("range key", &key.unwrap_or_default(), RANGE_KEYS),
                );
                ok = false;
                continue;
            }
        };
        if slot.is_some() {
            cx.error_spanned_by(m.path(), "duplicate range bound; keep one");
            ok = false;
            continue;
        }
        let Meta::NameValue(nv) = m else {
            cx.error_spanned_by(m, "expected `min = <number>` or `max = <number>`");
            ok = false;
            continue;
        };
        match number(&nv.value) {
            Some(b) => *slot = Some(b),
            None => {
                cx.error_spanned_by(
                    &nv.value,
                    "a range bound is a number literal, such as `5`, `-1` or `0.5`",
                );
                ok = false;
            }
        }
    }
    if !ok {
        return None;
    }
    match (&range.min, &range.max) {
        (None, None) => {
            cx.error_spanned_by(
                meta,
                "an empty range bounds nothing; give `min`, `max` or both",
            );
            None
        }
        (Some(lo), Some(hi)) if lo.value > hi.value => {
            cx.error_at(
                range.span,
                format!(
                    "`min` ({}) is above `max` ({}); no value would be allowed",
                    lo.literal, hi.literal
                ),
            );
            None
        }
        _ => Some(range),
    }
}

/// A number literal (`5`, `-1`, `0.5`, `5u32`): its value and its unsuffixed literal.
fn number(expr: &Expr) -> Option<Bound> {
    let (negative, lit) = match expr {
        Expr::Lit(ExprLit { lit, .. }) => (false, lit),
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr,
            ..
        }) => match &**expr {
            Expr::Lit(ExprLit { lit, .. }) => (true, lit),
            _ => return None,
        },
        Expr::Group(g) => return number(&g.expr),
        Expr::Paren(p) => return number(&p.expr),
        _ => return None,
    };
    let sign = if negative { -1.0 } else { 1.0 };
    match lit {
        Lit::Int(i) => {
            let magnitude = i.base10_parse::<i64>().ok()?;
            let v = if negative { -magnitude } else { magnitude };
            Some(Bound {
                value: v as f64,
                literal: Literal::i64_unsuffixed(v),
            })
        }
        Lit::Float(f) => {
            let v = sign * f.base10_parse::<f64>().ok()?;
            v.is_finite().then(|| Bound {
                value: v,
                literal: Literal::f64_unsuffixed(v),
            })
        }
        _ => None,
    }
}

/// Records an error for each example written as a number literal outside the range.
pub(crate) fn check_examples(cx: &Ctxt, examples: &[Expr], range: Option<&Range>) {
    let Some(range) = range else { return };
    for ex in examples {
        if let Some(b) = number(ex)
            && !range.contains(b.value)
        {
            cx.error_spanned_by(
                ex,
                format!(
                    "this example is outside the parameter's range ({}); a model copies \
                     examples, so give one the tool accepts",
                    range.describe()
                ),
            );
        }
    }
}

/// `.with_examples(..)` and `.with_range(..)` for a parameter's schema: nothing when the
/// parameter declares neither.
pub(crate) fn schema_calls(
    krate: &Path,
    ty: &Type,
    examples: &[Expr],
    range: Option<&Range>,
) -> TokenStream {
    let private = crate_path::private(krate);
    let mut out = TokenStream::new();
    if !examples.is_empty() {
        // An optional parameter's example is a value of the type inside the `Option`.
        let ty = option_inner(ty).unwrap_or(ty);
        let values = examples.iter().map(|e| {
            let f = crate::expand::private_fn(krate, e.span(), "example_value");
            let callee = quote_spanned!(e.span()=> #f::<#ty, _>);
            quote_spanned!(e.span()=> #callee(#e))
        });
        out.extend(quote!(.with_examples(::std::vec![#(#values),*])));
    }
    if let Some(r) = range {
        let bound = |b: &Option<Bound>| match b {
            Some(b) => {
                let lit = &b.literal;
                quote!(::core::option::Option::Some(#private::serde_json::json!(#lit)))
            }
            None => quote!(::core::option::Option::None),
        };
        let (lo, hi) = (bound(&r.min), bound(&r.max));
        let f = crate::expand::private_fn(krate, r.span, "check_range");
        let check = quote_spanned!(r.span=> #f::<#ty>());
        out.extend(quote!(.with_range({ #check; (#lo, #hi) })));
    }
    out
}

/// `T` for `Option<T>` (as written: `Option`, `std::option::Option`, ...).
fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    match &last.arguments {
        syn::PathArguments::AngleBracketed(args) => match args.args.first()? {
            syn::GenericArgument::Type(inner) => Some(inner),
            _ => None,
        },
        _ => None,
    }
}
