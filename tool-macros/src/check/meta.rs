//! `#[tool(...)]`: the rules of the tool's own metadata, giving the validated [`ToolMeta`].

use proc_macro2::Span;
use syn::{LitStr, Path};

use super::names::{self, name};
use crate::attr::{Flag, ToolAttrs};
use crate::ctxt::Ctxt;
use crate::model::{Description, ToolMeta};

/// Validates `#[tool(...)]`. `default_name` is the function's name or the snake_case type
/// name; `blame` is where a missing description is reported.
pub(crate) fn tool_meta(
    cx: &Ctxt,
    attrs: &ToolAttrs,
    krate: Path,
    default_name: String,
    doc: String,
    blame: Span,
) -> Option<ToolMeta> {
    let (tool_name, span) = match &attrs.name {
        Some(l) => (l.value(), l.span()),
        None => (default_name, blame),
    };
    let name_ok = name(cx, "tool name", &tool_name, span);
    let description = description(cx, attrs, doc, blame);
    let modes = names::modes(cx, &attrs.modes);
    let permissions = names::permissions(cx, &attrs.permissions);
    annotations(
        cx,
        attrs.read_only,
        attrs.destructive,
        attrs.requires_approval,
    );
    let category = category(cx, attrs.category.as_ref());
    let toolsets = names::names(cx, "toolset", &attrs.toolsets);
    let error_context = names::names(cx, "error_context parameter", &attrs.error_context);
    let aliases = aliases(cx, attrs, &tool_name);
    let namespace = namespace(cx, attrs.namespace.as_ref());
    constructor(cx, attrs);
    let flag = |f: Option<Flag>| f.is_some_and(|f| f.value);
    if !name_ok {
        return None;
    }
    Some(ToolMeta {
        krate,
        name: tool_name,
        description: description?,
        modes,
        permissions,
        requires_approval: flag(attrs.requires_approval),
        category,
        toolsets,
        aliases,
        user_facing: attrs.user_facing.map(|f| f.value),
        suppress_execution_animation: attrs.suppress_execution_animation.map(|f| f.value),
        read_only: flag(attrs.read_only),
        destructive: flag(attrs.destructive),
        idempotent: flag(attrs.idempotent),
        open_world: flag(attrs.open_world),
        timeout_ms: attrs.timeout.map(|t| t.millis),
        error_context,
        text_output: flag(attrs.text_output),
        defer_loading: flag(attrs.defer_loading),
        namespace,
        register: attrs.register.is_none_or(|f| f.value),
        constructor: attrs.constructor.clone(),
    })
}

/// The model reads the description to decide whether to call the tool: one is required,
/// from exactly one source.
fn description(cx: &Ctxt, attrs: &ToolAttrs, doc: String, blame: Span) -> Option<Description> {
    match (&attrs.description, &attrs.description_file) {
        (Some(_), Some(file)) => {
            cx.error_spanned_by(
                file,
                "give either `description` or `description_file`, not both",
            );
            None
        }
        (Some(d), None) => {
            if d.value().trim().is_empty() {
                cx.error_spanned_by(d, "the description is empty; say what the tool does");
                return None;
            }
            Some(Description::Text(d.value()))
        }
        (None, Some(file)) => description_file(cx, file).then(|| Description::File(file.clone())),
        (None, None) if !doc.is_empty() => Some(Description::Text(doc)),
        (None, None) => {
            cx.error_at(
                blame,
                "missing tool description; add a doc comment or `#[tool(description = \"...\")]`",
            );
            None
        }
    }
}

/// `description_file` is read at compile time (`include_str!`), relative to the crate's
/// `Cargo.toml` like every path in a manifest; a missing or empty file is reported on the
/// string rather than as an `include_str!` failure.
fn description_file(cx: &Ctxt, file: &LitStr) -> bool {
    let rel = file.value();
    let Some(dir) = std::env::var_os("CARGO_MANIFEST_DIR") else {
        return true;
    };
    let path = std::path::Path::new(&dir).join(&rel);
    match std::fs::read_to_string(&path) {
        Ok(text) if text.trim().is_empty() => {
            cx.error_spanned_by(
                file,
                format!(
                    "the description file `{rel}` is empty; write the tool's description in it"
                ),
            );
            false
        }
        Ok(_) => true,
        Err(_) => {
            cx.error_spanned_by(
                file,
                format!("cannot read the description file `{rel}`; the path is relative to the directory of the crate's Cargo.toml"),
            );
            false
        }
    }
}

/// A read-only tool changes nothing, so it cannot destroy anything nor need approval; the
/// two flags together are a contradiction a client would act on wrongly.
fn annotations(
    cx: &Ctxt,
    read_only: Option<Flag>,
    destructive: Option<Flag>,
    approval: Option<Flag>,
) {
    if !read_only.is_some_and(|f| f.value) {
        return;
    }
    if let Some(d) = destructive.filter(|f| f.value) {
        cx.error_at(
            d.span,
            "a tool cannot be both `read_only` and `destructive`; remove one of them",
        );
    }
    if let Some(a) = approval.filter(|f| f.value) {
        cx.error_at(
            a.span,
            "a `read_only` tool does not need approval; remove `requires_approval` or `read_only`",
        );
    }
}

/// A category groups tools in prompts and filters: an empty one groups nothing.
fn category(cx: &Ctxt, given: Option<&LitStr>) -> Option<String> {
    let l = given?;
    let c = l.value();
    if c.trim().is_empty() {
        cx.error_spanned_by(l, "the category is empty; name it or remove `category`");
    }
    Some(c)
}

/// A namespace is a name the model writes in its calls (OpenAI Responses), under the rule of
/// tool names.
fn namespace(cx: &Ctxt, given: Option<&LitStr>) -> Option<String> {
    let l = given?;
    let ns = l.value();
    name(cx, "namespace", &ns, l.span()).then_some(ns)
}

/// Aliases are names, and an alias equal to the tool's name would claim the name twice at
/// registration.
fn aliases(cx: &Ctxt, attrs: &ToolAttrs, tool_name: &str) -> Vec<String> {
    let aliases = names::names(cx, "alias", &attrs.aliases);
    for a in &attrs.aliases {
        if a.value == tool_name {
            cx.error_at(a.span, "an alias cannot be the tool's own name; remove it");
        }
    }
    aliases
}

/// `constructor` makes the tool for automatic registration: with `register = false` it
/// would never be called.
fn constructor(cx: &Ctxt, attrs: &ToolAttrs) {
    if let (Some(c), Some(r)) = (&attrs.constructor, attrs.register)
        && !r.value
    {
        cx.error_spanned_by(
            c,
            "`constructor` is only used for registration; remove it or `register = false`",
        );
    }
}

/// `constructor` makes a `#[tool]` impl's type; a function's tool is a unit struct, made
/// without one.
pub(crate) fn fn_keys(cx: &Ctxt, attrs: &ToolAttrs) {
    if let Some(c) = &attrs.constructor {
        cx.error_spanned_by(
            c,
            "`constructor` applies to a #[tool] impl; a #[tool] function's tool is a unit struct",
        );
    }
}

/// `tool_type` names the struct a `#[tool]` function gets; an impl's tool is its own type.
pub(crate) fn impl_keys(cx: &Ctxt, attrs: &ToolAttrs) {
    if let Some(t) = &attrs.tool_type {
        cx.error_spanned_by(
            t,
            "`tool_type` applies to a #[tool] function; a #[tool] impl's tool is its own type",
        );
    }
}
