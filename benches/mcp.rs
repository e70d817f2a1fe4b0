//! MCP server throughput: toolsmith's server against a minimal server written directly on
//! rmcp answering the same tool, measured side by side in the same run (alternating rounds),
//! over an in-memory stream (what stdio carries) and over streamable HTTP on loopback.
//!
//! ```text
//! cargo bench --bench mcp
//! ```
//!
//! Prints calls per second for each (medians) and the ratio: the median of the ratios of
//! paired rounds, in which the side that goes first alternates (goal: toolsmith >= 0.95x
//! the baseline).
//! `MCP_BENCH_SIDE=toolsmith` or `MCP_BENCH_SIDE=baseline` runs one side alone (for a
//! profiler: instructions per call do not move with the machine's load as rates do), and
//! `MCP_BENCH_TRANSPORT=stdio` or `MCP_BENCH_TRANSPORT=http` one transport.
//! The toolsmith side runs the whole call path (validation, activity record, events), the
//! baseline only parses the arguments. Every call is distinct (its `n` counts up), so neither
//! side could answer one call from another's result.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{
    StreamableHttpClientTransport, StreamableHttpServerConfig, StreamableHttpService,
};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};
use toolsmith::mcp::ServeOptions;
use toolsmith::{Registry, Runtime};

#[path = "support/echo.rs"]
mod echo;
use echo::EchoTool;

/// The baseline: the same tool on rmcp alone.
#[derive(Clone)]
struct Baseline;

impl ServerHandler for Baseline {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let n = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("n"))
            .and_then(Value::as_u64)
            .ok_or_else(|| ErrorData::invalid_params("`n` must be a number", None))?;
        Ok(CallToolResult::structured(json!({ "n": n })).into())
    }
}

fn runtime() -> Runtime {
    let registry = Registry::builder()
        .register(EchoTool)
        .build()
        .expect("registry");
    Runtime::builder(registry)
        .dedupe(false)
        .max_concurrent(1024)
        .build()
}

const CALLS: u64 = 5000;
const IN_FLIGHT: usize = 32;

/// Runs `CALLS` calls through `client`, `IN_FLIGHT` at a time; returns calls per second.
async fn drive(client: &rmcp::service::RunningService<rmcp::RoleClient, ()>) -> f64 {
    let start = Instant::now();
    let mut next = 0u64;
    let mut set = tokio::task::JoinSet::new();
    let peer = client.peer().clone();
    while next < CALLS || !set.is_empty() {
        while next < CALLS && set.len() < IN_FLIGHT {
            let p = peer.clone();
            let n = next;
            set.spawn(async move {
                let args = json!({ "n": n }).as_object().cloned().unwrap_or_default();
                let r = p
                    .call_tool(CallToolRequestParams::new("echo").with_arguments(args))
                    .await
                    .expect("answered");
                assert_eq!(r.is_error, Some(false));
            });
            next += 1;
        }
        if let Some(r) = set.join_next().await {
            r.expect("call task");
        }
    }
    CALLS as f64 / start.elapsed().as_secs_f64()
}

async fn stream_pair(toolsmith: bool) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    let (a, b) = tokio::io::duplex(1 << 16);
    let (sr, sw) = tokio::io::split(a);
    if toolsmith {
        tokio::spawn(toolsmith::mcp::serve(
            runtime(),
            ServeOptions::new("bench"),
            (sr, sw),
        ));
    } else {
        tokio::spawn(async move {
            if let Ok(s) = Baseline.serve((sr, sw)).await {
                let _ = s.waiting().await;
            }
        });
    }
    let (cr, cw) = tokio::io::split(b);
    ().serve((cr, cw)).await.expect("client")
}

async fn http_pair(toolsmith: bool) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let router = if toolsmith {
        toolsmith::mcp::router(runtime(), ServeOptions::new("bench")).expect("router")
    } else {
        let service = StreamableHttpService::new(
            || Ok(Baseline),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default(),
        );
        axum::Router::new().route_service("/mcp", service)
    };
    tokio::spawn(async move { axum::serve(listener, router).await });
    let url = format!("http://{addr}/mcp");
    ().serve(StreamableHttpClientTransport::from_uri(url))
        .await
        .expect("client")
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    // `cargo test --benches` runs this with `--bench` absent: keep that quick.
    let rounds = if std::env::args().any(|a| a == "--bench") {
        9
    } else {
        1
    };
    // `MCP_BENCH_SIDE=toolsmith` (or `baseline`) runs one side alone, for a profiler to
    // count one server's work (`valgrind --tool=callgrind`, one round).
    let only = match std::env::var("MCP_BENCH_SIDE").as_deref() {
        Ok("toolsmith") => Some(true),
        Ok("baseline") => Some(false),
        _ => None,
    };
    // `MCP_BENCH_TRANSPORT=stdio` (or `http`) runs one transport alone.
    let transport = std::env::var("MCP_BENCH_TRANSPORT").ok();
    for (label, http) in [
        ("stdio (in-memory stream)", false),
        ("streamable HTTP (loopback)", true),
    ] {
        if transport
            .as_deref()
            .is_some_and(|t| t != if http { "http" } else { "stdio" })
        {
            continue;
        }
        let (mut ours, mut base, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        for round in 0..rounds {
            // Which side goes first alternates, so neither always gets the warmer machine.
            let order = if round % 2 == 0 {
                [true, false]
            } else {
                [false, true]
            };
            for toolsmith in order {
                if only.is_some_and(|side| side != toolsmith) {
                    continue;
                }
                let client = if http {
                    http_pair(toolsmith).await
                } else {
                    stream_pair(toolsmith).await
                };
                let rate = drive(&client).await;
                let _ = tokio::time::timeout(Duration::from_secs(5), client.cancel()).await;
                if toolsmith {
                    ours.push(rate)
                } else {
                    base.push(rate)
                }
            }
            if only.is_none() {
                ratios.push(ours[round] / base[round]);
            }
        }
        if only.is_some() {
            let (side, rates) = if ours.is_empty() {
                ("rmcp baseline", base)
            } else {
                ("toolsmith", ours)
            };
            println!("mcp {label}: {side} {:.0} calls/s", median(rates));
            continue;
        }
        let (o, b, r) = (median(ours), median(base), median(ratios));
        println!(
            "mcp {label}: toolsmith {o:.0} calls/s, rmcp baseline {b:.0} calls/s, \
             ratio {r:.2}x (median of {rounds} paired rounds)"
        );
    }
}
