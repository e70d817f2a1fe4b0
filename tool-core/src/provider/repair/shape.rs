//! What shapes of JSON a schema takes, for the converter: type sets, the element schema of
//! an array, the branch of a union that describes an object.

use serde_json::{Map, Number, Value};

use super::super::schema::{is_any, resolve, type_list};

/// Which JSON types a schema takes.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Kinds {
    pub(super) any: bool,
    pub(super) null: bool,
    pub(super) boolean: bool,
    pub(super) integer: bool,
    pub(super) number: bool,
    pub(super) string: bool,
    pub(super) array: bool,
    pub(super) object: bool,
}

impl Kinds {
    pub(super) fn add_type(&mut self, t: &str) {
        match t {
            "null" => self.null = true,
            "boolean" => self.boolean = true,
            "integer" => self.integer = true,
            "number" => self.number = true,
            "string" => self.string = true,
            "array" => self.array = true,
            "object" => self.object = true,
            _ => self.any = true,
        }
    }

    pub(super) fn add_value(&mut self, v: &Value) {
        match v {
            Value::Null => self.null = true,
            Value::Bool(_) => self.boolean = true,
            Value::Number(n) if n.is_f64() => self.number = true,
            Value::Number(_) => self.integer = true,
            Value::String(_) => self.string = true,
            Value::Array(_) => self.array = true,
            Value::Object(_) => self.object = true,
        }
    }

    pub(super) fn union(&mut self, o: Kinds) {
        self.any |= o.any;
        self.null |= o.null;
        self.boolean |= o.boolean;
        self.integer |= o.integer;
        self.number |= o.number;
        self.string |= o.string;
        self.array |= o.array;
        self.object |= o.object;
    }

    pub(super) fn fits(&self, v: &Value) -> bool {
        if self.any {
            return true;
        }
        match v {
            Value::Null => self.null,
            Value::Bool(_) => self.boolean,
            Value::Number(n) => {
                self.number
                    || (self.integer
                        && (n.is_i64()
                            || n.is_u64()
                            || n.as_f64().is_some_and(|f| f.fract() == 0.0)))
            }
            Value::String(_) => self.string,
            Value::Array(_) => self.array,
            Value::Object(_) => self.object,
        }
    }
}

pub(super) fn kinds(root: &Value, node: &Value, depth: usize) -> Kinds {
    let node = resolve(root, node);
    let mut k = Kinds::default();
    if depth > 16 || is_any(node) || !node.is_object() {
        k.any = !matches!(node, Value::Bool(false));
        return k;
    }
    if let Some(values) = node.get("enum").and_then(Value::as_array) {
        values.iter().for_each(|v| k.add_value(v));
        return k;
    }
    if let Some(c) = node.get("const") {
        k.add_value(c);
        return k;
    }
    let types = type_list(node);
    if !types.is_empty() {
        types.iter().for_each(|t| k.add_type(t));
        return k;
    }
    let mut found = false;
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(branches) = node.get(key).and_then(Value::as_array) {
            found = true;
            for b in branches {
                k.union(kinds(root, b, depth + 1));
            }
        }
    }
    if !found {
        if node.get("properties").is_some() || node.get("additionalProperties").is_some() {
            k.object = true;
        } else if node.get("items").is_some() || node.get("prefixItems").is_some() {
            k.array = true;
        } else {
            k.any = true;
        }
    }
    k
}

pub(super) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The integer a float with no fractional part stands for, when it fits 64 bits.
pub(super) fn integer_of(n: &Number) -> Option<Number> {
    let f = n.as_f64()?;
    if f.fract() != 0.0 || !f.is_finite() {
        return None;
    }
    if (0.0..18_446_744_073_709_551_616.0).contains(&f) {
        Some(Number::from(f as u64))
    } else if (-9_223_372_036_854_775_808.0..0.0).contains(&f) {
        Some(Number::from(f as i64))
    } else {
        None
    }
}

pub(super) fn parse_number(text: &str, float_ok: bool) -> Option<Number> {
    let first = text.chars().next()?;
    if !(first == '-' || first.is_ascii_digit()) {
        return None;
    }
    let n: Number = serde_json::from_str(text).ok()?;
    (float_ok || !n.is_f64()).then_some(n)
}

/// The schema of an array's elements (`true` when there is none).
pub(super) fn items_of<'v>(root: &'v Value, node: &'v Value) -> &'v Value {
    static ANY: Value = Value::Bool(true);
    let node = resolve(root, node);
    array_schema(root, node, 0)
        .unwrap_or(node)
        .get("items")
        .unwrap_or(&ANY)
}

/// The branch of a union that describes arrays, or the node itself.
pub(super) fn array_schema<'v>(
    root: &'v Value,
    node: &'v Value,
    depth: usize,
) -> Option<&'v Value> {
    if depth > 16 {
        return None;
    }
    if node.get("items").is_some() || node.get("prefixItems").is_some() {
        return Some(node);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = node.get(key).and_then(Value::as_array) {
            for b in branches {
                let b = resolve(root, b);
                if kinds(root, b, 0).array {
                    return Some(array_schema(root, b, depth + 1).unwrap_or(b));
                }
            }
        }
    }
    None
}

/// The schema that describes an object value: the node itself, or the union branch that
/// fits it best (its constant members match, then all its keys are known).
pub(super) fn object_schema<'v>(
    root: &'v Value,
    node: &'v Value,
    obj: &Map<String, Value>,
    depth: usize,
) -> Option<&'v Value> {
    if depth > 16 {
        return None;
    }
    let node = resolve(root, node);
    if node.get("properties").is_some() || node.get("additionalProperties").is_some() {
        return Some(node);
    }
    let mut branches: Vec<&Value> = Vec::new();
    for key in ["anyOf", "oneOf"] {
        if let Some(bs) = node.get(key).and_then(Value::as_array) {
            branches.extend(
                bs.iter()
                    .map(|b| resolve(root, b))
                    .filter(|b| kinds(root, b, 0).object),
            );
        }
    }
    if branches.len() <= 1 {
        return branches
            .first()
            .and_then(|b| object_schema(root, b, obj, depth + 1));
    }
    let consts_match = |b: &Value| {
        let Some(props) = b.get("properties").and_then(Value::as_object) else {
            return false;
        };
        let mut any = false;
        for (k, p) in props {
            let p = resolve(root, p);
            if let Some(c) = p.get("const") {
                any = true;
                if obj.get(k) != Some(c) {
                    return false;
                }
            }
        }
        any
    };
    if let Some(b) = branches.iter().find(|b| consts_match(b)) {
        return object_schema(root, b, obj, depth + 1);
    }
    let keys_known = |b: &Value| {
        b.get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| obj.keys().all(|k| p.contains_key(k)))
    };
    branches
        .iter()
        .find(|b| keys_known(b))
        .and_then(|b| object_schema(root, b, obj, depth + 1))
}
