//! Reading and describing a list of parameters: the pieces shared by a plain tool's input
//! struct and an enum of actions (one flat JSON object either way).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, Path, Type};

use super::respan;
use crate::attr::DefaultValue;
use crate::crate_path;
use crate::model::ParamsModel;

/// `::krate::__private_X_Y_Z::name` with every token at `span`: a call through it is blamed on
/// the user's token the call is generated for.
pub(crate) fn private_fn(krate: &Path, span: Span, name: &str) -> TokenStream {
    let private = crate_path::private(krate);
    let f = Ident::new(name, span);
    respan(quote!(#private::#f), span)
}

/// `check_param::<T>();` for each parameter type, at its span: the first use of the types
/// in a function, so that a type that does not fit is reported once, with one note.
pub(super) fn check_params<'a>(
    krate: &Path,
    types: impl IntoIterator<Item = &'a Type>,
) -> TokenStream {
    let checks = types.into_iter().map(|ty| {
        let f = private_fn(krate, ty.span(), "check_param");
        let callee = quote_spanned!(ty.span()=> #f::<#ty>);
        quote!(#callee();)
    });
    quote!(#(#checks)*)
}

/// The value of a parameter's default, as an expression of type `ty`.
pub(super) fn default_expr(ty: &Type, d: &DefaultValue) -> TokenStream {
    match d {
        DefaultValue::Trait(span) => {
            quote_spanned!(*span=> <#ty as ::core::default::Default>::default())
        }
        DefaultValue::Expr(e) => {
            quote_spanned!(e.span()=> ::core::convert::Into::<#ty>::into(#e))
        }
    }
}

/// The schema's `default`: `Some(json)` or `None`.
pub(super) fn default_json(krate: &Path, ty: &Type, d: Option<&DefaultValue>) -> TokenStream {
    match d {
        None => quote!(::core::option::Option::None),
        Some(d) => {
            let value = default_expr(ty, d);
            let span = match d {
                DefaultValue::Trait(s) => *s,
                DefaultValue::Expr(e) => e.span(),
            };
            let f = private_fn(krate, span, "default_value");
            let callee = quote_spanned!(span=> #f::<#ty>);
            quote!(#callee(&#value))
        }
    }
}

/// The local holding slot `i` while the map is read.
pub(super) fn slot_var(i: usize) -> Ident {
    format_ident!("__v{}", i)
}

/// The value of slot `i` once the map is read: given, defaulted, `None` for an absent
/// `Option`, else a `missing field` error.
pub(super) fn take_slot(
    krate: &Path,
    i: usize,
    name: &str,
    ty: &Type,
    d: Option<&DefaultValue>,
) -> TokenStream {
    let var = slot_var(i);
    let absent = match d {
        Some(d) => default_expr(ty, d),
        None => {
            let f = private_fn(krate, ty.span(), "missing");
            let error = quote!(__A::Error);
            let callee = quote_spanned!(ty.span()=> #f::<#ty, #error>);
            quote!(#callee(#name)?)
        }
    };
    quote! {
        match #var {
            ::core::option::Option::Some(__x) => __x,
            ::core::option::Option::None => #absent,
        }
    }
}

/// A member of the map a generated input type reads: its name and its type.
pub(super) struct MapSlot {
    pub(super) name: String,
    pub(super) ty: Type,
}

/// The body of `visit_map`: declares one `__v{i}` per slot (and `__tag` when there is a
/// discriminator), reads every member, refuses an unknown one (the key seed's error names it
/// and the known ones, so no wrapper deserializer has to watch), then evaluates `finish`.
///
/// Every member is read as an `Option<T>`, so `null` counts as absent, for every type, as
/// the action rules of tool-core treat it: `None` for an `Option`, the default for a
/// parameter with one, else a missing parameter. (A type that refuses `null` fails either
/// way, and the slow path reports the member as the schema sees it; a type that would take
/// `null` as a value, such as `serde_json::Value`, gets it as absent, as a model means it.)
pub(super) fn visit_map_body(
    krate: &Path,
    slots: &[MapSlot],
    tag: Option<(&str, &[String])>,
    finish: TokenStream,
) -> TokenStream {
    let private = crate_path::private(krate);
    let serde = quote!(#private::serde);
    let offset = usize::from(tag.is_some());
    let mut keys: Vec<&str> = Vec::new();
    if let Some((t, _)) = tag {
        keys.push(t);
    }
    keys.extend(slots.iter().map(|s| s.name.as_str()));
    let checks = check_params(krate, slots.iter().map(|s| &s.ty));
    let decls = slots.iter().enumerate().map(|(i, s)| {
        let var = slot_var(i);
        let ty = &s.ty;
        quote!(let mut #var: ::core::option::Option<#ty> = ::core::option::Option::None;)
    });
    let arms = slots.iter().enumerate().map(|(i, s)| {
        let var = slot_var(i);
        let k = i + offset;
        let ty = &s.ty;
        let f = private_fn(krate, ty.span(), "read_param");
        let map = quote!(__A);
        let callee = quote_spanned!(ty.span()=> #f::<#ty, #map>);
        quote! {
            #k => {
                #var = #callee(&mut __map)?;
            }
        }
    });
    let (tag_decl, tag_arm) = match tag {
        Some((_, names)) => (
            quote!(let mut __tag: ::core::option::Option<usize> = ::core::option::Option::None;),
            quote! {
                0usize => {
                    const __NAMES: &[&str] = &[#(#names),*];
                    __tag = ::core::option::Option::Some(#serde::de::MapAccess::next_value_seed(
                        &mut __map,
                        #private::NameSeed(__NAMES),
                    )?);
                }
            },
        ),
        None => (quote!(), quote!()),
    };
    let indices = 0..keys.len();
    quote! {
        #checks
        const __KEYS: &[&str] = &[#(#keys),*];
        fn __key(__k: &str) -> ::core::option::Option<usize> {
            match __k {
                #(#keys => ::core::option::Option::Some(#indices),)*
                _ => ::core::option::Option::None,
            }
        }
        #tag_decl
        #(#decls)*
        while let ::core::option::Option::Some(__key) =
            #serde::de::MapAccess::next_key_seed(&mut __map, #private::KeySeed(__KEYS, __key))?
        {
            match __key {
                #tag_arm
                #(#arms)*
                _ => {
                    return ::core::result::Result::Err(
                        #private::out_of_range::<__A::Error>("parameter"),
                    );
                }
            }
        }
        #finish
    }
}

/// A `Deserialize` impl reading a map with `body` (from [`visit_map_body`]).
pub(super) fn deserialize_impl(
    krate: &Path,
    ident: &Ident,
    expecting: &str,
    body: TokenStream,
) -> TokenStream {
    let private = crate_path::private(krate);
    let serde = quote!(#private::serde);
    quote! {
        #[automatically_derived]
        impl<'de> #serde::Deserialize<'de> for #ident {
            fn deserialize<__D: #serde::Deserializer<'de>>(
                __deserializer: __D,
            ) -> ::core::result::Result<Self, __D::Error> {
                struct __Visitor;
                impl<'de> #serde::de::Visitor<'de> for __Visitor {
                    type Value = #ident;
                    fn expecting(&self, __f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        __f.write_str(#expecting)
                    }
                    fn visit_map<__A: #serde::de::MapAccess<'de>>(
                        self,
                        mut __map: __A,
                    ) -> ::core::result::Result<#ident, __A::Error> {
                        #body
                    }
                }
                #serde::Deserializer::deserialize_map(__deserializer, __Visitor)
            }
        }
    }
}

/// `JsonSchema::schema_name` and `schema_id`.
pub(super) fn schema_names(name: &str) -> TokenStream {
    quote! {
        fn schema_name() -> ::std::borrow::Cow<'static, str> {
            ::std::borrow::Cow::Borrowed(#name)
        }
        fn schema_id() -> ::std::borrow::Cow<'static, str> {
            ::std::borrow::Cow::Borrowed(::core::concat!(::core::module_path!(), "::", #name))
        }
    }
}

/// What a parameter's schema is made from.
pub(super) struct SchemaParts<'a> {
    pub(super) name: &'a str,
    pub(super) ty: &'a Type,
    pub(super) doc: &'a str,
    pub(super) default: Option<&'a DefaultValue>,
    pub(super) examples: &'a [syn::Expr],
    pub(super) range: Option<&'a crate::constraint::Range>,
}

/// `param_schema::<T>(generator, name, doc, default)` for one parameter, with its examples
/// and range when it declares them.
pub(super) fn param_schema(krate: &Path, p: SchemaParts<'_>) -> TokenStream {
    let ty = p.ty;
    let default = default_json(krate, ty, p.default);
    let f = private_fn(krate, ty.span(), "param_schema");
    let callee = quote_spanned!(ty.span()=> #f::<#ty>);
    let name = p.name;
    let doc = p.doc;
    let constraints = crate::constraint::schema_calls(krate, ty, p.examples, p.range);
    quote!(#callee(__gen, #name, #doc, #default) #constraints)
}

/// The input struct of a plain tool function: one field per parameter, with
/// `Deserialize` and `JsonSchema`.
pub(super) fn input_struct(m: &ParamsModel) -> TokenStream {
    let krate = &m.krate;
    let private = crate_path::private(krate);
    let ident = &m.ident;
    let schemars = quote!(#private::schemars);
    let fields = m.params.iter().map(|p| {
        let f = &p.ident;
        let ty = &p.ty;
        quote!(pub #f: #ty)
    });
    let slots: Vec<MapSlot> = m
        .params
        .iter()
        .map(|p| MapSlot {
            name: p.name.clone(),
            ty: p.ty.clone(),
        })
        .collect();
    let inits = m.params.iter().enumerate().map(|(i, p)| {
        let f = &p.ident;
        let value = take_slot(krate, i, &p.name, &p.ty, p.default.as_ref());
        quote!(#f: #value)
    });
    let finish = quote!(::core::result::Result::Ok(#ident { #(#inits),* }));
    let body = visit_map_body(krate, &slots, None, finish);
    let expecting = format!("the arguments of `{}`: a JSON object", m.schema_name);
    let de = deserialize_impl(krate, ident, &expecting, body);
    let names = schema_names(&m.schema_name);
    let schemas = m.params.iter().map(|p| {
        param_schema(
            krate,
            SchemaParts {
                name: &p.name,
                ty: &p.ty,
                doc: &p.doc,
                default: p.default.as_ref(),
                examples: &p.examples,
                range: p.range.as_deref(),
            },
        )
    });
    let checks = check_params(krate, m.params.iter().map(|p| &p.ty));
    let span = Span::call_site();
    quote_spanned! {span=>
        /// The arguments of the tool, one field per parameter.
        pub struct #ident {
            #(#fields,)*
        }
        #de
        #[automatically_derived]
        impl #schemars::JsonSchema for #ident {
            #names
            fn json_schema(__gen: &mut #schemars::SchemaGenerator) -> #schemars::Schema {
                #checks
                #private::object_schema(::std::vec![#(#schemas),*])
            }
        }
    }
}
