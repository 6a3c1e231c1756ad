//! The live page in a real browser: Chromium driven through WebDriver
//! (chromedriver, through the `fantoccini` client), as a person would use
//! it. Skipped where chromedriver is missing, unless REQUIRE_BROWSER is set
//! (CI sets it and installs both).

use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::{json, Value};
use sudoku_anneal::dynamics::COMPLETION_HEAT;
use tokio::runtime::Runtime;

use crate::serve::{Server, ENDLESS};
use crate::util::{exact_solve, grid, EASY, INKALA};

const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// A WebDriver session in headless Chromium, ended on drop; each command
/// waits for its answer.
struct Browser {
    /// One browser at a time: chromedriver's port is picked free and then
    /// bound by another process, which two tests at once could race for.
    _turn: MutexGuard<'static, ()>,
    driver: Child,
    runtime: Runtime,
    client: Option<Client>,
}

impl Browser {
    fn start() -> Option<Browser> {
        if !std::path::Path::new(CHROMEDRIVER).exists() {
            assert!(
                std::env::var_os("REQUIRE_BROWSER").is_none(),
                "REQUIRE_BROWSER is set and {CHROMEDRIVER} is missing"
            );
            return None;
        }
        static TURN: Mutex<()> = Mutex::new(());
        let turn = TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let driver = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let mut browser = Browser { _turn: turn, driver, runtime, client: None };
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(started.elapsed() < Duration::from_secs(20), "chromedriver did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        // No background networking: this machine's network is closed.
        let args = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--window-size=1280,1000",
        ];
        let capabilities = json!({"goog:chromeOptions": {"args": args}}).as_object().unwrap().clone();
        let client = browser.runtime.block_on(
            ClientBuilder::new(HttpConnector::new())
                .capabilities(capabilities)
                .connect(&format!("http://127.0.0.1:{port}")),
        );
        browser.client = Some(client.expect("a WebDriver session"));
        Some(browser)
    }

    /// Runs one WebDriver exchange to its answer, which must not be an error.
    fn run<T, E: std::fmt::Debug, F: std::future::Future<Output = Result<T, E>>>(
        &self,
        what: &str,
        command: impl FnOnce(Client) -> F,
    ) -> T {
        let client = self.client.clone().expect("a session");
        self.runtime.block_on(command(client)).unwrap_or_else(|error| panic!("{what}: {error:?}"))
    }

    fn open(&self, url: &str) {
        self.run(url, |c| async move { c.goto(url).await });
    }

    fn script(&self, script: &str) -> Value {
        self.run(script, |c| async move { c.execute(script, vec![]).await })
    }

    fn click(&self, css: &str) {
        self.run(css, |c| async move { c.find(Locator::Css(css)).await?.click().await });
    }

    fn type_into(&self, css: &str, text: &str) {
        self.run(css, |c| async move {
            let element = c.find(Locator::Css(css)).await?;
            element.clear().await?;
            element.send_keys(text).await
        });
    }

    /// Chooses `path` in a file input, as a person picking it would.
    fn choose_file(&self, css: &str, path: &std::path::Path) {
        let path = path.to_str().unwrap();
        self.run(css, |c| async move { c.find(Locator::Css(css)).await?.send_keys(path).await });
    }

    /// Waits until `script` returns something truthy; returns it.
    fn until(&self, script: &str, what: &str) -> Value {
        let started = Instant::now();
        loop {
            let value = self.script(script);
            if !(value.is_null() || value == false || value == "") {
                return value;
            }
            assert!(started.elapsed() < Duration::from_secs(60), "timed out waiting for {what}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The window at `width` × `height` pixels (headless Chromium's narrowest is 500).
    fn resize(&self, width: u32, height: u32) {
        self.run("resize", |c| async move { c.set_window_size(width, height).await });
    }

    fn screenshot(&self, path: &std::path::Path) {
        let png = self.run("screenshot", |c| async move { c.screenshot().await });
        std::fs::write(path, png).unwrap();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if let Some(client) = self.client.take() {
            drop(self.runtime.block_on(client.close()));
        }
        drop(self.driver.kill());
        drop(self.driver.wait());
    }
}

/// The page's message line, as a script expression.
const MESSAGE: &str = "document.getElementById('message').textContent";

/// A browser on the page of a fresh server, its backend list loaded.
fn open_page() -> Option<(Browser, Server)> {
    let browser = Browser::start()?;
    let server = Server::start();
    browser.open(&format!("http://{}/", server.addr));
    browser.until("return document.getElementById('backend').options.length > 1", "the backend list");
    Some((browser, server))
}

/// Pastes `line`, picks `backend`, presses Solve and waits for the page to
/// say it is solved: what it says.
fn solve_pasted(browser: &Browser, line: &str, backend: &str) -> Value {
    browser.type_into("#line", line);
    browser.script(&format!("document.getElementById('backend').value = '{backend}'"));
    browser.click("#solve");
    browser.until(&format!("return {MESSAGE}.startsWith('solved') && {MESSAGE}"), "solved")
}

/// A puzzle the default probing solves after the anneal's first 10 sweeps
/// is said to be solved by reduction, on the run's line and in its panel;
/// one the brief probing solves, before any sweep.
#[test]
fn the_page_says_when_reduction_solved_the_puzzle() {
    let Some((browser, _server)) = open_page() else { return };
    // One of magictour with 177 of 729 spins free (more are probed first).
    let magictour = ".1.....8....75.....39...6........8.6.9..2.4..6.1....9.......2....2149.381...3....";
    let said = solve_pasted(&browser, magictour, "cpu-lanes");
    assert!(said.as_str().unwrap().ends_with("(cpu-lanes), by reduction after 10 sweeps"), "{said}");
    let note = browser.script("return panels[0].q('message').textContent");
    assert_eq!(note, "solved by reduction and verified");
    assert_eq!(browser.script("return lineFromGrid()"), exact_solve(&grid(magictour)).unwrap().to_string().as_str());

    // The line above still says "solved": wait for the new one.
    let seventeen = ".................1.....2.3......3.2...1.4......5....6..3......4.7..8...962...7...";
    browser.type_into("#line", seventeen);
    browser.click("#solve");
    let said = browser.until(&format!("return {MESSAGE}.includes('before any sweep') && {MESSAGE}"), "solved");
    assert!(said.as_str().unwrap().ends_with("(cpu-lanes), by reduction before any sweep"), "{said}");
    assert_eq!(browser.script("return lineFromGrid()"), exact_solve(&grid(seventeen)).unwrap().to_string().as_str());
}

#[test]
fn the_page_solves_a_pasted_puzzle_says_what_is_wrong_and_stops() {
    let Some((browser, _server)) = open_page() else { return };

    // Paste Inkala's puzzle, pick the CPU reference, press Solve.
    let said = solve_pasted(&browser, INKALA, "cpu");
    assert!(said.as_str().unwrap().starts_with("solved and verified"), "{said}");
    let shown = browser.script("return lineFromGrid()");
    assert_eq!(shown, exact_solve(&grid(INKALA)).unwrap().to_string().as_str());
    // The last frame is the final state: the run's panel shows the record's
    // sweeps and energy 0, not the values of an earlier frame.
    let panel = browser.script(
        "const p = panels[0]; return [p.q('sweeps').textContent, String(p.record.sweeps), p.q('energy').textContent]",
    );
    assert_eq!((&panel[0], &panel[2]), (&panel[1], &json!("0")), "{panel}");

    // The page opens on the tempering preset, whose every frame gives its
    // 8 rungs from 0.5 to 1.2; "as solve runs it" is the backend's one
    // temperature (cell moves on 9×9 boards), `COMPLETION_HEAT` times as
    // hot once grids are completed (after the 10th sweep).
    let ladder = "const t = panels[0].temperatures; return [t.length, t[0], Math.round(t.at(-1) * 1e6) / 1e6]";
    assert_eq!(browser.script(ladder), json!([8, 0.5, 1.2]));
    browser
        .script("const p = document.getElementById('preset'); p.value = 'solve'; p.dispatchEvent(new Event('change'))");
    assert_eq!(browser.script("return document.getElementById('replicas').value"), json!(""));
    browser.click("#solve");
    let rungs =
        browser.until("return panels.length === 1 && panels[0].record && panels[0].temperatures", "solve's run");
    let sweeps = browser.script("return panels[0].record.sweeps").as_u64().unwrap();
    assert_eq!(rungs, json!([if sweeps > 10 { 1.2 * COMPLETION_HEAT } else { 1.2 }]), "after {sweeps} sweeps");
    browser.script(
        "const p = document.getElementById('preset'); p.value = 'ladder'; p.dispatchEvent(new Event('change'))",
    );

    // A new puzzle typed: the last run's panel goes.
    assert_eq!(browser.script("return document.querySelectorAll('#panels .panel').length"), json!(1));
    browser.type_into("#line", EASY);
    assert_eq!(browser.script("return document.querySelectorAll('#panels .panel').length"), json!(0));

    // An empty board of a side picked, for the rules chosen: a 6×6 one only
    // as a Latin square.
    browser.script("document.getElementById('size').value = '16'; document.getElementById('empty').click()");
    assert_eq!(
        browser.script("return [cells.length, document.getElementById('line').value]"),
        json!([256, ".".repeat(256)])
    );
    browser.script("document.getElementById('size').value = '6'; document.getElementById('empty').click()");
    assert_eq!(
        browser.script(&format!("return [cells.length, {MESSAGE}.includes('needs the latin rules')]")),
        json!([256, true])
    );
    browser.script(
        "document.getElementById('variant').value = 'latin'; document.getElementById('empty').click(); \
         document.getElementById('backend').value = 'cpu-lanes'; document.getElementById('solve').click()",
    );
    let latin =
        browser.until("return panels.length === 1 && panels[0].record && panels[0].record.solution", "a Latin square");
    let latin = latin.as_str().unwrap();
    assert_eq!(latin.len(), 36);
    for i in 0..6 {
        let row: std::collections::HashSet<char> = latin[6 * i..6 * i + 6].chars().collect();
        let column: std::collections::HashSet<char> = latin.chars().skip(i).step_by(6).collect();
        assert_eq!((row.len(), column.len()), (6, 6), "{latin}");
    }
    browser.script("document.getElementById('variant').value = 'standard'");
    browser.type_into("#line", EASY);

    // Arrow keys move between the cells.
    browser.script(
        "cells[0].focus(); cells[0].dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowDown', bubbles: true }));",
    );
    assert_eq!(browser.script("return cells.indexOf(document.activeElement)"), json!(9));

    // Conflicting clues: marked as typed, and the page says why on Solve.
    browser.type_into("#line", &format!("11{}", ".".repeat(79)));
    let marked =
        browser.script("return [...document.querySelectorAll('#grid input.conflict')].map(i => cells.indexOf(i))");
    assert_eq!(marked, json!([0, 1]));
    browser.click("#solve");
    let said = browser.until(&format!("return {MESSAGE}.startsWith('invalid') && {MESSAGE}"), "the error");
    assert!(said.as_str().unwrap().contains("digit 1 twice in row 1"), "{said}");

    // The same puzzle and seed on two backends at once, one verdict.
    let (first, second) = match crate::cpu_vs_gpu::gpu() {
        Some(_) => ("cpu-lanes", "gpu"),
        None => ("cpu-lanes", "cpu"),
    };
    browser.type_into("#line", INKALA);
    browser.script(&format!(
        "document.getElementById('backend').value = '{first}'; document.getElementById('versus').value = '{second}';"
    ));
    browser.click("#solve");
    browser.until(&format!("return {MESSAGE} === 'solved and verified on both'"), "both solved");
    let verdict = browser.script("return document.getElementById('verdict').textContent");
    let verdict = verdict.as_str().unwrap();
    for name in [first, second] {
        assert!(verdict.contains(&format!("{name}: solved, ")), "{verdict}");
    }
    assert!(verdict.contains("less time") && verdict.contains("less work (attempts over all replicas)"), "{verdict}");
    let panels = browser.script("return panels.map(p => p.record.solution)");
    let expected = exact_solve(&grid(INKALA)).unwrap().to_string();
    assert_eq!(panels, json!([expected, expected]));

    // Plain energies: on cpu-lanes with adaptive weights (grown above their
    // base on a puzzle without a solution), beside the other backend, the
    // lowest energy its panel shows is the plain energy of the grid it
    // shows (cell moves fill every cell).
    browser.type_into("#line", ENDLESS);
    browser.script(
        "for (const [id, value] of [['backend', 'cpu-lanes'], ['reduce', 'clues']]) \
         document.getElementById(id).value = value;",
    );
    browser.click("#solve");
    browser.until("return panels.length === 2 && panels.every(p => p.history.length >= 5)", "frames of an endless run");
    browser.click("#stop");
    browser.until(&format!("return {MESSAGE} === 'stopped'"), "the stop");
    let shown =
        browser.script("const p = panels[0]; return [p.grid.map(i => i.value).join(''), p.q('energy').textContent]");
    let digits: Vec<usize> =
        shown[0].as_str().unwrap().chars().map(|c| c.to_digit(10).expect("a digit in every cell") as usize).collect();
    let spins: Vec<u8> = (0..81 * 9).map(|i| u8::from(digits[i / 9] == i % 9 + 1)).collect();
    let plain = crate::util::dense_energy(sudoku_anneal::grid::Shape::CLASSIC, &spins);
    assert_eq!(shown[1], json!(plain.to_string()), "the panel's energy is not the plain energy of its grid: {shown}");

    // Consistent clues without a solution, annealed on a ladder of single
    // spins without propagation, on the reference beside the other: it runs
    // until stopped.
    browser.type_into("#line", ENDLESS);
    browser.script(
        "for (const [id, value] of [['backend', 'cpu'], ['moves', 'spin'], ['weights', 'fixed'], ['reduce', 'clues']]) \
         document.getElementById(id).value = value;",
    );
    browser.click("#solve");
    browser.until("return panels.every(p => p.history.length >= 8)", "frames of both ladders");
    // The preset's 8 rungs: the first ladder's replicas, one on each, travel between them.
    let paths: Vec<Vec<u32>> =
        serde_json::from_value(browser.script("return panels[0].history.map(h => h.paths)")).unwrap();
    for rungs in &paths {
        let mut sorted = rungs.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..8).collect::<Vec<u32>>());
    }
    assert!(paths.iter().any(|rungs| rungs != &paths[0]), "no replica changed rung: {paths:?}");
    if let Some(path) = std::env::var_os("SUDOKU_ANNEAL_SCREENSHOT") {
        browser.screenshot(std::path::Path::new(&path));
    }
    browser.click("#stop");
    browser.until(&format!("return {MESSAGE} === 'stopped'"), "the stop");
    assert_eq!(browser.script("return document.getElementById('solve').disabled"), false);

    // On a phone's width nothing is wider than the screen, the run's panels included.
    browser.resize(420, 900);
    let widths = browser.until(
        "return window.innerWidth < 600 && [document.documentElement.scrollWidth, window.innerWidth]",
        "the narrow window",
    );
    assert!(widths[0].as_u64() <= widths[1].as_u64(), "the page scrolls sideways: {widths}");
}

#[test]
fn the_page_solves_an_uploaded_file_and_offers_its_records() {
    let Some((browser, _server)) = open_page() else { return };
    let path = std::env::temp_dir().join(format!("sudoku-anneal-upload-{}.txt", std::process::id()));
    std::fs::write(&path, format!("{}not a puzzle\n", include_str!("../examples/hard.txt"))).unwrap();
    browser.script("document.getElementById('backend').value = 'cpu-lanes'");
    browser.choose_file("#file", &path);
    browser.click("#solve-file");
    let counts = browser.until(
        "const t = document.getElementById('counts').textContent; return t.includes('done') && t",
        "the collection solved",
    );
    std::fs::remove_file(&path).unwrap();
    assert!(counts.as_str().unwrap().starts_with("6 / 6 puzzles · 5 solved, 0 unsolved, 1 invalid"), "{counts}");
    let records: Vec<Value> =
        serde_json::from_value(browser.script("return collection.records.map(line => JSON.parse(line))")).unwrap();
    for (record, puzzle) in records.iter().zip(include_str!("../examples/hard.txt").lines().skip(3)) {
        assert_eq!(record["solution"], exact_solve(&grid(&puzzle[..81])).unwrap().to_string().as_str());
    }
    assert_eq!(records[5]["status"], "invalid");
    // The work histogram holds every solved puzzle, in the bin of its attempts.
    let work =
        browser.script("return [collection.work.reduce((a, n) => a + (n || 0), 0), collection.work.findIndex(n => n)]");
    let least = records.iter().filter_map(|r| r["attempts"].as_f64()).filter(|&a| a > 0.0).fold(f64::MAX, f64::min);
    assert_eq!(work, json!([5, ((least.log10() - 3.0) * 4.0).floor() as i64]));
    let bars = "const d = document.getElementById('work').getContext('2d').getImageData(0, 0, 330, 120).data; \
                let n = 0; for (let i = 0; i < d.length; i += 4) n += d[i] === 0x23 && d[i + 2] === 0xc4; return n";
    assert!(browser.script(bars).as_u64().unwrap() > 50, "the histogram's bars are drawn");
    // The lines not solved are listed with why: here the one invalid line.
    let misses = browser.script("return [...document.querySelectorAll('#misses li')].map(li => li.textContent)");
    assert_eq!(misses, json!(["line 9: invalid: character 't' at column 3 is not a cell (1-9, A-P, '.' or '0')"]));
    assert_eq!(browser.script("return document.getElementById('download').disabled"), false);
    assert_eq!(browser.script("return document.getElementById('progress').value"), 1.0);

    // At 1,400 px a 25×25 board's run is in sight beside it.
    browser.resize(1400, 1000);
    let big = include_str!("../examples/25x25.txt").lines().find(|l| !l.starts_with('#')).unwrap();
    browser.type_into("#line", &big[..625]);
    browser.click("#solve");
    browser.until("return panels.length === 1 && panels[0].history.length > 0", "a 25×25 frame");
    let place = browser.script(
        "const r = document.querySelector('.panel').getBoundingClientRect(), g = document.getElementById('grid').getBoundingClientRect(); \
         return [r.top < window.innerHeight, r.left >= g.right]",
    );
    assert_eq!(place, json!([true, true]), "the run's panel is beside the board, in sight");
    browser.click("#stop");
}
