mod example;
mod inputs;
mod nearest;
mod problems;
mod range;

use std::cell::Cell;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::call::{Arguments, signature_of};
use crate::error::{Problem, RegistryError, ToolError};
use crate::spec::ToolSpec;

pub use example::example_call;
pub(crate) use example::example_value;
pub use inputs::{MAX_INPUT_EXAMPLES, input_examples};
pub use nearest::nearest;
pub(crate) use range::declared_range;

use crate::call::MAX_ARGUMENTS_BYTES;
/// The most problems listed in one error; the rest are counted.
pub const MAX_PROBLEMS: usize = 32;

/// A tool's input schema, compiled for validation, with what the error messages need.
///
/// Argument validation: every problem of a call at once, each with its JSON path, what was
/// expected, the allowed values and the nearest one, plus an example call.
///
/// A [`CompiledSchema`] is built once per tool when it is registered. Decoding a call
/// ([`CompiledSchema::decode`]) first tries the fast path: deserialize the typed input straight
/// from the JSON text, watching for unknown members (serde skips them; the schema may refuse
/// them). When that succeeds and the schema holds no constraint serde cannot check, the input is valid
/// and no tree is built. Otherwise the
/// slow path parses the arguments, runs the JSON Schema validator collecting every error, adds
/// the per-action rules of a polymorphic tool, and turns the lot into one
/// [`ToolError`] of kind `validation_error`. Every validation error of a tool, malformed JSON
/// and oversize arguments included, carries the tool's allowed values
/// ([`CompiledSchema::with_allowed_values`]).
///
/// JSON Schema counts `5.0` as an integer and serde does not, so arguments that pass
/// validation may still fail the typed decode (Gemini sends every number as a float). The
/// slow path then reads the floats with no fraction as integers and decodes once more.
#[derive(Debug)]
pub struct CompiledSchema {
    tool: Arc<str>,
    schema: Arc<Value>,
    validator: jsonschema::Validator,
    serde_complete: bool,
    spec_actions: Option<crate::spec::ActionSet>,
    enums: Vec<(String, Vec<Value>)>,
    spec: Arc<ToolSpec>,
}

impl CompiledSchema {
    /// Compiles the input schema of a spec.
    pub fn compile(spec: Arc<ToolSpec>) -> Result<CompiledSchema, RegistryError> {
        let schema = spec.input_schema.clone();
        let validator = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(&schema)
            .map_err(|e| RegistryError::Schema {
                tool: spec.name.to_string(),
                message: e.to_string(),
            })?;
        let serde_complete = problems::serde_checks_everything(&schema);
        let mut enums = problems::top_level_enums(&schema);
        // A discriminator the schema types as a plain string is still a closed set: the
        // action set's names, in declaration order.
        if let Some(set) = &spec.actions
            && !enums.iter().any(|(f, _)| f == set.field.as_ref())
        {
            enums.insert(
                0,
                (
                    set.field.to_string(),
                    set.names().map(Value::from).collect(),
                ),
            );
        }
        Ok(CompiledSchema {
            tool: Arc::from(spec.name.as_ref()),
            schema,
            validator,
            serde_complete,
            spec_actions: spec.actions.clone(),
            enums,
            spec,
        })
    }

    /// The schema.
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// Whether a typed decode that succeeds proves the arguments valid (no constraint in the
    /// schema that serde does not check itself).
    pub fn is_serde_complete(&self) -> bool {
        self.serde_complete
    }

    /// Decodes the arguments into `T`, validating them; see the module docs.
    ///
    /// The fast decode watches for members `T` ignores (an unknown parameter must not pass
    /// unseen), so it serves any input type, one that refuses unknown members itself or not.
    pub fn decode<T: DeserializeOwned>(&self, args: &Arguments) -> Result<T, ToolError> {
        if self.serde_complete
            && self.fast_path_applies(args)
            && let Some(v) = fast_decode::<T>(args)
        {
            return Ok(v);
        }
        self.decode_slow(args)
    }

    /// Whether the fast path may try these arguments: an object (serde would also read a
    /// struct from an array) within the size limit. A polymorphic tool's per-action rules
    /// (required parameters, parameters of another action) are not in its flat schema nor
    /// in a flat input type, so they are checked on the tree first; its text arguments take
    /// the slow path (the runtime hands such tools a parsed value).
    fn fast_path_applies(&self, args: &Arguments) -> bool {
        match (&self.spec_actions, args) {
            (None, Arguments::Text(t)) => t.len() <= MAX_ARGUMENTS_BYTES && is_object(args),
            (None, Arguments::Value(v)) => v.is_object(),
            (Some(actions), Arguments::Value(v)) => {
                let mut found = Vec::new();
                problems::action_problems(actions, v, &mut found);
                v.is_object() && found.is_empty()
            }
            (Some(_), Arguments::Text(_)) => false,
        }
    }

    /// The slow path for `T`: everything but the typed decode itself is in
    /// [`CompiledSchema::slow_path`], compiled once for every tool.
    fn decode_slow<T: DeserializeOwned>(&self, args: &Arguments) -> Result<T, ToolError> {
        let mut out = None;
        self.slow_path(args, &mut |v| T::deserialize(v).map(|t| out = Some(t)))?;
        out.ok_or_else(not_decoded)
    }

    /// Parses and validates the arguments (every problem at once), then runs the typed
    /// decode `de` over the tree.
    fn slow_path(
        &self,
        args: &Arguments,
        de: &mut dyn FnMut(&Value) -> Result<(), serde_json::Error>,
    ) -> Result<(), ToolError> {
        let value = self.to_checked_value(args)?;
        de(&value)
            .or_else(|e| {
                // A unit input (`()`) has a `null` schema, canonicalized to the empty object,
                // so `{}` stands for it.
                if value.as_object().is_some_and(|m| m.is_empty()) {
                    de(&Value::Null).map_err(|_| e)
                } else {
                    Err(e)
                }
            })
            .or_else(|e| {
                // JSON Schema counts `5.0` as an integer, serde does not: a model (Gemini
                // sends every number as a float) that wrote `5.0` for a `u32` passed
                // validation, so the floats with no fraction are read as integers, once
                // (what still does not fit is then what the error names).
                let mut whole = value.clone();
                if integral_floats_to_integers(&mut whole) {
                    de(&whole)
                } else {
                    Err(e)
                }
            })
            .map_err(|e| {
                self.error(
                    &value,
                    vec![Problem::new("", format!("the arguments do not fit: {e}"))],
                )
            })
    }

    /// Parses and validates the arguments, returning the value (for hand-written tools that
    /// work on JSON).
    pub fn to_checked_value(&self, args: &Arguments) -> Result<Value, ToolError> {
        let value = match args {
            Arguments::Text(t) => {
                if t.len() > MAX_ARGUMENTS_BYTES {
                    return Err(self.too_large(t.len()));
                }
                let trimmed = t.trim();
                if trimmed.is_empty() {
                    // An empty argument string means "no arguments" for most providers.
                    Value::Object(Default::default())
                } else {
                    serde_json::from_str::<Value>(trimmed).map_err(|e| self.malformed(&e))?
                }
            }
            Arguments::Value(v) => v.clone(),
        };
        let (problems, total) = self.find_problems(&value);
        if problems.is_empty() {
            Ok(value)
        } else {
            Err(self.build_error(&value, problems, total))
        }
    }

    /// Every problem of a parsed arguments value (at most [`MAX_PROBLEMS`]), in the order the
    /// schema's keywords are checked; empty when valid.
    pub fn problems(&self, value: &Value) -> Vec<Problem> {
        self.find_problems(value).0
    }

    /// The first [`MAX_PROBLEMS`] problems and how many there are in all.
    fn find_problems(&self, value: &Value) -> (Vec<Problem>, usize) {
        if !value.is_object() {
            let p = Problem::new(
                "",
                format!(
                    "the arguments must be a JSON object, got {}",
                    problems::json_type_name(value)
                ),
            )
            .expected("object");
            return (vec![p], 1);
        }
        let mut out = Vec::new();
        let mut extra = 0;
        let mut scratch = Vec::new();
        // A `null` for a parameter the chosen action requires is reported once, as missing
        // (by the action rules below), not also as a `null` of the wrong type.
        let null_required = self
            .spec_actions
            .as_ref()
            .map(|a| problems::null_required_paths(a, value))
            .unwrap_or_default();
        for err in self.validator.iter_errors(value) {
            if null_required
                .iter()
                .any(|p| p == err.instance_path().as_str())
            {
                continue;
            }
            // A parameter every action requires is also required at the root of the flat
            // schema; the action rules below report it, naming the action.
            if let Some(actions) = &self.spec_actions
                && problems::is_root_action_param_missing(actions, &err)
            {
                continue;
            }
            if out.len() < MAX_PROBLEMS {
                problems::push_problem(&self.schema, &err, &mut out);
            } else {
                // Past the cap, problems are only counted.
                problems::push_problem(&self.schema, &err, &mut scratch);
                extra += scratch.len();
                scratch.clear();
            }
        }
        if let Some(actions) = &self.spec_actions {
            problems::action_problems(actions, value, &mut out);
        }
        if out.len() > MAX_PROBLEMS {
            extra += out.len() - MAX_PROBLEMS;
            out.truncate(MAX_PROBLEMS);
        }
        let total = out.len() + extra;
        (out, total)
    }

    /// Builds the validation error for problems found in `value`.
    pub fn error(&self, value: &Value, problems: Vec<Problem>) -> ToolError {
        let total = problems.len();
        self.build_error(value, problems, total)
    }

    fn build_error(&self, value: &Value, problems: Vec<Problem>, total: usize) -> ToolError {
        let signature = signature_of(&self.tool, Some(value));
        let message = problems::summary(&problems, total);
        let mut err =
            self.with_allowed_values(ToolError::validation(message).with_signature(signature));
        let action = self
            .spec_actions
            .as_ref()
            .and_then(|a| value.get(a.field.as_ref()))
            .and_then(Value::as_str);
        let example = example_call(&self.spec, action);
        err = err.with_field("example", example.clone());
        if total > problems.len() {
            err = err.with_field("problems_omitted", total - problems.len());
        }
        let mut suggestion = String::new();
        for p in &problems {
            if let (Some(near), Some(field)) = (&p.did_you_mean, p.field()) {
                suggestion.push_str(&format!("Did you mean `{near}` for `{field}`? "));
            }
        }
        suggestion.push_str(&format!("Example: {example}"));
        err.with_problems(problems).with_suggestion(suggestion)
    }

    fn malformed(&self, e: &serde_json::Error) -> ToolError {
        let problem = Problem::new(
            "",
            format!(
                "the arguments are not valid JSON: {e} (line {}, column {})",
                e.line(),
                e.column()
            ),
        )
        .expected("a JSON object");
        let example = example_call(&self.spec, None);
        let err = ToolError::validation(format!("Invalid JSON arguments: {e}"))
            .with_signature(format!("{}(…)", self.tool))
            .with_problems(vec![problem])
            .with_field("example", example.clone())
            .with_suggestion(format!(
                "Send the arguments as one JSON object. Example: {example}"
            ));
        self.with_allowed_values(err)
    }

    fn too_large(&self, len: usize) -> ToolError {
        let message =
            format!("the arguments are {len} bytes of JSON; the limit is {MAX_ARGUMENTS_BYTES}");
        let problem = Problem::new("", message.clone())
            .expected(format!("at most {MAX_ARGUMENTS_BYTES} bytes of JSON"));
        let example = example_call(&self.spec, None);
        let err = ToolError::validation(message)
            .with_signature(format!("{}(…)", self.tool))
            .with_problems(vec![problem])
            .with_field("example", example.clone())
            .with_suggestion(format!(
                "Send less data in one call, or split the work into several calls. \
                 Example: {example}"
            ));
        self.with_allowed_values(err)
    }

    /// Adds what every validation error of this tool carries: for each top-level parameter
    /// that is a closed set of strings (the discriminator of a polymorphic tool included),
    /// `allowed_<field>s` (`allowed_actions`, `allowed_prompt_types`), and all of them again
    /// as `allowed_values` (`{"action": [...], "prompt_type": [...]}`), in schema order.
    /// Fields the error already has are kept.
    ///
    /// The runtime's validation errors have them; a host or tool that builds a validation
    /// error of its own for this tool (an import problem, a rule the schema cannot say) adds
    /// them with this.
    pub fn with_allowed_values(&self, mut err: ToolError) -> ToolError {
        let mut allowed_values = serde_json::Map::new();
        for (field, values) in &self.enums {
            let key = format!("allowed_{}", plural(field));
            if !err.fields().contains_key(&key) {
                err = err.with_field(key, Value::Array(values.clone()));
            }
            allowed_values.insert(field.clone(), Value::Array(values.clone()));
        }
        if !allowed_values.is_empty() && !err.fields().contains_key("allowed_values") {
            err = err.with_field("allowed_values", Value::Object(allowed_values));
        }
        err
    }
}

/// The plural of a parameter name for `allowed_<field>s` keys: `actions`, `prompt_types`,
/// `statuses`, `categories`.
fn plural(field: &str) -> String {
    let consonant_y = field.len() > 1
        && field.ends_with('y')
        && !field[..field.len() - 1].ends_with(['a', 'e', 'i', 'o', 'u']);
    if consonant_y {
        format!("{}ies", &field[..field.len() - 1])
    } else if field.ends_with(['s', 'x', 'z']) || field.ends_with("ch") || field.ends_with("sh") {
        format!("{field}es")
    } else {
        format!("{field}s")
    }
}

/// Turns every float with no fractional part that fits 64 bits (`5.0`, `-2.0`) into the
/// integer it stands for, anywhere in `value`; says whether it changed anything.
fn integral_floats_to_integers(value: &mut Value) -> bool {
    match value {
        Value::Number(n) if n.is_f64() => match n.as_f64().and_then(integer_of) {
            Some(i) => {
                *n = i;
                true
            }
            None => false,
        },
        Value::Array(items) => items
            .iter_mut()
            .fold(false, |changed, v| integral_floats_to_integers(v) | changed),
        Value::Object(members) => members
            .values_mut()
            .fold(false, |changed, v| integral_floats_to_integers(v) | changed),
        _ => false,
    }
}

/// The integer a float with no fraction stands for, when it fits an `i64` or a `u64`.
fn integer_of(f: f64) -> Option<serde_json::Number> {
    if !f.is_finite() || f.fract() != 0.0 {
        return None;
    }
    if (0.0..18_446_744_073_709_551_616.0).contains(&f) {
        Some((f as u64).into())
    } else if (-9_223_372_036_854_775_808.0..0.0).contains(&f) {
        Some((f as i64).into())
    } else {
        None
    }
}

/// The error of a slow path that succeeded without a value (it cannot: the decode that
/// succeeded stored one).
#[cold]
fn not_decoded() -> ToolError {
    ToolError::system("internal error: the arguments were validated but not decoded")
}

/// Whether the arguments are (text of) a JSON object; the fast path is for objects only.
fn is_object(args: &Arguments) -> bool {
    match args {
        // JSON's whitespace only: any other is refused by the parser anyway.
        Arguments::Text(t) => {
            t.bytes()
                .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
                == Some(b'{')
        }
        Arguments::Value(v) => v.is_object(),
    }
}

/// The typed decode straight from text or tree; `None` when it fails or meets an unknown
/// member, so the slow path can explain why.
fn fast_decode<T: DeserializeOwned>(args: &Arguments) -> Option<T> {
    let unknown = Cell::new(false);
    let out = match args {
        Arguments::Text(t) => {
            let mut de = serde_json::Deserializer::from_str(t);
            let v = serde_ignored::deserialize(&mut de, watch(&unknown)).ok()?;
            de.end().ok()?;
            v
        }
        Arguments::Value(v) => serde_ignored::deserialize(v, watch(&unknown)).ok()?,
    };
    (!unknown.get()).then_some(out)
}

/// The callback that notes an ignored member: one type for every input type, so what
/// `serde_ignored` instantiates for the types inside an input is shared between tools.
fn watch(unknown: &Cell<bool>) -> impl FnMut(serde_ignored::Path<'_>) + '_ {
    move |_| unknown.set(true)
}
