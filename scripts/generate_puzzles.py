#!/usr/bin/env python3
"""Random puzzles of any shape sudoku-anneal reads, for tests and benchmarks.

    scripts/generate_puzzles.py --n 16 --count 3 --keep 0.45 --seed 1 [--variant standard|x|latin]

A solved grid comes from a pattern (standard: rows shifted by boxes; x: the
linear pattern of src/grid.rs; latin: (row + col) mod n), scrambled by
symmetries that keep the variant's rules (digit relabelling always; row and
column shuffles within bands and stacks for standard; any row and column
permutation for latin; transposition for all), then each cell is kept with
probability --keep. Puzzles may have several solutions: any is correct.
"""
import argparse
import random

SYMBOLS = "123456789ABCDEFGHIJKLMNOP"


def solved(n, variant, rng):
    b = int(round(n ** 0.5))
    if variant == "latin":
        grid = [[(r + c) % n for c in range(n)] for r in range(n)]
        rows, cols = rng.sample(range(n), n), rng.sample(range(n), n)
    elif variant == "standard":
        grid = [[(b * (r % b) + r // b + c) % n for c in range(n)] for r in range(n)]
        shuffle = lambda: [g * b + k for g in rng.sample(range(b), b) for k in rng.sample(range(b), b)]
        rows, cols = shuffle(), shuffle()
    else:
        grid = [[b * ((r // b + c % b) % b) + (r % b + c // b + c % b) % b for c in range(n)] for r in range(n)]
        rows = cols = list(range(n))
    grid = [[grid[r][c] for c in cols] for r in rows]
    if rng.random() < 0.5:
        grid = [list(column) for column in zip(*grid)]
    labels = rng.sample(range(n), n)
    return [[labels[d] for d in row] for row in grid]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, required=True)
    parser.add_argument("--variant", default="standard", choices=["standard", "x", "latin"])
    parser.add_argument("--count", type=int, default=1)
    parser.add_argument("--keep", type=float, default=0.45, help="fraction of cells kept as clues")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    for _ in range(args.count):
        grid = solved(args.n, args.variant, rng)
        print("".join(SYMBOLS[d] if rng.random() < args.keep else "." for row in grid for d in row))


if __name__ == "__main__":
    main()
