//! `toolsmith serve` over stdio driven frame by frame: frames written from a thread of their
//! own (the server answers while a long frame is still being written), answers read on
//! another (a frame left unanswered fails a test at its deadline instead of blocking it), and
//! the server's memory read from `/proc`.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// A `toolsmith serve` child on stdio.
pub struct StdioServe {
    child: Child,
    log: std::path::PathBuf,
    stdin: Option<ChildStdin>,
    writer: Option<JoinHandle<ChildStdin>>,
    answers: mpsc::Receiver<String>,
    /// Every answer read so far, by its `id` as JSON text (`null` for answers without one).
    pub by_id: HashMap<String, Vec<Value>>,
    /// Every answer read so far as the server wrote it, in order.
    pub lines: Vec<String>,
}

impl StdioServe {
    /// Starts `toolsmith <args> serve` in `cwd`, with no search backend configured and its
    /// stderr written to `cwd/serve.stderr` ([`stderr`](Self::stderr)).
    pub fn start(cwd: &Path, args: &[&str]) -> StdioServe {
        Self::start_with_env(cwd, args, &[])
    }

    /// [`start`](Self::start) with extra environment variables.
    pub fn start_with_env(cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> StdioServe {
        Self::spawn(cwd, args, &[], env)
    }

    /// Starts `toolsmith <global> serve <serve>` in `cwd`, as [`start`](Self::start) does.
    pub fn start_serving(cwd: &Path, global: &[&str], serve: &[&str]) -> StdioServe {
        Self::spawn(cwd, global, serve, &[])
    }

    fn spawn(cwd: &Path, args: &[&str], serve: &[&str], env: &[(&str, &str)]) -> StdioServe {
        let log = std::fs::File::create(cwd.join("serve.stderr")).expect("stderr file");
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolsmith"))
            .args(args)
            .arg("serve")
            .args(serve)
            .current_dir(cwd)
            .env_remove("SEARXNG_URL")
            .env_remove("TOOLSMITH_SEARXNG_URL")
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .expect("spawn toolsmith serve");
        let (tx, answers) = mpsc::channel::<String>();
        let stdout = child.stdout.take().expect("stdout");
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        StdioServe {
            stdin: child.stdin.take(),
            child,
            log: cwd.join("serve.stderr"),
            writer: None,
            answers,
            by_id: HashMap::new(),
            lines: Vec::new(),
        }
    }

    /// What the server wrote to stderr so far.
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The child's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Writes `frames`, each followed by a newline, from a thread of its own; a later `send`
    /// or `close` waits for it.
    pub fn send(&mut self, frames: Vec<Vec<u8>>) {
        let mut stdin = self.take_stdin();
        self.writer = Some(std::thread::spawn(move || {
            for frame in frames {
                // A server that stopped reading fails the test by its missing answers.
                if stdin.write_all(&frame).is_err() || stdin.write_all(b"\n").is_err() {
                    break;
                }
            }
            stdin
        }));
    }

    fn take_stdin(&mut self) -> ChildStdin {
        match self.writer.take() {
            Some(writer) => writer.join().expect("the writer thread"),
            None => self.stdin.take().expect("stdin still open"),
        }
    }

    /// Opens a 2025-11-25 session as a client that can ask its user (elicitation), calls
    /// `bash` with `command` (request id 7), and waits until the server has answered
    /// `initialize` and put its question to the user.
    pub fn ask_about_bash_2025(&mut self, command: &str) {
        let init = json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"elicitation": {"form": {}}},
            "clientInfo": {"name": "asking-client", "version": "1"},
        }});
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
            "name": "bash", "arguments": {"command": command},
        }});
        let frames = [init, initialized, call];
        self.send(frames.iter().map(|f| f.to_string().into_bytes()).collect());
        assert!(
            self.read_until(2, Duration::from_secs(20)),
            "{}",
            self.stderr()
        );
    }

    /// Reads answers until `want` have come in all (counting those read before) or `limit`
    /// passes. Returns whether all came.
    pub fn read_until(&mut self, want: usize, limit: Duration) -> bool {
        let until = Instant::now() + limit;
        while self.answered() < want {
            let left = until.saturating_duration_since(Instant::now());
            let Ok(line) = self.answers.recv_timeout(left) else {
                return false;
            };
            let answer: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("an answer that is not JSON ({e}): {line:.300}"));
            self.by_id
                .entry(answer["id"].to_string())
                .or_default()
                .push(answer);
            self.lines.push(line);
        }
        true
    }

    /// Sends `frame` and waits for its answer (a new one, when its id was used before), the
    /// frames sent earlier answered or not.
    pub fn ask(&mut self, frame: Value) -> Value {
        let id = frame["id"].clone();
        let before = self.answers_to(&id).len();
        self.send(vec![frame.to_string().into_bytes()]);
        let until = Instant::now() + Duration::from_secs(30);
        while self.answers_to(&id).len() == before {
            let left = until.saturating_duration_since(Instant::now());
            assert!(
                self.read_until(self.answered() + 1, left),
                "{id} answered; stderr: {}",
                self.stderr()
            );
        }
        self.answers_to(&id).last().expect("an answer").clone()
    }

    /// How many answers were read.
    pub fn answered(&self) -> usize {
        self.by_id.values().map(Vec::len).sum()
    }

    /// The answers to `id`.
    pub fn answers_to(&self, id: &Value) -> &[Value] {
        self.by_id
            .get(&id.to_string())
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    /// The child's peak and current resident memory, in bytes (`VmHWM`, `VmRSS`).
    pub fn memory(&self) -> (u64, u64) {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid()))
            .expect("the server's /proc status");
        let field = |name: &str| -> u64 {
            let line = status
                .lines()
                .find(|l| l.starts_with(name))
                .unwrap_or_else(|| panic!("{name} in /proc status"));
            let kb: u64 = line
                .split_whitespace()
                .nth(1)
                .and_then(|n| n.parse().ok())
                .expect("a number of kB");
            kb * 1024
        };
        (field("VmHWM:"), field("VmRSS:"))
    }

    /// Sends the signal `name` (`TERM`, `KILL`, ...) to the server with `kill(1)`.
    pub fn signal(&self, name: &str) {
        super::signal(self.pid(), name);
    }

    /// Waits up to `limit` for the server to exit on its own; its status, or `None` (it is
    /// then killed).
    pub fn wait_exit(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let status = super::wait_for_exit(&mut self.child, limit);
        if status.is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        status
    }

    /// Closes stdin and waits for the server to exit (killing it after `grace`); whether it
    /// exited by itself, with success.
    pub fn close(mut self, grace: Duration) -> bool {
        drop(self.take_stdin());
        self.wait_exit(grace).is_some_and(|s| s.success())
    }
}

impl Drop for StdioServe {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The text of a `tools/call` answer.
pub fn text_of(answer: &Value) -> String {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("a text result: {answer}"))
        .to_owned()
}

/// A client speaking one protocol version: the frames that open a connection, and requests
/// with the version's `_meta`.
#[derive(Clone, Copy, Debug)]
pub enum Version {
    /// 2025-06-18: `initialize`, then `notifications/initialized`.
    V2025_06_18,
    /// 2025-11-25: `initialize`, then `notifications/initialized`.
    V2025,
    /// 2026-07-28: no handshake; `_meta` on every request.
    V2026,
}

impl Version {
    /// The frames that open a connection (the `initialize` request has id `"init"`).
    pub fn prelude(self) -> Vec<Vec<u8>> {
        let version = match self {
            Version::V2025_06_18 => "2025-06-18",
            Version::V2025 => "2025-11-25",
            Version::V2026 => return Vec::new(),
        };
        vec![
            json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
                "protocolVersion": version, "capabilities": {},
                "clientInfo": {"name": "toolsmith-tests", "version": "1"},
            }})
            .to_string()
            .into_bytes(),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
                .to_string()
                .into_bytes(),
        ]
    }

    /// How many answers the prelude gets.
    pub fn prelude_answers(self) -> usize {
        match self {
            Version::V2025_06_18 | Version::V2025 => 1,
            Version::V2026 => 0,
        }
    }

    /// A request `{"jsonrpc": "2.0", id, method, params}` with this version's `_meta`.
    pub fn request(self, id: &Value, method: &str, mut params: Value) -> Value {
        if let (Version::V2026, Some(p)) = (self, params.as_object_mut()) {
            p.insert("_meta".into(), super::mcp::meta_2026("toolsmith-tests"));
        }
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
    }
}
