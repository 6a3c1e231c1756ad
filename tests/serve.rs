//! `serve`: the live page's streaming endpoint and its limits, over real
//! HTTP against the binary: requests through the `ureq` client, events
//! parsed by `eventsource-stream`. Clients that break the protocol on
//! purpose (a false length, an endless chunked upload, a stall) write to a
//! socket themselves: no client library sends those.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::pin::Pin;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use eventsource_stream::{Event, EventStreamError, Eventsource};
use futures_util::stream::{self, Stream, StreamExt};
use sudoku_anneal::dynamics::COMPLETION_HEAT;
use tokio::runtime::Runtime;

use crate::util::{dense_energy, exact_solve, grid, INKALA};

/// Five hard puzzles after three comment lines, each with a comment of its own.
const HARD: &str = include_str!("../examples/hard.txt");

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

type Body = Box<dyn Read + Send>;
type Events = Pin<Box<dyn Stream<Item = Result<Event, EventStreamError<std::io::Error>>> + Send>>;

/// An answer read as it comes: its status, then its body's events or text.
struct Answer {
    status: u16,
    body: Option<Body>,
    events: Option<Events>,
    runtime: Runtime,
}

/// A client that hands every status back as an answer, not an error.
fn client() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into()
}

fn get(server: &Server, path_and_query: &str) -> Answer {
    Answer::of(client().get(format!("http://{}{path_and_query}", server.addr)).call())
}

fn post(server: &Server, path_and_query: &str, body: &[u8]) -> Answer {
    Answer::of(client().post(format!("http://{}{path_and_query}", server.addr)).send(body))
}

impl Answer {
    fn of(response: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> Answer {
        let response = response.expect("an answer");
        let status = response.status().as_u16();
        let body: Body = Box::new(response.into_body().into_reader());
        Answer::read(status, body)
    }

    fn read(status: u16, body: Body) -> Answer {
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        Answer { status, body: Some(body), events: None, runtime }
    }

    /// The next event's name and data, `None` at the end of the stream.
    fn event(&mut self) -> Option<(String, serde_json::Value)> {
        self.event_lines().map(|(name, mut data)| (name, data.swap_remove(0)))
    }

    /// The next event's name and each of its data lines.
    fn event_lines(&mut self) -> Option<(String, Vec<serde_json::Value>)> {
        let events = self.events.get_or_insert_with(|| {
            // The body's bytes as they come, read on this thread.
            let chunks = stream::unfold(self.body.take().expect("a body"), |mut body| async move {
                let mut chunk = vec![0; 8192];
                let read = body.read(&mut chunk).ok().filter(|&n| n > 0)?;
                chunk.truncate(read);
                Some((Ok::<_, std::io::Error>(chunk), body))
            });
            Box::pin(chunks.eventsource())
        });
        let event = self.runtime.block_on(events.next())?.ok()?;
        let data = event.data.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
        Some((event.event, data))
    }

    fn body(mut self) -> String {
        let mut body = String::new();
        drop(self.body.take().expect("a body").read_to_string(&mut body));
        body
    }
}

/// What a client that breaks the protocol is answered: writes `request`
/// (and then whatever `then` writes), reads the status and the body.
fn raw(server: &Server, request: &str, then: impl FnOnce(&mut TcpStream)) -> Answer {
    let mut stream = TcpStream::connect(&server.addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    then(&mut stream);
    raw_answer(stream)
}

/// The status line and headers read by hand, the rest as the body.
fn raw_answer(stream: TcpStream) -> Answer {
    let mut reader = BufReader::new(stream);
    let mut status = String::new();
    reader.read_line(&mut status).unwrap();
    let status = status.split_whitespace().nth(1).unwrap().parse().unwrap();
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).unwrap();
        if header.trim().is_empty() {
            break;
        }
    }
    Answer::read(status, Box::new(reader))
}

#[test]
fn a_puzzle_streams_frames_then_its_verified_record() {
    let server = Server::start();
    let mut answer = get(&server, &format!("/api/solve?puzzle={INKALA}&backend=cpu&seed=3"));
    assert_eq!(answer.status, 200);
    let (mut frames, mut last) = (0, serde_json::Value::Null);
    let record = loop {
        match answer.event().expect("the stream ends with done") {
            (name, frame) if name == "frame" => {
                frames += 1;
                assert_eq!(frame["series"].as_array().unwrap().len(), 16, "{frame}");
                let best = frame["best"].as_str().unwrap();
                assert_eq!(best.len(), 81);
                assert!(frame["best_energy"].as_i64().unwrap() >= 0);
                // cpu's cell defaults: 32 chains at one temperature, named,
                // COMPLETION_HEAT times as hot once grids are completed (after
                // the 10th sweep).
                let t = if frame["sweeps"].as_u64().unwrap() > 10 { 1.2 * COMPLETION_HEAT } else { 1.2 };
                assert_eq!((&frame["temperatures"], &frame["backend"]), (&serde_json::json!([t]), &"cpu".into()));
                last = frame;
            }
            (name, record) if name == "done" => break record,
            other => panic!("{other:?}"),
        }
    };
    assert!(frames >= 1);
    assert_eq!(record["status"], "solved");
    let expected = exact_solve(&grid(INKALA)).unwrap().to_string();
    assert_eq!(record["solution"], expected.as_str());
    // The last frame is the final state: the solution, at the record's sweeps.
    assert_eq!((&last["best_energy"], &last["best"]), (&0.into(), &expected.as_str().into()), "{last}");
    assert_eq!(last["sweeps"], record["sweeps"]);
    assert_eq!(record["backend"], "cpu");
}

/// Every frame's energies are the plain model's, whatever the backend
/// anneals: with adaptive weights grown far above their base (a puzzle
/// without a solution, many frames), the best energy is still the plain
/// energy of the best grid it shows (cell moves fill every cell).
#[test]
fn frames_show_plain_energies_from_every_backend() {
    let server = Server::start();
    let backends =
        ["cpu", "cpu-lanes", "gpu"].into_iter().filter(|&b| b != "gpu" || crate::cpu_vs_gpu::gpu().is_some());
    for backend in backends {
        let mut answer = get(&server, &format!("/api/solve?puzzle={ENDLESS}&backend={backend}&reduce=clues&timeout=2"));
        assert_eq!(answer.status, 200, "{backend}");
        let mut frames = 0;
        while let Some((name, frame)) = answer.event() {
            if name != "frame" {
                break;
            }
            assert_eq!(frame["backend"], backend);
            let best = grid(frame["best"].as_str().unwrap());
            let x: Vec<u8> = (0..729).map(|i| u8::from(best.cells[i / 9] as usize == i % 9 + 1)).collect();
            assert_eq!(
                frame["best_energy"].as_i64().unwrap() as i32,
                dense_energy(best.shape, &x),
                "{backend}: {frame}"
            );
            frames += 1;
        }
        assert!(frames >= 5, "{backend}: {frames} frames");
    }
}

/// On a ladder, a frame says each rung's temperature, coldest first, beside
/// each pair's swap acceptance.
#[test]
fn ladder_frames_carry_each_rungs_temperature() {
    let server = Server::start();
    let mut answer =
        get(&server, &format!("/api/solve?puzzle={ENDLESS}&backend=cpu&moves=spin&reduce=clues&timeout=1"));
    let (name, frame) = answer.event().unwrap();
    assert_eq!(name, "frame");
    let temperatures: Vec<f64> =
        frame["temperatures"].as_array().unwrap().iter().map(|t| t.as_f64().unwrap()).collect();
    assert_eq!(temperatures.len(), 16, "{frame}");
    assert!(temperatures.windows(2).all(|w| w[0] < w[1]) && (temperatures[0] - 0.4).abs() < 1e-9, "{temperatures:?}");
    assert_eq!(frame["swap_acceptance"].as_array().unwrap().len(), 15);
    assert_eq!(frame["replicas"], 16, "cpu's single-spin ladder: 1 × 16");
    assert_eq!(frame["series_are_rungs"], true);
    // The first ladder's replicas stand one on each rung, and every
    // replica's energy is on its rung's list, the lowest the rung's series.
    let mut paths: Vec<u64> = frame["paths"].as_array().unwrap().iter().map(|r| r.as_u64().unwrap()).collect();
    paths.sort_unstable();
    assert_eq!(paths, (0..16).collect::<Vec<u64>>());
    let rung_energies = frame["rung_energies"].as_array().unwrap();
    assert_eq!(rung_energies.iter().map(|e| e.as_array().unwrap().len()).sum::<usize>(), 16);
    for (energies, lowest) in rung_energies.iter().zip(frame["series"].as_array().unwrap()) {
        assert_eq!(energies.as_array().unwrap().iter().map(|e| e.as_i64().unwrap()).min(), lowest.as_i64());
    }
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
    assert_eq!(
        error["error"],
        "invalid setting: unknown backend \"nope\" (one of cpu, cpu-bits, cpu-lanes, gpu, gpu-bits, bits32, auto)"
    );
    // Beyond this machine's memory (the CI machine's 24 GB): refused with the
    // figures, and the server stays up.
    if sudoku_anneal::settings::memory_available().is_some_and(|bytes| bytes < 36_000_000_000) {
        let mut answer = get(&server, &format!("/api/solve?puzzle={INKALA}&backend=cpu&replicas=4194303&ladders=1"));
        let (name, error) = answer.event().unwrap();
        assert_eq!(name, "error");
        assert!(error["error"].as_str().unwrap().contains("need about 36.7 GB on 9×9 boards"), "{error}");
    }
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
/// frees its run's place at once, a puzzle's or a collection's.
#[test]
fn runs_are_bounded_and_a_client_that_leaves_stops_its_run() {
    let server = Server::start();
    let settings = "backend=cpu&reduce=clues&timeout=0";
    let puzzle = |server: &Server| {
        let mut answer = get(server, &format!("/api/solve?puzzle={ENDLESS}&{settings}"));
        assert_eq!(answer.status, 200);
        assert_eq!(answer.event().unwrap().0, "frame", "it anneals");
        answer
    };
    // A collection whose first record comes back, then an endless puzzle;
    // `None` while the server is busy.
    let collection = |server: &Server| {
        let file = format!("{INKALA}\n{ENDLESS}\n{INKALA}\n");
        let mut answer = post(server, &format!("/api/collection?{settings}"), file.as_bytes());
        if answer.status == 503 {
            assert!(answer.body().contains("busy: 2 runs are going on"));
            return None;
        }
        assert_eq!(answer.status, 200);
        assert_eq!(answer.event().unwrap().0, "start");
        assert_eq!(answer.event_lines().unwrap().1.len(), 1, "the first record, then the endless one anneals");
        Some(answer)
    };
    let once_a_place_is_free = |server: &Server| {
        let started = Instant::now();
        loop {
            if let Some(answer) = collection(server) {
                return answer;
            }
            assert!(started.elapsed() < Duration::from_secs(5), "the run of a client that left still holds its place");
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    let first = puzzle(&server);
    let second = collection(&server).expect("a second run has its place");
    assert!(collection(&server).is_none(), "a third is told the server is busy");
    drop(second);
    let _third = once_a_place_is_free(&server);
    assert!(collection(&server).is_none());
    drop(first);
    once_a_place_is_free(&server);
}

#[test]
fn a_collection_comes_back_record_by_record_in_order() {
    let server = Server::start();
    let puzzles: Vec<&str> = HARD.lines().filter(|l| !l.starts_with('#')).map(|l| &l[..81]).collect();
    let file = format!("{HARD}not a puzzle\n");
    let mut answer = post(&server, "/api/collection?backend=cpu-lanes&seed=1&file=set.txt", file.as_bytes());
    assert_eq!(answer.status, 200);
    let (name, start) = answer.event().unwrap();
    assert_eq!((name.as_str(), &start["puzzles"]), ("start", &serde_json::json!(puzzles.len() + 1)));
    let mut records = Vec::new();
    let summary = loop {
        match answer.event_lines().expect("the stream ends with done") {
            (name, lines) if name == "records" => records.extend(lines),
            (name, mut lines) if name == "done" => break lines.remove(0),
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(records.len(), puzzles.len() + 1);
    for (index, (record, puzzle)) in records.iter().zip(&puzzles).enumerate() {
        assert_eq!(
            (&record["index"], &record["file"], &record["line"]),
            (&index.into(), &"set.txt".into(), &(index + 4).into())
        );
        assert_eq!(record["solution"], exact_solve(&grid(puzzle)).unwrap().to_string().as_str(), "{record}");
    }
    assert_eq!(records[puzzles.len()]["status"], "invalid");
    assert_eq!((&summary["solved"], &summary["invalid"]), (&puzzles.len().into(), &1.into()), "{summary}");
}

#[test]
fn uploads_beyond_the_limit_are_refused() {
    let server = Server::start();
    // Declared too large (and not sent): refused before a byte of it is read.
    let too_long = sudoku_anneal::serve::MAX_UPLOAD + 1;
    let request = format!("POST /api/collection HTTP/1.1\r\nHost: x\r\nContent-Length: {too_long}\r\n\r\n");
    let answer = raw(&server, &request, |_| ());
    assert_eq!(answer.status, 413);
    assert!(answer.body().contains("larger than 64 MiB"));
    // Undeclared (chunked): refused once the limit is passed.
    let request = "POST /api/collection HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";
    let answer = raw(&server, request, |stream| {
        let chunk = vec![b'.'; 1 << 20];
        for _ in 0..=(sudoku_anneal::serve::MAX_UPLOAD >> 20) {
            // The server may stop reading once it has refused.
            if write!(stream, "{:x}\r\n", chunk.len())
                .and_then(|()| stream.write_all(&chunk))
                .and_then(|()| stream.write_all(b"\r\n"))
                .is_err()
            {
                break;
            }
        }
    });
    assert_eq!(answer.status, 413);
}

/// Two clients that declare 1,000 bytes, send 82 and stall hold both run
/// places only until the upload's idle time passes: each is told its
/// upload stalled, and the next client is served.
#[test]
fn stalled_uploads_give_their_places_back() {
    let server = Server::start();
    let stall = || {
        let mut stream = TcpStream::connect(&server.addr).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        write!(stream, "POST /api/collection HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{INKALA}\n").unwrap();
        stream
    };
    let stalled = [stall(), stall()];
    let started = Instant::now();
    std::thread::sleep(Duration::from_millis(300));
    let file = format!("{INKALA}\n");
    let answer = post(&server, "/api/collection?backend=cpu", file.as_bytes());
    assert_eq!(answer.status, 503, "both places are held while the uploads are young");
    for stream in stalled {
        let answer = raw_answer(stream);
        assert_eq!(answer.status, 408);
        assert!(answer.body().contains("the upload stalled"));
    }
    let waited = started.elapsed();
    let idle = sudoku_anneal::serve::UPLOAD_IDLE;
    assert!(waited >= idle - Duration::from_millis(400) && waited < idle * 3, "{waited:?}");
    let mut answer = post(&server, "/api/collection?backend=cpu", file.as_bytes());
    assert_eq!(answer.status, 200);
    assert_eq!(answer.event().unwrap().0, "start");
}
