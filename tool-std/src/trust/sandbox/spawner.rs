//! The threads sandboxed commands are started from, when a command is confined in this
//! process rather than by the helper.
//!
//! Each command gets a thread of its own, which confines itself with the call's plan
//! (mounts, Landlock) and then starts the shell, which inherits every restriction. The
//! seccomp filters are the same for every call, and installing one costs the kernel time in
//! proportion to its length (a fifth of a millisecond for the shared filter), so they are
//! installed once, on a long-lived *spawner* thread: the calls' threads are started by it and
//! inherit its filters, `no_new_privs` and its emptied capability bounding and ambient sets
//! as they are. There is one spawner per kind of sockets the calls may make, and per
//! whether the calls mount: a call that mounts cannot have the namespace filter before its
//! mounts are made, so its spawner leaves that one out and the call's thread adds it after.
//! Each spawner keeps one thread started ahead, waiting for
//! the next call.

use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex, OnceLock};

use super::apply;
use super::plan::Plan;
use super::seccomp::{self, Sockets};

type Job = Box<dyn FnOnce() + Send>;

/// What a spawner thread is asked to do.
enum Request {
    /// Start a thread for this job.
    Run(Job),
    /// Start the next thread waiting for a job, the one in [`Spawner::ready`] having been
    /// taken.
    Refill,
}

/// A spawner thread, and the thread it started last, waiting for a job: a call hands its job
/// straight to that thread, so neither the spawner's wake-up nor a thread's start is on the
/// call's path.
struct Spawner {
    requests: Sender<Request>,
    ready: Arc<Mutex<Option<Sender<Job>>>>,
}

/// Runs `start` on a new thread confined by `plan`, giving it whether the confinement
/// succeeded; `start` starts the command (or, on an error, reports that it did not). An
/// error here means no thread was started. The thread ends when `start` returns, so `start`
/// must not wait for the command.
pub(crate) fn start_confined(
    plan: Arc<Plan>,
    start: impl FnOnce(Result<(), String>) + Send + 'static,
) -> Result<(), String> {
    let mounts = !plan.binds.is_empty();
    let spawner = spawner(plan.sockets(), mounts)?;
    let mut job: Job = Box::new(move || start(apply::confine_call_thread(&plan)));
    let waiting = spawner
        .ready
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take();
    if let Some(thread) = waiting {
        match thread.send(job) {
            Ok(()) => {
                // Best effort: without a waiting thread, the next call asks for one.
                let _ = spawner.requests.send(Request::Refill);
                return Ok(());
            }
            Err(mpsc::SendError(back)) => job = back,
        }
    }
    spawner
        .requests
        .send(Request::Run(job))
        .map_err(|_| "the sandbox's spawner thread has stopped".to_owned())?;
    // No thread was waiting (the first call, or calls closer together than a thread starts):
    // have one ready for the next call.
    let _ = spawner.requests.send(Request::Refill);
    Ok(())
}

/// The spawner for calls making `sockets`, with or without mounts, started on first use.
fn spawner(sockets: Sockets, mounts: bool) -> Result<&'static Spawner, String> {
    static SPAWNERS: [OnceLock<Result<Spawner, String>>; Sockets::COUNT * 2] =
        [const { OnceLock::new() }; Sockets::COUNT * 2];
    SPAWNERS[sockets.index() * 2 + usize::from(mounts)]
        .get_or_init(|| start_spawner(sockets, mounts))
        .as_ref()
        .map_err(Clone::clone)
}

fn start_spawner(sockets: Sockets, mounts: bool) -> Result<Spawner, String> {
    let (requests, queue) = mpsc::channel::<Request>();
    let ready: Arc<Mutex<Option<Sender<Job>>>> = Arc::default();
    let slot = ready.clone();
    let (ready_tx, set_up) = mpsc::channel();
    std::thread::Builder::new()
        .name("bash-sandbox-spawner".to_owned())
        .spawn(move || {
            // A call that mounts adds the namespace filter after its mounts.
            let installed = apply::drop_capabilities()
                .and_then(|()| seccomp::install_shared(sockets))
                .and_then(|()| {
                    if mounts {
                        Ok(())
                    } else {
                        seccomp::install_namespaces()
                    }
                })
                .and_then(|()| seccomp::install_fallbacks());
            let failed = installed.is_err();
            let _ = ready_tx.send(installed);
            if failed {
                return;
            }
            let refill = || {
                let mut waiting = slot.lock().unwrap_or_else(|e| e.into_inner());
                if waiting.is_none() {
                    *waiting = waiting_thread();
                }
            };
            refill();
            for request in queue {
                match request {
                    // A thread that cannot be made drops its job, whose caller then hears
                    // that the command was not started.
                    Request::Run(job) => drop(call_thread().spawn(job)),
                    Request::Refill => refill(),
                }
            }
        })
        .map_err(|e| format!("cannot start the sandbox's spawner thread: {e}"))?;
    set_up
        .recv()
        .map_err(|_| "the sandbox's spawner thread ended while starting".to_owned())??;
    Ok(Spawner { requests, ready })
}

fn call_thread() -> std::thread::Builder {
    std::thread::Builder::new().name("bash-sandbox".to_owned())
}

/// A thread waiting for one job; it ends without one when its sender goes.
fn waiting_thread() -> Option<Sender<Job>> {
    let (tx, rx) = mpsc::channel::<Job>();
    call_thread()
        .spawn(move || {
            if let Ok(job) = rx.recv() {
                job();
            }
        })
        .ok()?;
    Some(tx)
}
