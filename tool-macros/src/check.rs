//! The rules a declaration must follow, one function each with its reason, turning parsed
//! attributes and items into the validated [`model`](crate::model).

use proc_macro2::Span;
use quote::format_ident;
use syn::{Ident, LitStr, Path};

use crate::ast::Param;
use crate::attr::{ActionAttrs, Flag, Named, ToolAttrs};
use crate::ctxt::{Ctxt, unknown};
use crate::model::{ActionModel, ActionsModel, Description, FieldModel, SlotModel, ToolMeta};
use crate::symbol;

/// Names (tools, aliases, actions, parameters) are what providers accept: 1 to 64 characters
/// of `[A-Za-z0-9_-]` (OpenAI, Anthropic and Gemini agree), the same rule as
/// `tool_core::validate_name`, checked here so a bad name never compiles.
pub(crate) fn name(cx: &Ctxt, what: &str, name: &str, span: Span) -> bool {
    if name.is_empty() {
        cx.error_at(
            span,
            format!(
                "the {what} is empty; use 1 to {} characters of [A-Za-z0-9_-]",
                symbol::MAX_NAME_LEN
            ),
        );
        return false;
    }
    let len = name.chars().count();
    if len > symbol::MAX_NAME_LEN {
        cx.error_at(
            span,
            format!(
                "the {what} is {len} characters long; shorten it to at most {}",
                symbol::MAX_NAME_LEN
            ),
        );
        return false;
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
    {
        cx.error_at(
            span,
            format!("the {what} `{name}` contains {bad:?}; use only [A-Za-z0-9_-]"),
        );
        return false;
    }
    true
}

/// Modes and permissions are closed sets in tool-core: an unknown one is a typo, caught here
/// rather than at registration.
fn closed_set(cx: &Ctxt, what: &str, given: &[Named], set: &[(&str, &str)]) -> Vec<Ident> {
    let spellings: Vec<&str> = set.iter().map(|(s, _)| *s).collect();
    let mut out: Vec<Ident> = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for n in given {
        match set.iter().find(|(s, _)| *s == n.value) {
            Some((s, variant)) => {
                if seen.contains(s) {
                    cx.error_at(n.span, format!("duplicate {what} `{s}`"));
                    continue;
                }
                seen.push(s);
                out.push(Ident::new(variant, n.span));
            }
            None => cx.error_at(n.span, unknown(what, &n.value, &spellings)),
        }
    }
    out
}

pub(crate) fn modes(cx: &Ctxt, given: &[Named]) -> Vec<Ident> {
    closed_set(cx, "mode", given, symbol::MODES)
}

pub(crate) fn permissions(cx: &Ctxt, given: &[Named]) -> Vec<Ident> {
    closed_set(cx, "permission", given, symbol::PERMISSIONS)
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

fn names(cx: &Ctxt, what: &str, given: &[Named]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for n in given {
        if out.contains(&n.value) {
            cx.error_at(n.span, format!("duplicate {what} `{}`", n.value));
        } else if name(cx, what, &n.value, n.span) {
            out.push(n.value.clone());
        }
    }
    out
}

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
    let modes = modes(cx, &attrs.modes);
    let permissions = permissions(cx, &attrs.permissions);
    annotations(
        cx,
        attrs.read_only,
        attrs.destructive,
        attrs.requires_approval,
    );
    let category = attrs.category.as_ref().map(LitStr::value);
    if let (Some(c), Some(l)) = (&category, &attrs.category)
        && c.trim().is_empty()
    {
        cx.error_spanned_by(l, "the category is empty; name it or remove `category`");
    }
    let toolsets = names(cx, "toolset", &attrs.toolsets);
    let error_context = names(cx, "error_context parameter", &attrs.error_context);
    let aliases = names(cx, "alias", &attrs.aliases);
    // An alias equal to the tool's name would claim the name twice at registration.
    for a in &attrs.aliases {
        if a.value == tool_name {
            cx.error_at(a.span, "an alias cannot be the tool's own name; remove it");
        }
    }
    let register = attrs.register.is_none_or(|f| f.value);
    if let (Some(c), Some(r)) = (&attrs.constructor, attrs.register)
        && !r.value
    {
        cx.error_spanned_by(
            c,
            "`constructor` is only used for registration; remove it or `register = false`",
        );
    }
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
        read_only: flag(attrs.read_only),
        destructive: flag(attrs.destructive),
        idempotent: flag(attrs.idempotent),
        open_world: flag(attrs.open_world),
        timeout_ms: attrs.timeout.map(|t| t.millis),
        error_context,
        register,
        constructor: attrs.constructor.clone(),
    })
}

/// One action before validation, from a variant or a method.
pub(crate) struct ActionInput {
    pub(crate) name: String,
    pub(crate) name_span: Span,
    pub(crate) variant: Ident,
    pub(crate) doc: String,
    pub(crate) attrs: ActionAttrs,
    pub(crate) params: Vec<Param>,
}

/// Validates a set of actions and lays out the union of their parameters.
pub(crate) fn actions(
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
                    i
                }
                None => {
                    slots.push(SlotModel {
                        name: p.name.clone(),
                        ty: p.ty.clone(),
                        doc: p.doc.clone(),
                        default: p.default.clone(),
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
            permissions: permissions(cx, &a.permissions),
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

/// `error_context(..)` echoes parameters of the tool: a name that is none of them would echo
/// nothing, ever, so it is a typo. `params` are the tool's parameter names when the macro
/// knows them (named parameters, or the actions' and the discriminator); with one `args`
/// type they are not known here and registration checks the names instead.
pub(crate) fn error_context(cx: &Ctxt, given: &[Named], params: &[&str]) {
    for n in given {
        if params.contains(&n.value.as_str()) {
            continue;
        }
        let hint = match crate::ctxt::did_you_mean(&n.value, params) {
            Some(near) => format!("did you mean `{near}`?"),
            None if params.is_empty() => "the tool has no parameters".to_owned(),
            None => format!("the tool's parameters are: {}", params.join(", ")),
        };
        cx.error_at(
            n.span,
            format!(
                "`error_context` names `{}`, which is not a parameter of this tool; {hint}",
                n.value
            ),
        );
    }
}

/// Checks the parameters of a plain tool function (names, duplicates).
pub(crate) fn params(cx: &Ctxt, params: &[Param]) {
    let mut seen: Vec<&str> = Vec::new();
    for p in params {
        if !name(cx, "parameter name", &p.name, p.name_span) {
            continue;
        }
        if seen.contains(&p.name.as_str()) {
            cx.error_at(p.name_span, format!("duplicate parameter `{}`", p.name));
        }
        seen.push(&p.name);
    }
}

/// The generated tool type of a function: `grep` -> `GrepTool`.
pub(crate) fn tool_type(fn_ident: &Ident, given: Option<&Ident>) -> Ident {
    match given {
        Some(i) => i.clone(),
        None => format_ident!(
            "{}Tool",
            crate::ast::pascal_case(&crate::ast::unraw(fn_ident)),
            span = fn_ident.span()
        ),
    }
}
