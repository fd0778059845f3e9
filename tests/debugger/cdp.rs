//! A minimal Chrome DevTools Protocol client for the report's browser test: start headless
//! Chromium on a free port, attach to its page over the browser websocket (flattened
//! sessions), send commands and wait for their replies.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

/// The first Chromium-family binary on PATH.
pub fn find_chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    for name in ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"] {
        for dir in std::env::split_paths(&path) {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

pub struct Browser {
    child: Child,
    ws: WebSocket<MaybeTlsStream<TcpStream>>,
    session: String,
    next_id: u64,
    _profile: PathBuf,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.ws.close(None);
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self._profile);
    }
}

impl Browser {
    /// Start `chromium` headless with a fresh profile and attach to its first page.
    pub fn launch(chromium: &Path, profile: PathBuf) -> Result<Browser, String> {
        std::fs::create_dir_all(&profile).map_err(|e| e.to_string())?;
        let mut child = Command::new(chromium)
            .args(["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--remote-debugging-port=0"])
            .arg("--window-size=1280,1600")
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", chromium.display()))?;
        let stderr = child.stderr.take().ok_or("no stderr")?;
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(url) = line.strip_prefix("DevTools listening on ") {
                    let _ = tx.send(url.trim().to_string());
                }
            }
        });
        let url = match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(u) => u,
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err("Chromium did not print its DevTools address within 60 s".into());
            }
        };
        let (ws, _) = tungstenite::connect(url.as_str()).map_err(|e| format!("websocket {url}: {e}"))?;
        let mut b = Browser { child, ws, session: String::new(), next_id: 0, _profile: profile };
        let targets = b.call_browser("Target.getTargets", json!({}))?;
        let page = targets["targetInfos"]
            .as_array()
            .and_then(|t| t.iter().find(|t| t["type"] == "page"))
            .and_then(|t| t["targetId"].as_str())
            .ok_or("no page target")?
            .to_string();
        let att = b.call_browser("Target.attachToTarget", json!({ "targetId": page, "flatten": true }))?;
        b.session = att["sessionId"].as_str().ok_or("no session id")?.to_string();
        Ok(b)
    }

    fn send(&mut self, method: &str, params: Value, session: bool) -> Result<Value, String> {
        self.next_id += 1;
        let id = self.next_id;
        let mut msg = json!({ "id": id, "method": method, "params": params });
        if session {
            msg["sessionId"] = json!(self.session);
        }
        self.ws.send(Message::Text(msg.to_string().into())).map_err(|e| e.to_string())?;
        loop {
            let m = self.ws.read().map_err(|e| format!("{method}: {e}"))?;
            let Message::Text(t) = m else { continue };
            let v: Value = serde_json::from_str(&t).map_err(|e| e.to_string())?;
            if v["id"] == json!(id) {
                if let Some(e) = v.get("error") {
                    return Err(format!("{method}: {e}"));
                }
                return Ok(v["result"].clone());
            }
        }
    }

    fn call_browser(&mut self, method: &str, params: Value) -> Result<Value, String> {
        self.send(method, params, false)
    }

    /// A command to the attached page.
    pub fn call(&mut self, method: &str, params: Value) -> Result<Value, String> {
        self.send(method, params, true)
    }

    /// Evaluate a JavaScript expression in the page and return its value.
    pub fn eval(&mut self, expr: &str) -> Result<Value, String> {
        let r =
            self.call("Runtime.evaluate", json!({ "expression": expr, "returnByValue": true, "awaitPromise": true }))?;
        if let Some(e) = r.get("exceptionDetails") {
            return Err(format!("{expr}: {e}"));
        }
        Ok(r["result"]["value"].clone())
    }

    /// Load `url` and wait until the document has loaded.
    pub fn open(&mut self, url: &str) -> Result<(), String> {
        self.call("Page.navigate", json!({ "url": url }))?;
        for _ in 0..600 {
            let state = self.eval("document.readyState + ' ' + document.URL")?;
            if state.as_str().is_some_and(|s| s.starts_with("complete") && s.ends_with(url)) {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Err(format!("{url} did not finish loading in 30 s"))
    }

    /// A real mouse click (pressed + released) at page coordinates.
    pub fn click(&mut self, x: f64, y: f64) -> Result<(), String> {
        for kind in ["mouseMoved", "mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 }),
            )?;
        }
        Ok(())
    }

    /// A PNG screenshot of the whole page.
    pub fn screenshot(&mut self) -> Result<Vec<u8>, String> {
        use base64::Engine as _;
        let r = self.call("Page.captureScreenshot", json!({ "format": "png", "captureBeyondViewport": false }))?;
        let data = r["data"].as_str().ok_or("no screenshot data")?;
        base64::engine::general_purpose::STANDARD.decode(data).map_err(|e| e.to_string())
    }
}
