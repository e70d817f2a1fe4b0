//! How the command ends and what it reads besides argv: `serve` stopping on `SIGTERM` or
//! `SIGINT` within a bound, and the ways `call` reads its arguments when they do not fit in
//! argv (`-` for stdin, `--args-file PATH`).

use std::io::Read;
use std::path::Path;

use crate::notice;

/// The most bytes of arguments read from stdin or a file (the runtime's own limit on a
/// call's arguments is what refuses them; this only keeps the read bounded).
const MAX_ARGUMENT_INPUT: u64 = 64 * 1024 * 1024;

/// How long a stopping server has, from the signal, before it is ended at once: the calls'
/// drain (`tool_core::mcp::DRAIN_TIMEOUT`) and then the records and spans written.
const STOP_BOUND: std::time::Duration = std::time::Duration::from_secs(10);

/// The arguments of `call`: the positional JSON, `-` for stdin, or `--args-file PATH`.
pub(crate) fn read_arguments(
    positional: Option<String>,
    file: Option<&Path>,
) -> Result<Option<String>, String> {
    match (positional.as_deref(), file) {
        (Some(_), Some(_)) => Err(
            "give the arguments once: as JSON, as `-` (stdin) or with --args-file, not two of them"
                .to_owned(),
        ),
        (Some("-"), None) => {
            let mut text = String::new();
            std::io::stdin()
                .lock()
                .take(MAX_ARGUMENT_INPUT)
                .read_to_string(&mut text)
                .map_err(|e| format!("cannot read the arguments from stdin: {e}"))?;
            Ok(Some(text))
        }
        (_, Some(path)) => {
            let file = std::fs::File::open(path)
                .map_err(|e| format!("cannot open the arguments file {}: {e}", path.display()))?;
            let mut text = String::new();
            file.take(MAX_ARGUMENT_INPUT)
                .read_to_string(&mut text)
                .map_err(|e| format!("cannot read the arguments file {}: {e}", path.display()))?;
            Ok(Some(text))
        }
        (p, None) => Ok(p.map(str::to_owned)),
    }
}

/// Stops the server gracefully on `SIGTERM` or `SIGINT` (see `ServeOptions::shutdown`): the
/// calls running are ended and answered, the records written, the spans sent, and the process
/// exits 0. Should that take longer than [`STOP_BOUND`], or a second signal come, it exits at
/// once with status 1 (the guardian process still ends the programs the calls started).
pub(crate) fn stop_on_signals(shutdown: tokio_util::sync::CancellationToken) {
    tokio::spawn(async move {
        if !stop_signal().await {
            return;
        }
        notice(&format!(
            "stopping: ending the calls in progress (at most {} s)",
            STOP_BOUND.as_secs()
        ));
        shutdown.cancel();
        let _ = std::thread::Builder::new()
            .name("stop-bound".into())
            .spawn(|| {
                std::thread::sleep(STOP_BOUND);
                notice("the server did not stop in time; ending it now");
                std::process::exit(1);
            });
        if stop_signal().await {
            notice("stopped by a second signal");
            std::process::exit(1);
        }
    });
}

/// Waits for `SIGTERM` or `SIGINT`; `false` when neither can be listened to.
async fn stop_signal() -> bool {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let (Ok(mut term), Ok(mut int)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) else {
            return false;
        };
        tokio::select! {
            _ = term.recv() => true,
            _ = int.recv() => true,
        }
    }
    #[cfg(not(unix))]
    {
        tokio::signal::ctrl_c().await.is_ok()
    }
}
