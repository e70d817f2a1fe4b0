//! Tool selections: which tools a session is offered and may call, by toolset, name or
//! alias, with exclusions; unknown names and toolsets are errors listing the valid ones; a
//! session with a selection lists only those tools and refuses calls of the others.

use serde_json::json;
use tool_core::{
    ErrorKind, Mode, Registry, Runtime, SelectedTools, SessionConfig, ToolFilter, ToolSelection,
    ToolSpec,
};

use crate::support::*;

/// file: read_file (read), delete_file (rm, delete_files), list_directory (ls);
/// shell: bash (sh); no toolset: web (web_search); mcp only: mcp_only.
fn workspace_registry() -> Registry {
    registry(|b| {
        b.register(Named(
            ToolSpec::new("read_file", "Read.")
                .toolset("file")
                .alias("read"),
        ))
        .register(Named(
            ToolSpec::new("delete_file", "Delete.")
                .toolset("file")
                .alias("rm")
                .alias("delete_files"),
        ))
        .register(Named(
            ToolSpec::new("list_directory", "List.")
                .toolset("file")
                .toolset("search")
                .alias("ls"),
        ))
        .register(Named(
            ToolSpec::new("bash", "Run.").toolset("shell").alias("sh"),
        ))
        .register(Named(ToolSpec::new("web", "Web.").alias("web_search")))
        .register(Named(
            ToolSpec::new("mcp_only", "MCP.")
                .toolset("file")
                .modes([Mode::Mcp]),
        ))
    })
}

fn names(selected: &SelectedTools) -> Vec<&str> {
    selected.names().collect()
}

#[test]
fn an_empty_selection_is_every_tool() {
    let r = workspace_registry();
    let all = ToolSelection::all();
    assert!(all.is_all());
    let selected = all.resolve(&r).unwrap();
    assert_eq!(
        names(&selected),
        [
            "bash",
            "delete_file",
            "list_directory",
            "mcp_only",
            "read_file",
            "web"
        ]
    );
    assert_eq!(selected, SelectedTools::all_of(&r));
}

#[test]
fn toolsets_tools_and_exclusions_combine() {
    let r = workspace_registry();
    let s = ToolSelection::all()
        .toolset("file")
        .exclude("delete_file")
        .resolve(&r)
        .unwrap();
    assert_eq!(names(&s), ["list_directory", "mcp_only", "read_file"]);
    // A toolset plus a named tool of another toolset.
    let s = ToolSelection::all()
        .toolset("shell")
        .tool("web")
        .resolve(&r)
        .unwrap();
    assert_eq!(names(&s), ["bash", "web"]);
    // A tool in two toolsets is selected by either.
    let s = ToolSelection::all().toolset("search").resolve(&r).unwrap();
    assert_eq!(names(&s), ["list_directory"]);
    // Exclusions alone start from every tool.
    let s = ToolSelection::all()
        .excludes(["bash", "web"])
        .resolve(&r)
        .unwrap();
    assert_eq!(
        names(&s),
        ["delete_file", "list_directory", "mcp_only", "read_file"]
    );
    // Exclusion wins over inclusion, and a selection may come out empty.
    let s = ToolSelection::all()
        .tool("bash")
        .exclude("bash")
        .resolve(&r)
        .unwrap();
    assert!(s.is_empty());
    assert_eq!(s.to_string(), "(none)");
}

#[test]
fn aliases_select_and_exclude_their_tool() {
    let r = workspace_registry();
    let s = ToolSelection::all()
        .tools(["read", "ls", "web_search"])
        .resolve(&r)
        .unwrap();
    assert_eq!(names(&s), ["list_directory", "read_file", "web"]);
    assert!(s.contains("read_file"));
    assert!(!s.contains("read"), "contains takes canonical names");
    // Excluding by any alias removes the tool itself.
    for alias in ["rm", "delete_files", "delete_file"] {
        let s = ToolSelection::all()
            .toolset("file")
            .exclude(alias)
            .resolve(&r)
            .unwrap();
        assert!(!s.contains("delete_file"), "{alias}");
        assert!(s.contains("read_file"), "{alias}");
    }
    // Naming a tool twice (by name and alias) selects it once.
    let s = ToolSelection::all()
        .tools(["bash", "sh"])
        .resolve(&r)
        .unwrap();
    assert_eq!(names(&s), ["bash"]);
}

#[test]
fn unknown_names_and_toolsets_are_all_reported_with_the_valid_ones() {
    let r = workspace_registry();
    let err = ToolSelection::all()
        .toolset("files")
        .toolset("net")
        .tool("raed_file")
        .tool("frobnicate")
        .exclude("delete_fil")
        .resolve(&r)
        .unwrap_err();
    assert_eq!(
        err.unknown_tools(),
        ["raed_file", "frobnicate", "delete_fil"]
    );
    assert_eq!(err.unknown_toolsets(), ["files", "net"]);
    assert_eq!(err.valid_toolsets(), ["file", "search", "shell"]);
    assert_eq!(
        err.valid_tools(),
        [
            "bash",
            "delete_file",
            "list_directory",
            "mcp_only",
            "read_file",
            "web"
        ]
    );
    assert_eq!(
        err.to_string(),
        "no tool is called `raed_file` (did you mean `read_file`?); \
         no tool is called `frobnicate`; \
         no tool is called `delete_fil` (did you mean `delete_file`?); \
         the tools (names or their aliases): bash, delete_file, list_directory, mcp_only, \
         read_file, web; \
         no tool belongs to a toolset `files`; no tool belongs to a toolset `net`; \
         the toolsets: file, search, shell"
    );
    // A misspelt alias suggests the tool it names.
    let err = ToolSelection::all()
        .tool("web_serch")
        .resolve(&r)
        .unwrap_err();
    assert!(err.to_string().contains("did you mean `web`?"), "{err}");
}

#[test]
fn a_selection_is_bounded() {
    let r = workspace_registry();
    let many = ToolSelection::all().tools(std::iter::repeat_n("bash", 5000));
    let err = many.resolve(&r).unwrap_err();
    assert!(err.to_string().contains("the limit is 4096"), "{err}");
}

#[test]
fn intersection_keeps_what_both_select() {
    let r = workspace_registry();
    let host = ToolSelection::all().toolset("file").resolve(&r).unwrap();
    let agent = ToolSelection::all()
        .tools(["read", "bash"])
        .resolve(&r)
        .unwrap();
    assert_eq!(names(&host.intersection(&agent)), ["read_file"]);
    assert_eq!(host.intersection(&agent), agent.intersection(&host));
}

#[test]
fn the_listing_filter_takes_a_selection() {
    let r = workspace_registry();
    let s = ToolSelection::all().toolset("file").resolve(&r).unwrap();
    let filter = ToolFilter::all().selected(s.clone()).mode(Mode::Agent);
    let listed: Vec<&str> = r.filter(&filter).map(|e| e.name()).collect();
    assert_eq!(listed, ["delete_file", "list_directory", "read_file"]);
    let offered: Vec<&str> = r.offered(Mode::Mcp, Some(&s)).map(|e| e.name()).collect();
    assert_eq!(
        offered,
        ["delete_file", "list_directory", "mcp_only", "read_file"]
    );
}

#[test]
fn a_selection_deserializes_from_configuration() {
    let s: ToolSelection =
        serde_json::from_value(json!({"toolsets": ["file"], "exclude": ["rm"]})).unwrap();
    assert_eq!(s, ToolSelection::all().toolset("file").exclude("rm"));
    let bad = serde_json::from_value::<ToolSelection>(json!({"tool": ["x"]}));
    assert!(bad.is_err(), "unknown keys are refused");
}

#[tokio::test]
async fn a_session_is_offered_and_may_call_only_its_selection() {
    let r = workspace_registry();
    let selected = ToolSelection::all()
        .toolset("file")
        .exclude("delete_file")
        .resolve(&r)
        .unwrap();
    let runtime = Runtime::builder(r).build();
    let session = runtime.session_with(SessionConfig::default().tools(selected.clone()));
    assert_eq!(session.selected_tools(), Some(&selected));
    let offered: Vec<&str> = session.offered().map(|e| e.name()).collect();
    assert_eq!(offered, ["list_directory", "read_file"]);

    // Selected, by name or alias: runs.
    for name in ["read_file", "read", "ls"] {
        let out = session.call(call(name, name, json!({}))).await;
        assert!(out.result.is_ok(), "{name}: {}", out.to_json());
    }
    // Known but not selected: refused, naming the tools offered.
    for (name, tool) in [("bash", "bash"), ("rm", "delete_file")] {
        let out = session.call(call(name, name, json!({}))).await;
        let err = expect_err(&out);
        assert_kind(err, ErrorKind::PermissionError);
        assert_eq!(
            err.to_json(),
            json!({
                "type": "error",
                "error_type": "permission_error",
                "error": format!(
                    "{name}(): tool `{tool}` is not among the tools offered to this session; \
                     the tools offered: list_directory, read_file"
                ),
                "available_tools": ["list_directory", "read_file"],
                "suggestion": "Call one of the tools offered: list_directory, read_file"
            })
        );
    }
    // Unknown: not_found, listing and suggesting only the tools offered.
    let out = session.call(call("u", "delete_fil", json!({}))).await;
    let err = expect_err(&out);
    assert_kind(err, ErrorKind::NotFound);
    assert_eq!(
        err.fields()["available_tools"],
        json!(["list_directory", "read_file"])
    );
    assert!(
        err.fields().get("did_you_mean").is_none(),
        "{}",
        err.to_json()
    );
    let out = session.call(call("u2", "read_fil", json!({}))).await;
    assert_eq!(expect_err(&out).fields()["did_you_mean"], "read_file");

    // A session of the same runtime without a selection still has every tool.
    let open = runtime.session();
    assert!(open.selected_tools().is_none());
    let out = open.call(call("b", "bash", json!({}))).await;
    assert!(out.result.is_ok(), "{}", out.to_json());
}

#[tokio::test]
async fn an_empty_selection_offers_nothing_and_refuses_everything() {
    let r = workspace_registry();
    let none = ToolSelection::all()
        .tool("bash")
        .exclude("sh")
        .resolve(&r)
        .unwrap();
    let session = Runtime::builder(r)
        .build()
        .session_with(SessionConfig::default().tools(none));
    assert_eq!(session.offered().count(), 0);
    let out = session.call(call("b", "bash", json!({}))).await;
    let err = expect_err(&out);
    assert_kind(err, ErrorKind::PermissionError);
    assert!(
        err.message().contains("the tools offered: (none)"),
        "{}",
        err.to_json()
    );
}
