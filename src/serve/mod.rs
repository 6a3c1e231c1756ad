//! `sudoku-anneal serve`: a local web page that anneals a puzzle live (on
//! one backend or two side by side) or solves an uploaded collection.
//!
//! The page (`page.html` and its script `page.js`, embedded: it works offline) asks
//! `GET /api/solve?puzzle=…&backend=…` (`live.rs`) and reads the answer as
//! server-sent events: `frame` a few times a second while the puzzle
//! anneals, then `done` with the record `solve --format jsonl` would print,
//! or `error`; side by side is two such requests. `POST /api/collection`
//! (`collection.rs`) answers a file with its records as they are solved.
//! A client that goes away stops its run. axum on tokio serves it: a
//! small, well-kept HTTP stack whose streaming bodies and limits need no
//! code of ours; the annealing itself runs on threads of its own.

mod collection;
mod live;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{header, StatusCode};
use axum::response::sse::{Event, Sse};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Serialize;
use tokio::sync::{mpsc, Semaphore};

use crate::backend::gpu::{list_adapters, AdapterChoice, AdapterName};
use crate::error::{Error, Result};
use crate::BackendKind;
pub use live::LiveRequest;

/// Runs at once; a request beyond them is answered "busy".
pub const MAX_RUNS: usize = 2;
/// The longest query string accepted (a 25×25 puzzle and every setting fit).
const MAX_QUERY: usize = 4096;
/// The largest collection accepted: about 800,000 lines of 9×9 puzzles,
/// held in memory while they are solved.
pub const MAX_UPLOAD: usize = 64 << 20;
/// The longest wait for the next part of an upload, and the longest upload
/// (64 MiB at 1 MB/s): a client that stalls must not hold a run's place.
pub const UPLOAD_IDLE: Duration = Duration::from_secs(5);
pub const UPLOAD_TIME: Duration = Duration::from_secs(120);

#[derive(Clone)]
struct Shared {
    runs: Arc<Semaphore>,
    /// `serve --adapter`: where every GPU run goes.
    adapter: Option<AdapterName>,
}

/// Serves the page on `addr` until the process ends, its GPU runs on
/// `adapter` if one is named; `ready` gets the address bound (port 0 picks
/// a free one).
pub fn serve(addr: SocketAddr, adapter: Option<AdapterName>, ready: impl FnOnce(SocketAddr)) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .map_err(|e| Error::Io(std::io::Error::other(format!("cannot start the server's runtime: {e}"))))?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(addr).await.map_err(Error::Io)?;
        ready(listener.local_addr().map_err(Error::Io)?);
        let shared = Shared { runs: Arc::new(Semaphore::new(MAX_RUNS)), adapter };
        let app = Router::new()
            .route("/", get(|| async { Html(include_str!("page.html")) }))
            .route("/page.js", get(|| async { ([(header::CONTENT_TYPE, "text/javascript")], include_str!("page.js")) }))
            .route("/api/backends", get(backends))
            .route("/api/solve", get(solve))
            .route("/api/collection", post(solve_collection))
            .with_state(shared);
        axum::serve(listener, app).await.map_err(Error::Io)
    })
}

/// A JSON error with its status: what the page shows.
fn refuse(status: StatusCode, message: impl Into<String>) -> Response {
    #[derive(Serialize)]
    struct Refusal {
        error: String,
    }
    (status, Json(Refusal { error: message.into() })).into_response()
}

#[derive(Serialize)]
struct BackendInfo {
    name: &'static str,
    about: &'static str,
    gpu: bool,
}

#[derive(Serialize)]
struct Backends {
    backends: Vec<BackendInfo>,
    /// GPU adapters, as `devices` lists them, and the one `auto` would pick.
    adapters: Vec<String>,
    auto: Option<usize>,
}

async fn backends() -> Json<Backends> {
    let (adapters, auto) = tokio::task::spawn_blocking(|| list_adapters(AdapterChoice::Hardware))
        .await
        .unwrap_or_else(|_| (Vec::new(), None));
    Json(Backends {
        backends: BackendKind::ALL
            .iter()
            .map(|&kind| BackendInfo { name: kind.name(), about: kind.about(), gpu: kind.is_gpu() })
            .collect(),
        adapters: adapters.iter().map(|a| format!("{} ({}, {})", a.name, a.backend, a.device_type)).collect(),
        auto,
    })
}

/// The request's settings, or the status and message that refuse them.
fn settings_of(
    uri: &axum::http::Uri,
    query: std::result::Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> std::result::Result<LiveRequest, (StatusCode, String)> {
    if uri.query().map_or(0, str::len) > MAX_QUERY {
        return Err((StatusCode::URI_TOO_LONG, format!("the request is longer than {MAX_QUERY} bytes")));
    }
    match query {
        Ok(Query(pairs)) => LiveRequest::from_query(&pairs).map_err(|why| (StatusCode::BAD_REQUEST, why)),
        Err(rejection) => Err((StatusCode::BAD_REQUEST, format!("bad request: {}", rejection.body_text()))),
    }
}

fn busy() -> Response {
    refuse(StatusCode::SERVICE_UNAVAILABLE, format!("busy: {MAX_RUNS} runs are going on; try again when one ends"))
}

/// Runs `work` on a thread of its own (it blocks: CPU sweeps, device
/// waits) and answers with the events it sends. The run ends when the
/// client goes away, since the events' receiver goes with it; the permit
/// frees its place when the thread is done.
fn stream_events(
    permit: tokio::sync::OwnedSemaphorePermit,
    work: impl FnOnce(&mpsc::Sender<Event>) + Send + 'static,
) -> Response {
    let (sender, receiver) = mpsc::channel(16);
    std::thread::spawn(move || {
        work(&sender);
        drop(permit);
    });
    let events = futures_util::stream::unfold(receiver, |mut receiver| async move {
        receiver.recv().await.map(|event| (Ok::<_, std::convert::Infallible>(event), receiver))
    });
    Sse::new(events).into_response()
}

async fn solve(
    State(shared): State<Shared>,
    uri: axum::http::Uri,
    query: std::result::Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Response {
    let request = match settings_of(&uri, query) {
        Ok(request) => LiveRequest { adapter: shared.adapter.clone(), ..request },
        Err((status, message)) => return refuse(status, message),
    };
    let Ok(permit) = shared.runs.clone().try_acquire_owned() else { return busy() };
    stream_events(permit, move |sender| live::run(request, sender))
}

/// `POST /api/collection?backend=…` with the file as the body: its
/// records as they are solved.
async fn solve_collection(
    State(shared): State<Shared>,
    uri: axum::http::Uri,
    query: std::result::Result<Query<Vec<(String, String)>>, QueryRejection>,
    headers: axum::http::HeaderMap,
    body: Body,
) -> Response {
    let request = match settings_of(&uri, query) {
        Ok(request) => LiveRequest { adapter: shared.adapter.clone(), ..request },
        Err((status, message)) => return refuse(status, message),
    };
    let too_large =
        || refuse(StatusCode::PAYLOAD_TOO_LARGE, format!("the file is larger than {} MiB", MAX_UPLOAD >> 20));
    let declared = headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<usize>().ok());
    if declared.is_some_and(|length| length > MAX_UPLOAD) {
        return too_large();
    }
    // The place is taken before the upload is read, so that a busy server
    // says so at once instead of after the upload.
    let Ok(permit) = shared.runs.clone().try_acquire_owned() else { return busy() };
    // Read chunk by chunk, so a body without a declared length is bounded
    // too, and each chunk and the whole within their times.
    let mut text = Vec::with_capacity(declared.unwrap_or(0));
    let mut chunks = body.into_data_stream();
    let deadline = tokio::time::Instant::now() + UPLOAD_TIME;
    loop {
        let wait = UPLOAD_IDLE.min(deadline.saturating_duration_since(tokio::time::Instant::now()));
        let chunk = match tokio::time::timeout(wait, futures_util::StreamExt::next(&mut chunks)).await {
            Ok(None) => break,
            Ok(Some(chunk)) => chunk,
            Err(_) => {
                let message = format!(
                    "the upload stalled: nothing came for {} s, or it took longer than {} s",
                    UPLOAD_IDLE.as_secs(),
                    UPLOAD_TIME.as_secs()
                );
                return refuse(StatusCode::REQUEST_TIMEOUT, message);
            }
        };
        let Ok(chunk) = chunk else {
            return refuse(StatusCode::BAD_REQUEST, "the upload broke off");
        };
        if text.len() + chunk.len() > MAX_UPLOAD {
            return too_large();
        }
        text.extend_from_slice(&chunk);
    }
    stream_events(permit, move |sender| collection::run(request, text, sender))
}
