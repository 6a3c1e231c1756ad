#!/usr/bin/env python3
"""Side by side, in one run, on one core: dwave-samplers' C++ simulated
annealer and sudoku-anneal's CPU backends on the same model (clue
elimination, exported by `sudoku-anneal export`).

    pip install dwave-samplers dimod
    cargo build --release    # RUSTFLAGS="-C target-cpu=native" for an AVX2 machine's figures
    python3 scripts/compare_dwave.py examples/hard.txt --reads 2000 --seeds 20 --backends cpu,cpu-bits

Prints a markdown table for BENCHMARKS.md. Attempts/s: Metropolis proposals
on free spins per second. dwave's TTS99 = t_read * ln(0.01) / ln(1 - p), p the
fraction of reads (num_sweeps each) reaching energy 0. Ours runs until
solved: when every seed solved, TTS99 is the 99th percentile of its
time-to-solution (the max for fewer than 100 seeds); otherwise the same
formula with the mean run time and p.
"""

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time

import dimod
from dwave.samplers import SimulatedAnnealingSampler

BIN = os.path.join(os.path.dirname(__file__), "..", "target", "release", "sudoku-anneal")


def puzzles(path):
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                yield line[:81], line[81:].strip(" #")[:40]


def tts99(seconds_per_run, p):
    if p <= 0:
        return math.inf
    if p >= 1:
        return seconds_per_run
    return seconds_per_run * math.log(0.01) / math.log(1 - p)


def dwave(puzzle, reads, sweeps):
    model = json.loads(subprocess.run([BIN, "export", puzzle], check=True, capture_output=True, text=True).stdout)
    bqm = dimod.BinaryQuadraticModel(
        dict(enumerate(model["linear"])),
        {(i, j): c for i, j, c in model["quadratic"]},
        model["offset"],
        dimod.BINARY,
    )
    sampler = SimulatedAnnealingSampler()
    start = time.perf_counter()
    result = sampler.sample(bqm, num_reads=reads, num_sweeps=sweeps, seed=1)
    seconds = time.perf_counter() - start
    energies = result.data_vectors["energy"]
    p = sum(1 for e in energies if round(e) == 0) / reads
    attempts = reads * sweeps * model["num_variables"]
    return {"attempts_per_s": attempts / seconds, "p": p, "tts99": tts99(seconds / reads, p), "spins": model["num_variables"]}


def ours(puzzle, seeds, max_sweeps, backend, flags=()):
    env = dict(os.environ, RAYON_NUM_THREADS="1")
    times, solved, attempts, seconds = [], 0, 0, 0.0
    for seed in range(seeds):
        run = subprocess.run(
            [BIN, "solve", "--backend", backend, "--format", "jsonl", "--seed", str(seed), "--max-sweeps", str(max_sweeps), *flags, puzzle],
            capture_output=True, text=True, env=env,
        )
        record = json.loads(run.stdout)
        times.append(record["seconds"])
        solved += record["status"] == "solved"
        rate = float(re.search(r"([0-9.e+-]+) per puzzle", run.stderr).group(1))
        attempts += rate * record["seconds"]
        seconds += record["seconds"]
    p = solved / seeds
    ordered = sorted(times)
    p99 = ordered[math.ceil(0.99 * seeds) - 1] if p == 1 else tts99(statistics.mean(times), p)
    return {"attempts_per_s": attempts / seconds, "p": p, "tts99": p99, "median": statistics.median(times)}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file")
    parser.add_argument("--reads", type=int, default=1000, help="dwave reads per puzzle")
    parser.add_argument("--sweeps", type=int, default=1000, help="dwave sweeps per read")
    parser.add_argument("--seeds", type=int, default=10, help="our runs per puzzle")
    parser.add_argument("--max-sweeps", type=int, default=1_000_000, help="our sweep budget per run")
    parser.add_argument("--backends", default="cpu", help="our backends, comma-separated (cpu, cpu-bits)")
    parser.add_argument("--ours-flags", default="", help="extra solve flags for our runs, e.g. \"--replicas 1 --t-min 0.63 --t-max 0.63\"")
    args = parser.parse_args()
    backends = args.backends.split(",")
    print(f"dwave-samplers SimulatedAnnealingSampler ({args.reads} reads × {args.sweeps} sweeps) vs "
          f"sudoku-anneal --backend {'/'.join(backends)} {args.ours_flags} ({args.seeds} seeds), all on one thread, `--reduce clues` model\n")
    print("| puzzle | free spins | dwave attempts/s | backend | ours attempts/s | ratio | dwave p | dwave TTS99 | ours p | ours median | ours TTS99 | TTS99 ratio |")
    print("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for puzzle, name in puzzles(args.file):
        d = dwave(puzzle, args.reads, args.sweeps)
        for backend in backends:
            o = ours(puzzle, args.seeds, args.max_sweeps, backend, args.ours_flags.split())
            print(f"| {name or puzzle[:20]} | {d['spins']} | {d['attempts_per_s']:.3g} | {backend} | {o['attempts_per_s']:.3g} | "
                  f"{o['attempts_per_s'] / d['attempts_per_s']:.1f}× | {d['p']:.4f} | {d['tts99']:.3g} s | {o['p']:.2f} | "
                  f"{o['median']:.3g} s | {o['tts99']:.3g} s | {d['tts99'] / o['tts99']:.0f}× |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
