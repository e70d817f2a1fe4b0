//! [`PostgresError`]: why the shared store could not do what was asked, in words that say what
//! to do.

/// Why the Postgres store could not be opened or could not answer.
///
/// Messages name the server as `host:port/database`, never the URL's password.
#[derive(Debug)]
#[non_exhaustive]
pub enum PostgresError {
    /// The URL is not one this store reads.
    BadUrl {
        /// What is wrong with it.
        message: String,
    },
    /// The server could not be reached, or refused the connection.
    Unreachable {
        /// `host:port/database`.
        server: String,
        /// What the driver said.
        message: String,
    },
    /// The database holds a schema made by a newer version of this library.
    NewerSchema {
        /// Whose tables (`tool-core`, `tool-std/agents`, ...).
        component: String,
        /// The version found in the database.
        found: i64,
        /// The newest version this build knows.
        known: i64,
    },
    /// A statement failed.
    Query {
        /// What was being done.
        doing: &'static str,
        /// What the server or the driver said.
        message: String,
    },
}

impl std::fmt::Display for PostgresError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PostgresError::BadUrl { message } => write!(
                f,
                "the store URL is not a Postgres URL this build reads ({message}); write \
                 postgres://USER:PASSWORD@HOST:PORT/DATABASE"
            ),
            PostgresError::Unreachable { server, message } => write!(
                f,
                "cannot reach the Postgres server {server} ({message}); check that it runs, \
                 that this machine may connect to it and that the URL's user and password \
                 are right"
            ),
            PostgresError::NewerSchema {
                component,
                found,
                known,
            } => write!(
                f,
                "the Postgres database holds {component}'s tables at schema version {found}, \
                 made by a newer toolsmith (this build knows version {known}); upgrade this \
                 replica, or give another database"
            ),
            PostgresError::Query { doing, message } => {
                write!(f, "the Postgres store failed while {doing}: {message}")
            }
        }
    }
}

impl std::error::Error for PostgresError {}

impl PostgresError {
    /// A failed statement while `doing`.
    pub(crate) fn query(doing: &'static str, e: impl std::fmt::Display) -> Self {
        PostgresError::Query {
            doing,
            message: e.to_string(),
        }
    }

    /// A pool that could not hand out a connection to `server`.
    pub(crate) fn pool(server: &str, e: deadpool_postgres::PoolError) -> Self {
        PostgresError::Unreachable {
            server: server.to_owned(),
            message: match e {
                deadpool_postgres::PoolError::Timeout(_) => {
                    "no connection within the connect timeout".to_owned()
                }
                deadpool_postgres::PoolError::Backend(e) => driver_message(&e),
                other => other.to_string(),
            },
        }
    }
}

/// The driver's error with its cause (tokio-postgres's `Display` alone often says only
/// "error connecting to server").
pub(crate) fn driver_message(e: &tokio_postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return format!("{}: {}", db.severity(), db.message());
    }
    match std::error::Error::source(e) {
        Some(cause) => format!("{e}: {cause}"),
        None => e.to_string(),
    }
}
