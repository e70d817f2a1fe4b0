//! A seeded generator of MCP frames for `toolsmith serve`: tool calls whose arguments follow
//! each tool's input schema with mutations (wrong types, missing and unknown fields, hostile
//! paths, patterns, URLs and patches, now and then a megabyte of padding), and malformed
//! frames of every kind, each with the answer it must get.
//!
//! Every URL it makes is a loopback or private address, or no URL at all, and every shell
//! command is harmless: nothing it sends reaches past this machine or the test's directory.

use serde_json::{Map, Value, json};

/// splitmix64: small, seeded, the same sequence on every machine.
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True `percent` times in a hundred.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    /// One of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// What a frame's answer must be.
#[derive(Debug, Clone, PartialEq)]
pub enum Expect {
    /// An answer with this id, any result or error (a tool call).
    Any(Value),
    /// An error with this id and code.
    Error(Value, i64),
    /// An error without an id (`null`): a parse error or an invalid request.
    NoId,
}

/// A frame and what its answer must be.
pub struct Frame {
    pub bytes: Vec<u8>,
    pub expect: Expect,
}

/// Paths a model might write, many of them attacks: inside the root, outside it by `..`, by
/// absolute path, by symbolic and hard link, a FIFO, a dangling link, `~`, NUL.
fn paths(outside: &str) -> Vec<String> {
    let mut p: Vec<String> = [
        "a.txt",
        "src/lib.rs",
        "src/main.rs",
        "new.txt",
        "new/dir/file.txt",
        "src",
        ".",
        "",
        "..",
        "../outside/secret.txt",
        "src/../../outside/secret.txt",
        "link_out/secret.txt",
        "link_out",
        "link_secret",
        "dangling",
        "hard.txt",
        "fifo",
        ".git/config",
        ".git/hooks/pre-commit",
        ".env",
        "~/x.txt",
        "$HOME/x.txt",
        "/etc/passwd",
        "/proc/self/environ",
        "a.txt:1-3",
        "src/lib.rs:2",
        "nul\u{0}byte.txt",
        "é漢字🙂.txt",
        "src/**",
        "*.rs",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    p.push(format!("{outside}/secret.txt"));
    p.push(format!("{outside}/new.txt"));
    p.push("x/".repeat(300));
    p.push("a".repeat(5000));
    p
}

const PATTERNS: &[&str] = &[
    "fn ",
    "hello",
    "(",
    "[",
    "a{99999}",
    ".*",
    "^$",
    "\\",
    "*.rs",
    "**/*",
    "**/*.txt",
    "{a,b}",
    "é",
    "(?i)HELLO",
    "x*y*z*",
    "",
];

const URLS: &[&str] = &[
    "http://127.0.0.1:9/",
    "http://127.0.0.1:1/x",
    "http://[::1]:9/",
    "http://localhost:9/",
    "http://0x7f000001/",
    "http://2130706433/",
    "http://10.0.0.1/",
    "http://169.254.169.254/latest/meta-data/",
    "http://[::ffff:127.0.0.1]/",
    "file:///etc/passwd",
    "ftp://127.0.0.1/",
    "gopher://127.0.0.1/",
    "not a url",
    "",
    "http://",
    "javascript:alert(1)",
];

const COMMANDS: &[&str] = &[
    "echo hi",
    "true",
    "false",
    "exit 3",
    "printf '%s\\n' a b",
    "echo é漢字",
    "pwd",
    "ls",
    "",
];

const TEXTS: &[&str] = &[
    "",
    "hello",
    "a\nb\n",
    "é漢字🙂",
    "line\r\nline",
    "\u{0}",
    "}{\"",
    "*** Begin Patch",
];

/// A patch: well-formed ones inside the root, ones aimed outside, and nonsense.
fn patches(outside: &str) -> Vec<String> {
    vec![
        "*** Begin Patch\n*** Add File: added.txt\n+hi\n*** End Patch".into(),
        "*** Begin Patch\n*** Update File: a.txt\n@@\n-hello\n+hullo\n*** End Patch".into(),
        "*** Begin Patch\n*** Delete File: new.txt\n*** End Patch".into(),
        "*** Begin Patch\n*** Add File: ../outside/evil.txt\n+x\n*** End Patch".into(),
        format!("*** Begin Patch\n*** Add File: {outside}/evil.txt\n+x\n*** End Patch"),
        "*** Begin Patch\n*** Update File: link_secret\n@@\n-s\n+x\n*** End Patch".into(),
        "*** Begin Patch\n*** Update File: a.txt\n*** Move to: ../outside/moved.txt\n@@\n-hello\n+x\n*** End Patch".into(),
        "*** Begin Patch\n*** Add File: link_out/evil.txt\n+x\n*** End Patch".into(),
        "*** Begin Patch\n*** End Patch".into(),
        "garbage".into(),
        String::new(),
    ]
}

/// Makes frames for one server.
pub struct Fuzzer {
    pub rng: Rng,
    paths: Vec<String>,
    patches: Vec<String>,
    next_id: i64,
}

impl Fuzzer {
    /// A fuzzer seeded with `seed`; `outside` is a directory next to the root that nothing
    /// may touch.
    pub fn new(seed: u64, outside: &str) -> Fuzzer {
        Fuzzer {
            rng: Rng::new(seed),
            paths: paths(outside),
            patches: patches(outside),
            next_id: 1,
        }
    }

    /// A fresh request id.
    pub fn id(&mut self) -> Value {
        self.next_id += 1;
        json!(self.next_id)
    }

    /// Arguments for a tool with `schema` (its `inputSchema`).
    pub fn arguments(&mut self, schema: &Value) -> Value {
        let mut args = self.value(schema, schema, "", 0);
        if let Some(obj) = args.as_object_mut()
            && self.rng.chance(1)
        {
            // Now and then a megabyte of padding: the server's memory must not keep it.
            obj.insert("padding".into(), json!("p".repeat(1 << 20)));
        }
        args
    }

    fn value(&mut self, root: &Value, schema: &Value, name: &str, depth: usize) -> Value {
        if self.rng.chance(4) || depth > 5 {
            return self.wrong();
        }
        if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
            let target = r
                .strip_prefix("#/")
                .map(|p| p.split('/').fold(root, |v, k| &v[k]))
                .unwrap_or(&Value::Null);
            return self.value(root, target, name, depth + 1);
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(Value::Array(options)) = schema.get(key) {
                let option = self.rng.pick(options).clone();
                let mut v = self.value(root, &option, name, depth + 1);
                // The common parts beside a oneOf (properties shared by every action).
                if let (Some(obj), Some(Value::Object(props))) =
                    (v.as_object_mut(), schema.get("properties"))
                {
                    for (k, s) in props {
                        if !obj.contains_key(k) && self.rng.chance(50) {
                            let item = self.value(root, s, k, depth + 1);
                            obj.insert(k.clone(), item);
                        }
                    }
                }
                return v;
            }
        }
        if let Some(c) = schema.get("const") {
            return c.clone();
        }
        if let Some(Value::Array(options)) = schema.get("enum") {
            return self.rng.pick(options).clone();
        }
        let ty = match schema.get("type") {
            Some(Value::String(t)) => t.clone(),
            Some(Value::Array(ts)) => self.rng.pick(ts).as_str().unwrap_or("null").to_owned(),
            _ if schema.get("properties").is_some() => "object".into(),
            _ => return self.wrong(),
        };
        match ty.as_str() {
            "object" => self.object(root, schema, depth),
            "array" => {
                let n = self.rng.below(4);
                let items = schema.get("items").cloned().unwrap_or(json!({}));
                Value::Array(
                    (0..n)
                        .map(|_| self.value(root, &items, name, depth + 1))
                        .collect(),
                )
            }
            "string" => Value::String(self.string(name)),
            "integer" => json!(
                *self
                    .rng
                    .pick(&[0i64, 1, 2, 3, 10, 100, -1, i64::MAX, i64::MIN])
            ),
            "number" => json!(*self.rng.pick(&[0.0, 0.5, 1.0, -3.5, 1e308])),
            "boolean" => json!(self.rng.chance(50)),
            _ => Value::Null,
        }
    }

    fn object(&mut self, root: &Value, schema: &Value, depth: usize) -> Value {
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut obj = Map::new();
        if let Some(Value::Object(props)) = schema.get("properties") {
            for (k, s) in props {
                let wanted = required.contains(&k.as_str());
                let keep = if wanted {
                    !self.rng.chance(5)
                } else {
                    self.rng.chance(40)
                };
                if keep {
                    let v = self.value(root, s, k, depth + 1);
                    obj.insert(k.clone(), v);
                }
            }
        }
        if self.rng.chance(5) {
            obj.insert("unknown_field".into(), self.wrong());
        }
        Value::Object(obj)
    }

    fn string(&mut self, name: &str) -> String {
        let name = name.to_ascii_lowercase();
        if name.contains("path") || name.contains("file") || name.contains("dir") {
            self.rng.pick(&self.paths).clone()
        } else if name.contains("pattern") || name.contains("query") || name.contains("glob") {
            self.rng.pick(PATTERNS).to_string()
        } else if name.contains("url") {
            self.rng.pick(URLS).to_string()
        } else if name.contains("command") {
            self.rng.pick(COMMANDS).to_string()
        } else if name.contains("patch") || name == "input" {
            self.rng.pick(&self.patches).clone()
        } else if self.rng.chance(3) {
            "x".repeat(70_000)
        } else {
            self.rng.pick(TEXTS).to_string()
        }
    }

    /// A value of a random JSON type: the wrong one, more often than not.
    fn wrong(&mut self) -> Value {
        let options = [
            Value::Null,
            json!(true),
            json!(42),
            json!(-1),
            json!(1.5),
            json!("s"),
            json!([]),
            json!([1, "a"]),
            json!({}),
            json!({"k": "v"}),
        ];
        self.rng.pick(&options).clone()
    }

    /// A malformed frame, and the answer it must get.
    pub fn malformed(&mut self, request: impl Fn(&Value, &str, Value) -> Value) -> Frame {
        let id = self.id();
        let call = |args: Value| {
            request(
                &id,
                "tools/call",
                json!({"name": "read_file", "arguments": args}),
            )
        };
        let (bytes, expect): (Vec<u8>, Expect) = match self.rng.below(10) {
            0 => {
                let junk = ["not json", "{", "}{", "{\"jsonrpc\":\"2.0\",", "nul\u{0}"];
                (self.rng.pick(&junk).as_bytes().to_vec(), Expect::NoId)
            }
            1 => (b"[1,2]".to_vec(), Expect::NoId),
            2 => {
                let frame =
                    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": "x"});
                (
                    frame.to_string().into_bytes(),
                    Expect::Error(id.clone(), -32600),
                )
            }
            3 => {
                let frame = json!({"jsonrpc": "1.0", "id": id, "method": "ping"});
                (
                    frame.to_string().into_bytes(),
                    Expect::Error(id.clone(), -32600),
                )
            }
            4 => {
                let frame = json!({"jsonrpc": "2.0", "id": id, "method": 7});
                (
                    frame.to_string().into_bytes(),
                    Expect::Error(id.clone(), -32600),
                )
            }
            5 => {
                let frame = call(json!({"paths": ["SURROGATE"]})).to_string();
                let frame = frame.replace("SURROGATE", "\\udc00");
                (frame.into_bytes(), Expect::Error(id.clone(), -32602))
            }
            6 => {
                let frame = call(json!("x")).to_string();
                (frame.into_bytes(), Expect::Error(id.clone(), -32602))
            }
            7 => {
                let mut frame = call(json!({"paths": ["BAD"]})).to_string().into_bytes();
                let at = frame.windows(3).position(|w| w == b"BAD").expect("marker");
                frame.splice(at..at + 3, [0xc3, 0x28]);
                (frame, Expect::Error(id.clone(), -32700))
            }
            8 => {
                let deep = format!("{}{}", "[".repeat(300), "]".repeat(300));
                let frame = call(json!({"paths": "DEEP"}))
                    .to_string()
                    .replace("\"DEEP\"", &deep);
                (frame.into_bytes(), Expect::Error(id.clone(), -32600))
            }
            _ => {
                let frame = request(&id, "no/such/method", json!({}));
                (
                    frame.to_string().into_bytes(),
                    Expect::Error(id.clone(), -32601),
                )
            }
        };
        Frame { bytes, expect }
    }
}
