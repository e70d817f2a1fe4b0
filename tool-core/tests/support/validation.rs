//! What the validation tests share: the registry of every hand-written tool (with
//! two more whose parameters need JSON pointer escaping or overflow the problem list), the
//! decode that must fail, and the shape of a `search` validation error.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tool_core::{Arguments, ErrorKind, Registry, Tool, ToolContext, ToolError, ToolSpec};

use crate::support::*;

/// A tool whose parameter names need JSON pointer escaping.
pub struct Slashy;

/// Arguments of `slashy`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SlashyArgs {
    /// A name with a slash.
    #[serde(rename = "a/b")]
    _ab: String,
    /// A name with a tilde.
    #[serde(rename = "x~y")]
    _xy: Option<u32>,
}

impl Tool for Slashy {
    type Input = SlashyArgs;
    type Output = Value;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("slashy", "Odd names.")
    }
    async fn call(&self, _: &ToolContext, _: SlashyArgs) -> Result<Value, ToolError> {
        Ok(Value::Null)
    }
}

/// A tool with many optional integer parameters, to overflow the problem list.
pub struct Wide;

/// Arguments of `wide`: forty optional integers.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
pub struct WideArgs {
    p00: Option<u32>,
    p01: Option<u32>,
    p02: Option<u32>,
    p03: Option<u32>,
    p04: Option<u32>,
    p05: Option<u32>,
    p06: Option<u32>,
    p07: Option<u32>,
    p08: Option<u32>,
    p09: Option<u32>,
    p10: Option<u32>,
    p11: Option<u32>,
    p12: Option<u32>,
    p13: Option<u32>,
    p14: Option<u32>,
    p15: Option<u32>,
    p16: Option<u32>,
    p17: Option<u32>,
    p18: Option<u32>,
    p19: Option<u32>,
    p20: Option<u32>,
    p21: Option<u32>,
    p22: Option<u32>,
    p23: Option<u32>,
    p24: Option<u32>,
    p25: Option<u32>,
    p26: Option<u32>,
    p27: Option<u32>,
    p28: Option<u32>,
    p29: Option<u32>,
    p30: Option<u32>,
    p31: Option<u32>,
    p32: Option<u32>,
    p33: Option<u32>,
    p34: Option<u32>,
    p35: Option<u32>,
    p36: Option<u32>,
    p37: Option<u32>,
    p38: Option<u32>,
    p39: Option<u32>,
}

impl Tool for Wide {
    type Input = WideArgs;
    type Output = Value;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("wide", "Many parameters.")
    }
    async fn call(&self, _: &ToolContext, _: WideArgs) -> Result<Value, ToolError> {
        Ok(Value::Null)
    }
}

pub fn all_tools() -> Registry {
    Registry::builder()
        .register(Add)
        .register(Search)
        .register(PromptManager::default())
        .register(Notes)
        .register(Slashy)
        .register(Wide)
        .build()
        .unwrap()
}

/// Validates and decodes `args` as the runtime does, through the erased tool's `start`; the
/// call's future it makes is dropped unrun.
pub fn validate(entry: &tool_core::ToolEntry, args: &Arguments) -> Result<(), ToolError> {
    let ctx = tool_core::ToolContext::detached(entry.name(), tool_core::Services::new());
    entry.tool().start(&ctx, args, entry.schema()).map(drop)
}

/// Validates through the erased tool; returns the error.
pub fn invalid(tool: &str, args: impl Into<Arguments>) -> ToolError {
    let registry = all_tools();
    let entry = registry.get(tool).unwrap();
    match validate(entry, &args.into()) {
        Ok(_) => panic!("expected a validation error"),
        Err(e) => {
            assert_eq!(e.kind(), ErrorKind::ValidationError, "{}", e.to_json());
            let example = e.fields().get("example").and_then(Value::as_str);
            assert!(
                example.is_some_and(|ex| ex.starts_with(&format!("{tool}("))),
                "every validation error carries an example call: {}",
                e.to_json()
            );
            e
        }
    }
}

/// `(path, message)` of every problem.
pub fn problems(e: &ToolError) -> Vec<(String, String)> {
    e.problems()
        .iter()
        .map(|p| (p.path.clone(), p.message.clone()))
        .collect()
}

pub fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

pub const SEARCH_EXAMPLE: &str = r#"search(query="...", corpus="code", limit=1)"#;

pub fn search_fields() -> Value {
    json!({
        "allowed_corpuses": ["code", "docs", "issues"],
        "allowed_sorts": ["relevance", "newest", "oldest"],
        "allowed_values": {
            "corpus": ["code", "docs", "issues"],
            "sort": ["relevance", "newest", "oldest"]
        },
        "example": SEARCH_EXAMPLE,
    })
}

/// The full JSON of a `search` validation error.
pub fn search_error(error: &str, problems: Value, did_you_mean: &str) -> Value {
    let mut v = json!({
        "type": "error",
        "error_type": "validation_error",
        "error": error,
        "problems": problems,
        "suggestion": format!("{did_you_mean}Example: {SEARCH_EXAMPLE}"),
    });
    for (k, f) in search_fields().as_object().unwrap() {
        v[k] = f.clone();
    }
    v
}
