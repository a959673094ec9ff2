//! The server stays whole whatever its clients do, against the real fixture binary.
//!
//! Hostile and careless clients, over a stdio pipe and over HTTP: every request carrying an
//! id gets exactly one answer with that id, text that is not JSON gets a parse error with
//! `id: null`, notifications get nothing, nothing panics, and the server's peak memory stays
//! under 80 MB. The message mix is seeded (`AQLGEN_HOSTILE_SEED`) and its size set by
//! `AQLGEN_HOSTILE_MESSAGES` (1,200 by default, which takes seconds; 10,000 or more for a
//! wider run), so a failure can be replayed.
//!
//! Slow and idle clients over HTTP: a client that trickles its headers or its body is cut off
//! at the timeout, connections and sessions over the cap are refused, an idle connection or
//! session is closed while one with a call in flight is kept, and a well-behaved client is
//! served throughout.

mod support;

use std::collections::HashMap;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use support::{INITIALIZE, command, http_server, post_initialize, start_upstream};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// Peak resident memory the server may reach, in kB.
const RSS_CEILING_KB: u64 = 80 * 1024;
/// Messages per run, unless `AQLGEN_HOSTILE_MESSAGES` says.
const MESSAGES: usize = 1200;

fn message_count() -> usize {
    std::env::var("AQLGEN_HOSTILE_MESSAGES")
        .ok()
        .and_then(|count| count.parse().ok())
        .unwrap_or(MESSAGES)
}

/// What one message must bring back.
#[derive(Debug, Clone, PartialEq)]
enum Expect {
    /// One answer carrying this id.
    Answer(Value),
    /// One error with `id: null`.
    NullError,
    /// Nothing.
    Nothing,
}

/// A small deterministic generator (xorshift64*), so runs replay from their seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn seed() -> u64 {
    std::env::var("AQLGEN_HOSTILE_SEED")
        .ok()
        .and_then(|seed| seed.parse().ok())
        .unwrap_or(0x5eed_1234)
}

fn request(id: &Value, method: Value, params: Option<Value>) -> String {
    let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
    if let Some(params) = params {
        message["params"] = params;
    }
    message.to_string()
}

fn call(id: &Value, arguments: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"mcp_aql_read","arguments":{arguments}}}}}"#
    )
}

/// One hostile message with the index `n`.
fn hostile(rng: &mut Rng, n: usize) -> (Vec<u8>, Expect) {
    let id = if n.is_multiple_of(2) {
        json!(n)
    } else {
        json!(format!("s-{n}"))
    };
    let answer = Expect::Answer(id.clone());
    let (text, expect) = match rng.below(32) {
        0 => {
            let params = [json!("x"), json!(7), json!(true), json!([1]), Value::Null];
            let pick = params[rng.below(5) as usize].clone();
            (request(&id, json!("tools/call"), Some(pick)), answer)
        }
        1 => (request(&id, json!("tools/call"), None), answer),
        2 => {
            let params = [
                json!({}),
                json!({"name": 3}),
                json!({"name": "mcp_aql_read", "arguments": [1]}),
                json!({"name": "mcp_aql_read", "arguments": "x"}),
            ];
            let pick = params[rng.below(4) as usize].clone();
            (request(&id, json!("tools/call"), Some(pick)), answer)
        }
        3 => {
            let methods = [json!(5), json!(["a"]), Value::Null, json!({"m": 1})];
            let pick = methods[rng.below(4) as usize].clone();
            (request(&id, pick, None), answer)
        }
        4 => (
            request(&id, json!("no/such/method"), Some(json!({}))),
            answer,
        ),
        5 => (
            json!({"jsonrpc": "1.0", "id": id, "method": "ping"}).to_string(),
            answer,
        ),
        6 => {
            let name = "a".repeat(1000 + rng.below(300_000) as usize);
            (call(&id, &json!({"operation": name}).to_string()), answer)
        }
        7 => {
            let depth = 40 + rng.below(200) as usize;
            let deep = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            (
                call(&id, &format!(r#"{{"operation":"get_item","id":{deep}}}"#)),
                answer,
            )
        }
        8 => (
            call(&id, r#"{"operation":"get_item","params":{"id":1e400}}"#),
            answer,
        ),
        9 => (
            call(&id, r#"{"operation":"get_item","params":{"id":"\ud800"}}"#),
            answer,
        ),
        10 => {
            let items = vec!["0"; 20_000 + rng.below(60_000) as usize].join(",");
            (
                call(
                    &id,
                    &format!(r#"{{"operation":"list_items","ids":[{items}]}}"#),
                ),
                answer,
            )
        }
        11 if rng.below(8) == 0 => {
            let big = "x".repeat(1_200_000 + rng.below(400_000) as usize);
            (
                call(
                    &id,
                    &json!({"operation": "get_item", "id": big}).to_string(),
                ),
                answer,
            )
        }
        12 if rng.below(8) == 0 => {
            let big = "y".repeat(1_200_000);
            (
                request(&id, json!("ping"), Some(json!({"pad": big}))),
                answer,
            )
        }
        13 => {
            let junk: [&[u8]; 6] = [
                b"{",
                b"nope",
                b"\xff\xfe{}",
                b"[1,",
                br#"{"jsonrpc":"2.0","id":1,"#,
                b"{\"a\":\x01}",
            ];
            return (junk[rng.below(6) as usize].to_vec(), Expect::NullError);
        }
        14 => (
            r#"{"jsonrpc":"2.0","method":"notifications/x","params":"s"}"#.to_owned(),
            Expect::Nothing,
        ),
        15 => (
            format!("[{}]", request(&id, json!("ping"), None)),
            Expect::NullError,
        ),
        16 => (
            call(
                &id,
                r#"{"operation":"introspect","params":{"query":"operations"}}"#,
            ),
            answer,
        ),
        17 => (
            format!(r#"{{"jsonrpc":"2.0","id":{n}.5,"method":"ping"}}"#),
            Expect::Answer(serde_json::from_str(&format!("{n}.5")).expect("number")),
        ),
        18 => (
            json!({"jsonrpc": "2.0", "id": "i".repeat(400), "method": "ping"}).to_string(),
            Expect::NullError,
        ),
        19 => (
            call(&id, r#"{"operation":"get_item","params":{"id":"1"}}"#),
            answer,
        ),
        20 => {
            let keys: Vec<String> = (0..20_000).map(|k| format!(r#""k{k}":{k}"#)).collect();
            (
                call(
                    &id,
                    &format!(
                        r#"{{"operation":"get_item","params":{{{}}}}}"#,
                        keys.join(",")
                    ),
                ),
                answer,
            )
        }
        // No id and no notification (JSON-RPC 2.0: an Invalid Request, answered with id null).
        21 => {
            let objects = [
                "{}",
                r#"{"jsonrpc":"2.0"}"#,
                r#"{"jsonrpc":"2.0","method":7}"#,
            ];
            (objects[rng.below(3) as usize].to_owned(), Expect::NullError)
        }
        // Two ids: which one to answer is anyone's guess, so neither is.
        24 => (
            format!(r#"{{"jsonrpc":"2.0","id":{id},"id":"dup-{n}","method":"ping"}}"#),
            Expect::NullError,
        ),
        // A call whose text is not UTF-8 is answered by its id, as the tool would.
        25 => {
            let mut bytes =
                call(&id, r#"{"operation":"get_item","params":{"id":"caf"#).into_bytes();
            bytes.extend_from_slice(b"\xe9\"}}}}");
            return (bytes, answer);
        }
        // Page numbers, sizes and cursors of every kind; a batch far over the limit.
        26 => {
            let values = [
                json!(-1),
                json!(0),
                json!(u64::MAX),
                json!(i64::MAX),
                json!("2"),
                json!(1.5),
                json!(null),
                json!({"p": 1}),
            ];
            let pick = values[rng.below(8) as usize].clone();
            let params = match rng.below(4) {
                0 => json!({"first": pick}),
                1 => json!({"first": 2, "after": pick}),
                2 => json!({"page": pick, "per_page": pick}),
                _ => json!({"first": 1, "after": "eyJuIjoxfQ.AAAAAAAAAAAAAAAAAAAAAA"}),
            };
            (
                call(
                    &id,
                    &json!({"operation": "list_items", "params": params}).to_string(),
                ),
                answer,
            )
        }
        27 => {
            let item = r#"{"operation":"get_item","params":{"id":"1"}}"#;
            let count = if rng.below(2) == 0 { 30 } else { 10_000 };
            let items = vec![item; count].join(",");
            (call(&id, &format!(r#"{{"operations":[{items}]}}"#)), answer)
        }
        28 => {
            let batch = json!({"operations": [
                {"operation": "get_item", "params": {"id": "1"}},
                {"operation": "zz_none"},
                7,
                {"operation": "list_items", "params": {"fields": [1]}},
            ]});
            (call(&id, &batch.to_string()), answer)
        }
        29 => (
            request(&id, json!("tools/list"), Some(json!({"cursor": "zz"}))),
            answer,
        ),
        30 => {
            let fields = [
                json!("minimal"),
                json!(["a..b"]),
                json!(42),
                json!(["_etag"]),
            ];
            let pick = fields[rng.below(4) as usize].clone();
            (
                call(
                    &id,
                    &json!({"operation": "get_item", "params": {"id": "1", "fields": pick}})
                        .to_string(),
                ),
                answer,
            )
        }
        _ => (request(&id, json!("ping"), None), answer),
    };
    (text.into(), expect)
}

fn messages(count: usize) -> Vec<(Vec<u8>, Expect)> {
    let mut rng = Rng(seed() | 1);
    (0..count).map(|n| hostile(&mut rng, n)).collect()
}

/// Peak resident memory of a process, in kB (Linux `VmHWM`).
fn peak_rss_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn assert_under_ceiling(pid: Option<u32>, transport: &str) {
    let Some(peak) = pid.and_then(peak_rss_kb) else {
        return; // not Linux: no /proc to read
    };
    eprintln!("{transport}: peak RSS {} MiB", peak / 1024);
    assert!(
        peak < RSS_CEILING_KB,
        "{transport}: peak RSS {peak} kB is over the {RSS_CEILING_KB} kB ceiling"
    );
}

/// Tallies answers: each expected id exactly once, and the `id: null` errors.
#[derive(Default)]
struct Tally {
    by_id: HashMap<String, usize>,
    null_errors: usize,
}

impl Tally {
    fn add(&mut self, answer: &Value) {
        assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
        assert!(
            answer.get("result").is_some() != answer.get("error").is_some(),
            "one of result or error: {answer}"
        );
        for leak in ["::", ".rs", "serde", "panicked", "Error {", "invalid type"] {
            assert!(
                !answer.to_string().contains(leak),
                "answer leaks '{leak}': {answer}"
            );
        }
        match &answer["id"] {
            Value::Null => self.null_errors += 1,
            id => *self.by_id.entry(id.to_string()).or_default() += 1,
        }
    }

    fn complete(&self, expected: &[Expect]) -> bool {
        expected.iter().all(|expect| match expect {
            Expect::Answer(id) => self.by_id.contains_key(&id.to_string()),
            _ => true,
        })
    }

    fn check(&self, expected: &[Expect]) {
        let mut wanted: HashMap<String, usize> = HashMap::new();
        for expect in expected {
            if let Expect::Answer(id) = expect {
                *wanted.entry(id.to_string()).or_default() += 1;
            }
        }
        for (id, count) in &wanted {
            assert_eq!(self.by_id.get(id), Some(count), "answers to id {id}");
        }
        for id in self.by_id.keys() {
            assert!(wanted.contains_key(id), "an answer to id {id}, never sent");
        }
        let nulls = expected
            .iter()
            .filter(|expect| **expect == Expect::NullError)
            .count();
        assert_eq!(self.null_errors, nulls, "errors with id null");
    }
}

const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

#[tokio::test]
async fn stdio_answers_every_hostile_request_by_its_id_in_bounded_memory() {
    let upstream = start_upstream().await;
    let mut child = command(&upstream, &[], &[])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the adapter");
    let pid = child.id();
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let logs = tokio::spawn(async move {
        let mut panics = Vec::new();
        while let Ok(Some(line)) = stderr.next_line().await {
            if line.contains("panicked") {
                panics.push(line);
            }
        }
        panics
    });

    stdin
        .write_all(format!("{INITIALIZE}\n").as_bytes())
        .await
        .expect("write");
    let first = stdout
        .next_line()
        .await
        .expect("read")
        .expect("initialize answer");
    let first: Value = serde_json::from_str(&first).expect("JSON");
    assert_eq!(first["id"], 1);
    stdin
        .write_all(format!("{INITIALIZED}\n").as_bytes())
        .await
        .expect("write");

    let count = message_count();
    let messages = messages(count);
    let expected: Vec<Expect> = messages.iter().map(|(_, expect)| expect.clone()).collect();
    let heads: Vec<String> = messages
        .iter()
        .map(|(bytes, _)| String::from_utf8_lossy(&bytes[..bytes.len().min(160)]).into_owned())
        .collect();
    // Write on one task and read on this one, so neither pipe fills while the other waits.
    let writer = tokio::spawn(async move {
        for (bytes, _) in messages {
            stdin.write_all(&bytes).await.expect("write a message");
            stdin.write_all(b"\n").await.expect("write a newline");
        }
        stdin
    });
    let mut tally = Tally::default();
    let started = std::time::Instant::now();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120 + count as u64 / 50);
    while !tally.complete(&expected) {
        let Ok(line) = tokio::time::timeout_at(deadline, stdout.next_line()).await else {
            let missing: Vec<&String> = expected
                .iter()
                .zip(&heads)
                .filter(|(expect, _)| matches!(expect, Expect::Answer(id) if !tally.by_id.contains_key(&id.to_string())))
                .map(|(_, head)| head)
                .collect();
            panic!(
                "{} requests unanswered, e.g. {:?}",
                missing.len(),
                &missing[..missing.len().min(5)]
            );
        };
        let line = line.expect("read stdout").expect("the server stays up");
        let answer: Value = serde_json::from_str(&line).expect("every answer is strict JSON");
        tally.add(&answer);
    }
    // Anything still to come is a duplicate or an answer to a notification.
    let stdin = writer.await.expect("writer");
    while let Ok(Ok(Some(line))) =
        tokio::time::timeout(Duration::from_millis(500), stdout.next_line()).await
    {
        tally.add(&serde_json::from_str(&line).expect("JSON"));
    }
    tally.check(&expected);
    assert_under_ceiling(pid, "stdio");
    drop(stdin);
    let status = tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .expect("the server exits when stdin closes")
        .expect("wait");
    assert!(status.success(), "clean exit: {status}");
    let panics = logs.await.expect("stderr");
    assert!(panics.is_empty(), "the server panicked: {panics:?}");
    eprintln!(
        "stdio: {count} messages, {} answered by id, {} with id null, in {:.1} s",
        tally.by_id.len(),
        tally.null_errors,
        started.elapsed().as_secs_f64()
    );
}

/// Posts one message in the session and returns every JSON-RPC message of the answer.
async fn post(
    client: &reqwest::Client,
    url: &str,
    session: &str,
    body: Vec<u8>,
) -> (u16, Vec<Value>) {
    let response = client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-06-18")
        .body(body)
        .send()
        .await
        .expect("the server answers");
    let status = response.status().as_u16();
    let event_stream = response
        .headers()
        .get("content-type")
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("text/event-stream"));
    let text = response.text().await.expect("body");
    let messages = if event_stream {
        text.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter(|data| !data.trim().is_empty())
            .map(|data| serde_json::from_str(data.trim()).expect("every event is strict JSON"))
            .collect()
    } else if text.trim().is_empty() {
        Vec::new()
    } else {
        vec![
            serde_json::from_str(&text)
                .unwrap_or_else(|_| panic!("strict JSON: HTTP {status} {text}")),
        ]
    };
    (status, messages)
}

async fn open_session(client: &reqwest::Client, url: &str) -> String {
    let response = post_initialize(client, url).await;
    assert_eq!(response.status().as_u16(), 200, "initialize");
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|value| value.to_str().ok())
        .expect("a session id")
        .to_owned();
    let _ = response.text().await;
    let (status, _) = post(client, url, &session, INITIALIZED.as_bytes().to_vec()).await;
    assert_eq!(status, 202, "initialized notification accepted");
    session
}

#[tokio::test]
async fn http_answers_every_hostile_request_by_its_id_in_bounded_memory() {
    let upstream = start_upstream().await;
    let (child, url) = http_server(&upstream, &[]).await;
    let pid = child.id();
    let client = reqwest::Client::new();
    let session = open_session(&client, &url).await;

    let messages = messages(MESSAGES / 2);
    let expected: Vec<Expect> = messages.iter().map(|(_, expect)| expect.clone()).collect();
    let queue = std::sync::Arc::new(std::sync::Mutex::new(messages.into_iter()));
    let mut workers = Vec::new();
    for _ in 0..4 {
        let (client, url, session, queue) =
            (client.clone(), url.clone(), session.clone(), queue.clone());
        workers.push(tokio::spawn(async move {
            let mut answers = Vec::new();
            loop {
                let next = queue.lock().expect("queue").next();
                let Some((body, expect)) = next else { break };
                let (status, messages) = post(&client, &url, &session, body).await;
                if expect == Expect::Nothing {
                    assert!(
                        status >= 400 || messages.is_empty(),
                        "a notification: {status} {messages:?}"
                    );
                    continue;
                }
                assert_eq!(
                    messages.len(),
                    1,
                    "one answer per request (HTTP {status}): {messages:?}"
                );
                answers.extend(messages);
            }
            answers
        }));
    }
    let mut tally = Tally::default();
    for worker in workers {
        for answer in worker.await.expect("worker") {
            tally.add(&answer);
        }
    }
    tally.check(&expected);
    assert_under_ceiling(pid, "http fuzz");

    // Four bodies of the largest size the server reads, at once.
    let keys: Vec<String> = (0..45_000)
        .map(|k| format!(r#""key_{k:07}":[{k}]"#))
        .collect();
    let arguments = format!(
        r#"{{"operation":"get_item","params":{{{}}}}}"#,
        keys.join(",")
    );
    let mut calls = Vec::new();
    for n in 0..4 {
        // Ids stay unique: a second request reusing an id in flight cancels the first.
        let widest = call(&json!(format!("wide-{n}")), &arguments);
        let padding = (1024_usize * 1024 + 60 * 1024).saturating_sub(widest.len());
        let body = format!("{widest}{}", " ".repeat(padding)).into_bytes();
        let (client, url, session) = (client.clone(), url.clone(), session.clone());
        calls.push(tokio::spawn(async move {
            post(&client, &url, &session, body).await
        }));
    }
    for (n, call) in calls.into_iter().enumerate() {
        let (status, answers) = call.await.expect("task");
        assert_eq!(answers.len(), 1, "HTTP {status}: {answers:?}");
        assert_eq!(answers[0]["id"], format!("wide-{n}"));
        assert!(
            answers[0].get("result").is_some(),
            "reached the tool: {}",
            answers[0]
        );
    }
    assert_under_ceiling(pid, "http");
}

// Slow and idle clients over HTTP.

const FLAGS: [&str; 8] = [
    "--header-timeout",
    "1",
    "--body-timeout",
    "1",
    "--idle-timeout",
    "2",
    "--max-connections",
    "8",
];

/// The `host:port` of a `http://host:port/mcp` URL.
fn address(url: &str) -> String {
    url.trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned()
}

/// Reads until the server closes the connection (or 10 s pass) and returns what it sent.
async fn read_to_close(stream: &mut TcpStream) -> Option<String> {
    let mut seen = Vec::new();
    let mut buffer = [0u8; 1024];
    let read = async {
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => seen.extend_from_slice(&buffer[..n]),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), read)
        .await
        .ok()?;
    Some(String::from_utf8_lossy(&seen).into_owned())
}

/// Sends `bytes` one at a time, 200 ms apart, until the server hangs up; returns whether it
/// did within `limit` bytes.
async fn trickle(stream: &mut TcpStream, bytes: &[u8]) -> bool {
    for byte in bytes {
        if stream.write_all(&[*byte]).await.is_err() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    false
}

async fn initialize(url: &str) -> u16 {
    post_initialize(&reqwest::Client::new(), url)
        .await
        .status()
        .as_u16()
}

#[tokio::test]
async fn slow_clients_are_cut_off_and_others_are_served() {
    let upstream = start_upstream().await;
    let (_child, url) = http_server(&upstream, &FLAGS).await;
    let address = address(&url);

    // Five clients trickle a request head a byte at a time: each is cut off by the header
    // timeout long before its 60 bytes are out.
    let head =
        format!("POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n");
    let mut trickling = Vec::new();
    for _ in 0..5 {
        let mut stream = TcpStream::connect(&address).await.expect("connect");
        let head = head.clone();
        trickling.push(tokio::spawn(async move {
            let cut = trickle(&mut stream, head.as_bytes()).await
                || read_to_close(&mut stream).await.is_some();
            assert!(cut, "the server hung up on a client trickling its headers");
        }));
    }
    // Meanwhile a normal client is served.
    assert_eq!(initialize(&url).await, 200);
    for task in trickling {
        task.await.expect("trickling client");
    }

    // A client that sends its head and then trickles the body gets 408.
    let mut stream = TcpStream::connect(&address).await.expect("connect");
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n",
        INITIALIZE.len()
    );
    stream.write_all(request.as_bytes()).await.expect("head");
    let _ = trickle(&mut stream, &INITIALIZE.as_bytes()[..15]).await;
    let answer = read_to_close(&mut stream)
        .await
        .expect("the server answers and hangs up");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(
        answer.contains("\"id\":null") && answer.contains("Request timeout"),
        "{answer}"
    );

    // An idle keep-alive connection is closed.
    let mut stream = TcpStream::connect(&address).await.expect("connect");
    stream
        .write_all(format!("GET /mcp HTTP/1.1\r\nHost: {address}\r\n\r\n").as_bytes())
        .await
        .expect("request");
    let answer = read_to_close(&mut stream).await.expect("closed while idle");
    assert!(answer.starts_with("HTTP/1.1 "), "{answer}");

    // Connections over the cap are answered 503 with Retry-After, and the server recovers.
    let mut held = Vec::new();
    for _ in 0..8 {
        held.push(TcpStream::connect(&address).await.expect("connect"));
    }
    let mut over = TcpStream::connect(&address).await.expect("connect");
    let answer = read_to_close(&mut over).await.expect("refused at once");
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(
        answer.to_ascii_lowercase().contains("retry-after: 5"),
        "{answer}"
    );
    drop(held);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(initialize(&url).await, 200);
}

#[tokio::test]
async fn sessions_over_the_cap_are_refused_by_id() {
    let upstream = start_upstream().await;
    let (_child, url) = http_server(&upstream, &["--max-sessions", "2"]).await;
    assert_eq!(initialize(&url).await, 200);
    assert_eq!(initialize(&url).await, 200);
    let response = post_initialize(&reqwest::Client::new(), &url).await;
    assert_eq!(response.status().as_u16(), 503);
    assert_eq!(
        response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok()),
        Some("5")
    );
    let answer: serde_json::Value = response.json().await.expect("a JSON-RPC error");
    assert_eq!(answer["id"], 1);
    assert_eq!(answer["error"]["code"], -32000);
}

/// A session is idle only with nothing in flight: a call that waits on the upstream longer
/// than `--session-idle-timeout` is answered, while a session that sent nothing is ended.
#[tokio::test]
async fn a_call_in_flight_keeps_its_session() {
    let slow = support::serve(axum::Router::new().route(
        "/items/{id}",
        axum::routing::get(|| async {
            tokio::time::sleep(Duration::from_secs(12)).await;
            axum::Json(serde_json::json!({"id": "slow", "title": "late", "status": "open"}))
        }),
    ))
    .await;
    let (mut server, url) = http_server(
        &slow,
        &[
            "--session-idle-timeout",
            "10",
            "--upstream-read-timeout",
            "30",
        ],
    )
    .await;
    let client = reqwest::Client::new();
    let open = || async {
        let opened = post_initialize(&client, &url).await;
        let id = opened
            .headers()
            .get("mcp-session-id")
            .and_then(|id| id.to_str().ok())
            .expect("a session")
            .to_owned();
        client
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-session-id", &id)
            .header("mcp-protocol-version", "2025-06-18")
            .body(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .send()
            .await
            .expect("an answer");
        id
    };
    let busy = open().await;
    let quiet = open().await;
    let call = client
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", &busy)
        .header("mcp-protocol-version", "2025-06-18")
        .body(
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mcp_aql_read","arguments":{"operation":"get_item","params":{"id":"slow"}}}}"#,
        )
        .send()
        .await
        .expect("an answer")
        .text()
        .await
        .expect("the whole answer");
    assert!(call.contains("late"), "the slow call was answered: {call}");
    // Sessions are ended within a second of their timeout.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let delete = |id: String| {
        client
            .delete(&url)
            .header("mcp-session-id", id)
            .header("mcp-protocol-version", "2025-06-18")
            .send()
    };
    assert_eq!(
        delete(quiet).await.expect("an answer").status().as_u16(),
        404,
        "the quiet session was ended"
    );
    assert_eq!(
        delete(busy).await.expect("an answer").status().as_u16(),
        200,
        "the busy one lives"
    );
    server.kill().await.expect("server stops");
}
