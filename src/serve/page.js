"use strict";
const INKALA = "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4..";
const SETTINGS = ["variant", "moves", "weights", "reduce", "replicas", "ladders", "t_min", "t_max", "seed"];
/// The presets' ladder settings; "solve" leaves every one to the backend.
/// The ladder costs the default dynamics about 1.4× the median work of
/// solve's 32 chains at one temperature on examples/hard.txt (BENCHMARKS.md).
const PRESETS = {
  ladder: { replicas: 8, ladders: 4, t_min: 0.5, t_max: 1.2 },
  solve: { replicas: "", ladders: "", t_min: "", t_max: "" },
};
function applyPreset() {
  for (const [id, value] of Object.entries(PRESETS[$("preset").value] || {})) $(id).value = value;
}
const $ = id => document.getElementById(id);
let cells = [], clues = "", controller = null, panels = [];

function boxSide(n) { const b = Math.round(Math.sqrt(n)); return b * b === n ? b : 0; }

/// An n×n grid of inputs in `table`; only the puzzle's own grid takes typing.
function buildGrid(table, n, editable) {
  const inputs = [], box = boxSide(n);
  table.innerHTML = "";
  table.classList.toggle("big", n > 9);
  for (let r = 0; r < n; r++) {
    const tr = table.insertRow();
    for (let c = 0; c < n; c++) {
      const td = tr.insertCell();
      if (box && c % box === box - 1 && c < n - 1) td.classList.add("right");
      if (box && r % box === box - 1 && r < n - 1) td.classList.add("bottom");
      const input = document.createElement("input");
      input.maxLength = 1; input.readOnly = !editable;
      if (editable) input.addEventListener("input", () => {
        input.value = input.value.toUpperCase().replace(/[^1-9A-P]/g, "");
        if (input.value && inputs[r * n + c + 1]) inputs[r * n + c + 1].focus();
        $("line").value = lineFromGrid();
        markClashes(inputs, $("line").value);
        forgetRun();
      });
      // Arrow keys move between cells, as in a spreadsheet.
      if (editable) input.addEventListener("keydown", e => {
        const step = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] }[e.key];
        if (!step) return;
        const [rr, cc] = [r + step[0], c + step[1]];
        if (rr >= 0 && rr < n && cc >= 0 && cc < n) { inputs[rr * n + cc].focus(); e.preventDefault(); }
      });
      td.appendChild(input); inputs.push(input);
    }
  }
  return inputs;
}

function lineFromGrid() { return cells.map(i => i.value || ".").join(""); }

/// Shows `line` in a grid's inputs, the clues bold and `conflicts` red.
function showLine(inputs, line, conflicts = [], solved = false) {
  const marked = new Set(conflicts);
  inputs.forEach((input, i) => {
    const ch = line[i];
    input.value = ch === "." || ch === "0" ? "" : ch;
    input.classList.toggle("clue", clues.length === line.length && clues[i] !== "." && clues[i] !== "0");
    input.classList.toggle("conflict", marked.has(i));
    input.classList.toggle("solved", solved);
  });
}

function sideOf(line) { const n = Math.round(Math.sqrt(line.length)); return n * n === line.length ? n : 0; }

/// Whether a line of this length is a board of the chosen rules: 4×4, 9×9,
/// 16×16 or 25×25 for Sudoku, any square for Latin squares.
function boardSide(line) {
  const n = sideOf(line);
  return n && ($("variant").value === "latin" || boxSide(n)) ? n : 0;
}

/// The cells of `line` whose symbol another cell of one of its units holds
/// (rows, columns, boxes; diagonals with the x rules), as they are typed.
function clashes(line) {
  const n = sideOf(line), box = boxSide(n), variant = $("variant").value, units = [];
  if (!n) return [];
  for (let i = 0; i < n; i++) {
    units.push([...Array(n).keys()].map(j => i * n + j), [...Array(n).keys()].map(j => j * n + i));
    if (box && variant !== "latin") units.push([...Array(n).keys()].map(j => (Math.floor(i / box) * box + Math.floor(j / box)) * n + (i % box) * box + j % box));
  }
  if (variant === "x") units.push([...Array(n).keys()].map(j => j * n + j), [...Array(n).keys()].map(j => j * n + n - 1 - j));
  const marked = new Set();
  for (const unit of units) {
    const seen = new Map();
    for (const cell of unit) {
      const ch = line[cell];
      if (ch === "." || ch === "0" || ch === undefined) continue;
      if (seen.has(ch)) { marked.add(cell); marked.add(seen.get(ch)); } else seen.set(ch, cell);
    }
  }
  return [...marked];
}

function markClashes(inputs, line) {
  const marked = new Set(clashes(line));
  inputs.forEach((input, i) => input.classList.toggle("conflict", marked.has(i)));
}

function setPuzzle(line) {
  line = line.trim().split(/[\s#,]/)[0];
  const n = sideOf(line);
  if (!n) { say(`a puzzle line holds a square number of cells, not ${line.length}`, "error"); return false; }
  clues = line;
  if (n * n !== cells.length) cells = buildGrid($("grid"), n, true);
  showLine(cells, line);
  $("line").value = line;
  say("");
  return true;
}

function say(text, kind = "") { const m = $("message"); m.textContent = text; m.className = "message " + kind; }

function fmt(x) { return x >= 1e4 ? x.toExponential(2).replace("e+", "e") : String(Math.round(x * 100) / 100); }

/// Reads a response of server-sent events, calling `on[name](data)`; a
/// `records` event carries one JSON line per data line.
async function readEvents(response, on) {
  const reader = response.body.getReader(), decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end); buffer = buffer.slice(end + 2);
      const name = (block.match(/^event: (.*)$/m) || [])[1];
      const data = block.split("\n").filter(l => l.startsWith("data: ")).map(l => l.slice(6));
      if (on[name]) on[name](name === "records" ? data : JSON.parse(data[0]));
    }
  }
}

/// One run's view: its best replica, figures, energy chart, swaps and record.
class Panel {
  constructor(backend) {
    this.el = $("panel").content.firstElementChild.cloneNode(true);
    $("panels").appendChild(this.el);
    this.q = c => this.el.querySelector("." + c);
    this.q("name").textContent = backend;
    this.grid = buildGrid(this.q("replica"), sideOf(clues), false);
    showLine(this.grid, clues);
    this.history = []; this.record = null; this.error = null;
    this.drawSwaps([]);
  }
  note(text, kind = "") { const m = this.q("message"); m.textContent = text; m.className = "message " + kind; }
  frame(f) {
    this.q("sweeps").textContent = f.sweeps; this.q("attempts").textContent = fmt(f.attempts);
    this.q("rate").textContent = fmt(f.attempts_per_second); this.q("energy").textContent = f.best_energy;
    this.q("time").textContent = f.seconds.toFixed(2) + " s";
    this.q("name").textContent = f.backend;
    this.temperatures = f.temperatures; this.replicas = f.replicas;
    this.history.push({ sweeps: f.sweeps, series: f.series, rungs: f.series_are_rungs, paths: f.paths });
    this.drawChart(); this.drawSwaps(f.swap_acceptance); this.drawPaths(); this.drawSpread(f.rung_energies);
    if (f.best) showLine(this.grid, f.best, f.conflicts);
  }
  done(r) {
    this.record = r;
    if (r.backend) this.q("name").textContent = r.backend;
    this.q("record").textContent = JSON.stringify(r);
    this.q("sweeps").textContent = r.sweeps; this.q("attempts").textContent = fmt(r.attempts);
    this.q("rate").textContent = r.seconds > 0 ? fmt(r.attempts / r.seconds) : "–";
    this.q("time").textContent = r.seconds.toFixed(3) + " s";
    if (r.status === "solved") {
      this.q("energy").textContent = "0"; showLine(this.grid, r.solution, [], true);
      this.note(r.solved_by === "reduction" ? "solved by reduction and verified" : "solved and verified", "ok");
    } else this.note(r.status === "unsolved" ? "unsolved within the budget" : `${r.status}: ${r.error}`, "error");
  }
  fail(text) { this.error = text; this.note(text, "error"); }
  drawChart() {
    const canvas = this.q("chart"), g = canvas.getContext("2d"), W = canvas.width, H = canvas.height;
    const L = 44, B = 24, T = 10, R = 112, history = this.history;
    g.clearRect(0, 0, W, H);
    if (!history.length) return;
    const maxE = Math.max(1, ...history.flatMap(h => h.series));
    const maxS = Math.max(1, history[history.length - 1].sweeps);
    const x = s => L + (W - L - R) * s / maxS, y = e => T + (H - T - B) * (1 - e / maxE);
    g.strokeStyle = "#ccd"; g.fillStyle = "#667"; g.font = "11px sans-serif"; g.lineWidth = 1;
    g.beginPath(); g.moveTo(L, T); g.lineTo(L, H - B); g.lineTo(W - R, H - B); g.stroke();
    g.fillText(String(maxE), 4, T + 8); g.fillText("0", 30, H - B);
    g.fillText("energy", 4, H / 2); g.fillText(`sweeps (${maxS})`, W - R - 80, H - 6);
    const last = history[history.length - 1], count = last.series.length;
    for (let k = 0; k < count; k++) {
      const hue = count > 1 ? 220 - 220 * k / (count - 1) : 220;
      g.strokeStyle = `hsl(${hue}, 70%, 45%)`; g.lineWidth = k === 0 ? 2.5 : 1.2;
      g.beginPath();
      history.forEach((h, i) => { const e = h.series[k] ?? 0; i ? g.lineTo(x(h.sweeps), y(e)) : g.moveTo(x(h.sweeps), y(e)); });
      g.stroke();
    }
    const t = k => (this.temperatures ?? [])[k]?.toFixed(2) ?? "?";
    g.fillStyle = "hsl(220, 70%, 45%)"; g.fillText(last.rungs ? `T = ${t(0)} (coldest)` : `${count} groups of chains`, W - R + 6, T + 10);
    g.fillStyle = last.rungs ? "hsl(0, 70%, 45%)" : "#667";
    if (count > 1) g.fillText(last.rungs ? `T = ${t(count - 1)} (hottest)` : `at T = ${t(0)},`, W - R + 6, T + 26);
    if (!last.rungs && count > 1) g.fillText("the lowest of each", W - R + 6, T + 42);
  }
  /// Each replica of the first ladder as a line through the rungs over
  /// sweeps (coldest at the bottom): replica exchange made visible.
  drawPaths() {
    const canvas = this.q("paths"), g = canvas.getContext("2d"), W = canvas.width, H = canvas.height;
    const L = 44, B = 14, T = 6, history = this.history, last = history[history.length - 1];
    g.clearRect(0, 0, W, H); g.font = "11px sans-serif"; g.fillStyle = "#667";
    const rungs = last.paths.length;
    if (rungs < 2) { g.fillText("one rung per ladder: no replica moves between temperatures", 4, 20); return; }
    const maxS = Math.max(1, last.sweeps);
    const x = s => L + (W - L - 8) * s / maxS, y = r => H - B - (H - B - T) * r / (rungs - 1);
    g.fillText("hottest", 2, T + 8); g.fillText("coldest", 2, H - B);
    for (let replica = 0; replica < rungs; replica++) {
      g.strokeStyle = `hsl(${360 * replica / rungs}, 65%, 45%)`; g.lineWidth = 1.5; g.beginPath();
      history.forEach((h, i) => { const p = [x(h.sweeps), y(h.paths[replica])]; i ? g.lineTo(...p) : g.moveTo(...p); });
      g.stroke();
    }
  }
  /// Every replica's plain energy at each rung, a row per rung (coldest
  /// at the bottom): where the ladder's energy distributions overlap, replicas exchange.
  drawSpread(rungEnergies) {
    const canvas = this.q("spread"), g = canvas.getContext("2d"), W = canvas.width, H = canvas.height;
    const L = 44, B = 14, T = 6, rows = rungEnergies.length;
    g.clearRect(0, 0, W, H); g.font = "11px sans-serif"; g.fillStyle = "#667";
    const maxE = Math.max(1, ...rungEnergies.flat());
    const x = e => L + (W - L - 8) * e / maxE, row = (H - B - T) / rows;
    g.fillText("0", L - 3, H - 2); g.fillText(String(maxE), W - 30, H - 2);
    rungEnergies.forEach((energies, k) => {
      const top = H - B - (k + 1) * row;
      if (rows > 1) g.fillText(`T ${(this.temperatures ?? [])[k]?.toFixed(2) ?? "?"}`, 2, top + row / 2 + 4);
      g.fillStyle = `hsla(${rows > 1 ? 220 - 220 * k / (rows - 1) : 220}, 70%, 45%, 0.45)`;
      for (const e of energies) g.fillRect(x(e) - 1.5, top + 1, 3, Math.max(2, row - 2));
      g.fillStyle = "#667";
    });
  }
  drawSwaps(acceptance) {
    const canvas = this.q("swaps"), g = canvas.getContext("2d"), W = canvas.width, H = canvas.height;
    g.clearRect(0, 0, W, H); g.font = "11px sans-serif"; g.fillStyle = "#667";
    const temperatures = this.temperatures ?? [];
    if (!acceptance.length) {
      const at = temperatures.length ? ` (every chain at T = ${temperatures[0].toFixed(2)})` : "";
      g.fillText("one rung per ladder: nothing to exchange" + at, 4, 20); return;
    }
    const w = (W - 8) / acceptance.length;
    acceptance.forEach((a, k) => {
      g.fillStyle = "#e6e8ef"; g.fillRect(4 + k * w, 4, w - 3, H - 20);
      if (a !== null) { g.fillStyle = a < 0.1 ? "#c0251a" : "#2357c4"; g.fillRect(4 + k * w, 4 + (H - 20) * (1 - a), w - 3, (H - 20) * a); }
      // The pair's temperatures where there is room, else the acceptance alone.
      const pair = temperatures.length > k + 1 && w > 80 ? ` T ${temperatures[k].toFixed(2)}–${temperatures[k + 1].toFixed(2)}` : "";
      g.fillStyle = "#667"; g.fillText((a === null ? "–" : a.toFixed(2)) + pair, 6 + k * w, H - 4);
    });
  }
}

function params(extra) {
  const p = new URLSearchParams(extra);
  for (const id of SETTINGS) if ($(id).value !== "") p.set(id, $(id).value);
  return p;
}

/// Anneals the puzzle on `panel`'s backend until its record, an error or Stop.
async function run(panel, backend) {
  try {
    const response = await fetch("/api/solve?" + params({ puzzle: clues, backend }), { signal: controller.signal });
    if (!response.ok) { panel.fail((await response.json()).error); return; }
    await readEvents(response, { frame: f => panel.frame(f), done: r => panel.done(r), error: e => panel.fail(e.error) });
  } catch (e) {
    panel.fail(e.name === "AbortError" ? "stopped" : String(e));
  }
}

/// One line over the runs: each one's time, work and rate, and who won.
function verdict() {
  if (panels.length === 1) {
    const [p] = panels, r = p.record;
    if (p.error) say(p.error, p.error === "stopped" ? "" : "error");
    else if (r && r.status === "solved") {
      const by = r.solved_by !== "reduction" ? ""
        : r.sweeps === 0 ? ", by reduction before any sweep" : `, by reduction after ${r.sweeps} sweeps`;
      say(`solved and verified in ${r.seconds.toFixed(3)} s, ${fmt(r.attempts)} attempts (${r.backend})${by}`, "ok");
    }
    else if (r && r.status === "unsolved") say("unsolved within the budget", "error");
    else if (r) say(`${r.status}: ${r.error}`, "error");
    return;
  }
  if (panels.some(p => p.error === "stopped")) { say("stopped"); return; }
  const lines = panels.map(p => {
    const r = p.record, name = p.q("name").textContent;
    if (!r) return `${name}: ${p.error}`;
    const rate = r.seconds > 0 ? fmt(r.attempts / r.seconds) : "–";
    return `${name}: ${r.status}, ${r.seconds.toFixed(3)} s, ${fmt(r.attempts)} attempts, ${rate}/s`;
  });
  const [a, b] = panels.map(p => p.record);
  let winner = "";
  if (a && b && a.status === "solved" && b.status === "solved") {
    const [fast, slow] = a.seconds <= b.seconds ? [a, b] : [b, a];
    const [lean, heavy] = a.attempts <= b.attempts ? [a, b] : [b, a];
    winner = ` — ${fast.backend} took ${(slow.seconds / Math.max(fast.seconds, 1e-9)).toFixed(1)}× less time, ` +
      `${lean.backend} ${(heavy.attempts / Math.max(lean.attempts, 1)).toFixed(1)}× less work (attempts over all replicas)`;
    // Unlike ladders: the work in total, and the sweeps each replica ran, said side by side.
    const [ra, rb] = panels.map(p => p.replicas);
    if (ra && rb && ra !== rb) {
      winner += `; ${a.backend} ran ${fmt(ra)} replicas for ${fmt(a.sweeps)} sweeps, ${b.backend} ${fmt(rb)} for ${fmt(b.sweeps)}`;
    }
  }
  const allSolved = panels.every(p => p.record && p.record.status === "solved");
  say(allSolved ? "solved and verified on both" : "not solved on both", allSolved ? "ok" : "error");
  $("verdict").textContent = lines.join(" · ") + winner;
}

function running(on) { $("solve").disabled = on; $("stop").disabled = !on; }

/// A new puzzle typed, pasted or cleared: the last run's panels and verdict
/// are about another puzzle, so they go (not while a run goes on).
function forgetRun() {
  if (controller) return;
  $("panels").innerHTML = ""; $("verdict").textContent = ""; panels = [];
}

async function solve() {
  if (!setPuzzle($("line").value.trim() || lineFromGrid())) return;
  const backends = [$("backend").value, $("versus").value].filter(b => b);
  $("panels").innerHTML = ""; $("verdict").textContent = "";
  panels = backends.map(b => new Panel(b));
  say("annealing…"); running(true);
  controller = new AbortController();
  await Promise.all(panels.map((p, k) => run(p, backends[k])));
  const solved = panels.find(p => p.record && p.record.status === "solved");
  if (solved) showLine(cells, solved.record.solution, [], true);
  verdict();
  running(false); controller = null;
}

// A collection: records kept for the download, counts, and the
// time-to-solution CDF from log-spaced bins (1 µs to 1000 s).
const BINS = 180, LOW = -6, HIGH = 3;
/// The work histogram's bins: attempts per solved puzzle, 10^3 to 10^11, four a decade.
const WORK_LOW = 3, WORK_HIGH = 11, WORK_BINS = 4 * (WORK_HIGH - WORK_LOW);
/// Lines not solved listed by the counts, at most.
const MISSES_SHOWN = 20;
let collection = null;

/// A log-scale plot's frame on `canvas`: cleared, its axes, a label per
/// `step` decades from 10^low to 10^high (each centred on its tick, the
/// ends inside the axis: none clipped) and a caption; the plot's box.
function logFrame(canvas, low, high, step, label, caption) {
  const g = canvas.getContext("2d"), W = canvas.width, H = canvas.height, L = 34, B = 30, T = 8, R = 8;
  g.clearRect(0, 0, W, H); g.font = "11px sans-serif"; g.strokeStyle = "#ccd"; g.fillStyle = "#667"; g.lineWidth = 1;
  g.beginPath(); g.moveTo(L, T); g.lineTo(L, H - B); g.lineTo(W - R, H - B); g.stroke();
  for (let d = low; d <= high; d += step) {
    g.textAlign = d === high ? "right" : d === low ? "left" : "center";
    g.fillText(label(d), L + (W - L - R) * (d - low) / (high - low), H - B + 14);
  }
  g.textAlign = "left"; g.fillText(caption, L + 20, H - 3);
  return { g, W, H, L, B, T, R };
}

function drawCdf() {
  const c = collection;
  const { g, W, H, L, B, T, R } = logFrame($("cdf"), LOW, HIGH, 3, d => d < 0 ? `1e${d} s` : `${10 ** d} s`,
    "share of the file solved within a time");
  g.fillText("1", 20, T + 8); g.fillText("0", 20, H - B);
  if (!c || !c.puzzles) return;
  g.strokeStyle = "#2357c4"; g.lineWidth = 2; g.beginPath();
  let sum = 0;
  for (let k = 0; k <= BINS; k++) {
    sum += c.bins[k] || 0;
    const x = L + (W - L - R) * k / BINS, y = T + (H - T - B) * (1 - sum / c.puzzles);
    k ? g.lineTo(x, y) : g.moveTo(x, y);
  }
  g.stroke();
}

/// How many solved puzzles took each amount of work (attempts, log scale).
function drawWork() {
  const bins = collection ? collection.work : [];
  const { g, W, H, L, B, T, R } = logFrame($("work"), WORK_LOW, WORK_HIGH, 2, d => `1e${d}`, "attempts per solved puzzle");
  // Array.from visits the empty bins too (map would keep them holes).
  const most = Math.max(1, ...Array.from(bins, n => n || 0)), w = (W - L - R) / WORK_BINS;
  g.fillText(String(most), 4, T + 8);
  g.fillStyle = "#2357c4";
  bins.forEach((n, k) => { if (n) g.fillRect(L + k * w + 1, H - B - (H - B - T) * n / most, w - 2, (H - B - T) * n / most); });
}

function showCounts(text = "", kind = "") {
  const c = collection, m = $("counts");
  const head = c ? `${c.records.length} / ${c.puzzles} puzzles · ${c.solved} solved, ${c.unsolved} unsolved, ${c.invalid} invalid` +
    (c.failed ? `, ${c.failed} failed` : "") : "";
  m.textContent = [head, text].filter(t => t).join(" · "); m.className = "message " + kind;
  $("progress").value = c && c.puzzles ? c.records.length / c.puzzles : 0;
  drawCdf(); drawWork();
}

function onRecords(lines) {
  const c = collection;
  for (const line of lines) {
    const r = JSON.parse(line);
    c.records.push(line);
    c[r.status] = (c[r.status] || 0) + 1;
    if (r.status !== "solved" && $("misses").children.length < MISSES_SHOWN) {
      const why = r.status === "unsolved" ? `unsolved in ${fmt(r.sweeps)} sweeps` : `${r.status}: ${r.error}`;
      $("misses").appendChild(Object.assign(document.createElement("li"), { textContent: `line ${r.line}: ${why}` }));
    }
    if (r.status === "solved") {
      const k = Math.min(BINS, Math.max(0, Math.ceil((Math.log10(Math.max(r.seconds, 1e-9)) - LOW) / (HIGH - LOW) * BINS)));
      c.bins[k] = (c.bins[k] || 0) + 1;
      const w = Math.min(WORK_BINS - 1, Math.max(0, Math.floor((Math.log10(Math.max(r.attempts, 1)) - WORK_LOW) * 4)));
      c.work[w] = (c.work[w] || 0) + 1;
    }
  }
  showCounts();
}

async function solveFile() {
  const file = $("file").files[0];
  if (!file) { collection = null; showCounts("choose a file first", "error"); return; }
  collection = { name: file.name, puzzles: 0, records: [], bins: [], work: [], solved: 0, unsolved: 0, invalid: 0, failed: 0 };
  $("misses").innerHTML = "";
  $("solve-file").disabled = true; $("stop-file").disabled = false; $("download").disabled = true;
  showCounts("uploading…");
  const stop = collection.controller = new AbortController();
  try {
    const url = "/api/collection?" + params({ backend: $("backend").value, file: file.name });
    const response = await fetch(url, { method: "POST", body: file, signal: stop.signal });
    if (!response.ok) { showCounts((await response.json()).error, "error"); return; }
    await readEvents(response, {
      start: s => { collection.puzzles = s.puzzles; showCounts(`solving on ${s.backend}…`); },
      records: onRecords,
      done: s => showCounts(`done in ${s.seconds.toFixed(2)} s`, "ok"),
      error: e => showCounts(e.error, "error"),
    });
  } catch (e) {
    showCounts(e.name === "AbortError" ? "stopped" : String(e), e.name === "AbortError" ? "" : "error");
  } finally {
    $("solve-file").disabled = false; $("stop-file").disabled = true;
    $("download").disabled = !collection.records.length;
  }
}

function download() {
  const blob = new Blob([collection.records.join("\n") + "\n"], { type: "application/jsonl" });
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob); a.download = collection.name.replace(/\.[^.]*$/, "") + ".jsonl";
  a.click(); URL.revokeObjectURL(a.href);
}

$("solve").onclick = solve;
$("stop").onclick = () => controller && controller.abort();
$("example").onclick = () => setPuzzle(INKALA);
// An empty board of the side chosen, if the rules have one (boxes need a square side).
$("empty").onclick = () => {
  const n = Number($("size").value);
  if ($("variant").value !== "latin" && !boxSide(n)) {
    say(`a Sudoku's side is 4, 9, 16 or 25; an empty ${n}×${n} board needs the latin rules`, "error"); return;
  }
  if (setPuzzle(".".repeat(n * n))) forgetRun();
};
$("clear").onclick = () => { clues = ""; cells = buildGrid($("grid"), Math.sqrt(cells.length), true); $("line").value = ""; say(""); forgetRun(); };
$("line").addEventListener("input", () => {
  const l = $("line").value.trim(), n = boardSide(l);
  if (!n) return;
  clues = l;
  if (n * n !== cells.length) cells = buildGrid($("grid"), n, true);
  showLine(cells, l, clashes(l));
  forgetRun();
});
$("preset").onchange = applyPreset;
// A ladder setting edited by hand makes the settings custom.
for (const id of Object.keys(PRESETS.ladder)) $(id).addEventListener("input", () => { $("preset").value = "custom"; });
applyPreset();
$("solve-file").onclick = solveFile;
$("stop-file").onclick = () => collection && collection.controller.abort();
$("download").onclick = download;
cells = buildGrid($("grid"), 9, true);
drawCdf(); drawWork();
fetch("/api/backends").then(r => r.json()).then(info => {
  for (const select of [$("backend"), $("versus")]) {
    for (const b of info.backends) {
      const option = new Option(b.name, b.name); option.title = b.about; select.add(option);
    }
    select.title = info.adapters.length ? "GPU adapters: " + info.adapters.join("; ") : "no GPU adapter found";
  }
});
