#!/usr/bin/env python3
"""Sudoku puzzles from random solved grids: with exactly one solution, or
(--keep) a random share of the grid's cells as clues.

    python3 scripts/unique_puzzles.py --n 25 --count 3 --seed 1 > unique25.txt
    python3 scripts/unique_puzzles.py --n 25 --count 6 --seed 11 --keep 0.4 > random25.txt

For benchmarks (issue 30: unique 25×25 puzzles resist the anneal, where
random boards with dozens of solutions do not). Each puzzle:
  1. a random solved grid: the cells in random order, each given a random
     digit among those a SAT solver still finds a completion for (not the
     scrambled pattern of generate_puzzles.py, whose bands are shifts of
     each other);
  2. every cell a clue, then the clues in random order, each removed
     unless the solver then finds a second solution (the rules, the clues
     left as assumptions, and a clause that forbids the first solution):
     the puzzle left has exactly one solution and no clue can go.
     With --keep P instead, each cell stays a clue with probability P and
     the puzzle may have many solutions: random boards near the hardness
     peak (P 0.40–0.45 on 25×25), from grids that are not a pattern's.
The CNF is written here from the rules alone, not read from sudoku-anneal,
so the proof of uniqueness does not rest on the model it checks.
python-sat (CaDiCaL) is a benchmark's tool, never a dependency of the
project: `pip install python-sat`. A unique 25×25 puzzle takes 3–4 minutes
of one core, a random grid some 15 seconds.
"""
import argparse
import random
import sys

SYMBOLS = "123456789ABCDEFGHIJKLMNOP"


def rules(n):
    """Clauses of n×n Sudoku over variables v(cell, digit) = cell·n + digit + 1:
    each cell, and each row, column and box × digit, holds exactly one."""
    b = int(round(n ** 0.5))
    var = lambda cell, digit: cell * n + digit + 1
    units = [[r * n + c for c in range(n)] for r in range(n)]
    units += [[r * n + c for r in range(n)] for c in range(n)]
    units += [[(br * b + r) * n + bc * b + c for r in range(b) for c in range(b)] for br in range(b) for bc in range(b)]
    groups = [[var(cell, d) for d in range(n)] for cell in range(n * n)]
    groups += [[var(cell, d) for cell in unit] for unit in units for d in range(n)]
    clauses = []
    for group in groups:
        clauses.append(group)
        clauses += [[-a, -b] for i, a in enumerate(group) for b in group[i + 1:]]
    return clauses, var


def random_grid(n, solver, var, rng):
    """A solved grid, one cell at a time: a random digit that still completes."""
    grid, fixed = [None] * (n * n), []
    for cell in rng.sample(range(n * n), n * n):
        for digit in rng.sample(range(n), n):
            if solver.solve(assumptions=fixed + [var(cell, digit)]):
                grid[cell] = digit
                fixed.append(var(cell, digit))
                break
        else:
            sys.exit("unique_puzzles: no digit completes the grid (a solver fault)")
    return grid


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=25, help="board side: 4, 9, 16 or 25")
    parser.add_argument("--count", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", type=float, help="keep each cell with this probability instead (not unique)")
    args = parser.parse_args()
    if args.n not in (4, 9, 16, 25):
        sys.exit("unique_puzzles: --n is 4, 9, 16 or 25")
    if args.keep is not None and not 0.0 <= args.keep <= 1.0:
        sys.exit("unique_puzzles: --keep is a probability, 0 to 1")
    from pysat.solvers import Solver

    rng = random.Random(args.seed)
    clauses, var = rules(args.n)
    for _ in range(args.count):
        with Solver(name="cadical195", bootstrap_with=clauses) as solver:
            grid = random_grid(args.n, solver, var, rng)
        if args.keep is not None:
            print("".join(SYMBOLS[digit] if rng.random() < args.keep else "." for digit in grid), flush=True)
            continue
        clue = {cell: var(cell, digit) for cell, digit in enumerate(grid)}
        with Solver(name="cadical195", bootstrap_with=clauses + [[-v for v in clue.values()]]) as solver:
            for cell in rng.sample(range(args.n * args.n), args.n * args.n):
                kept = clue.pop(cell)
                if solver.solve(assumptions=list(clue.values())):
                    clue[cell] = kept
        print("".join(SYMBOLS[grid[cell]] if cell in clue else "." for cell in range(args.n * args.n)), flush=True)


if __name__ == "__main__":
    main()
