//! The threads sandboxed commands are started from, when a command is confined in this
//! process rather than by the helper.
//!
//! Each command gets a thread of its own, which confines itself with the call's plan
//! (mounts, Landlock) and then starts the shell, which inherits every restriction. The
//! seccomp filter is the same for every call, and installing it costs the kernel time in
//! proportion to its length (a fifth of a millisecond for the whole filter), so it is
//! installed once, on a long-lived *spawner* thread: the calls' threads are started by it and
//! inherit its filter and `no_new_privs` as they are. There is one spawner per way of the
//! network, and per whether the calls mount: a call that mounts cannot have the rules on
//! mounts and namespaces before its mounts are made, so its spawner leaves them out and the
//! call's thread adds them after.

use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, OnceLock};

use super::apply;
use super::plan::Plan;
use super::seccomp::{self, Part};

type Job = Box<dyn FnOnce() + Send>;

/// Runs `start` on a new thread confined by `plan`, giving it whether the confinement
/// succeeded; `start` starts the command (or, on an error, reports that it did not). An
/// error here means no thread was started. The thread ends when `start` returns, so `start`
/// must not wait for the command.
pub(crate) fn start_confined(
    plan: Arc<Plan>,
    start: impl FnOnce(Result<(), String>) + Send + 'static,
) -> Result<(), String> {
    let mounts = !plan.binds.is_empty();
    let spawner = spawner(plan.network, mounts)?;
    let job: Job = Box::new(move || start(apply::confine_call_thread(&plan)));
    spawner
        .send(job)
        .map_err(|_| "the sandbox's spawner thread has stopped".to_owned())
}

/// The spawner for calls with or without the network and mounts, started on first use.
fn spawner(network: bool, mounts: bool) -> Result<&'static Sender<Job>, String> {
    static SPAWNERS: [OnceLock<Result<Sender<Job>, String>>; 4] = [const { OnceLock::new() }; 4];
    SPAWNERS[usize::from(network) * 2 + usize::from(mounts)]
        .get_or_init(|| start_spawner(network, mounts))
        .as_ref()
        .map_err(Clone::clone)
}

fn start_spawner(network: bool, mounts: bool) -> Result<Sender<Job>, String> {
    let (jobs, queue) = mpsc::channel::<Job>();
    let (ready_tx, ready) = mpsc::channel();
    std::thread::Builder::new()
        .name("bash-sandbox-spawner".to_owned())
        .spawn(move || {
            let part = if mounts { Part::Shared } else { Part::All };
            let set_up =
                seccomp::install(network, part).and_then(|()| seccomp::install_fallbacks());
            let failed = set_up.is_err();
            let _ = ready_tx.send(set_up);
            if failed {
                return;
            }
            for job in queue {
                // A thread that cannot be made drops its job, whose caller then hears that
                // the command was not started.
                let _ = std::thread::Builder::new()
                    .name("bash-sandbox".to_owned())
                    .spawn(job);
            }
        })
        .map_err(|e| format!("cannot start the sandbox's spawner thread: {e}"))?;
    ready
        .recv()
        .map_err(|_| "the sandbox's spawner thread ended while starting".to_owned())??;
    Ok(jobs)
}
