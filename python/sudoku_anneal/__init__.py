"""Sudoku as an Ising/QUBO model, solved by parallel tempering on the CPU or a GPU.

- :func:`solve` and :func:`solve_iter`: puzzles in, the records ``sudoku-anneal
  solve --format jsonl`` prints out, as dicts, in input order.
- :func:`to_bqm`: the exact model annealed, as a ``dimod.BinaryQuadraticModel``.
- :class:`SudokuSampler`: a ``dimod.Sampler`` on such models.

Settings are keywords named like the command line's flags (``seed=``,
``moves=``, ``timeout=``, ``weight_cap=``, ``temperatures=[...]``, ...) and mean
what those flags mean; a bad one raises ``ValueError`` in the command line's
words. ``to_bqm`` and ``SudokuSampler`` need dimod (``pip install
sudoku-anneal[dimod]``).
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any, Dict, Iterable, Iterator, List, Optional, Tuple, Union

from . import _native

if TYPE_CHECKING:
    from ._sampler import SudokuSampler

__version__: str = _native.__version__
#: The names ``backend=`` takes.
BACKENDS: Tuple[str, ...] = tuple(_native.backend_names())

Puzzles = Union[str, "os.PathLike[str]", Iterable[str]]

__all__ = ["BACKENDS", "SudokuSampler", "solve", "solve_iter", "to_bqm"]


def _pairs(settings: Dict[str, Any]) -> List[Tuple[str, str]]:
    """Settings as the (flag name, value) pairs the engine reads; None leaves one unset."""
    pairs = []
    for name, value in settings.items():
        if value is None:
            continue
        if isinstance(value, (list, tuple)):
            value = ",".join(str(v) for v in value)
        pairs.append((name, str(value)))
    return pairs


def _source(puzzles: Puzzles) -> Tuple[Optional[List[str]], Optional[List[str]]]:
    """Puzzle lines, or files: a path (or a str naming an existing file) is a file
    of one puzzle per line; any other str is one puzzle; an iterable, one per item."""
    if isinstance(puzzles, os.PathLike):
        return None, [os.fspath(puzzles)]
    if isinstance(puzzles, str):
        return (None, [puzzles]) if os.path.isfile(puzzles) else ([puzzles], None)
    lines = list(puzzles)
    if not all(isinstance(line, str) for line in lines):
        raise TypeError("puzzles are strings, one puzzle each, or a path")
    return lines, None


def solve_iter(puzzles: Puzzles, *, backend: str = "auto", **settings: Any) -> Iterator[Dict[str, Any]]:
    """The records of ``puzzles`` as they are solved, in input order (for large files).

    The run starts at once (bad settings or files raise here) and anneals on
    threads of its own, the GIL released; Ctrl-C interrupts it. Dropping the
    iterator stops it.
    """
    lines, files = _source(puzzles)
    records = _native.records(lines, files, backend, _pairs(settings))
    return (json.loads(line) for line in records)


def solve(puzzles: Puzzles, *, backend: str = "auto", **settings: Any) -> List[Dict[str, Any]]:
    """Solves ``puzzles``: one record per puzzle, as ``solve --format jsonl`` prints it.

    ``puzzles`` is one puzzle line, a list of them, or a file of one puzzle per
    line (a path). Each record has ``index``, ``file``, ``line``, ``puzzle``,
    ``status`` ("solved", "unsolved", "invalid" or "error"), ``solution``,
    ``sweeps``, ``attempts``, ``seconds``, ``backend`` and ``error``; the same
    seed and settings give the command line's records. A line that is no
    valid puzzle is a record with status "invalid", not an exception.
    """
    return list(solve_iter(puzzles, backend=backend, **settings))


def _dimod():
    try:
        import dimod
    except ImportError as missing:
        raise ImportError("to_bqm and SudokuSampler need dimod: pip install 'sudoku-anneal[dimod]'") from missing
    return dimod


#: What to_bqm built, by the model's fingerprint: (puzzle, reduce, variant).
_MADE: Dict[Tuple, Tuple[str, str, str]] = {}
_MADE_MOST = 100_000


def _fingerprint(bqm) -> Tuple:
    binary = bqm if bqm.vartype.name == "BINARY" else bqm.change_vartype("BINARY", inplace=False)
    linear = tuple(sorted((v, float(b)) for v, b in binary.linear.items()))
    quadratic = tuple(sorted((tuple(sorted((u, v))), float(b)) for (u, v), b in binary.quadratic.items()))
    return (float(binary.offset), linear, quadratic)


def to_bqm(puzzle: str, reduce: str = "propagate", variant: str = "standard"):
    """The exact model annealed for ``puzzle``, a ``dimod.BinaryQuadraticModel`` (BINARY).

    Variables are ``(row, col, digit)``: 0-based row and column, the digit an
    int from 1. Clues, and with ``reduce`` the spins they rule out, are folded
    into biases and offset: the energy is 0 exactly at a solution and above 0
    elsewhere. ``reduce`` is "none", "clues", "propagate" (the default) or
    "probe" (``solve``'s default: the model it anneals, probed briefly, or in
    full where over a quarter of the spins are free after singles, or on
    boards of more than 128 cells propagated only; it may have no variables left);
    ``variant`` "standard", "x" or "latin".
    """
    dimod = _dimod()
    model = json.loads(_native.model_json(puzzle, reduce, variant))
    side = model["side"]
    labels = [(cell // side, cell % side, digit) for cell, digit in model["variables"]]
    linear = {label: bias for label, bias in zip(labels, model["linear"])}
    quadratic = {(labels[i], labels[j]): bias for i, j, bias in model["quadratic"]}
    bqm = dimod.BinaryQuadraticModel(linear, quadratic, model["offset"], dimod.BINARY)
    if len(_MADE) >= _MADE_MOST:
        _MADE.clear()
    _MADE[_fingerprint(bqm)] = (puzzle.strip(), reduce, variant)
    return bqm


def __getattr__(name: str):
    # SudokuSampler subclasses dimod.Sampler: defined when first asked for.
    if name == "SudokuSampler":
        _dimod()
        from ._sampler import SudokuSampler

        return SudokuSampler
    raise AttributeError(f"module 'sudoku_anneal' has no attribute {name!r}")
