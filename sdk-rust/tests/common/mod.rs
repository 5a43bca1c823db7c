//! Test helpers: a tiny HTTP/1.1 capture server on 127.0.0.1 and an in-memory transport.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use ingest_sdk::protocol::Envelope;
use ingest_sdk::transport::Transport;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// One request as the server saw it.
#[derive(Clone, Debug)]
pub struct Request {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The item types and JSON payloads of the envelope body.
    pub fn items(&self) -> Vec<(String, Value)> {
        parse_envelope(&self.body).1
    }
}

/// What the server answers to the n-th request (0-based).
#[derive(Clone, Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub delay: Duration,
    /// Close the connection instead of answering (a network error for the client).
    pub hang_up: bool,
}

impl Reply {
    pub fn ok() -> Self {
        Self {
            status: 200,
            headers: Vec::new(),
            delay: Duration::ZERO,
            hang_up: false,
        }
    }

    pub fn hang_up() -> Self {
        Self {
            hang_up: true,
            ..Self::ok()
        }
    }
}

type Responder = dyn Fn(usize) -> Reply + Send + Sync;

/// A capture server; requests are recorded before the (possibly delayed) reply.
pub struct CaptureServer {
    pub port: u16,
    requests: Arc<Mutex<Vec<Request>>>,
}

impl CaptureServer {
    pub fn start(respond: impl Fn(usize) -> Reply + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let respond: Arc<Responder> = Arc::new(respond);
        let recorded = Arc::clone(&requests);
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let recorded = Arc::clone(&recorded);
                let respond = Arc::clone(&respond);
                thread::spawn(move || serve(stream, &recorded, &*respond));
            }
        });
        Self { port, requests }
    }

    pub fn dsn(&self) -> String {
        format!("http://abc123@127.0.0.1:{}/42", self.port)
    }

    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }

    /// Waits until at least `n` requests arrived (for sends not followed by a flush).
    pub fn wait_for(&self, n: usize, timeout: Duration) -> Vec<Request> {
        let deadline = Instant::now() + timeout;
        loop {
            let requests = self.requests();
            if requests.len() >= n || Instant::now() > deadline {
                return requests;
            }
            thread::sleep(Duration::from_millis(10));
        }
    }
}

fn serve(stream: TcpStream, recorded: &Mutex<Vec<Request>>, respond: &Responder) {
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    loop {
        let mut request_line = String::new();
        if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
            return;
        }
        let mut parts = request_line.split_whitespace();
        let method = parts.next().unwrap_or_default().to_owned();
        let path = parts.next().unwrap_or_default().to_owned();
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            let (k, v) = line.split_once(':').unwrap();
            headers.push((k.trim().to_owned(), v.trim().to_owned()));
        }
        let length: usize = headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
            .map(|(_, v)| v.parse().unwrap())
            .expect("the SDK sends a Content-Length");
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        let index = {
            let mut all = recorded.lock().unwrap();
            all.push(Request {
                method,
                path,
                headers,
                body,
            });
            all.len() - 1
        };
        let reply = respond(index);
        thread::sleep(reply.delay);
        if reply.hang_up {
            return;
        }
        let mut head = format!("HTTP/1.1 {} X\r\nContent-Length: 2\r\n", reply.status);
        for (k, v) in &reply.headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str("\r\n{}");
        if writer.write_all(head.as_bytes()).is_err() {
            return;
        }
    }
}

/// Splits an envelope into its header and `(type, payload)` items, checking `length`.
pub fn parse_envelope(body: &[u8]) -> (Value, Vec<(String, Value)>) {
    let nl = body.iter().position(|b| *b == b'\n').unwrap();
    let header = serde_json::from_slice(&body[..nl]).unwrap();
    let mut rest = &body[nl + 1..];
    let mut items = Vec::new();
    while !rest.is_empty() {
        let nl = rest.iter().position(|b| *b == b'\n').unwrap();
        let item_header: Value = serde_json::from_slice(&rest[..nl]).unwrap();
        let len = item_header["length"].as_u64().unwrap() as usize;
        let payload = &rest[nl + 1..nl + 1 + len];
        assert_eq!(rest[nl + 1 + len], b'\n');
        items.push((
            item_header["type"].as_str().unwrap().to_owned(),
            serde_json::from_slice(payload).unwrap(),
        ));
        rest = &rest[nl + 2 + len..];
    }
    (header, items)
}

/// A transport that keeps envelopes in memory.
#[derive(Clone, Default)]
pub struct Recorder(pub Arc<Mutex<Vec<Envelope>>>);

impl Recorder {
    pub fn envelopes(&self) -> Vec<Envelope> {
        self.0.lock().unwrap().clone()
    }
}

impl Transport for Recorder {
    fn send_envelope(&self, envelope: Envelope) {
        self.0.lock().unwrap().push(envelope);
    }

    fn flush(&self, _timeout: Duration) -> bool {
        true
    }
}
