"""A population of simulated children for the ``evidence_week`` benchmark, and the truths the
benchmark derives from it: pure Python, no Django.

A population is a Python module (named by a file path or a dotted module name) with
``children(seed) -> list`` of child objects. What the benchmark needs of each child:

- ``name``: a unique name within the class;
- ``truth(a, b, day) -> float``: the true chance of a right answer to a × b, **in that order**
  (3 × 7 and 7 × 3 may differ), on school day ``day``, 0 (Monday) to 4 (Friday);
- ``answer(a, b, day, rng) -> (int | None, seconds)``: a typed answer and the time from the
  question shown to the answer sent. The warm-up uses it; in a game the child recalls a pair
  of potions with it and claims the monster equal to the answer, if there is one.

What it uses when a child has it (an outside population may have none of these):

- ``game_answer(a, b, day, rng)``: what the child recalls in a game, instead of ``answer``
  (None: does not notice the pair);
- ``kind``: the child's kind, for the per-kind figures;
- ``systematic_error``: the error kind the child makes systematically (None: no single one),
  the truth of "main error kind";
- ``last_mechanism``: after each ``answer``/``game_answer``, the mechanism that made a wrong
  answer, in the vocabulary of ``MECHANISMS`` (the truth of "named kinds agree"; a "random"
  answer should be called unclear).

The bench's own population is ``bench/populations/literature.py``; ``DEFAULT`` names it.
"""

from __future__ import annotations

import importlib
import importlib.util
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

DEFAULT = "bench.populations.literature"
FACTORS = range(2, 10)
ORDERS: tuple[tuple[int, int], ...] = tuple((a, b) for a in FACTORS for b in FACTORS)
LAST_DAY = 4  # Friday: the truth the teacher's Friday report is checked against
WEAK = 0.6  # a fact-order truly under 60 % right is one the child does not know yet
KNOWN = 0.8  # …and one right 80 % of the time or more, one they know
# The mechanisms a population may name (``last_mechanism``), each the error kind a teacher
# should read for it; "random" answers have none: the right call is "unclear".
MECHANISMS = (
    "operand",
    "tie",
    "near",
    "tens_slip",
    "keypad",
    "operation",
    "zero_one",
    "reversed",
    "side_by_side",
    "random",
)
UNCLEAR = "unclear"
ASYMMETRIC_FACTS = 4  # a child is order-asymmetric with this many facts known one way only


def load(name: str | None):
    """The population module: a file path (``…/my_children.py``) or a dotted module name."""
    name = name or DEFAULT
    path = Path(name)
    if name.endswith(".py") or path.exists():
        spec = importlib.util.spec_from_file_location(f"population_{path.stem}", path)
        if spec is None or spec.loader is None:
            raise SystemExit(f"cannot load a population from {name}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    else:
        module = importlib.import_module(name)
    if not callable(getattr(module, "children", None)):
        raise SystemExit(f"{name} has no children(seed) function")
    return module


def key(a: int, b: int) -> str:
    return f"{a}x{b}"


@dataclass(frozen=True)
class Truth:
    """What the benchmark scores one child against, read from ``truth`` only."""

    weak: frozenset[tuple[int, int]]  # fact-orders under WEAK right on Friday
    learned: frozenset[tuple[int, int]]  # under WEAK on Monday, KNOWN or more on Friday
    asymmetric: frozenset[tuple[int, int]]  # known this way, weak the other way (Friday)
    mean: float  # the mean of the 64 fact-orders' truth on Friday

    @property
    def needs_help(self) -> bool:
        return self.mean < WEAK

    @property
    def order_asymmetric(self) -> bool:
        return len(self.asymmetric) >= ASYMMETRIC_FACTS


def truth_of(child) -> Truth:
    friday = {(a, b): float(child.truth(a, b, LAST_DAY)) for a, b in ORDERS}
    monday = {(a, b): float(child.truth(a, b, 0)) for a, b in ORDERS}
    return Truth(
        weak=frozenset(f for f, p in friday.items() if p < WEAK),
        learned=frozenset(f for f in ORDERS if monday[f] < WEAK and friday[f] >= KNOWN),
        asymmetric=frozenset(
            (a, b) for a, b in ORDERS if friday[(a, b)] >= KNOWN and friday[(b, a)] < WEAK
        ),
        mean=statistics.fmean(friday.values()),
    )
