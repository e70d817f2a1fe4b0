//! The rule table: each provider's documented rules for a tool definition, as data (see the
//! parent module for the sources, and for why the tables do not reuse the library's own
//! constants).

use super::Rules;
use crate::provider::Format;

pub(super) fn name_64(n: &str) -> bool {
    !n.is_empty()
        && n.len() <= 64
        && n.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn name_gemini(n: &str) -> bool {
    let mut cs = n.chars();
    matches!(cs.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && n.len() <= 64
        && cs.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-'))
}

fn name_mcp(n: &str) -> bool {
    !n.is_empty()
        && n.len() <= 128
        && n.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

const STRICT_ALLOWED: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "description",
    "pattern",
    "format",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "minItems",
    "maxItems",
];

const STRICT_FORBIDDEN: &[&str] = &[
    "$schema",
    "$ref",
    "$defs",
    "definitions",
    "oneOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "patternProperties",
    "prefixItems",
    "default",
];

const STRICT_FORMATS: &[(&str, &[&str])] = &[
    (
        "string",
        &[
            "date-time",
            "time",
            "date",
            "duration",
            "email",
            "hostname",
            "ipv4",
            "ipv6",
            "uuid",
        ],
    ),
    ("integer", &[]),
    ("number", &[]),
];

// Anthropic's strict tool use: no numeric or length constraints, `minItems` 0 or 1 only.
const ANTHROPIC_STRICT_ALLOWED: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minItems",
    "enum",
    "const",
    "default",
    "anyOf",
    "description",
    "pattern",
    "format",
];

const ANTHROPIC_STRICT_FORBIDDEN: &[&str] = &["$schema", "$ref", "$defs", "oneOf", "allOf"];

const ANTHROPIC_STRICT_FORMATS: &[(&str, &[&str])] = &[(
    "string",
    &[
        "date-time",
        "time",
        "date",
        "duration",
        "email",
        "hostname",
        "uri",
        "ipv4",
        "ipv6",
        "uuid",
    ],
)];

const GEMINI_ALLOWED: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "anyOf",
    "items",
    "minimum",
    "maximum",
];

const GEMINI_FORBIDDEN: &[&str] = &[
    "$ref",
    "$defs",
    "definitions",
    "$schema",
    "additionalProperties",
    "const",
    "oneOf",
    "allOf",
    "prefixItems",
    "patternProperties",
];

const GEMINI_FORMATS: &[(&str, &[&str])] = &[
    ("string", &["date-time", "enum"]),
    ("number", &["float", "double"]),
    ("integer", &["int32", "int64"]),
];

const BASE: Rules = Rules {
    format: Format::Json,
    variant: "",
    required_fields: &[],
    allowed_fields: &[],
    fixed: &[],
    schema_at: "",
    schema_optional: false,
    forbidden: &[],
    allowed: None,
    formats: None,
    strict_objects: false,
    closed_objects: false,
    type_arrays: true,
    string_enums_only: false,
    typed_nodes: false,
    non_empty_objects: false,
    max_object_depth: None,
    name_ok: name_64,
};

/// The rule table.
pub(crate) const RULES: &[Rules] = &[
    Rules {
        format: Format::Json,
        required_fields: &["/name", "/description", "/input_schema", "/annotations"],
        schema_at: "/input_schema",
        ..BASE
    },
    Rules {
        format: Format::Openai,
        required_fields: &[
            "/type",
            "/function/name",
            "/function/description",
            "/function/parameters",
        ],
        allowed_fields: &["type", "function"],
        fixed: &[
            ("/type", "\"function\""),
            ("/function/parameters/type", "\"object\""),
        ],
        schema_at: "/function/parameters",
        forbidden: &["$schema"],
        ..BASE
    },
    Rules {
        format: Format::OpenaiStrict,
        required_fields: &[
            "/type",
            "/function/name",
            "/function/parameters",
            "/function/strict",
        ],
        allowed_fields: &["type", "function"],
        fixed: &[
            ("/type", "\"function\""),
            ("/function/strict", "true"),
            ("/function/parameters/type", "\"object\""),
            ("/function/parameters/additionalProperties", "false"),
        ],
        schema_at: "/function/parameters",
        forbidden: STRICT_FORBIDDEN,
        allowed: Some(STRICT_ALLOWED),
        formats: Some(STRICT_FORMATS),
        strict_objects: true,
        typed_nodes: true,
        max_object_depth: Some(10),
        ..BASE
    },
    Rules {
        format: Format::OpenaiResponses,
        variant: "strict",
        required_fields: &["/type", "/name", "/parameters", "/strict"],
        allowed_fields: &[
            "type",
            "name",
            "description",
            "parameters",
            "strict",
            "defer_loading",
        ],
        fixed: &[
            ("/type", "\"function\""),
            ("/strict", "true"),
            ("/parameters/type", "\"object\""),
        ],
        schema_at: "/parameters",
        forbidden: STRICT_FORBIDDEN,
        allowed: Some(STRICT_ALLOWED),
        formats: Some(STRICT_FORMATS),
        strict_objects: true,
        typed_nodes: true,
        max_object_depth: Some(10),
        ..BASE
    },
    Rules {
        format: Format::OpenaiResponses,
        variant: "plain",
        required_fields: &["/type", "/name", "/parameters", "/strict"],
        allowed_fields: &[
            "type",
            "name",
            "description",
            "parameters",
            "strict",
            "defer_loading",
        ],
        fixed: &[
            ("/type", "\"function\""),
            ("/strict", "false"),
            ("/parameters/type", "\"object\""),
        ],
        schema_at: "/parameters",
        forbidden: &["$schema"],
        ..BASE
    },
    Rules {
        format: Format::Anthropic,
        required_fields: &["/name", "/input_schema"],
        allowed_fields: &[
            "name",
            "description",
            "input_schema",
            "input_examples",
            "allowed_callers",
            "defer_loading",
        ],
        fixed: &[("/input_schema/type", "\"object\"")],
        schema_at: "/input_schema",
        forbidden: &["$schema"],
        ..BASE
    },
    Rules {
        format: Format::AnthropicStrict,
        required_fields: &["/name", "/input_schema", "/strict"],
        allowed_fields: &[
            "name",
            "description",
            "input_schema",
            "strict",
            "input_examples",
            "allowed_callers",
            "defer_loading",
        ],
        fixed: &[("/strict", "true"), ("/input_schema/type", "\"object\"")],
        schema_at: "/input_schema",
        forbidden: ANTHROPIC_STRICT_FORBIDDEN,
        allowed: Some(ANTHROPIC_STRICT_ALLOWED),
        formats: Some(ANTHROPIC_STRICT_FORMATS),
        closed_objects: true,
        ..BASE
    },
    Rules {
        format: Format::Gemini,
        required_fields: &["/name", "/description"],
        allowed_fields: &["name", "description", "parameters"],
        schema_at: "/parameters",
        schema_optional: true,
        forbidden: GEMINI_FORBIDDEN,
        allowed: Some(GEMINI_ALLOWED),
        formats: Some(GEMINI_FORMATS),
        type_arrays: false,
        string_enums_only: true,
        typed_nodes: true,
        non_empty_objects: true,
        name_ok: name_gemini,
        ..BASE
    },
    Rules {
        format: Format::Mcp,
        required_fields: &["/name", "/inputSchema", "/annotations"],
        allowed_fields: &[
            "name",
            "title",
            "description",
            "inputSchema",
            "outputSchema",
            "annotations",
        ],
        fixed: &[("/inputSchema/type", "\"object\"")],
        schema_at: "/inputSchema",
        name_ok: name_mcp,
        ..BASE
    },
];
