//! [`StoreError`]: why a store refused or failed an operation, worded for a model to act on.

use std::error::Error as StdError;
use std::fmt;
use std::path::PathBuf;

use super::PromptField;
use crate::numbers::thousands;

/// Why a store refused or failed an operation.
///
/// The messages are written for a model to act on: they say what was wrong and what would be
/// accepted. [`is_user_error`](Self::is_user_error) separates refusals a different input would
/// avoid from failures of the store itself.
#[derive(Debug)]
#[non_exhaustive]
pub enum StoreError {
    /// Another agent in the same account already has this name.
    NameTaken {
        /// The account both agents belong to.
        account: String,
        /// The name that is taken.
        name: String,
    },
    /// A value is longer than its field allows.
    TooLong {
        /// The field that was too long.
        field: PromptField,
        /// The value's length in characters.
        chars: usize,
        /// The field's limit in characters.
        limit: usize,
    },
    /// The name was empty or only whitespace.
    EmptyName,
    /// No agent has this id.
    NotFound {
        /// The id that was looked up.
        id: i64,
    },
    /// Another writer kept the database locked for longer than the busy timeout.
    Busy,
    /// An agent's `enabled_tools` kept changing underneath a compare-and-set loop.
    Contended {
        /// The agent whose list kept changing.
        id: i64,
    },
    /// A stored row could not be read back (for example `enabled_tools` is not a JSON list).
    Corrupt {
        /// The agent whose row is unreadable.
        id: i64,
        /// What was wrong with it.
        detail: String,
    },
    /// The database was written by a newer version with a schema this build does not know.
    SchemaTooNew {
        /// The database file.
        path: PathBuf,
        /// The schema version found in the file.
        found: i64,
        /// The newest schema version this build understands.
        supported: i64,
    },
    /// The directory for the database file could not be created.
    Io {
        /// The directory that could not be created.
        path: PathBuf,
        /// The underlying I/O error.
        source: std::io::Error,
    },
    /// The storage backend failed (an SQL error, an unreadable file, a failed worker thread).
    Backend {
        /// What the store was doing, e.g. `"updating an agent"`.
        operation: &'static str,
        /// The backend's error.
        source: Box<dyn StdError + Send + Sync>,
    },
}

impl StoreError {
    /// Whether a different input would have succeeded: a taken or empty name, a value too long.
    ///
    /// Tools report these as user errors the model can correct; everything else is a failure
    /// of the store (a system error).
    pub fn is_user_error(&self) -> bool {
        matches!(
            self,
            StoreError::NameTaken { .. } | StoreError::TooLong { .. } | StoreError::EmptyName
        )
    }

    /// A [`StoreError::Backend`] for a failure while doing `operation`.
    pub fn backend(
        operation: &'static str,
        source: impl Into<Box<dyn StdError + Send + Sync>>,
    ) -> Self {
        StoreError::Backend {
            operation,
            source: source.into(),
        }
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::NameTaken { account, name } => write!(
                f,
                "name '{name}' is already taken in account '{account}'; choose another name"
            ),
            StoreError::TooLong {
                field,
                chars,
                limit,
            } => write!(
                f,
                "{field} is too long: {} characters, the limit is {}",
                thousands(*chars as u64),
                thousands(*limit as u64)
            ),
            StoreError::EmptyName => f.write_str(
                "name must not be empty; give a name with at least one visible character",
            ),
            StoreError::NotFound { id } => write!(f, "agent {id} not found"),
            StoreError::Busy => f.write_str(
                "the agent store is busy: another writer held the database for more than 5 seconds; try again",
            ),
            StoreError::Contended { id } => write!(
                f,
                "the enabled tools of agent {id} kept changing during the update; run it again"
            ),
            StoreError::Corrupt { id, detail } => {
                write!(f, "agent {id} could not be read from the store: {detail}")
            }
            StoreError::SchemaTooNew {
                path,
                found,
                supported,
            } => write!(
                f,
                "the agent store '{}' has schema version {found}, but this build understands \
                 versions up to {supported}; upgrade toolsmith to open it",
                path.display()
            ),
            StoreError::Io { path, source } => write!(
                f,
                "could not create the directory '{}' for the agent store: {source}",
                path.display()
            ),
            StoreError::Backend { operation, source } => {
                write!(f, "the agent store failed while {operation}: {source}")
            }
        }
    }
}

impl StdError for StoreError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        match self {
            StoreError::Io { source, .. } => Some(source),
            StoreError::Backend { source, .. } => Some(source.as_ref()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_say_what_to_do() {
        let taken = StoreError::NameTaken {
            account: "default".into(),
            name: "Sage".into(),
        };
        assert_eq!(
            taken.to_string(),
            "name 'Sage' is already taken in account 'default'; choose another name"
        );
        let long = PromptField::SystemPrompt
            .validate(&"x".repeat(50_012))
            .unwrap_err();
        assert_eq!(
            long.to_string(),
            "system prompt is too long: 50,012 characters, the limit is 50,000"
        );
        assert_eq!(
            StoreError::NotFound { id: 7 }.to_string(),
            "agent 7 not found"
        );
        assert!(taken.is_user_error() && long.is_user_error());
        assert!(!StoreError::NotFound { id: 7 }.is_user_error());
    }
}
