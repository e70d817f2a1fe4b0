//! The named parameters of a plain tool function or a `call` method.

use crate::ast::Param;
use crate::ctxt::Ctxt;

use super::names::name;

/// Each parameter is a member of the call's object: a valid name, and none twice (two
/// parameters renamed to one name would read one member).
pub(crate) fn function<'a>(cx: &Ctxt, params: impl IntoIterator<Item = &'a Param>) {
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
