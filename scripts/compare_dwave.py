#!/usr/bin/env python3
"""Side by side, in one process, on one thread: this annealer as a dimod
sampler and dwave-samplers' SimulatedAnnealingSampler and
SteepestDescentSolver, on the same BQMs (sudoku_anneal.to_bqm).

    pip install '.[test]'        # sudoku_anneal, dimod, dwave-samplers
    python3 scripts/compare_dwave.py examples/hard.txt --reads 200 --sweeps 1000 --runs 20

Prints a markdown table per puzzle: each sampler's success probability p
(the fraction of reads at energy 0), seconds per read, TTS99 = t_read ·
ln(0.01) / ln(1 − p) (t_read where p = 1, ∞ where p = 0), and its energy
distribution (lowest, median, highest). dwave's reads run `--sweeps` sweeps
each; ours run until solved or `--max-sweeps`.
"""

import argparse
import math
import os
import statistics
import sys
import time

# One thread for ours too (cpu-lanes runs a solver per thread).
os.environ.setdefault("RAYON_NUM_THREADS", "1")

import dimod  # noqa: E402
from dwave.samplers import SimulatedAnnealingSampler, SteepestDescentSolver  # noqa: E402

import sudoku_anneal  # noqa: E402


def puzzles(path):
    with open(path) as lines:
        for line in lines:
            line = line.strip()
            if line and not line.startswith("#"):
                yield line.split()[0], line[len(line.split()[0]):].strip(" #")[:40]


def tts99(seconds_per_read, p):
    if p <= 0:
        return math.inf
    if p >= 1:
        return seconds_per_read
    return seconds_per_read * math.log(0.01) / math.log(1 - p)


def timed(sample):
    started = time.perf_counter()
    sampleset = sample()
    return sampleset, time.perf_counter() - started


def row(name, sampleset, seconds):
    energies = sorted(float(e) for e in sampleset.record.energy)
    reads = len(energies)
    p = sum(1 for e in energies if round(e) == 0) / reads
    per_read = seconds / reads
    spread = f"{energies[0]:g} / {statistics.median(energies):g} / {energies[-1]:g}"
    return f"| {name} | {reads} | {p:.3f} | {per_read:.3g} | {tts99(per_read, p):.3g} | {spread} |"


def compare(puzzle, args):
    bqm = sudoku_anneal.to_bqm(puzzle, reduce=args.reduce)
    ours = sudoku_anneal.SudokuSampler()
    rows = [
        row(f"sudoku_anneal {args.backend}", *timed(lambda: ours.sample(
            bqm, num_reads=args.runs, seed=0, backend=args.backend, max_sweeps=args.max_sweeps))),
        row(f"SimulatedAnnealingSampler, {args.sweeps} sweeps", *timed(lambda: SimulatedAnnealingSampler().sample(
            bqm, num_reads=args.reads, num_sweeps=args.sweeps, seed=1))),
        row("SteepestDescentSolver", *timed(lambda: SteepestDescentSolver().sample(bqm, num_reads=args.reads, seed=1))),
    ]
    return len(bqm.variables), rows


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file")
    parser.add_argument("--reads", type=int, default=200, help="dwave reads per puzzle")
    parser.add_argument("--sweeps", type=int, default=1000, help="dwave sweeps per read")
    parser.add_argument("--runs", type=int, default=10, help="our reads (independent runs) per puzzle")
    parser.add_argument("--max-sweeps", type=int, default=1_000_000, help="our sweep budget per run")
    parser.add_argument("--backend", default="cpu-lanes", choices=sudoku_anneal.BACKENDS)
    parser.add_argument("--reduce", default="clues", choices=["none", "clues", "propagate"])
    args = parser.parse_args()
    for puzzle, name in puzzles(args.file):
        spins, rows = compare(puzzle, args)
        print(f"\n{name or puzzle[:20]}: {spins} free spins (--reduce {args.reduce}), one thread\n")
        print("| sampler | reads | p | s per read | TTS99 s | energy: lowest / median / highest |")
        print("|---|---:|---:|---:|---:|---|")
        print("\n".join(rows), flush=True)


if __name__ == "__main__":
    sys.exit(main())
