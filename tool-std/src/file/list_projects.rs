//! `list_projects`: the workspace's roots (seed 001's projects).
//!
//! This tool is written by hand against [`tool_core::Tool`], without `#[tool]`, and registered
//! with [`tool_core::submit_tool!`]: the trait layer is the product, and this file keeps that
//! path working inside the standard tools.

use serde::Serialize;
use tool_core::{
    Annotations, NoArgs, Permission, Render, ResourcesTracker, Tool, ToolContext, ToolError,
    ToolSpec,
};

use crate::workspace::Workspace;

/// One root of the workspace as `list_projects` shows it.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Project {
    /// The root's name: write paths in it as `name:path`.
    pub name: String,
    /// Its absolute path on the host.
    pub path: String,
    /// Whether tools may only read there.
    pub read_only: bool,
}

/// The answer of `list_projects`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ProjectList {
    /// Always `projects`.
    pub r#type: &'static str,
    /// The roots, the default one (relative paths) first.
    pub projects: Vec<Project>,
}

impl Render for ProjectList {
    fn status(&self) -> Option<String> {
        Some(format!("Listed {} project(s)", self.projects.len()))
    }

    fn render(&self, _: &mut ResourcesTracker) -> Option<String> {
        let mut out = String::from("Available projects:\n");
        for (i, p) in self.projects.iter().enumerate() {
            out.push_str(&format!(
                "- {} ({}, {}){}\n",
                p.name,
                p.path,
                if p.read_only {
                    "read-only"
                } else {
                    "read-write"
                },
                if i == 0 {
                    "; paths without `name:` refer to it"
                } else {
                    ""
                }
            ));
        }
        Some(out)
    }
}

/// The `list_projects` tool. Stateless: the roots come from the [`Workspace`] service.
#[derive(Debug, Clone, Copy, Default)]
pub struct ListProjects;

impl Tool for ListProjects {
    type Input = NoArgs;
    type Output = ProjectList;

    fn spec(&self) -> ToolSpec {
        let mut annotations = Annotations::new();
        annotations.read_only = true;
        annotations.idempotent = true;
        ToolSpec::new(
            "list_projects",
            "List the projects (workspace roots) the file tools may access: name, path and \
             whether it is read-only. Name a file in a project as `name:path`; paths without a \
             name refer to the first project.",
        )
        .category("search")
        .toolset("file")
        .permission(Permission::ReadFiles)
        .annotations(annotations)
        // It answers at once from the configuration: no spinner to flicker.
        .suppress_execution_animation(true)
    }

    async fn call(&self, ctx: &ToolContext, _: NoArgs) -> Result<ProjectList, ToolError> {
        let ws = ctx.require_service::<Workspace>()?;
        let projects = ws
            .roots()
            .iter()
            .map(|r| Project {
                name: r.name().to_owned(),
                path: r.path().display().to_string(),
                read_only: !r.is_writable(),
            })
            .collect();
        Ok(ProjectList {
            r#type: "projects",
            projects,
        })
    }
}

tool_core::submit_tool!(ListProjects);
