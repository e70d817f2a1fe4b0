//! Point 2: `ToolSpec`: the name rules, every field, and `check()`.

use std::time::Duration;

use serde_json::json;
use tool_core::{
    ActionSet, ActionSpec, Annotations, MAX_NAME_LEN, Mode, Permission, PermissionSet, SpecError,
    ToolSpec, validate_name,
};

fn invalid_name(name: &str) -> String {
    match validate_name(name) {
        Err(SpecError::InvalidName { name: n, reason }) => {
            assert_eq!(n, name);
            reason
        }
        other => panic!("expected InvalidName for {name:?}, got {other:?}"),
    }
}

#[test]
fn names_of_1_to_64_allowed_characters_pass() {
    for ok in ["a", "read_file", "web-search", "A1_b-2", "_", "-", "0"] {
        assert_eq!(validate_name(ok), Ok(()), "{ok}");
    }
    let max = "a".repeat(MAX_NAME_LEN);
    assert_eq!(MAX_NAME_LEN, 64);
    assert_eq!(validate_name(&max), Ok(()));
}

#[test]
fn bad_names_say_why() {
    assert_eq!(
        invalid_name(""),
        "it is empty; use 1 to 64 characters of [A-Za-z0-9_-]"
    );
    assert_eq!(
        invalid_name(&"a".repeat(65)),
        "it is 65 characters long; the limit is 64"
    );
    assert_eq!(
        invalid_name("read file"),
        "' ' is not allowed; use only [A-Za-z0-9_-]"
    );
    assert_eq!(
        invalid_name("web.search"),
        "'.' is not allowed; use only [A-Za-z0-9_-]"
    );
    assert_eq!(
        invalid_name("fichier_é"),
        "'é' is not allowed; use only [A-Za-z0-9_-]"
    );
    assert_eq!(
        invalid_name("日本"),
        "'日' is not allowed; use only [A-Za-z0-9_-]"
    );
    // 40 characters but 80 bytes: the problem is the characters, not the length.
    assert_eq!(
        invalid_name(&"é".repeat(40)),
        "'é' is not allowed; use only [A-Za-z0-9_-]"
    );
    // Too long AND a bad character: the length is reported in characters.
    assert_eq!(
        invalid_name(&"é".repeat(70)),
        "'é' is not allowed; use only [A-Za-z0-9_-]"
    );
    let display = validate_name("a b").unwrap_err().to_string();
    assert_eq!(
        display,
        "invalid tool name \"a b\": ' ' is not allowed; use only [A-Za-z0-9_-]"
    );
}

#[test]
fn every_field_is_set_by_the_builder() {
    let actions = ActionSet::new(
        "action",
        vec![
            ActionSpec::new("view", "View it.")
                .required("kind")
                .read_only(true),
            ActionSpec::new("update", "Change it.")
                .required("kind")
                .optional("note")
                .permission(Permission::WriteFiles)
                .requires_approval(true),
        ],
    );
    let spec = ToolSpec::new("thing", "Do things.")
        .title("Thing")
        .input_schema(json!({"type": "object", "properties": {"action": {"type": "string"}}}))
        .modes([Mode::Agent, Mode::Cli])
        .permission(Permission::ReadFiles)
        .requires_approval(false)
        .category("files")
        .toolset("core")
        .toolset("extra")
        .alias("old_thing")
        .user_facing(false)
        .annotations(Annotations::new().idempotent(true).open_world(true))
        .timeout(Duration::from_millis(1500))
        .actions(actions.clone());
    assert_eq!(spec.name, "thing");
    assert_eq!(spec.title.as_deref(), Some("Thing"));
    assert_eq!(spec.description, "Do things.");
    assert_eq!(spec.input_schema["properties"]["action"]["type"], "string");
    assert_eq!(spec.output_schema, None);
    assert_eq!(spec.modes, vec![Mode::Agent, Mode::Cli]);
    assert!(spec.supports_mode(Mode::Cli));
    assert!(!spec.supports_mode(Mode::Mcp));
    assert_eq!(
        spec.permissions,
        PermissionSet::EMPTY.with(Permission::ReadFiles)
    );
    assert!(!spec.requires_approval);
    assert_eq!(spec.category.as_deref(), Some("files"));
    assert_eq!(spec.toolsets, vec!["core", "extra"]);
    assert_eq!(spec.aliases, vec!["old_thing"]);
    assert!(!spec.user_facing);
    let a = spec.annotations;
    assert_eq!(
        (a.read_only, a.destructive, a.idempotent, a.open_world),
        (false, false, true, true)
    );
    assert_eq!(spec.timeout, Some(Duration::from_millis(1500)));
    assert_eq!(spec.actions.as_ref(), Some(&actions));
    assert_eq!(spec.check(), Ok(()));

    // Per-action permissions and approval.
    assert_eq!(
        spec.required_permissions(Some("update")),
        PermissionSet::EMPTY
            .with(Permission::ReadFiles)
            .with(Permission::WriteFiles)
    );
    assert_eq!(
        spec.required_permissions(Some("view")),
        PermissionSet::EMPTY.with(Permission::ReadFiles)
    );
    assert_eq!(
        spec.required_permissions(Some("nope")),
        PermissionSet::EMPTY.with(Permission::ReadFiles)
    );
    assert!(spec.needs_approval(Some("update")));
    assert!(!spec.needs_approval(Some("view")));
    assert!(!spec.needs_approval(None));
    let set = spec.actions.as_ref().unwrap();
    assert_eq!(set.names().collect::<Vec<_>>(), vec!["view", "update"]);
    assert!(set.get("update").unwrap().takes("note"));
    assert!(!set.get("view").unwrap().takes("note"));
}

#[test]
fn defaults_of_a_new_spec() {
    let spec = ToolSpec::new("x", "X.");
    assert_eq!(spec.title, None);
    assert_eq!(
        *spec.input_schema,
        json!({"type": "object", "properties": {}})
    );
    assert!(spec.modes.is_empty());
    for m in Mode::ALL {
        assert!(spec.supports_mode(*m), "empty modes means every mode: {m}");
    }
    assert!(spec.permissions.is_empty());
    assert!(!spec.requires_approval);
    assert_eq!(spec.category, None);
    assert!(spec.toolsets.is_empty());
    assert!(spec.aliases.is_empty());
    assert!(spec.user_facing);
    assert_eq!(spec.annotations, Annotations::default());
    assert_eq!(spec.timeout, None);
    assert_eq!(spec.actions, None);
    assert_eq!(spec.check(), Ok(()));
}

#[test]
fn closed_sets_parse_and_list_what_they_accept() {
    assert_eq!(Mode::parse("mcp"), Ok(Mode::Mcp));
    assert_eq!("cli".parse::<Mode>(), Ok(Mode::Cli));
    assert_eq!(
        Mode::parse("server").unwrap_err().to_string(),
        "unknown mode \"server\"; expected one of: agent, mcp, cli"
    );
    assert_eq!(Permission::parse("network"), Ok(Permission::Network));
    assert_eq!(
        Permission::parse("root").unwrap_err(),
        SpecError::UnknownValue {
            what: "permission",
            value: "root".into(),
            allowed: vec![
                "read_files",
                "write_files",
                "delete_files",
                "execute_commands",
                "network",
                "view_prompts",
                "manage_prompts"
            ],
        }
    );
    let all = PermissionSet::all();
    assert_eq!(all.iter().count(), Permission::ALL.len());
    let some = PermissionSet::EMPTY.with(Permission::Network);
    assert_eq!(some.missing(&all).iter().count(), Permission::ALL.len() - 1);
    assert_eq!(serde_json::to_value(some).unwrap(), json!(["network"]));
    assert_eq!(
        serde_json::from_value::<PermissionSet>(json!(["network", "read_files"])).unwrap(),
        some.with(Permission::ReadFiles)
    );
}

fn check_err(spec: &ToolSpec) -> String {
    match spec.check() {
        Err(SpecError::Invalid { tool, reason }) => {
            assert_eq!(tool, spec.name);
            reason
        }
        other => panic!("expected Invalid, got {other:?}"),
    }
}

#[test]
fn check_refuses_self_contradictions() {
    assert_eq!(
        check_err(&ToolSpec::new("web", "W.").alias("web")),
        "alias `web` is the tool's own name"
    );
    assert_eq!(
        check_err(
            &ToolSpec::new("rm", "R.")
                .annotations(Annotations::new().read_only(true).destructive(true))
        ),
        "a tool cannot be both read_only and destructive"
    );
    assert_eq!(
        check_err(&ToolSpec::new("poly", "P.").actions(ActionSet::new("action", vec![]))),
        "a polymorphic tool needs at least one action"
    );
    assert_eq!(
        check_err(&ToolSpec::new("poly", "P.").actions(ActionSet::new(
            "action",
            vec![
                ActionSpec::new("a", "A."),
                ActionSpec::new("b", "B."),
                ActionSpec::new("a", "again")
            ]
        ))),
        "action `a` is declared twice"
    );
    assert_eq!(
        check_err(&ToolSpec::new("arr", "A.").input_schema(json!({"type": "array"}))),
        "the input schema's root must be `{\"type\": \"object\"}`"
    );
    assert_eq!(
        check_err(
            &ToolSpec::new("none", "N.").input_schema(json!({"anyOf": [{"type": "object"}]}))
        ),
        "the input schema's root must be `{\"type\": \"object\"}`"
    );
    assert_eq!(
        check_err(&ToolSpec::new("dup", "D.").alias("old").alias("old")),
        "alias `old` is listed twice"
    );
    // Names of the tool, its aliases and its actions follow the naming rule.
    assert!(matches!(
        ToolSpec::new("bad name", "B.").check(),
        Err(SpecError::InvalidName { name, .. }) if name == "bad name"
    ));
    assert!(matches!(
        ToolSpec::new("ok", "O.").alias("old name").check(),
        Err(SpecError::InvalidName { name, .. }) if name == "old name"
    ));
    assert!(matches!(
        ToolSpec::new("ok", "O.")
            .actions(ActionSet::new("action", vec![ActionSpec::new("do it", "D.")]))
            .check(),
        Err(SpecError::InvalidName { name, .. }) if name == "do it"
    ));
    // read_only alone, destructive alone are fine.
    assert_eq!(
        ToolSpec::new("r", "R.")
            .annotations(Annotations::new().read_only(true))
            .check(),
        Ok(())
    );
    assert_eq!(
        ToolSpec::new("d", "D.")
            .annotations(Annotations::new().destructive(true))
            .check(),
        Ok(())
    );
}
