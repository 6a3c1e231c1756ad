//! `serve`: the live page's streaming endpoint and its limits, over real
//! HTTP against the binary.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::{exact_solve, grid, INKALA};

/// Consistent clues without a solution: without propagation it anneals until stopped.
pub const ENDLESS: &str = "001300209005009001070060043006002087190007400050083000600000105003508690042910300";

/// The server on a free loopback port, stopped on drop.
pub struct Server {
    child: Child,
    pub addr: String,
}

impl Server {
    pub fn start() -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_sudoku-anneal"))
            .args(["serve", "--addr", "127.0.0.1:0"])
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stderr.as_mut().unwrap()).read_line(&mut line).unwrap();
        let addr = line.split("http://").nth(1).and_then(|rest| rest.split('/').next()).expect(&line).to_string();
        Server { child, addr }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        drop(self.child.kill());
        drop(self.child.wait());
    }
}

/// A GET whose answer is read as it comes: status, then the body's events.
struct Get {
    status: u16,
    reader: BufReader<TcpStream>,
}

fn get(server: &Server, path_and_query: &str) -> Get {
    let mut stream = TcpStream::connect(&server.addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    write!(stream, "GET {path_and_query} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n", server.addr).unwrap();
    let mut reader = BufReader::new(stream);
    let mut status = String::new();
    reader.read_line(&mut status).unwrap();
    let status = status.split_whitespace().nth(1).unwrap().parse().unwrap();
    // Headers up to the blank line; the body is chunked or closed, and
    // events are found by their own lines either way.
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).unwrap();
        if header.trim().is_empty() {
            break;
        }
    }
    Get { status, reader }
}

impl Get {
    /// The next event's name and data, `None` at the end of the stream.
    fn event(&mut self) -> Option<(String, serde_json::Value)> {
        let (mut name, mut data) = (None, None);
        loop {
            let mut line = String::new();
            if self.reader.read_line(&mut line).ok()? == 0 {
                return None;
            }
            if let Some(rest) = line.strip_prefix("event: ") {
                name = Some(rest.trim().to_string());
            } else if let Some(rest) = line.strip_prefix("data: ") {
                data = Some(serde_json::from_str::<serde_json::Value>(rest.trim()).unwrap());
            }
            if let (Some(name), Some(data)) = (&name, &data) {
                return Some((name.clone(), data.clone()));
            }
        }
    }

    fn body(mut self) -> String {
        let mut body = String::new();
        drop(self.reader.read_to_string(&mut body));
        body
    }
}

#[test]
fn a_puzzle_streams_frames_then_its_verified_record() {
    let server = Server::start();
    let mut answer = get(&server, &format!("/api/solve?puzzle={INKALA}&backend=cpu&seed=3"));
    assert_eq!(answer.status, 200);
    let mut frames = 0;
    let record = loop {
        match answer.event().expect("the stream ends with done") {
            (name, frame) if name == "frame" => {
                frames += 1;
                assert_eq!(frame["series"].as_array().unwrap().len(), 16, "{frame}");
                let best = frame["best"].as_str().unwrap();
                assert_eq!(best.len(), 81);
                assert!(frame["best_energy"].as_i64().unwrap() >= 0);
            }
            (name, record) if name == "done" => break record,
            other => panic!("{other:?}"),
        }
    };
    assert!(frames >= 1);
    assert_eq!(record["status"], "solved");
    let expected = exact_solve(&grid(INKALA)).unwrap().to_string();
    assert_eq!(record["solution"], expected.as_str());
    assert_eq!(record["backend"], "cpu");
}

#[test]
fn bad_input_is_said_and_the_server_goes_on() {
    let server = Server::start();
    let conflicting = format!("11{}", ".".repeat(79));
    let mut answer = get(&server, &format!("/api/solve?puzzle={conflicting}&backend=cpu"));
    let (name, record) = answer.event().unwrap();
    assert_eq!(name, "done");
    assert_eq!(record["status"], "invalid");
    assert!(record["error"].as_str().unwrap().contains("twice"), "{record}");
    let mut answer = get(&server, &format!("/api/solve?puzzle={INKALA}&backend=nope"));
    let (name, error) = answer.event().unwrap();
    assert_eq!(name, "error");
    assert_eq!(error["error"], "unknown backend \"nope\"");
    let answer = get(&server, "/api/solve?puzzle=1&replicas=many");
    assert_eq!(answer.status, 400);
    assert!(answer.body().contains("replicas"));
    let answer = get(&server, &format!("/api/solve?puzzle={}", "1".repeat(5000)));
    assert_eq!(answer.status, 414);
    let mut answer = get(&server, &format!("/api/solve?puzzle={INKALA}&backend=cpu"));
    while let Some((name, _)) = answer.event() {
        if name == "done" {
            return;
        }
    }
    panic!("no record after bad requests");
}

/// Runs beyond the bound are answered "busy"; a client that goes away
/// frees its run's place at once.
#[test]
fn runs_are_bounded_and_a_client_that_leaves_stops_its_run() {
    let server = Server::start();
    let endless = |server: &Server| {
        let mut answer = get(server, &format!("/api/solve?puzzle={ENDLESS}&backend=cpu&reduce=clues&timeout=0"));
        assert_eq!(answer.status, 200);
        assert_eq!(answer.event().unwrap().0, "frame", "it anneals");
        answer
    };
    let first = endless(&server);
    let _second = endless(&server);
    let busy = get(&server, &format!("/api/solve?puzzle={INKALA}&backend=cpu"));
    assert_eq!(busy.status, 503);
    assert!(busy.body().contains("busy: 2 runs are going on"));
    drop(first);
    let started = Instant::now();
    loop {
        let answer = get(&server, &format!("/api/solve?puzzle={INKALA}&backend=cpu"));
        if answer.status == 200 {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(5), "the run of a client that left still holds its place");
        std::thread::sleep(Duration::from_millis(50));
    }
}
