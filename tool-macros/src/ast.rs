//! The macro inputs as data: a tool function's or method's signature, a `#[tool]` impl, an
//! `Action` enum. Each keeps the syn nodes it came from, for spans.
//!
//! Reading a signature also strips what the macros consume from it (`#[param]`, `#[args]`,
//! doc comments on parameters), so the item can be emitted as the user wrote it otherwise.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Attribute, FnArg, Ident, LitStr, Pat, ReturnType, Type};

use crate::attr::{self, ActionAttrs, DefaultValue};
use crate::ctxt::Ctxt;
use crate::symbol;

/// One parameter: a named argument of a tool function or a field of an action.
#[derive(Clone)]
pub(crate) struct Param {
    /// The binding: the argument's or field's identifier.
    pub(crate) ident: Ident,
    /// The name in the schema (renamed, `r#` removed).
    pub(crate) name: String,
    /// Where the name came from: the `rename` string or the identifier.
    pub(crate) name_span: Span,
    pub(crate) ty: Type,
    pub(crate) doc: String,
    pub(crate) default: Option<DefaultValue>,
    /// Other names a call may give it under (`#[param(alias = "...")]`).
    pub(crate) aliases: Vec<LitStr>,
    /// Other names whose boolean means the opposite (`#[param(negated_alias = "...")]`).
    pub(crate) negated_aliases: Vec<LitStr>,
    /// `#[param(example = ..)]`, in order.
    pub(crate) examples: Vec<syn::Expr>,
    /// `#[param(range(..))]`.
    pub(crate) range: Option<Box<crate::constraint::Range>>,
}

/// One argument of a tool function or method, in declaration order.
pub(crate) enum Arg {
    /// A reference parameter: the call's context (`&ToolContext`).
    Context(Type),
    /// The whole input as one type: a parameter named `args` or marked `#[args]`.
    Args(Type),
    /// One named parameter of the input.
    Param(Param),
}

/// The checked shape of a tool function or method.
pub(crate) struct Signature {
    pub(crate) ident: Ident,
    pub(crate) args: Vec<Arg>,
    /// The return type; `None` when missing (already reported).
    pub(crate) ret: Option<Type>,
}

impl Signature {
    /// The named parameters.
    pub(crate) fn params(&self) -> impl Iterator<Item = &Param> {
        self.args.iter().filter_map(|a| match a {
            Arg::Param(p) => Some(p),
            _ => None,
        })
    }

    /// The whole-input type, if the input is one type.
    pub(crate) fn args_type(&self) -> Option<&Type> {
        self.args.iter().find_map(|a| match a {
            Arg::Args(t) => Some(t),
            _ => None,
        })
    }
}

/// Whether the signature is a free function or a method of a `#[tool]` impl.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    Function,
    Method,
}

/// Reads a parameter's doc comment and `#[param]` attribute into a [`Param`].
pub(crate) fn param(cx: &Ctxt, ident: &Ident, ty: &Type, attrs: &[Attribute]) -> Param {
    let pa = attr::param_attrs(cx, attrs);
    let (name, name_span) = match &pa.rename {
        Some(lit) => (lit.value(), lit.span()),
        None => (unraw(ident), ident.span()),
    };
    let doc = match &pa.description {
        Some(d) => d.value(),
        None => attr::joined_paragraphs(&attr::docs(attrs)),
    };
    Param {
        ident: ident.clone(),
        name,
        name_span,
        ty: ty.clone(),
        doc,
        default: pa.default,
        aliases: pa.aliases,
        negated_aliases: pa.negated_aliases,
        examples: pa.examples,
        range: pa.range,
    }
}

/// An identifier's text without `r#`.
pub(crate) fn unraw(ident: &Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").map(str::to_owned).unwrap_or(s)
}

/// Checks and reads a tool function's or method's signature, stripping the attributes the
/// macros consume from its parameters.
pub(crate) fn signature(cx: &Ctxt, sig: &mut syn::Signature, place: Place) -> Signature {
    // A tool runs on the async runtime; its body is awaited inside the generated `call`.
    if sig.asyncness.is_none() {
        cx.error_spanned_by(
            sig.fn_token,
            "a tool function must be `async`; add `async` before `fn`",
        );
    }
    if let Some(c) = &sig.constness {
        cx.error_spanned_by(c, "a tool function cannot be `const`; remove `const`");
    }
    if let syn::Safety::Unsafe(u) = &sig.safety {
        cx.error_spanned_by(u, "a tool function cannot be `unsafe`; remove `unsafe`");
    }
    if let Some(abi) = &sig.abi {
        cx.error_spanned_by(abi, "a tool function cannot have an ABI; remove it");
    }
    // The schema and the registered tool are fixed at compile time: no type parameters.
    if !sig.generics.params.is_empty() {
        cx.error_spanned_by(
            &sig.generics,
            "a tool function cannot be generic; its schema is fixed at compile time, so name concrete types",
        );
    } else if let Some(w) = &sig.generics.where_clause {
        cx.error_spanned_by(w, "a tool function cannot have a `where` clause; remove it");
    }
    if let Some(v) = &sig.variadic {
        cx.error_spanned_by(v, "a tool function cannot be variadic");
    }
    let ret = match &sig.output {
        ReturnType::Type(_, ty) => Some((**ty).clone()),
        ReturnType::Default => {
            cx.error_spanned_by(
                &sig.ident,
                "a tool function returns `Result<T, ToolError>`; add `-> ToolResult<T>`",
            );
            None
        }
    };

    let mut args = Vec::new();
    let mut has_receiver = false;
    let typed_count = sig
        .inputs
        .iter()
        .filter(|a| matches!(a, FnArg::Typed(p) if !matches!(*p.ty, Type::Reference(_))))
        .count();
    for (i, input) in sig.inputs.iter_mut().enumerate() {
        match input {
            FnArg::Receiver(r) => {
                has_receiver = true;
                receiver(cx, r, place, i);
            }
            FnArg::Typed(pt) => {
                let attrs = std::mem::take(&mut pt.attrs);
                let (ours, kept): (Vec<Attribute>, Vec<Attribute>) = attrs
                    .into_iter()
                    .partition(|a| attr::is_ours(a) || a.path().is_ident(symbol::DOC));
                pt.attrs = kept;
                let marked_args = ours.iter().any(|a| a.path().is_ident(symbol::ARGS));
                let ty = (*pt.ty).clone();
                if let Type::Reference(_) = ty {
                    if args.iter().any(|a| matches!(a, Arg::Context(_))) {
                        cx.error_spanned_by(
                            &pt.ty,
                            "only one context parameter is allowed; a tool parameter is taken by value",
                        );
                    }
                    args.push(Arg::Context(ty));
                    continue;
                }
                let ident = match &*pt.pat {
                    Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                        Some(pi.ident.clone())
                    }
                    _ => None,
                };
                let is_args =
                    marked_args || ident.as_ref().is_some_and(|i| i == symbol::ARGS_PARAM);
                if is_args {
                    if typed_count > 1 {
                        cx.error_spanned_by(
                            &pt.pat,
                            "`args` takes the whole input, so it must be the only parameter besides the context; make the other parameters fields of its type, or rename it",
                        );
                    }
                    args.push(Arg::Args(ty));
                    continue;
                }
                match ident {
                    Some(ident) => args.push(Arg::Param(param(cx, &ident, &ty, &ours))),
                    None => cx.error_spanned_by(
                        &pt.pat,
                        "a tool parameter needs a plain name (it is the parameter's name in the schema); mark it `#[args]` to take the whole input as one type",
                    ),
                }
            }
        }
    }
    if place == Place::Method && !has_receiver {
        cx.error_spanned_by(&sig.ident, "a tool method takes `&self` first; add `&self`");
    }
    Signature {
        ident: sig.ident.clone(),
        args,
        ret,
    }
}

fn receiver(cx: &Ctxt, r: &syn::Receiver, place: Place, position: usize) {
    // A registered tool is shared (`Arc`) by concurrent calls: only `&self` fits.
    if place == Place::Function {
        cx.error_spanned_by(
            r.self_token,
            "`self` is only allowed in a method of a #[tool] impl; remove it or put the function in one",
        );
        return;
    }
    let ok = match &r.kind {
        syn::ReceiverKind::Reference(_, _, mutability) => {
            if let Some(m) = mutability {
                cx.error_spanned_by(
                    m,
                    "a tool method takes `&self`, not `&mut self`: concurrent calls share the tool; keep mutable state behind a `Mutex`",
                );
            }
            true
        }
        syn::ReceiverKind::Value => {
            cx.error_spanned_by(
                r.self_token,
                "a tool method takes `&self`, not `self`: the registry keeps the tool and shares it between calls",
            );
            true
        }
        _ => {
            cx.error_spanned_by(r.self_token, "a tool method takes `&self`");
            true
        }
    };
    if ok && position != 0 {
        cx.error_spanned_by(r.self_token, "`self` comes first");
    }
}

/// A `#[action]` method of a `#[tool]` impl.
pub(crate) struct ActionMethod {
    pub(crate) sig: Signature,
    pub(crate) attrs: ActionAttrs,
    pub(crate) doc: String,
    /// The action's name and where it came from.
    pub(crate) name: (String, Span),
}

/// The methods a `#[tool]` impl dispatches to.
pub(crate) enum ImplForm {
    /// A single-call tool: the method named `call`.
    Call(Box<Signature>),
    /// A polymorphic tool: the `#[action]` methods.
    Actions(Vec<ActionMethod>),
}

/// Reads the methods of a `#[tool]` impl, stripping `#[action]` from them. A trait impl's
/// methods are the trait's, not a tool's: they are not read (the impl itself is reported).
pub(crate) fn impl_form(cx: &Ctxt, item: &mut syn::ItemImpl) -> Option<ImplForm> {
    if item.trait_.is_some() {
        return None;
    }
    let mut actions = Vec::new();
    let mut call = None;
    for it in &mut item.items {
        let syn::ImplItem::Fn(f) = it else { continue };
        let is_action = f.attrs.iter().any(|a| a.path().is_ident(symbol::ACTION));
        if is_action {
            let attrs = attr::action_attrs(cx, &f.attrs);
            f.attrs.retain(|a| !a.path().is_ident(symbol::ACTION));
            let doc = attr::docs(&f.attrs);
            let sig = signature(cx, &mut f.sig, Place::Method);
            let name = match &attrs.rename {
                Some(l) => (l.value(), l.span()),
                None => (unraw(&f.sig.ident), f.sig.ident.span()),
            };
            actions.push(ActionMethod {
                sig,
                attrs,
                doc,
                name,
            });
        } else if f.sig.ident == symbol::CALL_METHOD {
            call = Some(f);
        }
    }
    if !actions.is_empty() {
        // A tool is one `call` or a set of actions: next to #[action] methods, `call` would
        // never run.
        if let Some(f) = call {
            let names: Vec<String> = actions.iter().map(|a| format!("`{}`", a.name.0)).collect();
            cx.error_spanned_by(
                &f.sig.ident,
                format!(
                    "a #[tool] impl has either an `async fn call` or #[action] methods, not both; \
                     `call` would never run beside the actions {}: remove `call`, or the \
                     #[action] attributes",
                    names.join(", ")
                ),
            );
            return None;
        }
        return Some(ImplForm::Actions(actions));
    }
    match call {
        Some(f) => Some(ImplForm::Call(Box::new(signature(
            cx,
            &mut f.sig,
            Place::Method,
        )))),
        None => {
            cx.error_spanned_by(
                &item.self_ty,
                "a #[tool] impl needs an `async fn call(&self, ...)` method or at least one #[action] method",
            );
            None
        }
    }
}

/// A variant of a `#[derive(Action)]` enum, read: its `#[action]` keys, its doc comment and,
/// for a struct variant, its fields as parameters.
pub(crate) struct Variant<'a> {
    pub(crate) syn: &'a syn::Variant,
    pub(crate) attrs: ActionAttrs,
    pub(crate) doc: String,
    /// The named fields (none for a unit or tuple variant).
    pub(crate) params: Vec<Param>,
}

/// Reads the variants of a `#[derive(Action)]` input (none when it is not an enum).
pub(crate) fn variants<'a>(cx: &Ctxt, data: &'a syn::Data) -> Vec<Variant<'a>> {
    let syn::Data::Enum(data) = data else {
        return Vec::new();
    };
    data.variants
        .iter()
        .map(|v| {
            let attrs = attr::action_attrs(cx, &v.attrs);
            let params = match &v.fields {
                syn::Fields::Named(named) => named
                    .named
                    .iter()
                    .filter_map(|f| f.ident.as_ref().map(|i| param(cx, i, &f.ty, &f.attrs)))
                    .collect(),
                _ => Vec::new(),
            };
            Variant {
                syn: v,
                attrs,
                doc: attr::docs(&v.attrs),
                params,
            }
        })
        .collect()
}

/// The span of the first generic argument of a type's last path segment (`T` in
/// `Result<T, ToolError>`), or of the whole type.
pub(crate) fn first_arg_span(ty: &Type) -> Span {
    if let Type::Path(p) = ty
        && let Some(last) = p.path.segments.last()
        && let syn::PathArguments::AngleBracketed(ab) = &last.arguments
        && let Some(syn::GenericArgument::Type(t)) = ab.args.first()
    {
        return t.span();
    }
    ty.span()
}

/// The unit struct a `#[tool]` function gets: `tool_type = Name`, else `grep` -> `GrepTool`.
pub(crate) fn fn_tool_type(fn_ident: &Ident, given: Option<&Ident>) -> Ident {
    match given {
        Some(i) => i.clone(),
        None => quote::format_ident!(
            "{}Tool",
            pascal_case(&unraw(fn_ident)),
            span = fn_ident.span()
        ),
    }
}

/// `read_file` -> `ReadFile`.
pub(crate) fn pascal_case(snake: &str) -> String {
    snake
        .split('_')
        .filter(|s| !s.is_empty())
        .map(|s| {
            let mut c = s.chars();
            match c.next() {
                Some(f) => f.to_uppercase().chain(c).collect::<String>(),
                None => String::new(),
            }
        })
        .collect()
}

/// `ConversationConsolidation` -> `conversation_consolidation`, `HTTPFetch` -> `http_fetch`.
pub(crate) fn snake_case(camel: &str) -> String {
    let chars: Vec<char> = camel.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let prev_lower =
                i > 0 && (chars[i - 1].is_lowercase() || chars[i - 1].is_ascii_digit());
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            let prev_upper = i > 0 && chars[i - 1].is_uppercase();
            if i > 0 && (prev_lower || (prev_upper && next_lower)) && !out.ends_with('_') {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases() {
        assert_eq!(
            snake_case("ConversationConsolidation"),
            "conversation_consolidation"
        );
        assert_eq!(snake_case("HTTPFetch"), "http_fetch");
        assert_eq!(snake_case("Name"), "name");
        assert_eq!(snake_case("V2Api"), "v2_api");
        assert_eq!(pascal_case("read_file"), "ReadFile");
        assert_eq!(pascal_case("grep"), "Grep");
    }
}
