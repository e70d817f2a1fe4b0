//! The entry points' work: parse (`attr.rs`, `ast.rs`), check (`check/`), then generate from
//! the validated model, or on any mistake emit every error beside the user's item (and
//! stand-ins, so the rest of the crate still type-checks). Nothing here reports an error or
//! decides what is acceptable: that is `check/`'s.

mod actions;
mod choice;
mod fallback;
mod params;
mod spec;
mod tool;

pub(crate) use params::private_fn;

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{ToTokens, quote};
use syn::{DeriveInput, Item, ItemFn, ItemImpl};

use crate::ast::{self, Place};
use crate::attr;
use crate::check;
use crate::crate_path;
use crate::ctxt::Ctxt;
use crate::model::ActionEnum;

/// `tokens` with every span set to `span`, so that a path like
/// `::tool_core::__private_0_1_0::f` is blamed on the user's token it is generated for.
pub(crate) fn respan(tokens: impl ToTokens, span: Span) -> TokenStream {
    tokens
        .into_token_stream()
        .into_iter()
        .map(|tt| match tt {
            TokenTree::Group(g) => {
                let mut group = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                TokenTree::Group(group)
            }
            mut other => {
                other.set_span(span);
                other
            }
        })
        .collect()
}

/// `#[tool(...)]` on a function or an impl.
pub(crate) fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    match syn::parse2::<Item>(input.clone()) {
        Ok(Item::Fn(item)) => tool_fn(args, item),
        Ok(Item::Impl(item)) => tool_impl(args, item),
        Ok(other) => fallback::with_item(check::tool_target(&other), input),
        Err(err) => fallback::with_item(err, input),
    }
}

fn tool_fn(args: TokenStream, mut item: ItemFn) -> TokenStream {
    let cx = Ctxt::new();
    let attrs = attr::tool_attrs(&cx, args);
    let krate = attrs.krate.clone().unwrap_or_else(crate_path::default_path);
    check::fn_keys(&cx, &attrs);
    let sig = ast::signature(&cx, &mut item.sig, Place::Function);
    let tool = check::tool_fn(&cx, &attrs, krate.clone(), &item, sig);
    match cx.finish(tool) {
        Ok(tool) => tool::function(&tool, &item),
        Err(err) => {
            let tool_ty = ast::fn_tool_type(&item.sig.ident, attrs.tool_type.as_ref());
            fallback::tool_fn(err, &item, &tool_ty, &krate)
        }
    }
}

fn tool_impl(args: TokenStream, mut item: ItemImpl) -> TokenStream {
    let cx = Ctxt::new();
    let attrs = attr::tool_attrs(&cx, args);
    let krate = attrs.krate.clone().unwrap_or_else(crate_path::default_path);
    let self_ident = check::impl_target(&cx, &attrs, &item);
    let form = ast::impl_form(&cx, &mut item);
    let tool = check::tool_impl(&cx, &attrs, krate.clone(), &item, self_ident.as_ref(), form);
    match cx.finish(tool) {
        Ok(tool) => {
            let tokens = tool::implementation(&tool);
            quote!(#item #tokens)
        }
        Err(err) => fallback::tool_impl(err, &item, self_ident.is_some(), &krate),
    }
}

/// `#[derive(Action)]`.
pub(crate) fn derive_action(input: DeriveInput) -> TokenStream {
    let cx = Ctxt::new();
    let attrs = attr::enum_attrs(&cx, &input.attrs);
    let krate = attrs.krate.clone().unwrap_or_else(crate_path::default_path);
    let variants = ast::variants(&cx, &input.data);
    let model = check::action_enum(&cx, &input, &attrs, &krate, variants);
    let impls = match cx.finish(model) {
        Ok(ActionEnum::Actions(m)) => actions::impls(&m),
        Ok(ActionEnum::Choice(m)) => choice::impls(&m),
        Err(err) => return fallback::derive(err, &input, &krate),
    };
    quote!(const _: () = { #impls };)
}

/// `#[action]` anywhere but on a method of a `#[tool]` impl: the error, and the item as given.
pub(crate) fn stray_action(input: TokenStream) -> TokenStream {
    fallback::with_item(check::stray_action(), input)
}
