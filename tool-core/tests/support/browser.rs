//! Headless Chromium driven over the DevTools protocol on a loopback websocket, for the
//! activity page's browser tests (tool-core's, and the `toolsmith serve` ones of the command's
//! package, toolsmith-cli, which includes this file by path).

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

/// A tool call over MCP: the result's JSON (structured content, else the text parsed) and
/// whether it is an error.
pub async fn mcp_call(
    peer: &rmcp::Peer<rmcp::RoleClient>,
    name: &str,
    args: Value,
) -> (Value, bool) {
    let mut params = rmcp::model::CallToolRequestParams::new(name.to_owned());
    if let Value::Object(map) = args {
        params = params.with_arguments(map);
    }
    let r = peer.call_tool(params).await.expect("tools/call");
    let text = r
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<String>();
    let value = r
        .structured_content
        .clone()
        .unwrap_or_else(|| serde_json::from_str(&text).unwrap_or(Value::String(text)));
    (value, r.is_error == Some(true))
}

pub fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for name in ["chromium", "chromium-browser", "google-chrome"] {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// A DevTools protocol connection to the browser, with one page attached.
pub struct Cdp {
    pub ws: tokio_tungstenite::WebSocketStream<
        tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
    >,
    pub next: u64,
    pub session: Option<String>,
}

impl Cdp {
    pub async fn call(&mut self, method: &str, params: Value) -> Value {
        match self.try_call(method, params).await {
            Ok(v) => v,
            Err(e) => panic!("{method} failed: {e}"),
        }
    }

    /// [`call`](Self::call), its error returned.
    pub async fn try_call(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        self.next += 1;
        let id = self.next;
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = &self.session {
            msg["sessionId"] = json!(s);
        }
        self.ws
            .send(Message::text(msg.to_string()))
            .await
            .expect("send to the browser");
        loop {
            let frame = tokio::time::timeout(Duration::from_secs(30), self.ws.next())
                .await
                .unwrap_or_else(|_| panic!("the browser did not answer {method} within 30 s"))
                .expect("the browser closed the connection")
                .expect("websocket error");
            let Ok(text) = frame.to_text() else { continue };
            let v: Value = serde_json::from_str(text).unwrap_or(Value::Null);
            if v["id"] == id {
                if let Some(e) = v.get("error") {
                    return Err(e.clone());
                }
                return Ok(v["result"].clone());
            }
        }
    }

    /// Evaluates an expression in the page; its value (by value).
    pub async fn eval(&mut self, expr: &str) -> Value {
        let r = self
            .call(
                "Runtime.evaluate",
                json!({"expression": expr, "returnByValue": true, "awaitPromise": true}),
            )
            .await;
        if let Some(ex) = r.get("exceptionDetails") {
            panic!("the page threw evaluating {expr}: {ex}");
        }
        r["result"]["value"].clone()
    }

    /// Reloads the page and waits until it says its event stream is live again (an
    /// evaluation that meets the navigation is tried again). The command's tests reload;
    /// tool-core's, which share this file, do not.
    #[allow(dead_code)]
    pub async fn reload(&mut self) {
        self.call("Page.reload", json!({})).await;
        for _ in 0..200 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            let state = self
                .try_call(
                    "Runtime.evaluate",
                    json!({"expression": "document.getElementById('conn') && document.getElementById('conn').dataset.state", "returnByValue": true}),
                )
                .await;
            if state.is_ok_and(|r| r["result"]["value"] == "live") {
                return;
            }
        }
        panic!("the page did not come back live within 20 s of a reload");
    }

    /// The page's cells as the test reads them.
    pub async fn cells(&mut self) -> Vec<Value> {
        let v = self.eval(CELLS).await;
        serde_json::from_str(v.as_str().unwrap_or("[]")).unwrap_or_default()
    }

    /// Polls the cells until `pred` holds (20 s at most).
    pub async fn wait_cells(&mut self, what: &str, pred: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        for _ in 0..200 {
            let cells = self.cells().await;
            if pred(&cells) {
                return cells;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("the page never showed {what}: {:#?}", self.cells().await);
    }

    pub async fn screenshot(
        &mut self,
        width: u32,
        height: u32,
        mobile: bool,
        name: &str,
    ) -> PathBuf {
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile}),
        )
        .await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let shot = self
            .call("Page.captureScreenshot", json!({"format": "png"}))
            .await;
        use base64::Engine as _;
        let png = base64::engine::general_purpose::STANDARD
            .decode(shot["data"].as_str().expect("screenshot data"))
            .expect("base64 screenshot");
        let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
        std::fs::write(&path, png).expect("write screenshot");
        path
    }
}

pub const CELLS: &str = r#"JSON.stringify(Array.from(document.querySelectorAll('#cells article.cell')).map(c => ({
  id: c.dataset.callId, tool: c.dataset.tool, status: c.dataset.status, hidden: c.hidden,
  quiet: c.classList.contains('quiet'),
  group: c.closest('.group').dataset.key,
  group_title: c.closest('.group').querySelector('.group-title').textContent,
  status_line: c.querySelector('.status-line').textContent,
  preview: c.querySelector('.preview').textContent,
  subject: c.querySelector('.subject').textContent,
  approval: c.querySelector('.approval').textContent,
  data: Object.fromEntries(Array.from(c.querySelectorAll('.data .field')).map(f => [f.dataset.field, f.querySelector('dd').textContent])),
  name: c.querySelector('.name').textContent,
  message: c.querySelector('.message').textContent,
  output: c.querySelector('.output').textContent,
  error: c.querySelector('.error').textContent,
  meta: c.querySelector('.meta').textContent,
  result: c.querySelector('.result pre').textContent,
  input: c.querySelector('.input pre').textContent,
  elements: c.querySelectorAll('script, img, b').length,
})))"#;

pub fn find<'a>(cells: &'a [Value], tool: &str) -> Option<&'a Value> {
    cells.iter().find(|c| c["tool"] == tool)
}

/// A headless Chromium with a fresh profile, and a DevTools connection to a new blank page.
pub struct Browser {
    pub child: tokio::process::Child,
    pub cdp: Cdp,
    _profile: tempfile::TempDir,
}

impl Browser {
    /// Starts `browser` and attaches to a new page with `Page` and `Runtime` enabled.
    pub async fn start(browser: &std::path::Path) -> Browser {
        let profile = tempfile::tempdir().expect("profile dir");
        let child = tokio::process::Command::new(browser)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                "--disable-background-networking",
                "--disable-component-update",
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
                "--window-size=1280,900",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("start chromium");
        // Chromium writes its DevTools port and browser path to this file once it listens.
        let port_file = profile.path().join("DevToolsActivePort");
        let mut endpoint = None;
        for _ in 0..300 {
            if let Ok(text) = std::fs::read_to_string(&port_file) {
                let mut lines = text.lines();
                if let (Some(port), Some(path)) = (lines.next(), lines.next()) {
                    endpoint = Some(format!("ws://127.0.0.1:{port}{path}"));
                    break;
                }
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let endpoint = endpoint.expect("chromium did not open its DevTools port within 30 s");
        let (ws, _) = tokio_tungstenite::connect_async(endpoint.as_str())
            .await
            .expect("connect to the DevTools websocket");
        let mut cdp = Cdp {
            ws,
            next: 0,
            session: None,
        };
        let target = cdp
            .call("Target.createTarget", json!({"url": "about:blank"}))
            .await;
        let attached = cdp
            .call(
                "Target.attachToTarget",
                json!({"targetId": target["targetId"], "flatten": true}),
            )
            .await;
        cdp.session = Some(attached["sessionId"].as_str().expect("session").to_owned());
        cdp.call("Page.enable", json!({})).await;
        cdp.call("Runtime.enable", json!({})).await;
        Browser {
            child,
            cdp,
            _profile: profile,
        }
    }

    /// Opens `url` and waits until the activity page says its event stream is live.
    pub async fn open_activity(&mut self, url: &str) {
        self.cdp.call("Page.navigate", json!({"url": url})).await;
        for _ in 0..200 {
            let state = self
                .cdp
                .eval(
                    "document.getElementById('conn') && document.getElementById('conn').dataset.state",
                )
                .await;
            if state == "live" {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("the page did not connect to its event stream within 20 s");
    }
}
