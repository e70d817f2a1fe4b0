//! Point 3: the registry: explicit and inventory registration, name clashes naming both
//! places, lookup by name and alias, filters, deterministic order.

use serde_json::Value;
use tool_core::{
    Mode, Permission, PermissionSet, Registry, RegistryError, Render, SpecError, Tool, ToolContext,
    ToolError, ToolFilter, ToolSpec,
};

use crate::support::*;

fn named(name: &'static str) -> Named {
    Named(ToolSpec::new(name, "A tool."))
}

/// Submitted to inventory from this module.
#[derive(Default)]
struct InventoryProbe;

#[derive(serde::Serialize, schemars::JsonSchema)]
struct ProbeOut {
    ok: bool,
}
impl Render for ProbeOut {}

impl Tool for InventoryProbe {
    type Input = tool_core::NoArgs;
    type Output = ProbeOut;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("inventory_probe", "Proves inventory collection works.").alias("probe_old")
    }
    async fn call(&self, _: &ToolContext, _: tool_core::NoArgs) -> Result<ProbeOut, ToolError> {
        Ok(ProbeOut { ok: true })
    }
}

// The line below is `PROBE_LINE`.
tool_core::submit_tool!(InventoryProbe);
const PROBE_LINE: u32 = line!() - 1;

#[test]
fn inventory_collects_submitted_tools() {
    let registry = Registry::from_inventory().expect("inventory builds");
    let entry = registry
        .get("inventory_probe")
        .expect("the submitted tool is found");
    assert_eq!(entry.location(), format!("{}:{PROBE_LINE}", file!()));
    assert_eq!(registry.get("probe_old").unwrap().name(), "inventory_probe");
    // Without `with_inventory`, a builder sees only what it was given.
    let explicit = Registry::builder().register(Add).build().unwrap();
    assert!(explicit.get("inventory_probe").is_none());
    // Both together.
    let both = Registry::builder()
        .register(Add)
        .with_inventory()
        .build()
        .unwrap();
    assert_eq!(
        both.iter().map(|e| e.name()).collect::<Vec<_>>(),
        vec!["add", "inventory_probe"]
    );
}

#[test]
fn an_explicit_registration_clashing_with_inventory_names_both_places() {
    let line = line!() + 2;
    let err = Registry::builder()
        .register(named("inventory_probe"))
        .with_inventory()
        .build()
        .unwrap_err();
    let here = format!("{}:{line}", file!());
    let probe = format!("{}:{PROBE_LINE}", file!());
    match &err {
        RegistryError::Duplicate {
            name,
            first,
            second,
        } => {
            assert_eq!(name, "inventory_probe");
            let mut places = vec![first.clone(), second.clone()];
            places.sort();
            let mut want = vec![here.clone(), probe.clone()];
            want.sort();
            assert_eq!(places, want);
        }
        other => panic!("expected Duplicate, got {other:?}"),
    }
}

#[test]
fn builder_registration_and_lookup_by_name_and_alias() {
    let registry = Registry::builder()
        .register(Add)
        .register(PromptManager::default())
        .build()
        .unwrap();
    assert_eq!(registry.len(), 2);
    assert!(!registry.is_empty());
    assert_eq!(registry.get("add").unwrap().name(), "add");
    assert_eq!(
        registry.get("view_system_prompt").unwrap().name(),
        "prompt_manager"
    );
    assert_eq!(
        registry.get("update_system_prompt").unwrap().name(),
        "prompt_manager"
    );
    assert!(registry.get("Add").is_none(), "lookup is exact");
    assert!(registry.get("nope").is_none());
    assert_eq!(
        registry.renames(),
        vec![(
            "prompt_manager".to_owned(),
            vec![
                "view_system_prompt".to_owned(),
                "update_system_prompt".to_owned()
            ]
        )]
    );
    // The spec and compiled schema are kept.
    let entry = registry.get("add").unwrap();
    assert_eq!(entry.spec().parameter_names(), vec!["a", "b"]);
    assert_eq!(entry.schema().schema(), &*entry.spec().input_schema);
    assert!(Registry::builder().build().unwrap().is_empty());
}

#[test]
fn duplicate_names_name_both_places() {
    let first_line = line!() + 2;
    let err = Registry::builder()
        .register(named("dup"))
        .register(Add)
        .register(named("dup"))
        .build()
        .unwrap_err();
    let second_line = first_line + 2;
    assert_eq!(
        err,
        RegistryError::Duplicate {
            name: "dup".into(),
            first: format!("{}:{first_line}", file!()),
            second: format!("{}:{second_line}", file!()),
        }
    );
    assert_eq!(
        err.to_string(),
        format!(
            "tool name `dup` is registered twice: at {f}:{first_line} and at {f}:{second_line}; \
             rename one of them or drop the alias",
            f = file!()
        )
    );
}

#[test]
fn an_alias_clashing_with_a_name_names_both_places() {
    let line = line!() + 2;
    let err = Registry::builder()
        .register(Named(ToolSpec::new("web", "W.").alias("fetch")))
        .register(named("fetch"))
        .build()
        .unwrap_err();
    let f = file!();
    let RegistryError::Duplicate {
        name,
        first,
        second,
    } = err
    else {
        panic!("expected Duplicate, got {err:?}")
    };
    assert_eq!(name, "fetch");
    // Whichever comes first in the sorted order, both places are named.
    let mut got = vec![first, second];
    got.sort();
    let mut want = vec![
        format!("{f}:{}", line + 1),
        format!("{f}:{line} (alias of `web`)"),
    ];
    want.sort();
    assert_eq!(got, want);

    // Two tools sharing an alias.
    let line = line!() + 2;
    let err = Registry::builder()
        .register(Named(ToolSpec::new("a", "A.").alias("old")))
        .register(Named(ToolSpec::new("b", "B.").alias("old")))
        .build()
        .unwrap_err();
    assert_eq!(
        err,
        RegistryError::Duplicate {
            name: "old".into(),
            first: format!("{f}:{line} (alias of `a`)"),
            second: format!("{f}:{} (alias of `b`)", line + 1),
        }
    );
}

#[test]
fn invalid_names_are_errors_at_build_with_the_place() {
    let line = line!() + 2;
    let err = Registry::builder()
        .register(named("no spaces"))
        .build()
        .unwrap_err();
    assert_eq!(
        err,
        RegistryError::Spec {
            location: format!("{}:{line}", file!()),
            error: SpecError::InvalidName {
                name: "no spaces".into(),
                reason: "' ' is not allowed; use only [A-Za-z0-9_-]".into(),
            },
        }
    );
    assert_eq!(
        err.to_string(),
        format!(
            "invalid tool name \"no spaces\": ' ' is not allowed; use only [A-Za-z0-9_-] \
             (registered at {}:{line})",
            file!()
        )
    );
    let err = Registry::builder().register(named("")).build().unwrap_err();
    assert!(
        matches!(
            err,
            RegistryError::Spec {
                error: SpecError::InvalidName { .. },
                ..
            }
        ),
        "{err:?}"
    );
    let long: &'static str = Box::leak("x".repeat(65).into_boxed_str());
    let err = Registry::builder()
        .register(named(long))
        .build()
        .unwrap_err();
    assert!(
        matches!(
            err,
            RegistryError::Spec {
                error: SpecError::InvalidName { .. },
                ..
            }
        ),
        "{err:?}"
    );
}

/// A tool whose input schema is broken.
struct Broken;

impl Tool for Broken {
    type Input = tool_core::NoArgs;
    type Output = Value;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("broken", "B.")
    }
    fn input_schema(&self) -> Value {
        serde_json::json!({"type": "object", "properties": {"x": {"type": "strin"}}})
    }
    async fn call(&self, _: &ToolContext, _: tool_core::NoArgs) -> Result<Value, ToolError> {
        Ok(Value::Null)
    }
}

#[test]
fn a_schema_that_does_not_compile_is_an_error() {
    let err = Registry::builder().register(Broken).build().unwrap_err();
    let RegistryError::Schema { tool, message } = &err else {
        panic!("expected Schema, got {err:?}")
    };
    assert_eq!(tool, "broken");
    assert!(message.contains("strin"), "{message}");
    assert!(
        err.to_string()
            .starts_with("tool `broken`: its input schema does not compile: "),
        "{err}"
    );
}

fn registry_for_filters() -> Registry {
    Registry::builder()
        .register(Named(
            ToolSpec::new("zeta", "Z.")
                .modes([Mode::Agent])
                .category("search")
                .toolset("core")
                .permission(Permission::ReadFiles),
        ))
        .register(Named(
            ToolSpec::new("alpha", "A.")
                .modes([Mode::Mcp, Mode::Cli])
                .category("files")
                .toolset("core")
                .toolset("write")
                .permission(Permission::ReadFiles)
                .permission(Permission::WriteFiles),
        ))
        .register(Named(ToolSpec::new("mid", "M.").category("search")))
        .register(Named(
            ToolSpec::new("beta", "B.")
                .modes([Mode::Agent, Mode::Mcp])
                .toolset("web")
                .permission(Permission::Network),
        ))
        .build()
        .unwrap()
}

fn names(registry: &Registry, filter: ToolFilter) -> Vec<String> {
    registry
        .filter(&filter)
        .map(|e| e.name().to_owned())
        .collect()
}

#[test]
fn order_is_sorted_whatever_the_registration_order() {
    let registry = registry_for_filters();
    assert_eq!(
        registry.iter().map(|e| e.name()).collect::<Vec<_>>(),
        vec!["alpha", "beta", "mid", "zeta"]
    );
    let reversed = Registry::builder()
        .register(named("c"))
        .register(named("b"))
        .register(named("a"))
        .build()
        .unwrap();
    assert_eq!(
        reversed.iter().map(|e| e.name()).collect::<Vec<_>>(),
        vec!["a", "b", "c"]
    );
}

#[test]
fn filters_by_mode_toolset_category_and_permissions() {
    let r = registry_for_filters();
    assert_eq!(
        names(&r, ToolFilter::all()),
        vec!["alpha", "beta", "mid", "zeta"]
    );
    assert_eq!(
        names(&r, ToolFilter::all().mode(Mode::Agent)),
        vec!["beta", "mid", "zeta"]
    );
    assert_eq!(
        names(&r, ToolFilter::all().mode(Mode::Mcp)),
        vec!["alpha", "beta", "mid"]
    );
    assert_eq!(
        names(&r, ToolFilter::all().mode(Mode::Cli)),
        vec!["alpha", "mid"]
    );
    assert_eq!(r.names_in_mode(Mode::Cli), vec!["alpha", "mid"]);
    assert_eq!(
        names(&r, ToolFilter::all().toolset("core")),
        vec!["alpha", "zeta"]
    );
    assert_eq!(names(&r, ToolFilter::all().toolset("write")), vec!["alpha"]);
    assert_eq!(
        names(&r, ToolFilter::all().toolset("none")),
        Vec::<String>::new()
    );
    assert_eq!(
        names(&r, ToolFilter::all().category("search")),
        vec!["mid", "zeta"]
    );
    assert_eq!(
        names(&r, ToolFilter::all().category("files")),
        vec!["alpha"]
    );
    let reader = PermissionSet::EMPTY.with(Permission::ReadFiles);
    assert_eq!(
        names(&r, ToolFilter::all().permissions(reader)),
        vec!["mid", "zeta"]
    );
    let writer = reader.with(Permission::WriteFiles);
    assert_eq!(
        names(&r, ToolFilter::all().permissions(writer)),
        vec!["alpha", "mid", "zeta"]
    );
    assert_eq!(
        names(&r, ToolFilter::all().permissions(PermissionSet::EMPTY)),
        vec!["mid"]
    );
    assert_eq!(
        names(&r, ToolFilter::all().permissions(PermissionSet::all())),
        vec!["alpha", "beta", "mid", "zeta"]
    );
    // Combined.
    assert_eq!(
        names(
            &r,
            ToolFilter::all()
                .mode(Mode::Agent)
                .category("search")
                .permissions(reader)
        ),
        vec!["mid", "zeta"]
    );
    assert_eq!(
        names(
            &r,
            ToolFilter::all()
                .mode(Mode::Mcp)
                .toolset("core")
                .permissions(reader)
        ),
        Vec::<String>::new()
    );
}

#[test]
fn argument_aliases_name_a_parameter_and_are_no_parameter_themselves() {
    let spec = |aliases: &[(&'static str, &'static str)]| {
        let mut s = ToolSpec::new("read", "Read.");
        s.input_schema = std::sync::Arc::new(serde_json::json!({
            "type": "object",
            "properties": {"paths": {"type": "array"}, "offset": {"type": "integer"}},
        }));
        aliases
            .iter()
            .fold(s, |s, (alias, param)| s.arg_alias(*alias, *param))
            .check()
    };
    assert!(spec(&[("file_paths", "paths")]).is_ok());
    for (bad, why) in [
        (&[("file_paths", "nope")][..], "which is no parameter"),
        (&[("offset", "paths")][..], "is the name of a parameter"),
        (&[("f", "paths"), ("f", "offset")][..], "is given twice"),
    ] {
        let e = spec(bad).expect_err(why).to_string();
        assert!(e.contains(why), "{e}");
    }
}
