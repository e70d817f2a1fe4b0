//! The rules a declaration must follow, one function each with its reason in a comment.
//!
//! Every rule runs, and every mistake is recorded in the [`Ctxt`], before any code is
//! generated (serde_derive's "check everything, then generate"): the entry points here take
//! what `attr.rs` and `ast.rs` read and give the validated [`model`](crate::model), the only
//! input of `expand/`, which neither reports errors nor decides what is acceptable.
//!
//! - `names.rs`: names as providers accept them, modes and permissions, `error_context`;
//! - `meta.rs`: the keys of `#[tool(...)]` (description, annotations, aliases, ...);
//! - `params.rs`: a tool function's named parameters;
//! - `actions.rs`: `#[action]` methods and `#[derive(Action)]` enums (actions and values).

mod actions;
mod meta;
mod names;
mod params;

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Ident, Item, ItemFn, ItemImpl, Path, Type};

use crate::ast::{self, ImplForm, Signature};
use crate::attr::{self, ToolAttrs};
use crate::ctxt::Ctxt;
use crate::model::{Call, FnTool, ImplTool, ImplToolForm};

pub(crate) use actions::action_enum;
pub(crate) use meta::fn_keys;

/// `#[tool]` goes on a function or an impl: the error for any other item, on its head
/// (`struct Grep`).
pub(crate) fn tool_target(item: &Item) -> syn::Error {
    syn::Error::new_spanned(
        item_head(item),
        "#[tool] goes on an `async fn` or on an `impl` block of the tool's type",
    )
}

/// `#[action]` is read by `#[tool]` on an impl (and by `#[derive(Action)]` on a variant):
/// expanded on its own it is misplaced. The error points at the attribute itself.
pub(crate) fn stray_action() -> syn::Error {
    syn::Error::new(
        Span::call_site(),
        "not expected here; the #[action] attribute belongs on a method of a #[tool] impl (or on a variant of a #[derive(Action)] enum)",
    )
}

/// A `#[tool]` function, its signature read: its parameters, `error_context` and metadata.
pub(crate) fn tool_fn(
    cx: &Ctxt,
    attrs: &ToolAttrs,
    krate: Path,
    item: &ItemFn,
    sig: Signature,
) -> Option<FnTool> {
    params::function(cx, sig.params());
    if sig.args_type().is_none() {
        let names: Vec<&str> = sig.params().map(|p| p.name.as_str()).collect();
        names::error_context(cx, &attrs.error_context, &names);
    }
    let ident = &item.sig.ident;
    let meta = meta::tool_meta(
        cx,
        attrs,
        krate,
        ast::unraw(ident),
        attr::docs(&item.attrs),
        ident.span(),
    );
    let ret = sig.ret.clone()?;
    Some(FnTool {
        meta: meta?,
        call: Call { sig, ret },
        tool_ty: ast::fn_tool_type(ident, attrs.tool_type.as_ref()),
    })
}

/// The impl a `#[tool]` goes on, and its keys: the type's name when the impl is an inherent,
/// non-generic impl of a named type (the registry makes the tool itself, and its schema is
/// fixed at compile time).
pub(crate) fn impl_target(cx: &Ctxt, attrs: &ToolAttrs, item: &ItemImpl) -> Option<Ident> {
    meta::impl_keys(cx, attrs);
    let mut ok = true;
    if let Some((path, _)) = &item.trait_ {
        cx.error_spanned_by(
            path,
            "#[tool] goes on an inherent impl (`impl MyTool { ... }`), not on a trait impl",
        );
        ok = false;
    }
    if !item.generics.params.is_empty() {
        cx.error_spanned_by(
            &item.generics,
            "a #[tool] impl cannot be generic; its schema is fixed at compile time, so implement it for a concrete type",
        );
        ok = false;
    }
    if let Some(u) = &item.unsafety {
        cx.error_spanned_by(u, "a #[tool] impl cannot be `unsafe`");
        ok = false;
    }
    let ident = match &*item.self_ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last().and_then(|s| {
            if s.arguments.is_empty() {
                Some(s.ident.clone())
            } else if !item.generics.params.is_empty() {
                None
            } else {
                cx.error_spanned_by(
                    &s.arguments,
                    "a #[tool] impl cannot have type arguments; implement it for a concrete type",
                );
                None
            }
        }),
        other => {
            cx.error_spanned_by(other, "#[tool] goes on an impl of a named struct or enum");
            None
        }
    };
    ident.filter(|_| ok)
}

/// A `#[tool]` impl of `self_ident` (from [`impl_target`]), its methods read: its
/// metadata, its actions and `error_context`.
pub(crate) fn tool_impl(
    cx: &Ctxt,
    attrs: &ToolAttrs,
    krate: Path,
    item: &ItemImpl,
    self_ident: Option<&Ident>,
    form: Option<ImplForm>,
) -> Option<ImplTool> {
    // Without a usable type name there is no default tool name to check (already reported).
    let default_name =
        self_ident.map_or_else(|| "tool".to_owned(), |i| ast::snake_case(&ast::unraw(i)));
    let meta = meta::tool_meta(
        cx,
        attrs,
        krate.clone(),
        default_name,
        attr::docs(&item.attrs),
        item.self_ty.span(),
    );
    // `error_context` may name the parameters known here: a `call`'s named parameters, or
    // the discriminator and the actions' parameters.
    let form = match (form, self_ident) {
        (Some(ImplForm::Call(sig)), _) => {
            if sig.args_type().is_none() {
                let names: Vec<&str> = sig.params().map(|p| p.name.as_str()).collect();
                names::error_context(cx, &attrs.error_context, &names);
            }
            let ret = sig.ret.clone();
            ret.map(|ret| ImplToolForm::Single(Box::new(Call { sig: *sig, ret })))
        }
        (Some(ImplForm::Actions(methods)), Some(ident)) => {
            let model = actions::methods(cx, &krate, ident, &methods);
            let names: Vec<&str> = std::iter::once(model.tag.as_str())
                .chain(model.slots.iter().map(|s| s.name.as_str()))
                .collect();
            names::error_context(cx, &attrs.error_context, &names);
            let calls: Option<Vec<Call>> = methods
                .into_iter()
                .map(|m| m.sig.ret.clone().map(|ret| Call { sig: m.sig, ret }))
                .collect();
            calls.map(|methods| ImplToolForm::Polymorphic {
                actions: model,
                methods,
            })
        }
        _ => None,
    };
    Some(ImplTool {
        meta: meta?,
        self_ty: (*item.self_ty).clone(),
        form: form?,
    })
}

/// The first two tokens of an item after its attributes and visibility (`fn name`,
/// `struct Name`): where an error about the item as a whole points.
fn item_head(item: &Item) -> TokenStream {
    let mut item = item.clone();
    if let Some(attrs) = item_attrs(&mut item) {
        attrs.clear();
    }
    let mut out = TokenStream::new();
    let mut tokens = item.into_token_stream().into_iter().peekable();
    while let Some(tt) = tokens.next() {
        match &tt {
            TokenTree::Ident(i) if i == "pub" => {
                if let Some(TokenTree::Group(_)) = tokens.peek() {
                    tokens.next();
                }
            }
            _ => {
                out.extend([tt]);
                if let Some(next) = tokens.next() {
                    out.extend([next]);
                }
                break;
            }
        }
    }
    out
}

fn item_attrs(item: &mut Item) -> Option<&mut Vec<syn::Attribute>> {
    Some(match item {
        Item::Const(i) => &mut i.attrs,
        Item::Enum(i) => &mut i.attrs,
        Item::Fn(i) => &mut i.attrs,
        Item::Impl(i) => &mut i.attrs,
        Item::Mod(i) => &mut i.attrs,
        Item::Static(i) => &mut i.attrs,
        Item::Struct(i) => &mut i.attrs,
        Item::Trait(i) => &mut i.attrs,
        Item::Type(i) => &mut i.attrs,
        Item::Union(i) => &mut i.attrs,
        Item::Use(i) => &mut i.attrs,
        _ => return None,
    })
}
