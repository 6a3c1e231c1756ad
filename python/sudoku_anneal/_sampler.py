"""SudokuSampler: this annealer as a dimod sampler, on the models to_bqm makes."""

from __future__ import annotations

import json
from typing import Any, Dict, Optional

import dimod

from . import BACKENDS, _MADE, _fingerprint, _native, _pairs, to_bqm

#: The settings sample() takes as keywords of their own: the flags of solve
#: (the engine's one declaration of them) but those the sampler sets itself,
#: the seed per read, the model's reduction and rules, one puzzle at a time.
_SETTINGS = tuple(name for name in _native.setting_names() if name not in ("seed", "reduce", "variant", "batch"))


class SudokuSampler(dimod.Sampler):
    """Parallel tempering on a Sudoku's QUBO, one independent run per read.

    ``sample(bqm)`` takes a model made by :func:`sudoku_anneal.to_bqm` (it is
    recognised by its biases; a copy of it serves as well), or any BQM with
    ``puzzle=`` naming the puzzle whose model it is. Each read is one run of
    the annealer with seed ``seed + read``: a solved run's sample is its
    solution (energy 0); an unsolved one's is the grid of its lowest-energy
    replica, with every variable of a cell that held no digit or several at
    0. Energies are ``bqm.energy`` of the samples. Per read, the vectors
    ``solved``, ``sweeps``, ``attempts`` and ``seconds`` say how it went.
    """

    @property
    def parameters(self) -> Dict[str, list]:
        named = ("num_reads", "seed", "backend", "puzzle", "reduce", "variant") + _SETTINGS
        return {name: ["backends"] if name == "backend" else [] for name in named}

    @property
    def properties(self) -> Dict[str, Any]:
        return {"backends": BACKENDS, "version": _native.__version__}

    def sample(
        self,
        bqm: dimod.BinaryQuadraticModel,
        num_reads: int = 1,
        seed: int = 0,
        backend: str = "cpu-lanes",
        puzzle: Optional[str] = None,
        **settings: Any,
    ) -> dimod.SampleSet:
        reduce, variant = settings.pop("reduce", None), settings.pop("variant", None)
        unknown = sorted(set(settings) - set(_SETTINGS))
        if unknown:
            raise ValueError(f"unknown parameters {unknown}; SudokuSampler takes {sorted(self.parameters)}")
        if num_reads < 1:
            raise ValueError("num_reads must be at least 1")
        line, reduce, variant = self._recognise(bqm, puzzle, reduce or "propagate", variant or "standard")
        labels = list(bqm.variables)
        samples, vectors = [], {"solved": [], "sweeps": [], "attempts": [], "seconds": []}
        for read in range(num_reads):
            pairs = _pairs({**settings, "seed": seed + read, "reduce": reduce, "variant": variant})
            record_line, best = _native.anneal_one(line, backend, pairs)
            record = json.loads(record_line)
            if record["status"] == "error":
                raise RuntimeError(f"the engine failed: {record['error']}")
            grid = record["solution"] if record["status"] == "solved" else best
            samples.append([self._value(grid, label, bqm.vartype) for label in labels])
            vectors["solved"].append(record["status"] == "solved")
            for name in ("sweeps", "attempts", "seconds"):
                vectors[name].append(record[name])
        info = {"backend": record["backend"], "puzzle": line}
        return dimod.SampleSet.from_samples_bqm((samples, labels), bqm, info=info, **vectors)

    @staticmethod
    def _recognise(bqm, puzzle: Optional[str], reduce: str, variant: str):
        """The puzzle, reduction and rules whose model ``bqm`` is, or why it is none."""
        if puzzle is None:
            found = _MADE.get(_fingerprint(bqm))
            if found is None:
                raise ValueError(
                    "this BQM is no model that sudoku_anneal.to_bqm made in this process; "
                    "pass puzzle= (and its reduce= and variant=) to name the puzzle it is the model of"
                )
            return found
        if _fingerprint(to_bqm(puzzle, reduce, variant)) != _fingerprint(bqm):
            raise ValueError(f"this BQM is not the model of puzzle {puzzle!r} (reduce={reduce}, variant={variant})")
        return puzzle.strip(), reduce, variant

    @staticmethod
    def _value(grid: Optional[str], label, vartype) -> int:
        row, col, digit = label
        side = round(len(grid) ** 0.5) if grid else 0
        on = bool(grid) and grid[row * side + col] == _native.SYMBOLS[digit - 1]
        if vartype is dimod.SPIN:
            return 1 if on else -1
        return 1 if on else 0
