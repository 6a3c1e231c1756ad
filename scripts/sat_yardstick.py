#!/usr/bin/env python3
"""CPU time per puzzle against two exact yardsticks, one pinned core, in turns.

    python3 scripts/sat_yardstick.py [--tdoku RUN_SH] [--cpu N] [--seconds S] FILE...

For each FILE (one puzzle per line, as `solve` reads them) it times:
  - cpu-lanes: `RAYON_NUM_THREADS=1 sudoku-anneal solve --backend cpu-lanes
    FILE`, the whole process's user+sys time (reading, reducing, annealing,
    verifying, writing);
  - CaDiCaL in-process (python-sat's `cadical195`) on the CNF of the
    propagated model (`sudoku-anneal export --reduce propagate --format
    dimacs`: clues and singles applied, none of the probing the anneal's
    pipeline does, so the yardstick stays what it was): `solve()` per
    puzzle, process time, the clauses already loaded; its conflicts per
    puzzle are the work it needed;
  - tdoku (with --tdoku, its run.sh: it prints puzzles per CPU-second),
    on 9×9 sets.
and prints a markdown table: puzzles per CPU-second and the ratios.

The three take turns, a pass over FILE each (tdoku: passes for at least
half a second), until cpu-lanes and CaDiCaL have each spent S CPU-seconds
(--seconds, default 3, as tdoku's own timing): a slow spell of the shared
machine then falls on all three, where one pass each let a single ratio
swing by a third. Rates are over all passes; the cpu-lanes × tdoku cell
also gives the least and the most of the rounds' ratios.

Everything runs on one core (--cpu, default 0), set for this process and
inherited by the ones it starts. python-sat is a benchmark's tool, never a
dependency of the project: `pip install python-sat`.
"""

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def child_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def anneal(binary, path):
    """Puzzles per CPU-second of cpu-lanes on one thread, how many it
    solved, and how many of those reduction solved (singles, or probing)."""
    before = child_cpu()
    env = dict(os.environ, RAYON_NUM_THREADS="1")
    out = subprocess.run(
        [binary, "solve", "--backend", "cpu-lanes", "--format", "jsonl", path],
        env=env, capture_output=True, text=True,
    )
    seconds = child_cpu() - before
    records = [line for line in out.stdout.splitlines() if line]
    solved = sum('"status":"solved"' in r for r in records)
    by_reduction = sum('"solved_by":"reduction"' in r for r in records)
    return len(records) / seconds, solved, by_reduction, len(records)


def cnf_problems(binary, path):
    """The CNF of each puzzle's propagated model, as lists of clauses."""
    out = subprocess.run(
        [binary, "export", "--reduce", "propagate", "--format", "dimacs", path],
        capture_output=True, text=True, check=True,
    )
    problems = []
    for line in out.stdout.splitlines():
        if line.startswith("c puzzle"):
            problems.append([])
        elif line and line[0] not in "cp":
            problems[-1].append([int(w) for w in line.split()[:-1]])
    return problems


def cadical(problems):
    """Puzzles per CPU-second of in-process CaDiCaL's solve(), and its
    conflicts per puzzle. Handing it the clauses goes through Python, one
    call per clause, and would triple its time: that is not counted."""
    from pysat.solvers import Solver

    seconds, conflicts = 0.0, []
    for clauses in problems:
        with Solver(name="cadical195", bootstrap_with=clauses) as solver:
            start = time.process_time()
            if not solver.solve():
                sys.exit("sat_yardstick: CaDiCaL found a puzzle unsatisfiable")
            seconds += time.process_time() - start
            conflicts.append(solver.accum_stats().get("conflicts", 0))
    return len(problems) / seconds, conflicts


def reads_9x9_only(path):
    """Whether tdoku can read FILE: 9×9 boards only."""
    with open(path) as lines:
        return all(len(line.split()[0]) == 81 for line in lines if line.strip() and not line.startswith("#"))


def tdoku(run_sh, path):
    """tdoku's puzzles and CPU-seconds of its passes over FILE for at least half a second."""
    out = subprocess.run([run_sh, path, "0.5"], capture_output=True, text=True, check=True)
    rate = re.search(r"passes=(\d+) solves=(\d+) wall_s=[0-9.]+ cpu_s=([0-9.]+)", out.stdout)
    return int(rate.group(2)), float(rate.group(3))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--tdoku", help="tdoku's run.sh (it builds and times tdoku)")
    parser.add_argument("--cpu", type=int, default=0, help="the core to pin to (default 0)")
    parser.add_argument("--binary", default=str(ROOT / "target/release/sudoku-anneal"))
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="CPU-seconds each solver runs at least, in turns (default 3)")
    args = parser.parse_args()
    if not args.seconds > 0:
        parser.error("--seconds must be above 0")
    os.sched_setaffinity(0, {args.cpu})

    print("| set | puzzles | cpu-lanes solved (by reduction) | tdoku /CPU-s | CaDiCaL /CPU-s | cpu-lanes /CPU-s "
          "| CaDiCaL × tdoku | cpu-lanes × tdoku | cpu-lanes × CaDiCaL | CaDiCaL conflicts median / mean |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for path in args.files:
        with_tdoku = args.tdoku and reads_9x9_only(path)
        problems = cnf_problems(args.binary, path)
        # Per solver: puzzles and CPU-seconds over all passes; per round, tdoku's rate over cpu-lanes'.
        totals = {"tdoku": [0, 0.0], "cadical": [0, 0.0], "lanes": [0, 0.0]}
        round_ratios = []
        while min(totals["cadical"][1], totals["lanes"][1]) < args.seconds:
            if with_tdoku:
                puzzles, seconds = tdoku(args.tdoku, path)
                totals["tdoku"][0] += puzzles
                totals["tdoku"][1] += seconds
                tdoku_rate = puzzles / seconds
            sat_rate, conflicts = cadical(problems)
            totals["cadical"][0] += len(problems)
            totals["cadical"][1] += len(problems) / sat_rate
            lanes_rate, solved, by_reduction, count = anneal(args.binary, path)
            totals["lanes"][0] += count
            totals["lanes"][1] += count / lanes_rate
            if with_tdoku:
                round_ratios.append(tdoku_rate / lanes_rate)
        rate = {name: puzzles / seconds if seconds else None for name, (puzzles, seconds) in totals.items()}
        tdoku_cell = f"{rate['tdoku']:.0f}" if rate["tdoku"] else "–"
        over = lambda rate, base: f"{base / rate:.1f}×" if base else "–"
        spread = f" ({min(round_ratios):.1f}–{max(round_ratios):.1f}×, {len(round_ratios)} rounds)" if round_ratios else ""
        print(f"| {Path(path).name} | {count} | {solved} ({by_reduction}) | {tdoku_cell} | {rate['cadical']:.0f} "
              f"| {rate['lanes']:.0f} | {over(rate['cadical'], rate['tdoku'])} | {over(rate['lanes'], rate['tdoku'])}{spread} "
              f"| {over(rate['lanes'], rate['cadical'])} | {statistics.median(conflicts):.0f} / {statistics.mean(conflicts):.1f} |",
              flush=True)


if __name__ == "__main__":
    main()
