#!/usr/bin/env python3
"""Random puzzles of any shape sudoku-anneal reads, for tests and benchmarks.

    scripts/generate_puzzles.py --n 16 --count 3 --keep 0.45 --seed 1 [--variant standard|x|latin]
    scripts/generate_puzzles.py --from PUZZLE --count 1000000 > easy.txt

A solved grid comes from a pattern (standard: rows shifted by boxes; x: the
linear pattern of src/grid.rs; latin: (row + col) mod n), scrambled by
symmetries that keep the variant's rules (digit relabelling always; row and
column shuffles within bands and stacks for standard; any row and column
permutation for latin; transposition for all), then each cell is kept with
probability --keep. Puzzles may have several solutions: any is correct.
With --from, the given puzzle is scrambled the same way instead, so every
copy needs the same reasoning (a Kaggle puzzle: singles alone).
"""
import argparse
import random

SYMBOLS = "123456789ABCDEFGHIJKLMNOP"


def pattern(n, variant):
    """A solved grid of the variant: symbols 0..n-1."""
    b = int(round(n ** 0.5))
    if variant == "latin":
        return [[(r + c) % n for c in range(n)] for r in range(n)]
    if variant == "standard":
        return [[(b * (r % b) + r // b + c) % n for c in range(n)] for r in range(n)]
    return [[b * ((r // b + c % b) % b) + (r % b + c // b + c % b) % b for c in range(n)] for r in range(n)]


def scramble(grid, n, variant, rng):
    """The grid under random symmetries of the variant's rules; -1 (empty) stays empty."""
    b = int(round(n ** 0.5))
    if variant == "latin":
        rows, cols = rng.sample(range(n), n), rng.sample(range(n), n)
    elif variant == "standard":
        shuffle = lambda: [g * b + k for g in rng.sample(range(b), b) for k in rng.sample(range(b), b)]
        rows, cols = shuffle(), shuffle()
    else:
        rows = cols = list(range(n))
    grid = [[grid[r][c] for c in cols] for r in rows]
    if rng.random() < 0.5:
        grid = [list(column) for column in zip(*grid)]
    labels = rng.sample(range(n), n)
    return [[labels[d] if d >= 0 else -1 for d in row] for row in grid]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=9)
    parser.add_argument("--variant", default="standard", choices=["standard", "x", "latin"])
    parser.add_argument("--count", type=int, default=1)
    parser.add_argument("--keep", type=float, default=0.45, help="fraction of cells kept as clues")
    parser.add_argument("--from", dest="source", metavar="PUZZLE",
                        help="scramble this puzzle instead (every clue kept): same difficulty, other grids")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    if args.source:
        n = int(round(len(args.source) ** 0.5))
        cells = [SYMBOLS.find(c.upper()) if c not in ".0" else -1 for c in args.source]
        source = [cells[r * n:(r + 1) * n] for r in range(n)]
    lines = []
    for _ in range(args.count):
        if args.source:
            grid = scramble(source, n, args.variant, rng)
        else:
            grid = scramble(pattern(args.n, args.variant), args.n, args.variant, rng)
            grid = [[d if rng.random() < args.keep else -1 for d in row] for row in grid]
        lines.append("".join(SYMBOLS[d] if d >= 0 else "." for row in grid for d in row))
    print("\n".join(lines))

if __name__ == "__main__":
    main()
