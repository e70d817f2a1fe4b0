//! Actions and values: the `#[action]` methods of a `#[tool]` impl and the variants of a
//! `#[derive(Action)]` enum, giving an [`ActionsModel`] (the actions and the union of their
//! parameters) or a [`ChoiceModel`] (a closed set of strings).

use proc_macro2::Span;
use quote::format_ident;
use syn::{DeriveInput, Fields, Ident, Path};

use super::names::{self, name};
use crate::ast::{self, ActionMethod, Param, Variant};
use crate::attr::{ActionAttrs, EnumAttrs};
use crate::ctxt::Ctxt;
use crate::model::{ActionEnum, ActionModel, ActionsModel, ChoiceModel, FieldModel, SlotModel};
use crate::symbol;

/// One action before validation, from a variant or a method.
struct ActionInput {
    name: String,
    name_span: Span,
    variant: Ident,
    doc: String,
    attrs: ActionAttrs,
    params: Vec<Param>,
}

/// The `#[action]` methods of a `#[tool]` impl of `self_ident`, as the input enum
/// `__ToolInput` whose schema is named `<Type>Input`.
pub(crate) fn methods(
    cx: &Ctxt,
    krate: &Path,
    self_ident: &Ident,
    methods: &[ActionMethod],
) -> ActionsModel {
    let inputs = methods
        .iter()
        .map(|m| {
            // An action's parameters are listed one by one: they are its part of the flat
            // schema, each with its own description.
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
    actions(
        cx,
        krate.clone(),
        format_ident!("__ToolInput"),
        format!("{self_ident}Input"),
        (symbol::DEFAULT_TAG.to_owned(), self_ident.span()),
        inputs,
        false,
    )
}

/// A `#[derive(Action)]` input: an enum of actions when a variant has named fields or the
/// enum names its discriminator (`#[action(tag = "...")]`), else an enum of values.
pub(crate) fn action_enum(
    cx: &Ctxt,
    input: &DeriveInput,
    attrs: &EnumAttrs,
    krate: &Path,
    variants: Vec<Variant<'_>>,
) -> Option<ActionEnum> {
    let ident = &input.ident;
    let syn::Data::Enum(data) = &input.data else {
        cx.error_spanned_by(
            ident,
            "#[derive(Action)] applies to enums; for a struct of parameters derive `serde::Deserialize` and `schemars::JsonSchema`",
        );
        return None;
    };
    // The schema is computed once, from the enum as declared.
    if !input.generics.params.is_empty() {
        cx.error_spanned_by(
            &input.generics,
            "an Action enum cannot be generic; its schema is fixed at compile time",
        );
    }
    // An enum with no variant has no value to decode into.
    if data.variants.is_empty() {
        cx.error_spanned_by(ident, "an Action enum needs at least one variant: an action (`Search { query: String }`) or a value (`System`)");
    }
    for v in &variants {
        discriminant(cx, v.syn);
    }
    let is_actions = attrs.tag.is_some()
        || variants
            .iter()
            .any(|v| matches!(v.syn.fields, Fields::Named(_)));
    Some(if is_actions {
        ActionEnum::Actions(action_variants(cx, input, attrs, krate, variants))
    } else {
        ActionEnum::Choice(value_variants(cx, input, attrs, krate, variants))
    })
}

/// A variant's name is its value (or its action's name): an explicit discriminant would be a
/// second value the schema does not show.
fn discriminant(cx: &Ctxt, v: &syn::Variant) {
    if let Some((eq, _)) = &v.discriminant {
        cx.error_spanned_by(
            eq,
            "an Action enum has no explicit discriminants; remove `= ...` (the name is the value)",
        );
    }
}

/// The variants of an enum of actions: each a struct variant (its fields the action's
/// parameters) or, with a tag, a unit variant (an action without parameters).
fn action_variants(
    cx: &Ctxt,
    input: &DeriveInput,
    attrs: &EnumAttrs,
    krate: &Path,
    variants: Vec<Variant<'_>>,
) -> ActionsModel {
    let ident = &input.ident;
    let inputs = variants
        .into_iter()
        .map(|v| {
            // A parameter is a member of the call's object: it needs a name.
            if let Fields::Unnamed(u) = &v.syn.fields {
                cx.error_spanned_by(u, "tuple variants are not supported; name the parameters: `Search { query: String }`");
            }
            let (name, name_span) = match &v.attrs.rename {
                Some(l) => (l.value(), l.span()),
                None => (ast::snake_case(&ast::unraw(&v.syn.ident)), v.syn.ident.span()),
            };
            ActionInput {
                name,
                name_span,
                variant: v.syn.ident.clone(),
                doc: v.doc,
                attrs: v.attrs,
                params: v.params,
            }
        })
        .collect();
    let tag = match &attrs.tag {
        Some(l) => (l.value(), l.span()),
        None => (symbol::DEFAULT_TAG.to_owned(), ident.span()),
    };
    actions(
        cx,
        krate.clone(),
        ident.clone(),
        ident.to_string(),
        tag,
        inputs,
        attrs.serialize.is_none_or(|f| f.value),
    )
}

/// The variants of an enum of values: unit variants, each one string of the closed set.
fn value_variants(
    cx: &Ctxt,
    input: &DeriveInput,
    attrs: &EnumAttrs,
    krate: &Path,
    variants: Vec<Variant<'_>>,
) -> ChoiceModel {
    // A value is always serialized, as its string: there is nothing to opt out of.
    if let Some(s) = &attrs.serialize
        && !s.value
    {
        cx.error_at(s.span, "`serialize = false` applies to an enum of actions; a value is always serialized as its string");
    }
    let mut values: Vec<(Ident, String)> = Vec::new();
    for v in &variants {
        value_keys(cx, v.syn, &v.attrs);
        if let Fields::Unnamed(u) = &v.syn.fields {
            cx.error_spanned_by(u, "tuple variants are not supported; a value is a unit variant (`System`), an action a struct variant (`Search { query: String }`)");
        }
        let (name, span) = match &v.attrs.rename {
            Some(l) => (l.value(), l.span()),
            None => (
                ast::snake_case(&ast::unraw(&v.syn.ident)),
                v.syn.ident.span(),
            ),
        };
        // A model must be able to write the value, and tell two values apart.
        if name.is_empty() {
            cx.error_at(span, "the value is empty; rename it to a non-empty string");
        } else if values.iter().any(|(_, n)| *n == name) {
            cx.error_at(
                span,
                format!("duplicate value `{name}`; rename one with #[action(rename = \"...\")]"),
            );
        }
        values.push((v.syn.ident.clone(), name));
    }
    ChoiceModel {
        krate: krate.clone(),
        ident: input.ident.clone(),
        doc: crate::attr::docs(&input.attrs),
        values,
    }
}

/// A value (unit variant) takes only `rename`: the other action keys describe an action.
fn value_keys(cx: &Ctxt, v: &syn::Variant, a: &ActionAttrs) {
    let misplaced = |span: Span, key: &str| {
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

/// Validates a set of actions and lays out the union of their parameters.
fn actions(
    cx: &Ctxt,
    krate: Path,
    ident: Ident,
    schema_name: String,
    tag: (String, Span),
    inputs: Vec<ActionInput>,
    serialize: bool,
) -> ActionsModel {
    let (tag, tag_span) = tag;
    name(cx, "discriminator name", &tag, tag_span);
    let mut actions: Vec<ActionModel> = Vec::new();
    let mut slots: Vec<SlotModel> = Vec::new();
    for input in inputs {
        let a = &input.attrs;
        // Two actions with one name could never both be called.
        if name(cx, "action name", &input.name, input.name_span)
            && actions.iter().any(|x| x.name == input.name)
        {
            cx.error_at(
                input.name_span,
                format!(
                    "duplicate action name `{}`; rename one with #[action(rename = \"...\")]",
                    input.name
                ),
            );
        }
        if let (Some(ro), Some(ap)) = (a.read_only, a.requires_approval)
            && ro.value
            && ap.value
        {
            cx.error_at(
                ap.span,
                "a `read_only` action does not need approval; remove `requires_approval` or `read_only`",
            );
        }
        let description = match &a.description {
            Some(d) => d.value(),
            None => crate::attr::first_paragraph(&input.doc),
        };
        let mut fields = Vec::new();
        let mut own: Vec<&str> = Vec::new();
        for p in &input.params {
            for alias in p.aliases.iter().chain(&p.negated_aliases) {
                cx.error_at(
                    alias.span(),
                    "`alias` is taken by a parameter of a #[tool] function; an action's \
                     parameters take none (name the parameter as callers do instead)",
                );
            }
            if !name(cx, "parameter name", &p.name, p.name_span) {
                continue;
            }
            // The discriminator and a parameter share the object's keys.
            if p.name == tag {
                cx.error_at(
                    p.name_span,
                    format!("parameter `{}` has the discriminator's name; rename it with #[param(rename = \"...\")]", p.name),
                );
                continue;
            }
            if own.contains(&p.name.as_str()) {
                cx.error_at(p.name_span, format!("duplicate parameter `{}`", p.name));
                continue;
            }
            own.push(&p.name);
            crate::constraint::check_examples(cx, &p.examples, p.range.as_deref());
            let mut own_ty = None;
            let slot = match slots.iter().position(|s| s.name == p.name) {
                Some(i) => {
                    own_ty = Some(p.ty.clone());
                    if slots[i].doc.is_empty() && !p.doc.is_empty() {
                        slots[i].doc = p.doc.clone();
                    }
                    if slots[i].default.is_none() {
                        slots[i].default = p.default.clone();
                    }
                    if slots[i].examples.is_empty() {
                        slots[i].examples = p.examples.clone();
                    }
                    if slots[i].range.is_none() {
                        slots[i].range = p.range.clone();
                    }
                    i
                }
                None => {
                    slots.push(SlotModel {
                        name: p.name.clone(),
                        ty: p.ty.clone(),
                        doc: p.doc.clone(),
                        default: p.default.clone(),
                        examples: p.examples.clone(),
                        range: p.range.clone(),
                    });
                    slots.len() - 1
                }
            };
            fields.push(FieldModel {
                binding: p.ident.clone(),
                slot,
                default: p.default.clone(),
                own_ty,
            });
        }
        actions.push(ActionModel {
            name: input.name,
            variant: input.variant,
            description,
            fields,
            permissions: names::permissions(cx, &a.permissions),
            requires_approval: a.requires_approval.is_some_and(|f| f.value),
            read_only: a.read_only.is_some_and(|f| f.value),
        });
    }
    ActionsModel {
        krate,
        ident,
        schema_name,
        tag,
        actions,
        slots,
        serialize,
    }
}
