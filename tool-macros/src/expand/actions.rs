//! An enum of actions: `Actions`, `Deserialize` (one flat object), `JsonSchema` (the
//! canonical flat schema) and `Serialize`, for a derived enum or the input a `#[tool]` impl's
//! `#[action]` methods make.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::params::{
    MapSlot, SchemaParts, check_params, deserialize_impl, param_schema, private_fn, schema_names,
    slot_var, take_slot, visit_map_body,
};
use crate::crate_path;
use crate::model::ActionsModel;

/// The enum itself, for an input generated from `#[action]` methods (a derived enum is the
/// user's own).
pub(super) fn enum_def(m: &ActionsModel) -> TokenStream {
    let ident = &m.ident;
    let variants = m.actions.iter().map(|a| {
        let v = &a.variant;
        let fields = a.fields.iter().map(|f| {
            let b = &f.binding;
            let ty = &m.slots[f.slot].ty;
            quote!(#b: #ty)
        });
        let doc = format!("The `{}` action.", a.name);
        quote!(#[doc = #doc] #v { #(#fields),* })
    });
    quote! {
        /// The tool's input: one variant per action.
        pub enum #ident {
            #(#variants,)*
        }
    }
}

/// Every impl an enum of actions gets.
pub(super) fn impls(m: &ActionsModel) -> TokenStream {
    let actions = actions_impl(m);
    let de = deserialize(m);
    let schema = json_schema(m);
    let ser = if m.serialize { serialize(m) } else { quote!() };
    quote! {
        #actions
        #de
        #schema
        #ser
    }
}

fn actions_impl(m: &ActionsModel) -> TokenStream {
    let krate = &m.krate;
    let checks = check_params(krate, m.slots.iter().map(|s| &s.ty));
    let ident = &m.ident;
    let tag = &m.tag;
    let specs = m.actions.iter().map(|a| {
        let name = &a.name;
        let desc = &a.description;
        let params = a.fields.iter().map(|f| {
            let slot = &m.slots[f.slot];
            let ty = &slot.ty;
            let pname = &slot.name;
            let has_default = f.default.is_some();
            let func = private_fn(krate, ty.span(), "action_param");
            let callee = quote_spanned!(ty.span()=> #func::<#ty>);
            quote!(let __a = #callee(__a, #pname, #has_default);)
        });
        let perms = a
            .permissions
            .iter()
            .map(|p| quote!(.permission(#krate::Permission::#p)));
        let approval = a.requires_approval;
        let read_only = a.read_only;
        quote! {
            {
                let __a = #krate::ActionSpec::new(#name, #desc);
                #(#params)*
                __a #(#perms)* .requires_approval(#approval).read_only(#read_only)
            }
        }
    });
    let names = m.actions.iter().map(|a| {
        let v = &a.variant;
        let name = &a.name;
        quote!(Self::#v { .. } => #name)
    });
    quote! {
        #[automatically_derived]
        impl #krate::Actions for #ident {
            fn action_set() -> #krate::ActionSet {
                #checks
                #krate::ActionSet::new(#tag, ::std::vec![#(#specs),*])
            }
            fn action_name(&self) -> &'static str {
                match self {
                    #(#names,)*
                }
            }
        }
    }
}

fn deserialize(m: &ActionsModel) -> TokenStream {
    let krate = &m.krate;
    let private = crate_path::private(krate);
    let ident = &m.ident;
    let tag = &m.tag;
    // `null` is absent for every member: a member of another action may be `null`.
    let slots: Vec<MapSlot> = m
        .slots
        .iter()
        .map(|s| MapSlot {
            name: s.name.clone(),
            ty: s.ty.clone(),
        })
        .collect();
    let names: Vec<String> = m.actions.iter().map(|a| a.name.clone()).collect();
    let arms = m.actions.iter().enumerate().map(|(i, a)| {
        let v = &a.variant;
        let name = &a.name;
        // A parameter of another action, given (and not null), is refused: tool-core's
        // validation says which parameters this action takes.
        let refuse = (0..m.slots.len())
            .filter(|s| !a.fields.iter().any(|f| f.slot == *s))
            .map(|s| {
                let var = slot_var(s);
                let pname = &m.slots[s].name;
                quote! {
                    if #var.is_some() {
                        return ::core::result::Result::Err(
                            #private::not_applicable::<__A::Error>(#pname, #name),
                        );
                    }
                }
            });
        let inits = a.fields.iter().map(|f| {
            let b = &f.binding;
            let slot = &m.slots[f.slot];
            let value = take_slot(krate, f.slot, &slot.name, &slot.ty, f.default.as_ref());
            match &f.own_ty {
                Some(own) => {
                    let first = &slot.ty;
                    let func = private_fn(krate, own.span(), "same_type_cast");
                    let callee = quote_spanned!(own.span()=> #func::<#first, #own>);
                    quote!(#b: #callee(#value))
                }
                None => quote!(#b: #value),
            }
        });
        quote! {
            ::core::option::Option::Some(#i) => {
                #(#refuse)*
                ::core::result::Result::Ok(#ident::#v { #(#inits),* })
            }
        }
    });
    let finish = quote! {
        match __tag {
            #(#arms)*
            ::core::option::Option::None => ::core::result::Result::Err(
                <__A::Error as #private::serde::de::Error>::missing_field(#tag),
            ),
            ::core::option::Option::Some(_) => ::core::result::Result::Err(
                #private::out_of_range::<__A::Error>("action"),
            ),
        }
    };
    let body = visit_map_body(krate, &slots, Some((tag, &names)), finish);
    let expecting = format!("an object with an `{tag}` member naming the action");
    deserialize_impl(krate, ident, &expecting, body)
}

fn json_schema(m: &ActionsModel) -> TokenStream {
    let krate = &m.krate;
    let private = crate_path::private(krate);
    let checks = check_params(krate, m.slots.iter().map(|s| &s.ty));
    let ident = &m.ident;
    let schemars = quote!(#private::schemars);
    let names = schema_names(&m.schema_name);
    let params = m.slots.iter().map(|s| {
        param_schema(
            krate,
            SchemaParts {
                name: &s.name,
                ty: &s.ty,
                doc: &s.doc,
                default: s.default.as_ref(),
                examples: &s.examples,
                range: s.range.as_deref(),
            },
        )
    });
    quote! {
        #[automatically_derived]
        impl #schemars::JsonSchema for #ident {
            #names
            fn json_schema(__gen: &mut #schemars::SchemaGenerator) -> #schemars::Schema {
                #checks
                #private::flat_schema(
                    &<Self as #krate::Actions>::action_set(),
                    ::std::vec![#(#params),*],
                )
            }
        }
    }
}

fn serialize(m: &ActionsModel) -> TokenStream {
    let krate = &m.krate;
    let private = crate_path::private(krate);
    let ident = &m.ident;
    let tag = &m.tag;
    let serde = quote!(#private::serde);
    let arms = m.actions.iter().map(|a| {
        let v = &a.variant;
        let name = &a.name;
        let len = a.fields.len() + 1;
        let bindings: Vec<_> = (0..a.fields.len())
            .map(|i| format_ident!("__f{}", i))
            .collect();
        let pats = a.fields.iter().zip(&bindings).map(|(f, b)| {
            let field = &f.binding;
            quote!(#field: #b)
        });
        let entries = a.fields.iter().zip(&bindings).map(|(f, b)| {
            let pname = &m.slots[f.slot].name;
            quote!(#serde::ser::SerializeMap::serialize_entry(&mut __m, #pname, #b)?;)
        });
        quote! {
            Self::#v { #(#pats),* } => {
                let mut __m = #serde::Serializer::serialize_map(
                    __serializer,
                    ::core::option::Option::Some(#len),
                )?;
                #serde::ser::SerializeMap::serialize_entry(&mut __m, #tag, #name)?;
                #(#entries)*
                #serde::ser::SerializeMap::end(__m)
            }
        }
    });
    quote! {
        #[automatically_derived]
        impl #serde::Serialize for #ident {
            fn serialize<__S: #serde::Serializer>(
                &self,
                __serializer: __S,
            ) -> ::core::result::Result<__S::Ok, __S::Error> {
                match self {
                    #(#arms)*
                }
            }
        }
    }
}
