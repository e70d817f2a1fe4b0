//! A unit-only `Action` enum, a closed set of strings: `Choice`, `Deserialize`, `Serialize`
//! and `JsonSchema` (`{"type": "string", "enum": [...]}` in declaration order).

use proc_macro2::TokenStream;
use quote::quote;

use super::params::schema_names;
use crate::crate_path;
use crate::model::ChoiceModel;

pub(super) fn impls(m: &ChoiceModel) -> TokenStream {
    let krate = &m.krate;
    let private = crate_path::private(krate);
    let ident = &m.ident;
    let serde = quote!(#private::serde);
    let schemars = quote!(#private::schemars);
    let values: Vec<&String> = m.values.iter().map(|(_, v)| v).collect();
    let variants: Vec<_> = m.values.iter().map(|(v, _)| v).collect();
    let indices = 0..m.values.len();
    let doc = &m.doc;
    let names = schema_names(&ident.to_string());
    quote! {
        #[automatically_derived]
        impl #krate::Choice for #ident {
            const VALUES: &'static [&'static str] = &[#(#values),*];
            fn as_str(&self) -> &'static str {
                match self {
                    #(Self::#variants => #values,)*
                }
            }
            fn from_name(name: &str) -> ::core::option::Option<Self> {
                match name {
                    #(#values => ::core::option::Option::Some(Self::#variants),)*
                    _ => ::core::option::Option::None,
                }
            }
        }

        #[automatically_derived]
        impl<'de> #serde::Deserialize<'de> for #ident {
            fn deserialize<__D: #serde::Deserializer<'de>>(
                __deserializer: __D,
            ) -> ::core::result::Result<Self, __D::Error> {
                let __seed = #private::NameSeed(<Self as #krate::Choice>::VALUES);
                match #serde::de::DeserializeSeed::deserialize(__seed, __deserializer)? {
                    #(#indices => ::core::result::Result::Ok(Self::#variants),)*
                    _ => ::core::result::Result::Err(
                        #private::out_of_range::<__D::Error>("value"),
                    ),
                }
            }
        }

        #[automatically_derived]
        impl #serde::Serialize for #ident {
            fn serialize<__S: #serde::Serializer>(
                &self,
                __serializer: __S,
            ) -> ::core::result::Result<__S::Ok, __S::Error> {
                #serde::Serializer::serialize_str(
                    __serializer,
                    <Self as #krate::Choice>::as_str(self),
                )
            }
        }

        #[automatically_derived]
        impl #schemars::JsonSchema for #ident {
            #names
            fn json_schema(_: &mut #schemars::SchemaGenerator) -> #schemars::Schema {
                #private::choice_schema(<Self as #krate::Choice>::VALUES, #doc)
            }
        }
    }
}
