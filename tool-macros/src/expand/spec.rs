//! The `ToolSpec` a tool's `spec()` builds from its validated metadata, and its
//! registration with `inventory`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::crate_path;
use crate::model::{Description, ToolMeta};

/// `ToolSpec::new(name, description)` and every builder call the attribute asks for.
pub(super) fn builder(m: &ToolMeta) -> TokenStream {
    let krate = &m.krate;
    let name = &m.name;
    let description = match &m.description {
        Description::Text(t) => quote!(#t),
        Description::File(lit) => quote_spanned! {lit.span()=>
            ::core::include_str!(::core::concat!(::core::env!("CARGO_MANIFEST_DIR"), "/", #lit))
        },
    };
    let mut calls = Vec::new();
    if !m.modes.is_empty() {
        let modes = &m.modes;
        calls.push(quote!(.modes([#(#krate::Mode::#modes),*])));
    }
    for p in &m.permissions {
        calls.push(quote!(.permission(#krate::Permission::#p)));
    }
    if m.requires_approval {
        calls.push(quote!(.requires_approval(true)));
    }
    if let Some(c) = &m.category {
        calls.push(quote!(.category(#c)));
    }
    for t in &m.toolsets {
        calls.push(quote!(.toolset(#t)));
    }
    for a in &m.aliases {
        calls.push(quote!(.alias(#a)));
    }
    if let Some(q) = m.suppress_execution_animation {
        calls.push(quote!(.suppress_execution_animation(#q)));
    }
    if let Some(u) = m.user_facing {
        calls.push(quote!(.user_facing(#u)));
    }
    if m.read_only || m.destructive || m.idempotent || m.open_world {
        let (r, d, i, o) = (m.read_only, m.destructive, m.idempotent, m.open_world);
        calls.push(quote! {
            .annotations(
                #krate::Annotations::new()
                    .read_only(#r)
                    .destructive(#d)
                    .idempotent(#i)
                    .open_world(#o)
            )
        });
    }
    if let Some(ms) = m.timeout_ms {
        calls.push(quote!(.timeout(::core::time::Duration::from_millis(#ms))));
    }
    for p in &m.error_context {
        calls.push(quote!(.error_context(#p)));
    }
    if m.text_output {
        calls.push(quote!(.text_output(true)));
    }
    if m.defer_loading {
        calls.push(quote!(.defer_loading(true)));
    }
    if let Some(ns) = &m.namespace {
        calls.push(quote!(.namespace(#ns)));
    }
    quote!(#krate::ToolSpec::new(#name, #description) #(#calls)*)
}

/// The `inventory` submission, unless `register = false`. `make` is an expression of the
/// tool's type.
pub(super) fn registration(m: &ToolMeta, ty: &syn::Type, make: TokenStream) -> TokenStream {
    if !m.register {
        return quote!();
    }
    let krate = &m.krate;
    let private = crate_path::private(krate);
    let make = match &m.constructor {
        Some(path) => quote_spanned! {path.span()=>
            {
                let __make: fn() -> #ty = #path;
                __make()
            }
        },
        None => make,
    };
    quote! {
        #private::inventory::submit! {
            #krate::Registration {
                constructor: || {
                    #private::Arc::new(#make)
                        as #private::Arc<dyn #krate::DynTool>
                },
                location: ::core::concat!(::core::file!(), ":", ::core::line!()),
            }
        }
    }
}
