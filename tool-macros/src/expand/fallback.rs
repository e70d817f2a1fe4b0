//! What a macro emits when the input has mistakes: every error, the user's item without the
//! attributes the macros consume, and stand-in impls so uses elsewhere in the crate do not
//! pile more errors on top (thiserror's `fallback.rs`, clap's `dummies.rs`).

use proc_macro2::TokenStream;
use quote::quote;
use syn::{DeriveInput, FnArg, Ident, ItemFn, ItemImpl, Path};

use crate::attr::is_ours;
use crate::crate_path;
use crate::symbol;

/// The errors, then the item as given.
pub(super) fn with_item(err: syn::Error, item: TokenStream) -> TokenStream {
    let errors = err.into_compile_error();
    quote!(#errors #item)
}

fn strip_inputs<'a>(inputs: impl Iterator<Item = &'a mut FnArg>) {
    for input in inputs {
        if let FnArg::Typed(pt) = input {
            pt.attrs
                .retain(|a| !is_ours(a) && !a.path().is_ident(symbol::DOC));
        }
    }
}

/// The errors, the function, its tool struct and a stand-in `impl Tool`.
pub(super) fn tool_fn(
    err: syn::Error,
    item: &ItemFn,
    tool_ty: &Ident,
    krate: &Path,
) -> TokenStream {
    let mut item = item.clone();
    strip_inputs(item.sig.inputs.iter_mut());
    let errors = err.into_compile_error();
    let vis = &item.vis;
    let dummy = dummy_tool(krate, &quote!(#tool_ty));
    quote! {
        #errors
        #item
        #[derive(::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug, ::core::default::Default)]
        #vis struct #tool_ty;
        #dummy
    }
}

/// The errors, the impl without `#[action]`/`#[param]`, and a stand-in `impl Tool` when the
/// type is a plain named one.
pub(super) fn tool_impl(
    err: syn::Error,
    item: &ItemImpl,
    named: bool,
    krate: &Path,
) -> TokenStream {
    let mut item = item.clone();
    for it in &mut item.items {
        if let syn::ImplItem::Fn(f) = it {
            f.attrs.retain(|a| !is_ours(a));
            strip_inputs(f.sig.inputs.iter_mut());
        }
    }
    let errors = err.into_compile_error();
    let dummy = if named {
        let ty = &item.self_ty;
        dummy_tool(krate, &quote!(#ty))
    } else {
        quote!()
    };
    quote! {
        #errors
        #item
        #dummy
    }
}

fn dummy_tool(krate: &Path, ty: &TokenStream) -> TokenStream {
    let private = crate_path::private(krate);
    quote! {
        const _: () = {
            #[automatically_derived]
            impl #krate::Tool for #ty {
                type Input = #krate::NoArgs;
                type Output = #private::serde_json::Value;
                fn spec(&self) -> #krate::ToolSpec {
                    #krate::ToolSpec::new("invalid", "this tool did not compile")
                }
                fn call(
                    &self,
                    _: &#krate::ToolContext,
                    _: Self::Input,
                ) -> impl ::core::future::Future<
                    Output = ::core::result::Result<Self::Output, #krate::ToolError>,
                > + ::core::marker::Send {
                    async move {
                        ::core::result::Result::Err(#krate::ToolError::system(
                            "this tool did not compile",
                        ))
                    }
                }
            }
        };
    }
}

/// The errors and stand-in `Deserialize` and `JsonSchema` impls (the enum itself is the
/// user's, kept by the compiler).
pub(super) fn derive(err: syn::Error, input: &DeriveInput, krate: &Path) -> TokenStream {
    let private = crate_path::private(krate);
    let errors = err.into_compile_error();
    if !input.generics.params.is_empty() {
        return quote!(#errors);
    }
    let ident = &input.ident;
    let serde = quote!(#private::serde);
    let schemars = quote!(#private::schemars);
    let name = ident.to_string();
    quote! {
        #errors
        const _: () = {
            #[automatically_derived]
            impl<'de> #serde::Deserialize<'de> for #ident {
                fn deserialize<__D: #serde::Deserializer<'de>>(
                    _: __D,
                ) -> ::core::result::Result<Self, __D::Error> {
                    ::core::result::Result::Err(
                        <__D::Error as #serde::de::Error>::custom("this type did not compile"),
                    )
                }
            }
            #[automatically_derived]
            impl #schemars::JsonSchema for #ident {
                fn schema_name() -> ::std::borrow::Cow<'static, str> {
                    ::std::borrow::Cow::Borrowed(#name)
                }
                fn json_schema(_: &mut #schemars::SchemaGenerator) -> #schemars::Schema {
                    #private::object_schema(::std::vec::Vec::new())
                }
            }
        };
    }
}
