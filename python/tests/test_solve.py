"""solve and solve_iter: the command line's records for the same seed and
settings, invalid lines as records, settings refused in the command line's
words, files as inputs, and Ctrl-C."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import sudoku_anneal

ROOT = Path(__file__).resolve().parents[2]
HARD = ROOT / "examples" / "hard.txt"
INKALA = "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4.."
# Consistent clues without a solution: with --reduce clues only the budget ends it.
ENDLESS = "001300209005009001070060043006002087190007400050083000600000105003508690042910300"


def command_line(*args):
    """`sudoku-anneal solve --format jsonl ARGS` through cargo: its records."""
    out = subprocess.run(
        ["cargo", "run", "--release", "--quiet", "--", "solve", "--format", "jsonl", *args],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert out.returncode in (0, 1), out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


def without_seconds(records):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in records]


@pytest.mark.parametrize("backend", ["cpu", "cpu-lanes", "cpu-bits"])
def test_records_equal_the_command_lines_for_a_seed(backend):
    ours = sudoku_anneal.solve(HARD, backend=backend, seed=5)
    theirs = command_line(str(HARD), "--backend", backend, "--seed", "5")
    assert len(ours) == 5 and all(r["status"] == "solved" for r in ours)
    assert without_seconds(ours) == without_seconds(theirs)


def test_settings_change_the_run_as_their_flags_do():
    settings = {"moves": "spin", "temperatures": [0.4, 0.6, 0.9, 1.2], "exchange_every": 3, "max_sweeps": 50_000}
    ours = sudoku_anneal.solve([INKALA], backend="cpu", seed=2, **settings)
    theirs = command_line(INKALA, "--backend", "cpu", "--seed", "2", "--moves", "spin",
                          "--temperatures", "0.4,0.6,0.9,1.2", "--exchange-every", "3", "--max-sweeps", "50000")
    assert without_seconds(ours) == without_seconds(theirs)
    assert ours != sudoku_anneal.solve([INKALA], backend="cpu", seed=2)


def test_an_invalid_line_is_a_record_and_the_others_solve():
    records = sudoku_anneal.solve([INKALA, "12", INKALA.replace("8", "1", 1) + "x"], backend="cpu-lanes")
    assert [r["status"] for r in records] == ["solved", "invalid", "invalid"]
    assert [r["index"] for r in records] == [0, 1, 2]
    assert records[1]["error"] == "expected 16, 81, 256 or 625 cells, found 2"


def test_bad_settings_raise_in_the_command_lines_words():
    with pytest.raises(ValueError, match=r"^invalid setting: adaptive weights must satisfy 1 <= --weight-base <= --weight-cap <= 100$"):
        sudoku_anneal.solve([INKALA], weight_cap=200)
    with pytest.raises(ValueError, match="unexpected argument '--colour' found"):
        sudoku_anneal.solve([INKALA], colour="red")
    with pytest.raises(ValueError, match="invalid value 'many' for '--replicas <REPLICAS>'"):
        sudoku_anneal.solve([INKALA], replicas="many")
    with pytest.raises(ValueError, match=r'unknown backend "fast" \(one of cpu, .*auto\)'):
        sudoku_anneal.solve([INKALA], backend="fast")
    with pytest.raises(ValueError, match="one line"):
        sudoku_anneal.solve([INKALA + "\n" + INKALA])
    with pytest.raises(OSError, match="cannot open"):
        sudoku_anneal.solve(Path("no/such/file.txt"))


def test_a_file_is_read_as_the_command_line_reads_it():
    by_path = sudoku_anneal.solve(HARD, backend="cpu-lanes")
    by_name = sudoku_anneal.solve(str(HARD), backend="cpu-lanes")
    assert without_seconds(by_path) == without_seconds(by_name)
    assert [r["line"] for r in by_path] == [4, 5, 6, 7, 8]
    assert all(r["file"] == str(HARD) for r in by_path)


def test_records_stream_in_input_order():
    # cpu-lanes solves Inkala in a few milliseconds, far inside the timeout
    # that ends the unsolvable puzzles, even on a loaded machine (the `cpu`
    # reference needs 0.15 s of a core: on two cores shared with the other
    # puzzles and a build, it ran out of time once).
    lines = [INKALA, ENDLESS] * 2
    records = sudoku_anneal.solve_iter(lines, backend="cpu-lanes", reduce="clues", timeout=0.3, batch=4)
    first = next(records)
    assert (first["index"], first["status"]) == (0, "solved")
    rest = list(records)
    assert [(r["index"], r["status"]) for r in rest] == [(1, "unsolved"), (2, "solved"), (3, "unsolved")]


def test_ctrl_c_interrupts_a_long_solve():
    script = (
        "import signal, sudoku_anneal\n"
        # As in an interactive Python: a parent that ignores SIGINT (a background job) passes that on.
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "print('started', flush=True)\n"
        f"sudoku_anneal.solve([{ENDLESS!r}], backend='cpu', reduce='clues', timeout=0)\n"
    )
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert child.stdout.readline() == "started\n"
    time.sleep(1.0)
    child.send_signal(signal.SIGINT)
    started = time.monotonic()
    _, stderr = child.communicate(timeout=10)
    assert time.monotonic() - started < 2.0
    assert child.returncode != 0 and "KeyboardInterrupt" in stderr, stderr
