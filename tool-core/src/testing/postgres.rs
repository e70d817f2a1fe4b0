//! Postgres for tests (features `testing` and `postgres`): a fresh database on the server a
//! test run was given, or on a throwaway cluster started for the test.
//!
//! - [`TestDatabase::create`] makes a database named `toolsmith_test_*` on the server the
//!   environment variable [`TEST_POSTGRES_ENV`] names (a URL whose user may create
//!   databases), or, without it, on a [`TestCluster`] of its own; the database (or the
//!   cluster) goes when it is dropped.
//! - [`TestCluster::start`] runs `initdb` and `pg_ctl` from a PostgreSQL installation
//!   (`TOOLSMITH_TEST_POSTGRES_BIN`, else Debian's `/usr/lib/postgresql/*/bin`, else `PATH`)
//!   in a temporary directory, on a free loopback port, without durability (`fsync=off`);
//!   run as root, it runs them as the user `TOOLSMITH_TEST_POSTGRES_USER` (default
//!   `postgres`), since Postgres refuses root. It can be stopped and started again, to test
//!   what a server going away does.
//!
//! When neither is possible, both return `Err` with the reason, for the test to print and
//! skip.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

/// The environment variable naming a Postgres server for tests: `postgres://USER@HOST:PORT/DB`,
/// whose user may create databases.
pub const TEST_POSTGRES_ENV: &str = "TOOLSMITH_TEST_POSTGRES";

static NEXT: AtomicU32 = AtomicU32::new(0);

/// A throwaway Postgres cluster: its own data directory, port and socket directory. Stopped
/// and removed when dropped.
#[derive(Debug)]
pub struct TestCluster {
    bin: PathBuf,
    dir: PathBuf,
    port: u16,
    /// The user the server runs as, when this process is root.
    user: Option<String>,
}

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .find(|l| l.starts_with("Uid:"))
            .and_then(|l| l.split_whitespace().nth(2))
            == Some("0")
    })
}

fn bin_dir() -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os("TOOLSMITH_TEST_POSTGRES_BIN") {
        return Ok(dir.into());
    }
    let mut debian: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|p| p.join("initdb").is_file())
        .collect();
    debian.sort_by_key(|p| {
        p.parent()
            .and_then(|v| v.file_name())
            .and_then(|v| v.to_str())
            .and_then(|v| v.parse::<u32>().ok())
    });
    if let Some(dir) = debian.pop() {
        return Ok(dir);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .find(|d| d.join("initdb").is_file())
        .ok_or_else(|| {
            "no PostgreSQL server here (initdb not found in /usr/lib/postgresql/*/bin or on \
             PATH); install Debian's `postgresql` (.ci/run does), or set \
             TOOLSMITH_TEST_POSTGRES to a server's URL"
                .to_owned()
        })
}

fn free_port() -> Result<u16, String> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("no free loopback port: {e}"))
}

impl TestCluster {
    /// Runs `initdb` in a new temporary directory and starts the server on a free port.
    pub fn start() -> Result<TestCluster, String> {
        let bin = bin_dir()?;
        let user = is_root().then(|| {
            std::env::var("TOOLSMITH_TEST_POSTGRES_USER").unwrap_or_else(|_| "postgres".into())
        });
        let name = format!(
            "toolsmith-pg-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let dir = std::env::temp_dir().join(name);
        let mut cluster = TestCluster {
            bin,
            dir,
            port: 0,
            user,
        };
        // Made by the server's user, so that it owns its data directory.
        cluster.run("mkdir", &["-m", "0700", &cluster.dir.display().to_string()])?;
        let data = cluster.dir.join("data").display().to_string();
        let initdb = cluster.bin.join("initdb").display().to_string();
        cluster.run(
            &initdb,
            &[
                "-D",
                &data,
                "-U",
                "toolsmith",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--no-sync",
            ],
        )?;
        cluster.start_again()?;
        Ok(cluster)
    }

    /// Runs `program` with `args` as the server's user.
    fn run(&self, program: &str, args: &[&str]) -> Result<(), String> {
        let mut command = match &self.user {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--", program]);
                c
            }
            None => Command::new(program),
        };
        let out = command
            .args(args)
            .current_dir(std::env::temp_dir())
            .output()
            .map_err(|e| format!("cannot run {program}: {e}"))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!(
                "{program} failed ({}): {}{}",
                out.status,
                String::from_utf8_lossy(&out.stdout).trim(),
                String::from_utf8_lossy(&out.stderr).trim()
            ))
        }
    }

    fn pg_ctl(&self, args: &[&str]) -> Result<(), String> {
        let data = self.dir.join("data").display().to_string();
        let log = self.dir.join("log").display().to_string();
        let pg_ctl = self.bin.join("pg_ctl").display().to_string();
        let mut all = vec!["-D", &data, "-l", &log, "-w", "-t", "60"];
        all.extend_from_slice(args);
        self.run(&pg_ctl, &all)
    }

    /// Starts the server again after [`stop`](Self::stop) (the first start picks the port,
    /// and later ones keep it).
    pub fn start_again(&mut self) -> Result<(), String> {
        if self.port == 0 {
            self.port = free_port()?;
        }
        let options = format!(
            "-p {} -c listen_addresses=127.0.0.1 -k {} -c fsync=off -c synchronous_commit=off \
             -c full_page_writes=off -c max_connections=300",
            self.port,
            self.dir.display()
        );
        self.pg_ctl(&["-o", &options, "start"])
    }

    /// Stops the server (fast shutdown: connections are closed).
    pub fn stop(&self) -> Result<(), String> {
        self.pg_ctl(&["-m", "fast", "stop"])
    }

    /// The port the server listens on (127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The URL of `database` on this server, as the user `toolsmith` (no password).
    pub fn url(&self, database: &str) -> String {
        format!("postgres://toolsmith@127.0.0.1:{}/{database}", self.port)
    }

    /// The data directory's parent, which holds the server's log (`log`).
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for TestCluster {
    fn drop(&mut self) {
        let _ = self.pg_ctl(&["-m", "immediate", "stop"]);
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A fresh database for one test; dropped with it.
#[derive(Debug)]
pub struct TestDatabase {
    url: String,
    /// The server's URL with its own database, to drop this one from.
    admin: Option<(String, String)>,
    cluster: Option<TestCluster>,
}

impl TestDatabase {
    /// A new database on the server [`TEST_POSTGRES_ENV`] names, else on a new
    /// [`TestCluster`]; `Err` says why neither could be had.
    pub async fn create() -> Result<TestDatabase, String> {
        match std::env::var(TEST_POSTGRES_ENV) {
            Ok(admin) if !admin.trim().is_empty() => Self::on_server(admin.trim()).await,
            _ => {
                let cluster = TestCluster::start()?;
                Ok(TestDatabase {
                    url: cluster.url("postgres"),
                    admin: None,
                    cluster: Some(cluster),
                })
            }
        }
    }

    async fn on_server(admin: &str) -> Result<TestDatabase, String> {
        use std::str::FromStr;
        let config = tokio_postgres::Config::from_str(admin)
            .map_err(|e| format!("{TEST_POSTGRES_ENV} is not a Postgres URL: {e}"))?;
        let (client, connection) = config
            .connect(tokio_postgres::NoTls)
            .await
            .map_err(|e| format!("cannot reach {TEST_POSTGRES_ENV}'s server: {e}"))?;
        let driver = tokio::spawn(connection);
        let name = format!(
            "toolsmith_test_{}_{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed),
            crate::events::now_ms() % 1_000_000
        );
        client
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .await
            .map_err(|e| format!("cannot create a test database: {e}"))?;
        drop(client);
        driver.abort();
        let url = with_database(admin, &name);
        Ok(TestDatabase {
            url,
            admin: Some((admin.to_owned(), name)),
            cluster: None,
        })
    }

    /// The database's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The cluster it lives in, when this test started one (to stop and start it).
    pub fn cluster(&mut self) -> Option<&mut TestCluster> {
        self.cluster.as_mut()
    }
}

/// `url` with its path set to `/database` (a `postgres://` URL; the query is kept).
fn with_database(url: &str, database: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (url, None),
    };
    let authority_end = base
        .find("://")
        .map(|i| i + 3)
        .and_then(|start| base[start..].find('/').map(|j| start + j))
        .unwrap_or(base.len());
    let mut out = format!("{}/{database}", &base[..authority_end]);
    if let Some(q) = query {
        out.push('?');
        out.push_str(q);
    }
    out
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        let Some((admin, name)) = self.admin.take() else {
            return;
        };
        // A thread of its own: a drop may run inside or outside a runtime.
        let _ = std::thread::spawn(move || {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            rt.block_on(async move {
                use std::str::FromStr;
                let Ok(config) = tokio_postgres::Config::from_str(&admin) else {
                    return;
                };
                if let Ok((client, connection)) = config.connect(tokio_postgres::NoTls).await {
                    let driver = tokio::spawn(connection);
                    let _ = client
                        .batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                        .await;
                    driver.abort();
                }
            });
        })
        .join();
    }
}

#[cfg(test)]
mod tests {
    use super::with_database;

    #[test]
    fn a_url_gets_its_database_replaced() {
        assert_eq!(
            with_database("postgres://u@127.0.0.1:5/postgres", "t1"),
            "postgres://u@127.0.0.1:5/t1"
        );
        assert_eq!(
            with_database("postgres://u@127.0.0.1:5", "t1"),
            "postgres://u@127.0.0.1:5/t1"
        );
        assert_eq!(
            with_database("postgres://u@h/db?sslmode=disable", "t1"),
            "postgres://u@h/t1?sslmode=disable"
        );
    }
}
