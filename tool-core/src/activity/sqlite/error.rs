//! [`ActivityStoreError`]: why the SQLite activity store could not be opened, in words that
//! say what to do.

use std::path::{Path, PathBuf};

use rusqlite::ErrorCode;

use super::{MIN_MAX_BYTES, rows};

/// Why an activity store could not be opened.
#[derive(Debug)]
#[non_exhaustive]
pub enum ActivityStoreError {
    /// The file exists and is not an SQLite database.
    NotADatabase {
        /// The file.
        path: PathBuf,
    },
    /// The file is an SQLite database, but damaged.
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What SQLite said.
        message: String,
    },
    /// The file or its directory cannot be created or written.
    Unwritable {
        /// The file.
        path: PathBuf,
        /// What the system or SQLite said.
        message: String,
    },
    /// The file was written by a newer version of this library.
    NewerSchema {
        /// The file.
        path: PathBuf,
        /// The version found.
        found: i64,
    },
    /// The size limit cannot hold even the store's tables.
    TooSmall {
        /// The limit given.
        max_bytes: u64,
    },
    /// Another SQLite failure.
    Sqlite {
        /// The file.
        path: PathBuf,
        /// What SQLite said.
        message: String,
    },
}

impl std::fmt::Display for ActivityStoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ActivityStoreError::NotADatabase { path } => write!(
                f,
                "the activity store {} is not an SQLite database; move it aside (a new store \
                 is made in its place) or give another path",
                path.display()
            ),
            ActivityStoreError::Corrupt { path, message } => write!(
                f,
                "the activity store {} is damaged ({message}); move it aside (a new store is \
                 made in its place) or give another path",
                path.display()
            ),
            ActivityStoreError::Unwritable { path, message } => write!(
                f,
                "the activity store {} cannot be created or written ({message}); give a path \
                 in a directory this process may write, or keep the records in memory",
                path.display()
            ),
            ActivityStoreError::NewerSchema { path, found } => write!(
                f,
                "the activity store {} was written by a newer version (schema {found}, this \
                 build knows {}); upgrade, or give another path",
                path.display(),
                rows::SCHEMA_VERSION
            ),
            ActivityStoreError::TooSmall { max_bytes } => write!(
                f,
                "a size limit of {max_bytes} bytes cannot hold the activity store's tables; \
                 give at least {MIN_MAX_BYTES} bytes"
            ),
            ActivityStoreError::Sqlite { path, message } => {
                write!(f, "the activity store {}: {message}", path.display())
            }
        }
    }
}

impl std::error::Error for ActivityStoreError {}

impl ActivityStoreError {
    pub(super) fn of(path: &Path, e: &rusqlite::Error) -> Self {
        let path = path.to_path_buf();
        let message = e.to_string();
        match e.sqlite_error_code() {
            Some(ErrorCode::NotADatabase) => ActivityStoreError::NotADatabase { path },
            Some(ErrorCode::DatabaseCorrupt) => ActivityStoreError::Corrupt { path, message },
            Some(
                ErrorCode::CannotOpen
                | ErrorCode::ReadOnly
                | ErrorCode::PermissionDenied
                | ErrorCode::SystemIoFailure,
            ) => ActivityStoreError::Unwritable { path, message },
            _ => ActivityStoreError::Sqlite { path, message },
        }
    }
}
