//! TypeScript declarations of tools for code mode, where a model calls its tools from code
//! (OpenAI Codex's code mode, Cloudflare's code mode).
//!
//! [`declarations`] writes one file: a `type` alias per `$defs` entry (`<Tool>_<Def>`, and
//! `<Tool>Output_<Def>` for the output schema's; a `$ref` names its alias, so recursive types
//! need no inlining), then `declare const tools` with one method per tool. Types are as
//! precise as TypeScript allows; what a type cannot say (a range, a default) goes into the
//! doc comment, and the host still validates every call against the schema.

use std::collections::HashSet;
use std::fmt::Write as _;

use serde_json::{Map, Value};

use super::Format;
use super::error::ExportError;
use super::schema::{
    Ctx, MAX_SCHEMA_DEPTH, STANDARD_FORMATS, child, lookup, required_in, types_in,
};
use crate::spec::ToolSpec;

const HEADER: &str = "// Tool declarations for code mode: call `await tools.NAME(input)`.\n\
// Generated from the tools' JSON schemas; every call is still validated by the host.\n";

/// The whole declaration file for a list of tools (what `toolsmith list --format typescript`
/// prints): a header comment, a `type` alias per `$defs` entry, then `declare const tools`
/// with one method per tool, in the given order. Two tools of one name, a `$ref` that names
/// no `$defs` entry, or a schema nested deeper than 64 levels is an error.
pub fn declarations<'a, I>(specs: I) -> Result<String, ExportError>
where
    I: IntoIterator<Item = &'a ToolSpec>,
{
    let (mut taken, mut names) = (HashSet::new(), HashSet::new());
    let (mut aliases, mut members) = (String::new(), Vec::new());
    for spec in specs {
        if !names.insert(&*spec.name) {
            let ctx = Ctx::new(&spec.name, Format::Typescript, &spec.input_schema);
            let what = format!("a second tool named `{}`", spec.name);
            return Err(ctx.unsupported("", what, "tool names must be unique in one file"));
        }
        let (defs, text) = member(spec, &mut taken)?;
        aliases.push_str(&defs);
        members.push(text);
    }
    let members = members.join("\n");
    Ok(format!(
        "{HEADER}\n{aliases}declare const tools: {{\n{members}}};\n"
    ))
}

/// One tool's member of the `tools` object (its doc comment and signature), as it appears
/// inside [`declarations`], which declares the aliases it names (and numbers an alias when
/// two tools' names would make the same one).
pub fn tool_member(spec: &ToolSpec) -> Result<String, ExportError> {
    member(spec, &mut HashSet::new()).map(|(_, member)| member)
}

/// The TypeScript type of one JSON schema node (`root` holds the `$defs` it may refer to);
/// for tests and hosts that build their own file.
///
/// A `$ref` to a `$defs` (or `definitions`) entry of `root` is the entry's name, with `_`
/// for what an identifier cannot hold; the caller declares those names. Anything the
/// function cannot say precisely (another `$ref`, a schema nested too deep) is `unknown`.
pub fn type_of(root: &Value, node: &Value) -> String {
    let (defs, ctx) = (&def_table(root, None, &mut HashSet::new()), None);
    let walker = Walker { root, defs, ctx };
    (walker.ty(node, "", 0, 0)).map_or_else(|_| "unknown".to_owned(), |t| t.text)
}

/// A tool's aliases (its input schema's, then its output schema's) and its member.
fn member(spec: &ToolSpec, taken: &mut HashSet<String>) -> Result<(String, String), ExportError> {
    let prefix = pascal(&spec.name);
    let mut aliases = String::new();
    let mut walk = |root: &Value, prefix: &str| -> Result<String, ExportError> {
        let ctx = Ctx::new(&spec.name, Format::Typescript, root);
        let (defs, ctx) = (&def_table(root, Some(prefix), taken), Some(&ctx));
        let walker = Walker { root, defs, ctx };
        aliases.push_str(&walker.aliases()?);
        Ok(walker.ty(root, "", 0, 1)?.text)
    };
    let input = walk(&spec.input_schema, prefix.as_str())?;
    let output = match &spec.output_schema {
        Some(schema) => walk(schema, format!("{prefix}Output").as_str())?,
        None if spec.text_output => "string".to_owned(),
        None => "unknown".to_owned(),
    };
    let mut text = comment(&spec.description, 1, true);
    let name = key(&spec.name);
    let _ = writeln!(text, "  {name}(input: {input}): Promise<{output}>;");
    Ok((aliases, text))
}

/// How tightly a type binds: a union needs parentheses in an intersection and before `[]`.
#[derive(Clone, Copy, PartialEq, PartialOrd)]
enum Prec {
    Union,
    Inter,
    Atom,
}

/// A type's text, how it binds, and the aliases (indexes in the `$defs` table) it names
/// outside any object or array: a cycle of those is a type alias TypeScript refuses.
struct Ty {
    text: String,
    prec: Prec,
    bare: Vec<usize>,
}

impl Ty {
    fn new(text: impl Into<String>, prec: Prec) -> Ty {
        let (text, bare) = (text.into(), Vec::new());
        Ty { text, prec, bare }
    }

    fn atom(text: impl Into<String>) -> Ty {
        Ty::new(text, Prec::Atom)
    }

    fn unknown() -> Ty {
        Ty::atom("unknown")
    }

    fn is(&self, text: &str) -> bool {
        self.text == text
    }

    /// The text, in parentheses when it binds looser than `min`.
    fn at(&self, min: Prec) -> String {
        match self.prec < min {
            true => format!("({})", self.text),
            false => self.text.clone(),
        }
    }
}

fn union(tys: Vec<Ty>) -> Ty {
    combine(tys, "unknown", "never", " | ", Prec::Union)
}

fn intersection(tys: Vec<Ty>) -> Ty {
    combine(tys, "never", "unknown", " & ", Prec::Inter)
}

/// Joins types with `sep`: `absorbing` wins over all; `identity` and repeats are left out.
fn combine(tys: Vec<Ty>, absorbing: &str, identity: &str, sep: &str, prec: Prec) -> Ty {
    let mut parts: Vec<Ty> = Vec::new();
    for t in tys {
        if t.is(absorbing) {
            return Ty::atom(absorbing);
        }
        if !t.is(identity) && !parts.iter().any(|p| p.text == t.text) {
            parts.push(t);
        }
    }
    if parts.len() <= 1 {
        return parts.pop().unwrap_or_else(|| Ty::atom(identity));
    }
    let text = parts.iter().map(|p| p.at(prec)).collect::<Vec<_>>();
    let bare = parts.into_iter().flat_map(|p| p.bare).collect();
    let text = text.join(sep);
    Ty { text, prec, bare }
}

/// A JSON value as a literal type (`"a"`, `3`, `true`, `null`); arrays and objects have none.
fn literal(v: &Value) -> Ty {
    if v.is_array() || v.is_object() {
        return Ty::unknown();
    }
    // `-1[]` would not parse: a negative number needs parentheses before `[]`.
    let text = v.to_string();
    let prec = if text.starts_with('-') {
        Prec::Inter
    } else {
        Prec::Atom
    };
    Ty::new(text, prec)
}

/// A `$defs` entry and the alias declared for it.
struct Def<'v> {
    node: &'v Value,
    alias: String,
    path: String,
}

/// The `$defs` and `definitions` entries of a root with alias names not yet `taken`:
/// `<prefix>_<Name>`, or the name alone without a prefix.
fn def_table<'v>(
    root: &'v Value,
    prefix: Option<&str>,
    taken: &mut HashSet<String>,
) -> Vec<Def<'v>> {
    let mut out = Vec::new();
    for container in ["$defs", "definitions"] {
        let defs = root.get(container).and_then(Value::as_object);
        for (name, node) in defs.into_iter().flatten() {
            let ident = |c: char| if c.is_ascii_alphanumeric() { c } else { '_' };
            let clean: String = name.chars().map(ident).collect();
            let base = match prefix {
                Some(p) => format!("{p}_{clean}"),
                None if clean.starts_with(|c: char| c.is_ascii_alphabetic()) => clean,
                None => format!("_{clean}"),
            };
            let (mut alias, mut n) = (base.clone(), 2);
            while taken.contains(&alias) {
                alias = format!("{base}{n}");
                n += 1;
            }
            taken.insert(alias.clone());
            let path = child(&child("", container), name);
            out.push(Def { node, alias, path });
        }
    }
    out
}

/// A tool name in PascalCase, as an identifier: `read_file` → `ReadFile`, `3d` → `T3d`.
fn pascal(name: &str) -> String {
    let mut out = String::from("T");
    for part in name.split(['_', '-']) {
        let mut chars = part.chars().filter(char::is_ascii_alphanumeric);
        out.extend(chars.next().map(|c| c.to_ascii_uppercase()));
        out.extend(chars);
    }
    match out.chars().nth(1) {
        Some(c) if c.is_ascii_alphabetic() => out.split_off(1),
        _ => out,
    }
}

/// A member or property name: an identifier as it is, anything else as a JSON string.
fn key(name: &str) -> String {
    let mut chars = name.chars();
    let ident = (chars.next()).is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    // `new(...)` in a type literal would be a construct signature.
    match ident && name != "new" {
        true => name.to_owned(),
        false => Value::from(name).to_string(),
    }
}

fn pad(indent: usize) -> String {
    "  ".repeat(indent)
}

/// A doc comment at `indent` (nothing for empty text), `*/` in the text made `*\/`; one
/// line of text makes a one-line comment unless `block`.
fn comment(text: &str, indent: usize, block: bool) -> String {
    let text = (text.replace("*/", "*\\/").replace("\r\n", "\n"))
        .replace(['\r', '\u{2028}', '\u{2029}'], "\n");
    let (text, pad) = (text.trim(), pad(indent));
    if text.is_empty() {
        return String::new();
    }
    if !block && !text.contains('\n') {
        return format!("{pad}/** {text} */\n");
    }
    let mut out = format!("{pad}/**\n");
    for line in text.lines().map(str::trim_end) {
        let sep = if line.is_empty() { "" } else { " " };
        let _ = writeln!(out, "{pad} *{sep}{line}");
    }
    let _ = writeln!(out, "{pad} */");
    out
}

/// The doc of a property or alias: its description, then what its type cannot say (format,
/// range, default, an example), then the descriptions of its constant values.
fn doc_text(node: &Value) -> String {
    let Some(m) = node.as_object() else {
        return String::new();
    };
    let description = m.get("description").and_then(Value::as_str);
    let mut text = description.unwrap_or("").trim().to_owned();
    let mut notes: Vec<String> = Vec::new();
    let format = m.get("format").and_then(Value::as_str);
    let format = format.filter(|f| STANDARD_FORMATS.contains(f));
    notes.extend(format.map(|f| format!("Format: `{f}`.")));
    // A range the Rust type implies (a `u32`'s `minimum: 0`) is no news to the model.
    notes.extend(crate::validate::declared_range(node).map(|r| format!("Must be {r}.")));
    notes.extend(m.get("default").map(|d| format!("Default: `{d}`.")));
    let example = m
        .get("examples")
        .and_then(Value::as_array)
        .and_then(|e| e.first());
    notes.extend(example.map(|e| format!("Example: `{e}`.")));
    if !notes.is_empty() {
        let sep = if text.contains('\n') {
            "\n"
        } else if text.is_empty() {
            ""
        } else {
            " "
        };
        let _ = write!(text, "{sep}{}", notes.join(" "));
    }
    // The docs of a union of constants (a Rust enum's variants), one a line.
    let branches = ["oneOf", "anyOf"]
        .into_iter()
        .filter_map(|k| m.get(k)?.as_array());
    for b in branches.flatten() {
        let one = |e: &Value| e.as_array().filter(|e| e.len() == 1)?.first().cloned();
        let value = b
            .get("const")
            .cloned()
            .or_else(|| b.get("enum").and_then(one));
        if let (Some(v), Some(d)) = (value, b.get("description").and_then(Value::as_str)) {
            let v = v.as_str().map_or_else(|| v.to_string(), str::to_owned);
            let d = d.split_whitespace().collect::<Vec<_>>().join(" ");
            let sep = if text.is_empty() { "" } else { "\n" };
            let _ = write!(text, "{sep}- `{v}`: {d}");
        }
    }
    text
}

/// Walks one schema document. With a context, what cannot be said is an error; without one
/// (for [`type_of`]), it is `unknown`.
struct Walker<'w> {
    root: &'w Value,
    defs: &'w [Def<'w>],
    ctx: Option<&'w Ctx<'w>>,
}

impl Walker<'_> {
    fn fail(&self, error: impl FnOnce(&Ctx<'_>) -> ExportError) -> Result<Ty, ExportError> {
        self.ctx
            .map_or_else(|| Ok(Ty::unknown()), |ctx| Err(error(ctx)))
    }

    /// The `type` alias of every `$defs` entry, each with its doc comment.
    fn aliases(&self) -> Result<String, ExportError> {
        let (mut out, mut edges) = (String::new(), Vec::new());
        for d in self.defs {
            let t = self.ty(d.node, &d.path, 1, 0)?;
            out.push_str(&comment(&doc_text(d.node), 0, false));
            let _ = writeln!(out, "type {} = {};\n", d.alias, t.text);
            edges.push(t.bare);
        }
        // TypeScript refuses `type A = B | null; type B = A;`: look for such cycles.
        for (i, d) in self.defs.iter().enumerate() {
            let mut seen = vec![false; edges.len()];
            let mut stack: Vec<usize> = edges.get(i).cloned().unwrap_or_default();
            while let Some(j) = stack.pop() {
                if j == i {
                    let what = "a type that is itself with no object or array around it";
                    let why = "TypeScript cannot declare it; recurse in an object or an array";
                    self.fail(|ctx| ctx.unsupported(&d.path, what, why))?;
                    break;
                }
                if let Some(s) = seen.get_mut(j).filter(|s| !**s) {
                    *s = true;
                    stack.extend(edges.get(j).into_iter().flatten().copied());
                }
            }
        }
        Ok(out)
    }

    /// The type of `node`; `indent` is the level of the line it starts on.
    fn ty(&self, node: &Value, path: &str, depth: usize, indent: usize) -> Result<Ty, ExportError> {
        if depth > MAX_SCHEMA_DEPTH {
            let limit = "levels of schema nesting";
            return self.fail(|ctx| ctx.limit(limit, depth, MAX_SCHEMA_DEPTH));
        }
        let m = match node {
            Value::Bool(true) => return Ok(Ty::unknown()),
            Value::Bool(false) => return Ok(Ty::atom("never")),
            Value::Object(m) => m,
            _ => {
                let what = "a schema that is neither an object nor a boolean";
                return self.fail(|ctx| ctx.unsupported(path, what, "write a JSON Schema"));
            }
        };
        let mut comp = Vec::new();
        if let Some(r) = m.get("$ref").and_then(Value::as_str) {
            comp.push(self.reference(r, path)?);
        }
        for kw in ["anyOf", "oneOf", "allOf"] {
            let (here, branches) = (child(path, kw), m.get(kw).and_then(Value::as_array));
            let mut tys = Vec::new();
            for (i, b) in branches.into_iter().flatten().enumerate() {
                tys.push(self.ty(b, &child(&here, &i.to_string()), depth + 1, indent)?);
            }
            if branches.is_some() {
                comp.push(if kw == "allOf" {
                    intersection(tys)
                } else {
                    union(tys)
                });
            }
        }
        let comp = intersection(comp);
        // A bare `type` beside a `$ref` or a union says nothing the branches do not.
        match self.base(m, path, depth, indent)? {
            Some((base, bare_type)) if !bare_type || comp.is("unknown") => {
                Ok(intersection(vec![base, comp]))
            }
            _ => Ok(comp),
        }
    }

    fn reference(&self, r: &str, path: &str) -> Result<Ty, ExportError> {
        let Some(target) = lookup(self.root, r) else {
            return self.fail(|ctx| ExportError::UnresolvedRef {
                tool: ctx.tool.to_owned(),
                format: ctx.format,
                path: path.to_owned(),
                reference: r.to_owned(),
            });
        };
        let mut defs = self.defs.iter().enumerate();
        match defs.find(|(_, d)| std::ptr::eq(d.node, target)) {
            Some((i, d)) => {
                let (text, prec, bare) = (d.alias.clone(), Prec::Atom, vec![i]);
                Ok(Ty { text, prec, bare })
            }
            None => self.fail(|ctx| {
                let what = format!("a `$ref` to `{r}`, which is not a `$defs` entry");
                ctx.unsupported(path, what, "move the schema into `$defs`")
            }),
        }
    }

    /// The type `const`, `enum` or `type` (with its keywords) say, and whether it is a
    /// bare `type`.
    fn base(
        &self,
        m: &Map<String, Value>,
        path: &str,
        depth: usize,
        indent: usize,
    ) -> Result<Option<(Ty, bool)>, ExportError> {
        if let Some(c) = m.get("const") {
            return Ok(Some((literal(c), false)));
        }
        if let Some(values) = m.get("enum").and_then(Value::as_array) {
            return Ok(Some((union(values.iter().map(literal).collect()), false)));
        }
        let has = |k: &str| m.contains_key(k);
        let object = [
            "properties",
            "additionalProperties",
            "patternProperties",
            "required",
        ];
        let (object, array) = (
            object.into_iter().any(has),
            has("items") || has("prefixItems"),
        );
        let mut types = types_in(m);
        if !has("type") {
            types.extend(
                object
                    .then_some("object")
                    .into_iter()
                    .chain(array.then_some("array")),
            );
        }
        let mut tys = Vec::new();
        for t in &types {
            tys.push(match *t {
                "string" | "boolean" | "null" => Ty::atom(*t),
                "integer" | "number" => Ty::atom("number"),
                "array" => self.array(m, path, depth, indent)?,
                "object" => self.object(m, path, depth, indent)?,
                _ => Ty::unknown(),
            });
        }
        Ok((!types.is_empty()).then(|| (union(tys), !(object || array))))
    }

    /// `T[]`, or for `prefixItems` a tuple `[A, B?, ...T[]]` (elements past `minItems` are
    /// optional).
    fn array(
        &self,
        m: &Map<String, Value>,
        path: &str,
        depth: usize,
        indent: usize,
    ) -> Result<Ty, ExportError> {
        let items = match m.get("items") {
            Some(Value::Bool(false)) => None,
            Some(s) => Some(
                self.ty(s, &child(path, "items"), depth + 1, indent)?
                    .at(Prec::Atom),
            ),
            None => Some("unknown".to_owned()),
        };
        let Some(prefix) = m.get("prefixItems").and_then(Value::as_array) else {
            return Ok(Ty::atom(format!(
                "{}[]",
                items.as_deref().unwrap_or("never")
            )));
        };
        let min = m.get("minItems").and_then(Value::as_u64).unwrap_or(0);
        let here = child(path, "prefixItems");
        let mut parts = Vec::new();
        for (i, s) in prefix.iter().enumerate() {
            let t = self.ty(s, &child(&here, &i.to_string()), depth + 1, indent)?;
            let required = u64::try_from(i).is_ok_and(|i| i < min);
            parts.push(if required {
                t.text
            } else {
                format!("{}?", t.at(Prec::Atom))
            });
        }
        parts.extend(items.map(|t| format!("...{t}[]")));
        Ok(Ty::atom(format!("[{}]", parts.join(", "))))
    }

    /// An object type: its properties one a line with their docs, `?` on the optional ones;
    /// a map (`additionalProperties` with a schema) as an index signature.
    fn object(
        &self,
        m: &Map<String, Value>,
        path: &str,
        depth: usize,
        indent: usize,
    ) -> Result<Ty, ExportError> {
        let empty = Map::new();
        let props = m
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let required = required_in(m);
        let missing = required.iter().filter(|r| !props.contains_key(**r));
        let patterns = m.contains_key("patternProperties");
        let extra = m.get("additionalProperties").filter(|_| !patterns);
        if props.is_empty() && missing.clone().next().is_none() {
            return Ok(Ty::atom(match extra {
                Some(Value::Bool(false)) => "Record<string, never>".to_owned(),
                Some(s) if s.is_object() => {
                    let here = child(path, "additionalProperties");
                    let t = self.ty(s, &here, depth + 1, indent + 1)?.text;
                    let (inner, outer) = (pad(indent + 1), pad(indent));
                    match t.contains('\n') {
                        true => format!("{{\n{inner}[key: string]: {t};\n{outer}}}"),
                        false => format!("{{ [key: string]: {t} }}"),
                    }
                }
                _ => "{ [key: string]: unknown }".to_owned(),
            }));
        }
        let (inner, here) = (pad(indent + 1), child(path, "properties"));
        let mut out = String::from("{\n");
        for (name, node) in props {
            let t = self.ty(node, &child(&here, name), depth + 1, indent + 1)?;
            out.push_str(&comment(&doc_text(node), indent + 1, false));
            let optional = if required.contains(&name.as_str()) {
                ""
            } else {
                "?"
            };
            let _ = writeln!(out, "{inner}{}{optional}: {};", key(name), t.text);
        }
        for name in missing {
            let _ = writeln!(out, "{inner}{}: unknown;", key(name));
        }
        // Other members only with a value schema or pattern keys: without an index
        // signature, a misspelt optional parameter stays an error.
        if patterns || extra.is_some_and(Value::is_object) {
            let _ = writeln!(out, "{inner}[key: string]: unknown;");
        }
        let _ = write!(out, "{}}}", pad(indent));
        Ok(Ty::atom(out))
    }
}

#[cfg(test)]
mod tests;
