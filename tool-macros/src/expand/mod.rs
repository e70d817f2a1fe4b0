//! The entry points' work: parse, check, then generate, or on any mistake emit every error
//! beside the user's item (and stand-ins, so the rest of the crate still type-checks).

mod actions;
mod choice;
mod fallback;
mod params;
mod spec;
mod tool;

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{ToTokens, format_ident, quote};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Item, ItemFn, ItemImpl, Type};

use crate::ast::{self, ActionMethod, ImplForm, Place};
use crate::attr;
use crate::check::{self, ActionInput};
use crate::crate_path;
use crate::ctxt::Ctxt;
use crate::model::ChoiceModel;
use crate::symbol;

/// `tokens` with every span set to `span`, so that a path like `::tool_core::__private::f`
/// is blamed on the user's token it is generated for.
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
        Ok(other) => {
            let err = syn::Error::new_spanned(
                fallback::item_head(&other),
                "#[tool] goes on an `async fn` or on an `impl` block of the tool's type",
            );
            fallback::with_item(err, input)
        }
        Err(err) => fallback::with_item(err, input),
    }
}

fn tool_fn(args: TokenStream, mut item: ItemFn) -> TokenStream {
    let cx = Ctxt::new();
    let attrs = attr::tool_attrs(&cx, args);
    let krate = attrs.krate.clone().unwrap_or_else(crate_path::default_path);
    if let Some(c) = &attrs.constructor {
        cx.error_spanned_by(
            c,
            "`constructor` applies to a #[tool] impl; a #[tool] function's tool is a unit struct",
        );
    }
    let sig = ast::signature(&cx, &mut item.sig, Place::Function);
    check::params(&cx, &sig.params().cloned().collect::<Vec<_>>());
    if sig.args_type().is_none() {
        let names: Vec<&str> = sig.params().map(|p| p.name.as_str()).collect();
        check::error_context(&cx, &attrs.error_context, &names);
    }
    let doc = attr::docs(&item.attrs);
    let ident = item.sig.ident.clone();
    let meta = check::tool_meta(
        &cx,
        &attrs,
        krate.clone(),
        ast::unraw(&ident),
        doc,
        ident.span(),
    );
    let tool_ty = check::tool_type(&ident, attrs.tool_type.as_ref());
    let checked = cx.check();
    match (checked, meta, &sig.ret) {
        (Ok(()), Some(meta), Some(ret)) => tool::function(&meta, &sig, ret, &item, &tool_ty),
        (checked, _, _) => {
            let err = checked
                .err()
                .unwrap_or_else(|| syn::Error::new(ident.span(), "invalid tool"));
            fallback::tool_fn(err, &item, &tool_ty, &krate)
        }
    }
}

fn tool_impl(args: TokenStream, mut item: ItemImpl) -> TokenStream {
    let cx = Ctxt::new();
    let attrs = attr::tool_attrs(&cx, args);
    let krate = attrs.krate.clone().unwrap_or_else(crate_path::default_path);
    if let Some(t) = &attrs.tool_type {
        cx.error_spanned_by(
            t,
            "`tool_type` applies to a #[tool] function; a #[tool] impl's tool is its own type",
        );
    }
    let self_ident = impl_shape(&cx, &item);
    let form = if item.trait_.is_some() {
        None
    } else {
        ast::impl_form(&cx, &mut item)
    };
    // Without a usable type name there is no default tool name to check (already reported).
    let default_name = self_ident
        .as_ref()
        .map_or_else(|| "tool".to_owned(), |i| ast::snake_case(&ast::unraw(i)));
    let doc = attr::docs(&item.attrs);
    let meta = check::tool_meta(
        &cx,
        &attrs,
        krate.clone(),
        default_name,
        doc,
        item.self_ty.span(),
    );
    let self_ty = (*item.self_ty).clone();
    let model = match (&form, &self_ident) {
        (Some(ImplForm::Actions(methods)), Some(ident)) => {
            Some(impl_actions(&cx, &krate, ident, methods))
        }
        _ => None,
    };
    // The parameters `error_context` may name, when they are known here.
    match (&form, &model) {
        (Some(ImplForm::Call(sig)), _) if sig.args_type().is_none() => {
            let names: Vec<&str> = sig.params().map(|p| p.name.as_str()).collect();
            check::error_context(&cx, &attrs.error_context, &names);
        }
        (Some(ImplForm::Actions(_)), Some(model)) => {
            let names: Vec<&str> = std::iter::once(model.tag.as_str())
                .chain(model.slots.iter().map(|s| s.name.as_str()))
                .collect();
            check::error_context(&cx, &attrs.error_context, &names);
        }
        _ => {}
    }
    let checked = cx.check();
    let Some(meta) = meta.filter(|_| checked.is_ok()) else {
        let err = checked
            .err()
            .unwrap_or_else(|| syn::Error::new(self_ty.span(), "invalid tool"));
        return fallback::tool_impl(err, &item, self_ident.is_some(), &krate);
    };
    let generated = match (&form, model) {
        (Some(ImplForm::Call(sig)), _) => sig
            .ret
            .as_ref()
            .map(|ret| tool::single(&meta, sig, ret, &self_ty)),
        (Some(ImplForm::Actions(methods)), Some(model)) => {
            let sigs: Option<Vec<(&ast::Signature, &Type)>> = methods
                .iter()
                .map(|m| m.sig.ret.as_ref().map(|r| (&m.sig, r)))
                .collect();
            sigs.map(|sigs| tool::polymorphic(&meta, &model, &sigs, &self_ty))
        }
        _ => None,
    };
    match generated {
        Some(tokens) => quote!(#item #tokens),
        None => fallback::tool_impl(
            syn::Error::new(self_ty.span(), "invalid tool"),
            &item,
            self_ident.is_some(),
            &krate,
        ),
    }
}

/// A `#[tool]` impl is an inherent, non-generic impl of a named type: the registry makes the
/// tool itself, and its schema is fixed at compile time.
fn impl_shape(cx: &Ctxt, item: &ItemImpl) -> Option<syn::Ident> {
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

fn impl_actions(
    cx: &Ctxt,
    krate: &syn::Path,
    self_ident: &syn::Ident,
    methods: &[ActionMethod],
) -> crate::model::ActionsModel {
    let inputs = methods
        .iter()
        .map(|m| {
            if let Some(ty) = m.sig.args_type() {
                cx.error_spanned_by(
                    ty,
                    "an #[action] method takes named parameters, which become the action's parameters; list the fields of this type as parameters",
                );
            }
            ActionInput {
                name: m.name.0.clone(),
                name_span: m.name.1,
                variant: format_ident!("{}", ast::pascal_case(&ast::unraw(&m.sig.ident))),
                doc: m.doc.clone(),
                attrs: m.attrs.clone(),
                params: m.sig.params().cloned().collect(),
            }
        })
        .collect();
    check::actions(
        cx,
        krate.clone(),
        format_ident!("__ToolInput"),
        format!("{self_ident}Input"),
        (symbol::DEFAULT_TAG.to_owned(), self_ident.span()),
        inputs,
        false,
    )
}

/// `#[derive(Action)]`.
pub(crate) fn derive_action(input: DeriveInput) -> TokenStream {
    let cx = Ctxt::new();
    let ea = attr::enum_attrs(&cx, &input.attrs);
    let krate = ea.krate.clone().unwrap_or_else(crate_path::default_path);
    let ident = &input.ident;
    let Data::Enum(data) = &input.data else {
        cx.error_spanned_by(
            ident,
            "#[derive(Action)] applies to enums; for a struct of parameters derive `serde::Deserialize` and `schemars::JsonSchema`",
        );
        return fallback::derive(cx.check().err(), &input, &krate);
    };
    if !input.generics.params.is_empty() {
        cx.error_spanned_by(
            &input.generics,
            "an Action enum cannot be generic; its schema is fixed at compile time",
        );
    }
    if data.variants.is_empty() {
        cx.error_spanned_by(ident, "an Action enum needs at least one variant: an action (`Search { query: String }`) or a value (`System`)");
    }
    let is_actions = ea.tag.is_some()
        || data
            .variants
            .iter()
            .any(|v| matches!(v.fields, Fields::Named(_)));
    let tokens = if is_actions {
        let mut inputs = Vec::new();
        for v in &data.variants {
            variant_common(&cx, v);
            let a = attr::action_attrs(&cx, &v.attrs);
            let params = match &v.fields {
                Fields::Named(named) => named
                    .named
                    .iter()
                    .filter_map(|f| {
                        f.ident
                            .as_ref()
                            .map(|i| ast::param(&cx, i, &f.ty, &f.attrs))
                    })
                    .collect(),
                Fields::Unit => Vec::new(),
                Fields::Unnamed(u) => {
                    cx.error_spanned_by(u, "tuple variants are not supported; name the parameters: `Search { query: String }`");
                    Vec::new()
                }
            };
            let (name, name_span) = match &a.rename {
                Some(l) => (l.value(), l.span()),
                None => (ast::snake_case(&ast::unraw(&v.ident)), v.ident.span()),
            };
            inputs.push(ActionInput {
                name,
                name_span,
                variant: v.ident.clone(),
                doc: attr::docs(&v.attrs),
                attrs: a,
                params,
            });
        }
        let tag = match &ea.tag {
            Some(l) => (l.value(), l.span()),
            None => (symbol::DEFAULT_TAG.to_owned(), ident.span()),
        };
        let serialize = ea.serialize.is_none_or(|f| f.value);
        let model = check::actions(
            &cx,
            krate.clone(),
            ident.clone(),
            ident.to_string(),
            tag,
            inputs,
            serialize,
        );
        let impls = actions::impls(&model);
        quote!(const _: () = { #impls };)
    } else {
        if let Some(s) = &ea.serialize
            && !s.value
        {
            cx.error_at(s.span, "`serialize = false` applies to an enum of actions; a value is always serialized as its string");
        }
        let mut values = Vec::new();
        for v in &data.variants {
            variant_common(&cx, v);
            let a = attr::action_attrs(&cx, &v.attrs);
            value_attrs(&cx, v, &a);
            if let Fields::Unnamed(u) = &v.fields {
                cx.error_spanned_by(u, "tuple variants are not supported; a value is a unit variant (`System`), an action a struct variant (`Search { query: String }`)");
            }
            let (name, span) = match &a.rename {
                Some(l) => (l.value(), l.span()),
                None => (ast::snake_case(&ast::unraw(&v.ident)), v.ident.span()),
            };
            if name.is_empty() {
                cx.error_at(span, "the value is empty; rename it to a non-empty string");
            } else if values.iter().any(|(_, n)| *n == name) {
                cx.error_at(
                    span,
                    format!(
                        "duplicate value `{name}`; rename one with #[action(rename = \"...\")]"
                    ),
                );
            }
            values.push((v.ident.clone(), name));
        }
        let model = ChoiceModel {
            krate: krate.clone(),
            ident: ident.clone(),
            doc: attr::docs(&input.attrs),
            values,
        };
        let impls = choice::impls(&model);
        quote!(const _: () = { #impls };)
    };
    match cx.check() {
        Ok(()) => tokens,
        Err(e) => fallback::derive(Some(e), &input, &krate),
    }
}

/// Rules for any variant of an `Action` enum.
fn variant_common(cx: &Ctxt, v: &syn::Variant) {
    if let Some((eq, _)) = &v.discriminant {
        cx.error_spanned_by(
            eq,
            "an Action enum has no explicit discriminants; remove `= ...` (the name is the value)",
        );
    }
}

/// A value (unit variant) takes only `rename`: the other action keys describe an action.
fn value_attrs(cx: &Ctxt, v: &syn::Variant, a: &attr::ActionAttrs) {
    let misplaced = |span: proc_macro2::Span, key: &str| {
        cx.error_at(
            span,
            format!(
                "`{key}` applies to an action (a struct variant); `{}` is a value",
                v.ident
            ),
        );
    };
    if let Some(f) = a.requires_approval {
        misplaced(f.span, symbol::action::REQUIRES_APPROVAL);
    }
    if let Some(f) = a.read_only {
        misplaced(f.span, symbol::action::READ_ONLY);
    }
    if let Some(p) = a.permissions.first() {
        misplaced(p.span, symbol::action::PERMISSIONS);
    }
    if let Some(d) = &a.description {
        misplaced(d.span(), symbol::action::DESCRIPTION);
    }
}

/// `#[action]` anywhere but on a method of a `#[tool]` impl: the error points at the
/// attribute itself.
pub(crate) fn stray_action(input: TokenStream) -> TokenStream {
    fallback::with_item(syn::Error::new(Span::call_site(), STRAY), input)
}

const STRAY: &str = "not expected here; the #[action] attribute belongs on a method of a #[tool] impl (or on a variant of a #[derive(Action)] enum)";
