//! The workspace's two kinds of error: [`WorkspaceError`] for the host that builds one, and the
//! `security_error`s and `not_found`s a model sees, which always say where paths may lead.

use std::io;
use std::path::PathBuf;

use tool_core::ToolError;

use super::Workspace;
use super::path::shown;

/// A workspace could not be built. This is the host's error, not the model's.
#[derive(Debug)]
#[non_exhaustive]
pub enum WorkspaceError {
    /// No root was given.
    NoRoots,
    /// More roots than [`super::MAX_ROOTS`].
    TooManyRoots(usize),
    /// A root name is empty or holds `:`, `/`, `\` or NUL.
    BadName(String),
    /// Two roots have the same name.
    DuplicateName(String),
    /// A root directory could not be opened.
    Open {
        /// The directory as given.
        dir: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A protected pattern is not a valid glob.
    BadPattern {
        /// The pattern.
        pattern: String,
        /// What is wrong with it.
        message: String,
    },
}

impl std::fmt::Display for WorkspaceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WorkspaceError::NoRoots => f.write_str("a workspace needs at least one root directory"),
            WorkspaceError::TooManyRoots(n) => write!(
                f,
                "{n} roots given; a workspace has at most {}",
                super::MAX_ROOTS
            ),
            WorkspaceError::BadName(name) => write!(
                f,
                "root name `{name}` is not usable: a name is non-empty and holds no `:`, `/` or `\\`"
            ),
            WorkspaceError::DuplicateName(name) => {
                write!(
                    f,
                    "two roots are named `{name}`; give each root its own name"
                )
            }
            WorkspaceError::Open { dir, source } => {
                write!(f, "cannot open root directory {}: {source}", dir.display())
            }
            WorkspaceError::BadPattern { pattern, message } => {
                write!(
                    f,
                    "protected pattern `{pattern}` is not a valid glob: {message}"
                )
            }
        }
    }
}

impl std::error::Error for WorkspaceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            WorkspaceError::Open { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl Workspace {
    /// A `security_error` for a path the policy refuses, naming the roots.
    pub(crate) fn refusal(&self, path: &str, why: &str) -> ToolError {
        ToolError::security(format!(
            "path `{}` is not allowed: {why}. Paths must lie in a workspace root: {}",
            shown(path),
            self.roots_hint()
        ))
        .with_suggestion(
            "Use a path relative to a root (`src/main.rs`) or `name:path` (`docs:guide.md`); \
             call list_projects to see the roots.",
        )
    }

    /// Turns an I/O error met while resolving or opening `path` into the model's error.
    pub(crate) fn io_error(&self, path: &str, e: &io::Error) -> ToolError {
        match e.kind() {
            io::ErrorKind::NotFound => {
                ToolError::not_found(format!("`{}` does not exist", shown(path)))
                    .with_suggestion("Check the path with list_directory or glob.")
            }
            io::ErrorKind::PermissionDenied if is_escape(e) => self.refusal(
                path,
                "it leads outside the workspace through a symbolic link",
            ),
            io::ErrorKind::PermissionDenied => ToolError::user(format!(
                "`{}` cannot be accessed: permission denied",
                shown(path)
            )),
            _ if e.raw_os_error() == Some(ELOOP) => self.refusal(
                path,
                "it is (or passes through) a symbolic link that changed or loops",
            ),
            _ if e.raw_os_error() == Some(ENOTDIR) => ToolError::user(format!(
                "`{}`: a component of the path is not a directory",
                shown(path)
            )),
            _ => ToolError::system(format!("`{}`: {e}", shown(path))),
        }
    }
}

/// `ELOOP` and `ENOTDIR` on Linux and the BSDs that matter here.
#[cfg(target_os = "linux")]
const ELOOP: i32 = 40;
#[cfg(not(target_os = "linux"))]
const ELOOP: i32 = 62;
const ENOTDIR: i32 = 20;

/// Whether cap-std refused the path because it leads outside the directory handle (its
/// "a path led outside of the filesystem" error), as opposed to an OS permission error.
fn is_escape(e: &io::Error) -> bool {
    e.raw_os_error().is_none()
}
