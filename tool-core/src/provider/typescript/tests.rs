//! The declarations of small schemas, checked word for word.

use std::sync::Arc;

use serde_json::json;

use super::*;

#[test]
fn member_with_required_optional_and_defaulted_params() {
    let spec = ToolSpec::new("read_file", "Read files.").input_schema(json!({
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "The */ file.", "examples": ["a.rs"]},
            "offset": {"type": "integer", "minimum": 0, "default": 0},
            "limit": {"type": ["integer", "null"], "minimum": 1, "maximum": 500,
                      "description": "Lines."}
        },
        "required": ["path"],
        "additionalProperties": false
    }));
    let want = "  /**\n   * Read files.\n   */\n  read_file(input: {\n    /** The *\\/ file. \
        Example: `\"a.rs\"`. */\n    path: string;\n    /** Must be an integer of at least 0. Default: `0`. */\n    \
        offset?: number;\n    /** Lines. Must be an integer from 1 to 500. */\n    limit?: number | null;\n  \
        }): Promise<unknown>;\n";
    assert_eq!(tool_member(&spec).unwrap(), want);
}

#[test]
fn types_of_schemas() {
    let root = json!({"$defs": {"Node": {"type": "string"}, "2d": true}});
    let object_x = json!({"type": "object", "properties": {"x": {"type": "boolean"}},
                          "required": ["x"]});
    let cases = [
        (
            json!({"type": "string", "enum": ["a", "b\"c"]}),
            r#""a" | "b\"c""#,
        ),
        (json!({"type": ["string", "null"]}), "string | null"),
        (json!({"type": "integer", "enum": [1, -2]}), "1 | -2"),
        (json!({"enum": ["a", 1, null]}), r#""a" | 1 | null"#),
        (
            json!({"type": "string", "oneOf": [{"const": "fast"}, {"enum": ["safe"]}]}),
            r#""fast" | "safe""#,
        ),
        (json!({}), "unknown"),
        (json!(true), "unknown"),
        (json!(false), "never"),
        (
            json!({"items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}),
            "(string | number)[]",
        ),
        (
            json!({"type": ["array", "null"], "items": {"type": "number"}}),
            "number[] | null",
        ),
        (json!({"type": "array", "items": {"enum": [-1]}}), "(-1)[]"),
        (json!({"type": "array"}), "unknown[]"),
        (
            json!({"prefixItems": [{"type": "string"}, {"type": "number"}], "items": false,
                "minItems": 1}),
            "[string, number?]",
        ),
        (
            json!({"type": "object", "additionalProperties": {"type": "integer"}}),
            "{ [key: string]: number }",
        ),
        (json!({"type": "object"}), "{ [key: string]: unknown }"),
        (
            json!({"type": "object", "additionalProperties": false}),
            "Record<string, never>",
        ),
        (
            json!({"properties": {"my-key": {"type": "boolean"}}, "additionalProperties": {}}),
            "{\n  \"my-key\"?: boolean;\n  [key: string]: unknown;\n}",
        ),
        (json!({"$ref": "#/$defs/Node"}), "Node"),
        (json!({"$ref": "#/$defs/2d"}), "_2d"),
        (
            json!({"allOf": [{"$ref": "#/$defs/Node"}, {"anyOf": [object_x, {"type": "null"}]}]}),
            "Node & ({\n  x: boolean;\n} | null)",
        ),
        (json!({"$ref": "#/$defs/Gone"}), "unknown"),
        (json!({"$ref": "other.json"}), "unknown"),
    ];
    for (schema, want) in cases {
        assert_eq!(type_of(&root, &schema), want, "{schema}");
    }
}

#[test]
fn file_with_recursive_aliases_quoted_names_and_outputs() {
    let outline = ToolSpec::new("outline", "Make an outline.").input_schema(json!({
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/Node", "description": "The root."}},
        "required": ["root"],
        "$defs": {"Node": {"description": "A node.", "type": "object", "properties": {
            "label": {"type": "string"},
            "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
        }, "required": ["label"]}}
    }));
    let dash = ToolSpec::new("tool-with-dash", "Ends here */ and\nmore.").text_output(true);
    let mut read = ToolSpec::new("read", "Read.")
        .input_schema(json!({"type": "object", "additionalProperties": false}));
    read.output_schema = Some(Arc::new(json!({
        "type": "object",
        "properties": {"files": {"type": "array", "items": {"$ref": "#/$defs/File"}}},
        "required": ["files"],
        "$defs": {"File": {"type": "object", "properties": {"path": {"type": "string"}}}}
    })));
    let want = "// Tool declarations for code mode: call `await tools.NAME(input)`.\n\
        // Generated from the tools' JSON schemas; every call is still validated by the \
        host.\n\n/** A node. */\ntype Outline_Node = {\n  label: string;\n  \
        children?: Outline_Node[];\n};\n\ntype ReadOutput_File = {\n  path?: string;\n};\n\n\
        declare const tools: {\n  /**\n   * Make an outline.\n   */\n  outline(input: {\n    \
        /** The root. */\n    root: Outline_Node;\n  }): Promise<unknown>;\n\n  /**\n   * \
        Ends here *\\/ and\n   * more.\n   */\n  \"tool-with-dash\"(input: { [key: string]: \
        unknown }): Promise<string>;\n\n  /**\n   * Read.\n   */\n  read(input: \
        Record<string, never>): Promise<{\n    files: ReadOutput_File[];\n  }>;\n};\n";
    assert_eq!(declarations([&outline, &dash, &read]).unwrap(), want);
    let dup = declarations([&dash, &dash]).unwrap_err();
    assert!(matches!(dup, ExportError::Unsupported { .. }), "{dup}");
}

#[test]
fn bad_schemas_are_errors() {
    let bad = |schema: Value| tool_member(&ToolSpec::new("t", "T.").input_schema(schema));
    let err = bad(json!({"properties": {"a": {"$ref": "#/$defs/Gone"}}})).unwrap_err();
    assert!(
        matches!(&err, ExportError::UnresolvedRef { path, .. } if path == "/properties/a"),
        "{err}"
    );
    let not_def = json!({"properties": {"a": true, "b": {"$ref": "#/properties/a"}}});
    let cycle = json!({"$defs": {"A": {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "null"}]}}});
    for schema in [not_def, cycle] {
        let err = bad(schema).unwrap_err();
        assert!(matches!(err, ExportError::Unsupported { .. }), "{err}");
    }
    let mut deep = json!({"type": "string"});
    for _ in 0..70 {
        deep = json!({"type": "array", "items": deep});
    }
    assert!(type_of(&json!({}), &deep).starts_with("unknown[]"));
    let err = bad(json!({"properties": {"d": deep}})).unwrap_err();
    assert!(matches!(err, ExportError::LimitExceeded { .. }), "{err}");
}
