//! One Postgres database for several replicas (feature `postgres`): their activity records,
//! the approvals they have used and the rate windows they share, so that a load balancer may
//! send any request to any of them.
//!
//! [`PostgresStore::connect`] opens a pool on the URL, brings the tables to this build's
//! schema and registers the replica; [`PostgresStore::activity`] is its
//! [`ActivityStore`](crate::ActivityStore). The same store is the MCP server's record of used
//! approvals (`mcp::UsedApprovalStore`, features `mcp` and `postgres`) and a
//! [`RateWindows`](crate::RateWindows) for limits that hold across replicas.
//! `tool-std`'s agent store keeps its tables in the same database through
//! [`PostgresStore::migrate`] and [`PostgresStore::client`].
//!
//! # Design
//!
//! - **One URL.** `postgres://USER:PASSWORD@HOST:PORT/DATABASE`, as libpq reads it (its
//!   `key=value` form too). The connections are plain TCP or a Unix socket: `sslmode=require`
//!   is refused at start, since this build links no TLS for Postgres (put the server on a
//!   private network or a local socket, or reach it through a TLS tunnel). Tables are named
//!   `toolsmith_*` in the connection's schema (choose another with
//!   `options=-csearch_path=NAME`).
//! - **Versioned schema.** Each component's tables have a version in `toolsmith_schema`;
//!   a start applies the missing steps in one transaction under an advisory lock, so
//!   replicas starting together apply them once, and a database newer than the build is
//!   refused ([`PostgresError::NewerSchema`]).
//! - **Calls never wait on the database.** Record changes go through a bounded queue to a
//!   writer task (see [`PostgresActivityStore`]); while the server is unreachable the writer
//!   keeps what it holds, says so once, counts what does not fit and catches up when the
//!   server returns.
//! - **Live.** Each write notifies the channel `toolsmith_activity` with its change number
//!   (`NOTIFY`, sent at commit); one listening connection per store turns notifications into
//!   [`PostgresActivityStore::changes`], which the activity page and `activity --follow` wait
//!   on: nothing polls.
//! - **Leases.** Each replica holds a row in `toolsmith_replicas` that it renews every third
//!   of [`PostgresConfig::lease`]. Every replica closes, as `failure` with
//!   [`ABANDONED`](crate::ABANDONED), the open records of replicas whose lease has run out: a
//!   replica killed mid-call has its calls closed within one lease and a third of it
//!   (20 seconds by default) by whichever replica is left. A replica cut off from the
//!   database for longer than its lease counts as stopped, and its calls are closed the same
//!   way; a record once closed stays closed.
//!
//! ```no_run
//! use std::sync::Arc;
//! use tool_core::postgres::{PostgresActivityConfig, PostgresConfig, PostgresStore};
//! use tool_core::{Registry, Runtime};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let store = PostgresStore::connect(
//!     "postgres://toolsmith:secret@db.internal:5432/toolsmith",
//!     PostgresConfig::default(),
//! )
//! .await?;
//! let activity = store.activity(PostgresActivityConfig::default());
//! let runtime = Runtime::builder(Registry::builder().build()?)
//!     .activity_store(Arc::new(activity.clone()))
//!     .build();
//! # let _ = runtime;
//! // At the end: what was queued is written, and the lease is given back.
//! activity.flush().await;
//! store.close().await;
//! # Ok(())
//! # }
//! ```

mod activity;
mod error;
mod replicas;
mod rows;
mod schema;
mod shared;
mod writer;

pub use activity::{
    DEFAULT_POSTGRES_MAX_AGE, DEFAULT_POSTGRES_MAX_RECORDS, PostgresActivityConfig,
    PostgresActivityStore, PostgresStats,
};
/// The pool this store uses, and through it `tokio_postgres`, at the versions it was built
/// with: for a component that keeps tables of its own beside this store's.
pub use deadpool_postgres;
pub use error::PostgresError;

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Object, Pool, RecyclingMethod};
use tokio::sync::watch;
use tokio_postgres::NoTls;
use tokio_util::sync::{CancellationToken, DropGuard};

/// The default lease a replica holds: 15 seconds.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(15);

/// How a [`PostgresStore`] connects and holds its lease.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PostgresConfig {
    /// The most connections the pool opens (default 16; 2 to 256). The listening
    /// connection is apart from these.
    pub pool_size: usize,
    /// How long a connection may take to open, and a caller may wait for a free one
    /// (default 5 s; 100 ms to 60 s).
    pub connect_timeout: Duration,
    /// How long a replica's calls outlive its last heartbeat (default [`DEFAULT_LEASE`];
    /// 1 s to 1 hour). It renews every third of this.
    pub lease: Duration,
}

impl Default for PostgresConfig {
    fn default() -> Self {
        PostgresConfig {
            pool_size: 16,
            connect_timeout: Duration::from_secs(5),
            lease: DEFAULT_LEASE,
        }
    }
}

impl PostgresConfig {
    /// Sets [`pool_size`](field@Self::pool_size).
    pub fn pool_size(mut self, n: usize) -> Self {
        self.pool_size = n;
        self
    }
    /// Sets [`connect_timeout`](field@Self::connect_timeout).
    pub fn connect_timeout(mut self, wait: Duration) -> Self {
        self.connect_timeout = wait;
        self
    }
    /// Sets [`lease`](field@Self::lease).
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease;
        self
    }

    fn normalized(mut self) -> Self {
        self.pool_size = self.pool_size.clamp(2, 256);
        self.connect_timeout = self
            .connect_timeout
            .clamp(Duration::from_millis(100), Duration::from_secs(60));
        self.lease = self
            .lease
            .clamp(Duration::from_secs(1), Duration::from_secs(3600));
        self
    }
}

/// A replica's handle on the shared database: a connection pool, its lease and the
/// notifications of other replicas' writes. Cheap to clone; the lease is renewed while a
/// clone lives, and given back by [`close`](Self::close).
#[derive(Clone)]
pub struct PostgresStore {
    inner: Arc<Inner>,
}

struct Inner {
    pool: Pool,
    pg: tokio_postgres::Config,
    config: PostgresConfig,
    /// `host:port/database`, for messages.
    server: String,
    /// This replica's name in leases and records.
    replica: String,
    /// The newest change number notified (or read at start); bumped on reconnection too.
    changes: watch::Sender<u64>,
    stop: CancellationToken,
    _stop_on_drop: DropGuard,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore")
            .field("server", &self.inner.server)
            .field("replica", &self.inner.replica)
            .finish_non_exhaustive()
    }
}

/// `host:port/database` of `pg`, without user or password.
fn server_of(pg: &tokio_postgres::Config) -> String {
    use tokio_postgres::config::Host;
    let host = match pg.get_hosts().first() {
        Some(Host::Tcp(h)) => h.clone(),
        #[cfg(unix)]
        Some(Host::Unix(p)) => p.display().to_string(),
        None => "localhost".to_owned(),
    };
    let port = pg.get_ports().first().copied().unwrap_or(5432);
    let db = pg.get_dbname().or(pg.get_user()).unwrap_or("postgres");
    format!("{host}:{port}/{db}")
}

impl PostgresStore {
    /// Connects to `url`, brings `tool-core`'s tables to this build's schema, takes this
    /// replica's lease and starts listening for other replicas' writes.
    ///
    /// Errors say what to do: a URL that does not read ([`PostgresError::BadUrl`], also for
    /// `sslmode=require`), a server that cannot be reached or refuses the login
    /// ([`PostgresError::Unreachable`]), a newer schema ([`PostgresError::NewerSchema`]).
    pub async fn connect(url: &str, config: PostgresConfig) -> Result<Self, PostgresError> {
        let config = config.normalized();
        let mut pg = tokio_postgres::Config::from_str(url).map_err(|e| PostgresError::BadUrl {
            message: e.to_string(),
        })?;
        if pg.get_ssl_mode() == tokio_postgres::config::SslMode::Require {
            return Err(PostgresError::BadUrl {
                message: "sslmode=require: this build links no TLS for Postgres; reach the \
                          server over a private network, a Unix socket or a TLS tunnel"
                    .to_owned(),
            });
        }
        pg.connect_timeout(config.connect_timeout)
            .keepalives(true)
            .keepalives_idle(Duration::from_secs(30));
        if pg.get_application_name().is_none() {
            pg.application_name("toolsmith");
        }
        let server = server_of(&pg);
        let manager = Manager::from_config(
            pg.clone(),
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(config.pool_size)
            .runtime(deadpool_postgres::Runtime::Tokio1)
            .wait_timeout(Some(config.connect_timeout))
            .create_timeout(Some(config.connect_timeout))
            .recycle_timeout(Some(config.connect_timeout))
            .build()
            .map_err(|e| PostgresError::BadUrl {
                message: e.to_string(),
            })?;
        let mut client = pool
            .get()
            .await
            .map_err(|e| PostgresError::pool(&server, e))?;
        schema::migrate(&mut client, "tool-core", schema::CORE).await?;
        let replica = replicas::name();
        replicas::register(&client, &replica, config.lease).await?;
        let head = rows::counter(&**client).await?;
        drop(client);
        let stop = CancellationToken::new();
        let store = PostgresStore {
            inner: Arc::new(Inner {
                pool,
                pg,
                config,
                server,
                replica,
                changes: watch::Sender::new(head),
                stop: stop.clone(),
                _stop_on_drop: stop.drop_guard(),
            }),
        };
        replicas::spawn_lease(&store);
        replicas::spawn_listener(&store);
        Ok(store)
    }

    /// This replica's name, as its leases and records carry it: the host, the process id
    /// and a random part.
    pub fn replica(&self) -> &str {
        &self.inner.replica
    }

    /// The server, as `host:port/database` (no user or password).
    pub fn server(&self) -> &str {
        &self.inner.server
    }

    /// The configuration in force (limits applied).
    pub fn config(&self) -> &PostgresConfig {
        &self.inner.config
    }

    /// A connection from the pool, for a component with tables of its own.
    pub async fn client(&self) -> Result<Object, PostgresError> {
        self.inner
            .pool
            .get()
            .await
            .map_err(|e| PostgresError::pool(&self.inner.server, e))
    }

    /// Brings `component`'s tables to version `steps.len()`: step *n* takes them from
    /// version *n* to *n + 1*, and only the steps the database lacks run, in one transaction,
    /// under the lock every replica's migrations take. A database at a newer version is
    /// refused with [`PostgresError::NewerSchema`]. Returns the version now in force.
    pub async fn migrate(&self, component: &str, steps: &[&str]) -> Result<i64, PostgresError> {
        let mut client = self.client().await?;
        schema::migrate(&mut client, component, steps).await
    }

    /// Gives this replica's lease back and stops renewing it: the records it leaves open
    /// are closed by the other replicas at once (a clean stop closes its calls first). Later
    /// writes through clones of this store still work.
    pub async fn close(&self) {
        self.inner.stop.cancel();
        if let Ok(client) = self.client().await {
            replicas::release(&client, &self.inner.replica).await;
        }
    }

    fn stopped(&self) -> &CancellationToken {
        &self.inner.stop
    }
}
