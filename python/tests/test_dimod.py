"""to_bqm and SudokuSampler: the exact model as a dimod BQM, and the
annealer as a dimod sampler whose energies bqm.energy recomputes."""

import random

import dimod
import pytest
from dimod.testing import assert_sampleset_energies

import sudoku_anneal

INKALA = "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4.."
INKALA_SOLUTION = "812753649943682175675491283154237896369845721287169534521974368438526917796318452"
# A 4x4 puzzle with 8 empty cells, and its solution.
SMALL = "1.3..4.22.4..3.1"
SMALL_SOLUTION = "1234341221434321"


def one_hot(solution, labels):
    return {(r, c, d): int(solution[r * round(len(solution) ** 0.5) + c] == "123456789"[d - 1]) for r, c, d in labels}


def energy_by_definition(puzzle, assignment, side=4, box=2):
    """Sum over the rules' 'exactly one' constraints of (1 - ones)^2, clues clamped."""
    def x(r, c, d):
        clue = puzzle[r * side + c]
        return int(clue == str(d)) if clue != "." else assignment.get((r, c, d), 0)
    units = [[(r, c) for c in range(side)] for r in range(side)] + [[(r, c) for r in range(side)] for c in range(side)]
    units += [[(br + i, bc + j) for i in range(box) for j in range(box)] for br in range(0, side, box) for bc in range(0, side, box)]
    energy = sum((1 - sum(x(r, c, d) for d in range(1, side + 1))) ** 2 for r in range(side) for c in range(side))
    energy += sum((1 - sum(x(r, c, d) for r, c in unit)) ** 2 for unit in units for d in range(1, side + 1))
    return energy


@pytest.mark.parametrize("reduce", ["none", "clues"])
def test_the_bqm_is_the_rules_energy_in_every_state(reduce):
    bqm = sudoku_anneal.to_bqm(SMALL, reduce=reduce)
    assert bqm.vartype is dimod.BINARY
    labels = list(bqm.variables)
    assert all(SMALL[r * 4 + c] == "." and 1 <= d <= 4 for r, c, d in labels)
    removed = {(r, c, d) for r in range(4) for c in range(4) for d in range(1, 5) if SMALL[r * 4 + c] == "."} - set(labels)
    assert len(labels) == (32 if reduce == "none" else 32 - len(removed))
    draws = random.Random(7)
    for _ in range(3000):
        sample = {label: draws.randint(0, 1) for label in labels}
        assert bqm.energy(sample) == energy_by_definition(SMALL, sample), sample
    assert bqm.energy(one_hot(SMALL_SOLUTION, labels)) == 0


def test_the_solution_has_energy_zero_and_nothing_else_does():
    bqm = sudoku_anneal.to_bqm(INKALA)
    labels = list(bqm.variables)
    assert len(labels) == 254 and all(isinstance(v, int) for label in labels for v in label)
    solution = one_hot(INKALA_SOLUTION, labels)
    assert bqm.energy(solution) == 0
    flipped = {**solution, labels[0]: 1 - solution[labels[0]]}
    assert bqm.energy(flipped) > 0
    # Two free cells of a row swap their digits: still one digit per cell, two clashes in columns.
    row = [c for c in range(9) if INKALA[c] == "."]
    first, second = row[0], row[1]
    swapped = list(INKALA_SOLUTION)
    swapped[first], swapped[second] = swapped[second], swapped[first]
    assert bqm.energy(one_hot("".join(swapped), labels)) > 0
    assert len(sudoku_anneal.to_bqm(INKALA, reduce="none").variables) == 9 * 60


def test_to_bqm_refuses_what_is_no_puzzle():
    with pytest.raises(ValueError, match="invalid puzzle: clues conflict"):
        sudoku_anneal.to_bqm("11" + "." * 79)
    with pytest.raises(ValueError, match="invalid value 'some' for '--reduce <REDUCE>'"):
        sudoku_anneal.to_bqm(INKALA, reduce="some")


def test_the_sampler_solves_each_read_and_its_energies_are_the_bqms():
    bqm = sudoku_anneal.to_bqm(INKALA)
    sampleset = sudoku_anneal.SudokuSampler().sample(bqm, num_reads=3, seed=4)
    assert len(sampleset) == 3
    assert_sampleset_energies(sampleset, bqm)
    assert list(sampleset.record.energy) == [0, 0, 0]
    assert list(sampleset.record.solved) == [True] * 3
    assert len(set(sampleset.record.attempts)) > 1, "each read is its own run"
    assert sampleset.info["backend"] == "cpu-lanes"
    first = sampleset.first.sample
    assert all(first[label] == value for label, value in one_hot(INKALA_SOLUTION, bqm.variables).items())


def test_an_unsolved_read_is_its_lowest_energy_replica_with_its_energy():
    bqm = sudoku_anneal.to_bqm(INKALA, reduce="clues")
    sampleset = sudoku_anneal.SudokuSampler().sample(bqm, backend="cpu", max_sweeps=2, moves="spin")
    assert_sampleset_energies(sampleset, bqm)
    assert not sampleset.record.solved[0] and sampleset.record.energy[0] > 0
    assert sampleset.record.sweeps[0] == 2


def test_a_copy_or_a_spin_version_is_recognised_and_other_bqms_are_not():
    bqm = sudoku_anneal.to_bqm(SMALL)
    sampler = sudoku_anneal.SudokuSampler()
    spin = bqm.change_vartype(dimod.SPIN, inplace=False)
    sampleset = sampler.sample(spin, seed=1)
    assert_sampleset_energies(sampleset, spin)
    assert sampleset.first.energy == 0 and set(sampleset.first.sample.values()) <= {-1, 1}
    assert sampler.sample(bqm.copy()).first.energy == 0
    other = dimod.BinaryQuadraticModel({"a": 1.0}, {}, 0.0, dimod.BINARY)
    with pytest.raises(ValueError, match="no model that sudoku_anneal.to_bqm made"):
        sampler.sample(other)
    with pytest.raises(ValueError, match="is not the model of puzzle"):
        sampler.sample(bqm, puzzle=INKALA)
    assert sampler.sample(bqm, puzzle=SMALL).first.energy == 0
    with pytest.raises(ValueError, match="unknown parameters"):
        sampler.sample(bqm, colour="red")


def test_the_sampler_says_what_it_takes():
    sampler = sudoku_anneal.SudokuSampler()
    assert isinstance(sampler, dimod.Sampler)
    assert {"num_reads", "seed", "backend", "timeout", "weight_cap"} <= set(sampler.parameters)
    assert "cpu-lanes" in sampler.properties["backends"]


def test_the_comparison_with_dwave_samplers_runs_and_tabulates_every_sampler(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    puzzles = tmp_path / "two.txt"
    puzzles.write_text(f"{INKALA} # Inkala\n{SMALL}\n")
    out = subprocess.run(
        [sys.executable, str(root / "scripts" / "compare_dwave.py"), str(puzzles), "--reads", "3", "--sweeps", "10", "--runs", "2"],
        capture_output=True, text=True, check=True,
    )
    rows = [line for line in out.stdout.splitlines() if line.startswith("| ") and not line.startswith("| sampler")]
    assert [row.split(" | ")[0] for row in rows] == ["| sudoku_anneal cpu-lanes", "| SimulatedAnnealingSampler, 10 sweeps", "| SteepestDescentSolver"] * 2
    assert rows[0].split(" | ")[2] == "1.000", "ours solves Inkala in every read"
