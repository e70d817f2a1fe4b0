//! Background processes: a command `bash` started with `run_in_background: true`, its output
//! kept in a bounded ring, read, written to and killed through the `process` tool.
//!
//! A process is held by the server that started it, in its [`Processes`] table, under an
//! explicit id the model gives back (`kqzb-1`): nothing about it lives in a transport
//! session, and a call that reaches a server not holding the id (another replica, a
//! restarted server) is told so. Everything is bounded ([`BackgroundLimits`]): processes
//! running per principal and per server, the output kept per process, the output one read
//! returns, a process's lifetime, and the finished processes kept for their last output.
//!
//! Each process is started through the sandbox's one entry, like `bash`'s commands (confined
//! the same way, listed with the guardian so that it dies with the server), in a process
//! group of its own that a kill ends whole (`SIGTERM`, a grace, `SIGKILL`).
//! [`Processes::end_all`] ends every process when the server stops.

mod ring;
pub mod tool;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime};

use tokio::io::AsyncWriteExt;
use tokio::process::ChildStdin;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use tool_core::{ToolContext, ToolError};

use super::process::{self, Bounds, Ending};
use crate::trust::sandbox::{Launched, Sandbox};
pub(crate) use ring::{Ring, Slice};

/// The bounds of background processes, part of the host's
/// [`ShellConfig`](super::ShellConfig).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct BackgroundLimits {
    /// Processes one principal (over HTTP, a token's owner; else everyone) may have running
    /// at once. Default 8; 0 turns `run_in_background` off.
    pub max_running: usize,
    /// Processes the whole server may have running at once. Default 32.
    pub max_running_total: usize,
    /// Finished processes kept per principal, for their exit status and last output; the
    /// oldest is forgotten past it. Default 16.
    pub max_finished: usize,
    /// Bytes of output kept per process (stdout and stderr together, as they arrived); the
    /// oldest lines are dropped past it. Default 1 MiB.
    pub output_bytes: usize,
    /// Bytes of output one `process` read returns; the rest is read by the next. Default
    /// 16,000.
    pub read_bytes: usize,
    /// How long a process may run; it is then ended like a kill. Default 1 hour.
    pub max_lifetime: Duration,
}

impl Default for BackgroundLimits {
    fn default() -> Self {
        BackgroundLimits {
            max_running: 8,
            max_running_total: 32,
            max_finished: 16,
            output_bytes: 1 << 20,
            read_bytes: 16_000,
            max_lifetime: Duration::from_secs(3600),
        }
    }
}

/// How long a kill waits for the process's group to end before answering.
const KILL_WAIT: Duration = Duration::from_secs(5);

/// The background processes of one server. The `process` tool uses the host's (a runtime
/// service), or else one table shared by the whole program ([`Processes::global`]).
#[derive(Debug)]
pub struct Processes {
    jobs: Mutex<Table>,
    /// This table's mark in its ids, so that an id of another server (or an earlier run of
    /// this one) is not mistaken for one of this table's.
    tag: String,
    next: AtomicU64,
}

#[derive(Debug, Default)]
struct Table {
    jobs: Vec<Arc<Job>>,
    /// Processes being started: their owners, counted as running.
    starting: Vec<Option<String>>,
}

impl Default for Processes {
    fn default() -> Self {
        Processes::new()
    }
}

impl Processes {
    /// An empty table.
    pub fn new() -> Processes {
        Processes {
            jobs: Mutex::new(Table::default()),
            tag: tag(),
            next: AtomicU64::new(1),
        }
    }

    /// The table of the whole program, used when the host put none in the runtime's services.
    pub fn global() -> Arc<Processes> {
        static GLOBAL: OnceLock<Arc<Processes>> = OnceLock::new();
        GLOBAL.get_or_init(|| Arc::new(Processes::new())).clone()
    }

    /// The table a call uses: the host's, or the program's.
    pub fn of(ctx: &ToolContext) -> Arc<Processes> {
        ctx.service::<Processes>().unwrap_or_else(Processes::global)
    }

    /// The process ids (pids) of the processes still running.
    pub fn running_pids(&self) -> Vec<u32> {
        self.lock()
            .jobs
            .iter()
            .filter(|j| j.exit().is_none())
            .map(|j| j.pid)
            .collect()
    }

    /// Ends every running process (its whole group: `SIGTERM`, then `SIGKILL` after the
    /// grace) and waits, at most a few seconds, for them to have ended: for a server that
    /// stops. Returns how many were running.
    pub async fn end_all(&self) -> usize {
        let running: Vec<Arc<Job>> = self
            .lock()
            .jobs
            .iter()
            .filter(|j| j.exit().is_none())
            .cloned()
            .collect();
        for job in &running {
            job.kill.cancel();
        }
        for job in &running {
            job.ended(KILL_WAIT).await;
        }
        running.len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Table> {
        self.jobs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Reserves a place for a process of `owner`, within the limits.
    pub(crate) fn reserve(
        self: &Arc<Self>,
        owner: Option<String>,
        limits: &BackgroundLimits,
    ) -> Result<Reservation, ToolError> {
        let mut table = self.lock();
        if limits.max_running == 0 {
            return Err(ToolError::permission(
                "the host has turned background processes off; run the command in the \
                 foreground",
            ));
        }
        let running = |o: &Option<String>| {
            table
                .jobs
                .iter()
                .filter(|j| j.exit().is_none() && j.owner == *o)
                .count()
                + table.starting.iter().filter(|s| *s == o).count()
        };
        let mine = running(&owner);
        let all = table.jobs.iter().filter(|j| j.exit().is_none()).count() + table.starting.len();
        if mine >= limits.max_running || all >= limits.max_running_total {
            let (n, max) = if mine >= limits.max_running {
                (mine, limits.max_running)
            } else {
                (all, limits.max_running_total)
            };
            return Err(ToolError::user(format!(
                "{n} background processes are running, the most this server allows ({max}); \
                 none was started"
            ))
            .with_field("max_running", max)
            .with_suggestion(
                "Kill one you no longer need (process with action kill), or run the command in \
                 the foreground.",
            ));
        }
        table.starting.push(owner.clone());
        Ok(Reservation {
            table: self.clone(),
            owner: Some(owner),
        })
    }

    /// The process `id` as `owner` may see it.
    pub(crate) fn get(&self, id: &str, owner: &Option<String>) -> Result<Arc<Job>, ToolError> {
        let table = self.lock();
        if let Some(job) = table.jobs.iter().find(|j| j.id == id && j.owner == *owner) {
            return Ok(job.clone());
        }
        let known: Vec<String> = table
            .jobs
            .iter()
            .filter(|j| j.owner == *owner)
            .map(|j| j.id.clone())
            .collect();
        let whose = if id.starts_with(&format!("{}-", self.tag)) {
            "it has ended and was forgotten, or it is not yours"
        } else {
            "background processes live on the server that started them, and this is \
             another server (or a restart of it)"
        };
        Err(ToolError::not_found(format!(
            "this server holds no background process `{id}`: {whose}"
        ))
        .with_field("id", id)
        .with_field("known_ids", known)
        .with_suggestion(
            "Call process with action list to see this server's processes; start the \
                     command again if it is gone.",
        ))
    }

    /// The processes `owner` may see, oldest first.
    pub(crate) fn list(&self, owner: &Option<String>) -> Vec<Arc<Job>> {
        self.lock()
            .jobs
            .iter()
            .filter(|j| j.owner == *owner)
            .cloned()
            .collect()
    }
}

/// A place for a process being started; given back when it drops unused.
pub(crate) struct Reservation {
    table: Arc<Processes>,
    owner: Option<Option<String>>,
}

impl Reservation {
    /// Lists the started process in the table, forgetting the oldest finished ones of its
    /// owner past `max_finished`.
    fn fill(mut self, job: Arc<Job>, max_finished: usize) {
        let owner = self.owner.take().unwrap_or_default();
        let mut table = self.table.lock();
        if let Some(i) = table.starting.iter().position(|o| *o == owner) {
            table.starting.remove(i);
        }
        table.jobs.push(job);
        let finished: Vec<usize> = (0..table.jobs.len())
            .filter(|&i| table.jobs[i].owner == owner && table.jobs[i].exit().is_some())
            .collect();
        if finished.len() > max_finished {
            let forget = finished.len() - max_finished;
            for i in finished.into_iter().take(forget).rev() {
                table.jobs.remove(i);
            }
        }
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        if let Some(owner) = self.owner.take() {
            let mut table = self.table.lock();
            if let Some(i) = table.starting.iter().position(|o| *o == owner) {
                table.starting.remove(i);
            }
        }
    }
}

/// A table's mark: four letters from the clock and the process id.
fn tag() -> String {
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let mut n = (nanos ^ (u128::from(std::process::id()) << 32)) as u64;
    n = n.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (0..4)
        .map(|i| char::from(b'a' + ((n >> (i * 8)) % 26) as u8))
        .collect()
}

/// One background process.
#[derive(Debug)]
pub(crate) struct Job {
    pub(crate) id: String,
    owner: Option<String>,
    pub(crate) command: String,
    pub(crate) working_dir: String,
    pub(crate) pid: u32,
    started: Instant,
    state: Mutex<State>,
    stdin: tokio::sync::Mutex<Option<ChildStdin>>,
    kill: CancellationToken,
    done: watch::Receiver<bool>,
}

#[derive(Debug)]
struct State {
    ring: Ring,
    /// Where the next read without an offset starts.
    cursor: u64,
    exit: Option<Exit>,
}

/// How a background process ended.
#[derive(Debug, Clone)]
pub(crate) struct Exit {
    /// `exited`, `killed` or `lifetime` (ended at its maximum lifetime).
    pub(crate) status: &'static str,
    pub(crate) code: Option<i32>,
    pub(crate) signal: Option<i32>,
    pub(crate) ran: Duration,
    pub(crate) notes: Vec<String>,
}

/// What a read of a process's output found.
#[derive(Debug)]
pub(crate) struct Read {
    pub(crate) slice: Slice,
    pub(crate) exit: Option<Exit>,
    pub(crate) ran: Duration,
}

impl Job {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(crate) fn exit(&self) -> Option<Exit> {
        self.state().exit.clone()
    }

    /// How long it has run (until its end, once ended).
    pub(crate) fn ran(&self) -> Duration {
        self.exit()
            .map_or_else(|| self.started.elapsed(), |e| e.ran)
    }

    /// Reads from `offset` (or from the end of the last read), at most `limit` bytes; the
    /// next read without an offset starts after what this one returned.
    pub(crate) fn read(&self, offset: Option<u64>, limit: usize) -> Read {
        let mut state = self.state();
        let slice = state.ring.read(offset.unwrap_or(state.cursor), limit);
        state.cursor = slice.to;
        Read {
            slice,
            exit: state.exit.clone(),
            ran: state
                .exit
                .as_ref()
                .map_or_else(|| self.started.elapsed(), |e| e.ran),
        }
    }

    /// Writes `input` to the process's stdin.
    pub(crate) async fn write(&self, input: &str) -> Result<(), ToolError> {
        let mut stdin = self.stdin.lock().await;
        let Some(pipe) = stdin.as_mut() else {
            return Err(self.not_writable());
        };
        let written = async {
            pipe.write_all(input.as_bytes()).await?;
            pipe.flush().await
        };
        match tokio::time::timeout(Duration::from_secs(5), written).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(_)) => {
                *stdin = None;
                Err(self.not_writable())
            }
            Err(_) => Err(ToolError::user(format!(
                "process `{}` did not read its input within 5 s; nothing more was written",
                self.id
            ))
            .with_suggestion("Read its output to see what it is doing, or kill it.")),
        }
    }

    fn not_writable(&self) -> ToolError {
        let why = if self.exit().is_some() {
            "it has ended"
        } else {
            "it closed its input"
        };
        ToolError::user(format!("process `{}` takes no more input: {why}", self.id))
    }

    /// Ends the process's group and waits (at most a few seconds) for it to have ended.
    pub(crate) async fn kill(&self) -> Option<Exit> {
        self.kill.cancel();
        self.ended(KILL_WAIT).await;
        self.exit()
    }

    /// Waits at most `wait` for the process to have ended.
    pub(crate) async fn ended(&self, wait: Duration) {
        let mut done = self.done.clone();
        let _ = tokio::time::timeout(wait, done.wait_for(|d| *d)).await;
    }

    /// Waits at most `wait` for output after `offset`, or for the end.
    pub(crate) async fn output_after(&self, offset: u64, wait: Duration) {
        let end = Instant::now() + wait;
        while Instant::now() < end {
            {
                let state = self.state();
                if state.ring.end() > offset || state.exit.is_some() {
                    return;
                }
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Where the output ends now.
    pub(crate) fn end(&self) -> u64 {
        self.state().ring.end()
    }
}

/// What starting a process needs besides the program.
pub(crate) struct Start {
    pub(crate) command: String,
    pub(crate) working_dir: String,
    pub(crate) max_line_chars: usize,
    pub(crate) grace: Duration,
}

/// Lists a launched program as a background process and starts watching it: its output
/// into the ring, its end (by itself, a kill, or its lifetime) into its state, its sandbox
/// finished after. Returns the process's id and pid.
pub(crate) fn start(
    table: &Arc<Processes>,
    reservation: Reservation,
    mut launched: Launched,
    sandbox: Sandbox,
    start: Start,
    limits: &BackgroundLimits,
) -> Result<Arc<Job>, ToolError> {
    let pid = launched
        .child
        .id()
        .ok_or_else(|| ToolError::system("the process started without a process id"))?;
    let stdin = launched.child.stdin.take();
    let (done_tx, done) = watch::channel(false);
    let job = Arc::new(Job {
        id: format!(
            "{}-{}",
            table.tag,
            table.next.fetch_add(1, Ordering::Relaxed)
        ),
        owner: reservation.owner.clone().unwrap_or_default(),
        command: start.command,
        working_dir: start.working_dir,
        pid,
        started: Instant::now(),
        state: Mutex::new(State {
            ring: Ring::new(limits.output_bytes),
            cursor: 0,
            exit: None,
        }),
        stdin: tokio::sync::Mutex::new(stdin),
        kill: CancellationToken::new(),
        done,
    });
    reservation.fill(job.clone(), limits.max_finished);
    let bounds = Bounds {
        deadline: Instant::now() + limits.max_lifetime,
        grace: start.grace,
        max_line_chars: start.max_line_chars,
        // Only the end of stderr is read of the captures (the sandbox's own failure).
        capture_budget: 4_000,
    };
    let watched = job.clone();
    tokio::spawn(async move {
        let sink = watched.clone();
        let kill = watched.kill.clone();
        let finished = process::run(launched, &bounds, &kill, |_, text| {
            sink.state().ring.push(text.to_owned());
        })
        .await;
        let exit = match finished {
            Ok(finished) => {
                let (_, code, signal) = finished.status_fields();
                let stderr = finished.stderr.render(4_000).text;
                let mut notes = match sandbox.finish(code, &stderr).await {
                    Ok(notes) => notes,
                    Err(e) => vec![e.message().to_owned()],
                };
                notes.extend(finished.notes());
                Exit {
                    status: match finished.ending {
                        Ending::Exited => "exited",
                        Ending::Cancelled => "killed",
                        Ending::Timeout => "lifetime",
                    },
                    code,
                    signal,
                    ran: finished.elapsed,
                    notes,
                }
            }
            Err(e) => Exit {
                status: "exited",
                code: None,
                signal: None,
                ran: watched.started.elapsed(),
                notes: vec![format!("its output could not be read: {e}")],
            },
        };
        watched.state().exit = Some(exit);
        *watched.stdin.lock().await = None;
        let _ = done_tx.send(true);
    });
    Ok(job)
}
