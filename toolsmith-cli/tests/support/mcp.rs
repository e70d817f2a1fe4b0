//! What the MCP tests share: the facade's `tests/support/mcp.rs` (the test tools, the real
//! clients, the built examples, a SearXNG stand-in), included by path, and here the
//! `toolsmith serve --http` process.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

#[path = "../../../tests/support/mcp.rs"]
mod shared;
pub use shared::*;

/// A `toolsmith serve --http 127.0.0.1:0` process, killed on drop.
pub struct ServeProcess {
    pub child: std::process::Child,
    pub url: String,
    pub stderr: Arc<Mutex<String>>,
}

impl ServeProcess {
    /// Starts `toolsmith --root DIR [global...] serve --http 127.0.0.1:0 [extra...]` and waits
    /// for the endpoint it prints.
    pub fn http(dir: &Path, extra: &[&str]) -> ServeProcess {
        Self::http_with_env(dir, extra, &[])
    }

    /// [`ServeProcess::http`] with extra environment variables (`TOOLSMITH_TOKEN`, ...).
    pub fn http_with_env(dir: &Path, extra: &[&str], env: &[(&str, &str)]) -> ServeProcess {
        let root = dir.to_str().expect("utf-8");
        let mut args = vec!["--root", root, "serve", "--http", "127.0.0.1:0"];
        args.extend_from_slice(extra);
        Self::start(dir, &args, env)
    }

    /// Starts `toolsmith ARGS` in `dir` (ARGS holding `serve --http ...`; the roots come from
    /// ARGS or the directory's `toolsmith.toml`) and waits for the endpoint it prints.
    pub fn start(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> ServeProcess {
        use std::io::BufRead;
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolsmith"))
            .args(args)
            .current_dir(dir)
            .env_remove("SEARXNG_URL")
            .env_remove("TOOLSMITH_TOKEN")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn toolsmith serve");
        let mut lines = std::io::BufReader::new(child.stderr.take().expect("stderr")).lines();
        let mut seen = String::new();
        let url = loop {
            let Some(Ok(line)) = lines.next() else {
                let _ = child.kill();
                panic!("toolsmith serve ended before printing its endpoint: {seen}");
            };
            seen.push_str(&line);
            seen.push('\n');
            if let Some(url) = line.strip_prefix("toolsmith: serving MCP on ") {
                break url.trim().to_owned();
            }
        };
        let stderr = Arc::new(Mutex::new(seen));
        let sink = stderr.clone();
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                if let Ok(mut s) = sink.lock() {
                    s.push_str(&line);
                    s.push('\n');
                }
            }
        });
        ServeProcess { child, url, stderr }
    }
}

impl Drop for ServeProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
