use std::time::Duration;

use rmcp::model::{EmptyResult, ServerResult};
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, DuplexStream};

use super::*;

/// A transport fed through a pipe, its output read through another.
struct Harness {
    transport: LineTransport<DuplexStream, DuplexStream>,
    client: DuplexStream,
    out: tokio::io::Lines<BufReader<DuplexStream>>,
}

fn harness(budget: usize) -> Harness {
    let (client, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, out) = tokio::io::duplex(1 << 16);
    Harness {
        transport: LineTransport::new(server_in, server_out, InFlight::with_budget(budget)),
        client,
        out: BufReader::new(out).lines(),
    }
}

impl Harness {
    async fn send(&mut self, bytes: &[u8]) {
        self.client.write_all(bytes).await.expect("write");
    }

    async fn receive(&mut self) -> ClientJsonRpcMessage {
        tokio::time::timeout(Duration::from_secs(5), self.transport.receive())
            .await
            .expect("a message in time")
            .expect("a message")
    }

    /// Whether `receive` gives nothing for a while.
    async fn nothing(&mut self) -> bool {
        tokio::time::timeout(Duration::from_millis(100), self.transport.receive())
            .await
            .is_err()
    }

    async fn answer(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(5), self.out.next_line())
            .await
            .expect("an answer in time")
            .expect("read")
            .expect("a line");
        serde_json::from_str(&line).expect("JSON")
    }
}

fn request_id(message: &ClientJsonRpcMessage) -> Option<RequestId> {
    match message {
        JsonRpcMessage::Request(r) => Some(r.id.clone()),
        _ => None,
    }
}

fn ping(id: i64) -> String {
    format!(
        "{}\n",
        json!({"jsonrpc": "2.0", "id": id, "method": "ping"})
    )
}

#[tokio::test]
async fn well_formed_frames_reach_rmcp_and_the_rest_are_answered_here() {
    let mut h = harness(1 << 20);
    // Blank lines, a byte order mark, a carriage return, garbage with and without an id.
    h.send(b"\n  \n").await;
    h.send(&[b"\xef\xbb\xbf".as_slice(), ping(1).as_bytes()].concat())
        .await;
    h.send(ping(2).replace('\n', "\r\n").as_bytes()).await;
    h.send(b"not json\n").await;
    h.send(
        br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x","arguments":"y"}}"#,
    )
    .await;
    h.send(b"\n").await;
    assert_eq!(request_id(&h.receive().await), Some(RequestId::Number(1)));
    assert_eq!(request_id(&h.receive().await), Some(RequestId::Number(2)));
    h.send(ping(4).as_bytes()).await;
    assert_eq!(request_id(&h.receive().await), Some(RequestId::Number(4)));
    let (a, b) = (h.answer().await, h.answer().await);
    let mut answers = [a, b].map(|a| (a["id"].clone(), a["error"]["code"].as_i64()));
    answers.sort_by_key(|(id, _)| id.to_string());
    assert_eq!(
        answers,
        [(json!(3), Some(-32602)), (Value::Null, Some(-32700))]
    );
    // A last frame without its newline is read before the end.
    h.send(br#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#).await;
    h.client.shutdown().await.expect("close");
    assert_eq!(request_id(&h.receive().await), Some(RequestId::Number(5)));
    assert!(h.transport.receive().await.is_none());
}

#[tokio::test]
async fn a_line_over_the_limit_is_answered_and_skipped_without_being_kept() {
    let mut h = harness(1 << 20);
    let mut long = br#"{"jsonrpc":"2.0","id":8,"method":"ping","params":{"x":""#.to_vec();
    long.resize(MAX_FRAME_BYTES + 10, b'a');
    long.extend(b"\"}}\n");
    let writer = {
        let mut client = std::mem::replace(&mut h.client, tokio::io::duplex(1).0);
        tokio::spawn(async move {
            client.write_all(&long).await.expect("write");
            client.write_all(ping(9).as_bytes()).await.expect("write");
            client
        })
    };
    assert_eq!(request_id(&h.receive().await), Some(RequestId::Number(9)));
    let answer = h.answer().await;
    assert_eq!(answer["id"], 8);
    assert_eq!(answer["error"]["code"], -32600);
    assert!(h.transport.lines.line.capacity() <= KEPT_LINE_CAPACITY);
    drop(writer.await);
}

// The calls holding the budget wait for the user's answer (a response to the server's own
// request); that answer, sent after the next request, must still reach rmcp, or nothing ever
// frees the budget.
#[tokio::test]
async fn responses_and_cancellations_pass_a_request_waiting_for_room() {
    let mut h = harness(super::super::inflight::REQUEST_COST + 1024);
    h.send(ping(1).as_bytes()).await;
    assert_eq!(request_id(&h.receive().await), Some(RequestId::Number(1)));
    // The budget is spent: ping 2 waits, and the response behind it goes through.
    h.send(ping(2).as_bytes()).await;
    h.send(b"{\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"result\":{}}\n")
        .await;
    let passed = h.receive().await;
    assert!(matches!(passed, JsonRpcMessage::Response(_)), "{passed:?}");
    // A third request waits behind the second, and nothing more is read meanwhile.
    h.send(ping(3).as_bytes()).await;
    h.send(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
        .await;
    assert!(h.nothing().await);
    // Ping 1 answered: ping 2 is let in, and what needs no room passes ping 3.
    let sent = h.transport.send(ServerJsonRpcMessage::response(
        ServerResult::EmptyResult(EmptyResult {}),
        RequestId::Number(1),
    ));
    sent.await.expect("sent");
    assert_eq!(h.answer().await["id"], 1);
    assert_eq!(request_id(&h.receive().await), Some(RequestId::Number(2)));
    assert!(matches!(h.receive().await, JsonRpcMessage::Notification(_)));
    // Ping 2 cancelled by the client: no answer will come, and ping 3 is let in.
    h.send(
        format!(
            "{}\n",
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                   "params": {"requestId": 2}})
        )
        .as_bytes(),
    )
    .await;
    assert!(matches!(h.receive().await, JsonRpcMessage::Notification(_)));
    assert_eq!(request_id(&h.receive().await), Some(RequestId::Number(3)));
}

#[tokio::test]
async fn a_request_of_mcp_whose_params_rmcp_reads_as_custom_is_answered_here() {
    let mut h = harness(1 << 20);
    h.send(b"{\"jsonrpc\":\"2.0\",\"id\":\"i\",\"method\":\"initialize\",\"params\":{}}\n")
        .await;
    // A method MCP does not have goes to rmcp, which answers it "method not found".
    h.send(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"no/such\",\"params\":{}}\n")
        .await;
    assert_eq!(request_id(&h.receive().await), Some(RequestId::Number(2)));
    let answer = h.answer().await;
    assert_eq!(
        (answer["id"].clone(), answer["error"]["code"].as_i64()),
        (json!("i"), Some(-32602))
    );
    assert!(
        answer["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("`initialize`")),
        "{answer}"
    );
}

#[tokio::test]
async fn a_dropped_receive_loses_nothing_it_read() {
    let mut h = harness(1 << 20);
    let frame = ping(6);
    let (first, rest) = frame.as_bytes().split_at(10);
    h.send(first).await;
    // The receive is dropped while half a line is read.
    assert!(h.nothing().await);
    h.send(rest).await;
    assert_eq!(request_id(&h.receive().await), Some(RequestId::Number(6)));
    // An answer of the transport's own read by a receive that is then dropped still goes out.
    h.send(b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":5}\n")
        .await;
    assert!(h.nothing().await);
    let answer = h.answer().await;
    assert_eq!(
        (answer["id"].clone(), answer["error"]["code"].as_i64()),
        (json!(7), Some(-32600))
    );
}

#[tokio::test]
async fn a_closed_transport_refuses_to_send() {
    let mut h = harness(1 << 20);
    h.transport.close().await.expect("closed");
    assert!(h.out.next_line().await.expect("read").is_none());
    let sent = h.transport.send(ServerJsonRpcMessage::response(
        ServerResult::EmptyResult(EmptyResult {}),
        RequestId::Number(1),
    ));
    assert_eq!(
        sent.await.expect_err("closed").kind(),
        io::ErrorKind::NotConnected
    );
}
