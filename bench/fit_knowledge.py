"""Choosing the knowledge model's parameters on the tuning seeds (docs/analytics.md, "The
knowledge model": where each parameter comes from).

    python -m bench.fit_knowledge [--seeds 3900-3909] [--bkt] [--search]

1. **Collect**: the ``evidence_week`` of the literature population on each tuning seed
   (``evidence_week.TUNING_SEEDS``; never a checking seed), through the real paths; each
   child's attempts (as the fold reads them) and the population's truth are kept in
   ``var/bench/fit/<seed>.json``, so a second run reads them back.
2. ``--bkt``: Bayesian Knowledge Tracing fitted by expectation-maximisation with **pyBKT**
   (Badrinath, Wang & Pardos 2021), one skill, a guess and a slip per kind of evidence
   (``multigs`` on the context: typed, claimed, missed): the learn, guess and slip rates and
   the prior the fold uses. pyBKT is not a dependency of the product (it brings numpy,
   pandas and scikit-learn); ``make fit`` installs it in a virtual environment of its own.
3. ``--search``: the display thresholds and the priors' weights, chosen by replaying the
   collected attempts through ``knowledge.fold`` with each candidate and scoring what the
   squares would say against the truth (``evidence_metrics.score``): the candidate with
   the smallest total shortfall from the goals. (A replay of fixed attempts: the warm-up's
   choice of questions, which follows the model, is held at what the collecting run chose.)

Nothing here runs in the product; the values it prints are written into
``classroom.knowledge.PARAMS`` by hand, with the date and the seeds, in docs/analytics.md.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from dataclasses import replace
from datetime import datetime
from pathlib import Path

if __package__ in {None, ""}:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import population as populations
from bench.evidence_metrics import GOALS
from bench.evidence_metrics import score

FIT_DIR = Path(__file__).resolve().parent.parent / "var" / "bench" / "fit"


def collect(seed: int, module) -> dict:
    """One tuning week: every child's attempts as the fold reads them, and their output."""
    path = FIT_DIR / f"{seed}.json"
    if path.exists():
        return json.loads(path.read_text())
    from bench.evidence_week import run_week
    from classroom.models import Attempt
    from classroom.models import Student
    from classroom.models.knowledge_store import attempt_rows

    result = run_week(module, seed)
    names = [c["name"] for c in result["children"]]
    students = {
        s.name: s for s in Student.objects.filter(name__in=names).order_by("pk")
    }  # the latest week's children (the bench's database is made anew each run)
    children = []
    for entry in result["children"]:
        student = students[entry["name"]]
        zone = student.classroom.school.zone
        rows = attempt_rows(Attempt.objects.filter(student=student))
        children.append(
            {
                "name": entry["name"],
                "out": entry,
                "evidence": [
                    {
                        "id": r["id"],
                        "at": r["created_at"].isoformat(),
                        "a": r["a"],
                        "b": r["b"],
                        "correct": bool(r["correct"]),
                        "context": r["context"],
                        "answer": r["answer"],
                        "ms": r["response_ms"],
                        "untimed": bool(r["af"]),
                        "day": r["created_at"].astimezone(zone).date().toordinal(),
                    }
                    for r in rows
                ],
            }
        )
    data = {"seed": seed, "end": result["details"]["end"], "children": children}
    FIT_DIR.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return data


def evidence_of(child: dict):
    """The child's collected attempts as the fold reads them (``knowledge_store.evidence``)."""
    from classroom import knowledge
    from classroom.models.knowledge_store import evidence

    return [
        evidence(
            {
                **e,
                "created_at": datetime.fromisoformat(e["at"]),
                "response_ms": e["ms"],
                "af": e["untimed"],
            },
            knowledge.UTC,
        )
        for e in child["evidence"]
    ]


def replay(data: dict, module, params) -> dict:
    """The metrics of one collected week with ``params`` instead of the product's."""
    from classroom import knowledge

    kids = module.children(data["seed"])
    by_name = {k.name: k for k in kids}
    end = datetime.fromisoformat(data["end"])
    children, truths, out = [], [], []
    for child in data["children"]:
        kid = by_name[child["name"]]
        orders = knowledge.fold({}, evidence_of(child), params)
        summary = knowledge.summarise(orders, (), end, params)
        entry = dict(child["out"])
        entry["facts"] = {f"{a}x{b}": s.state for (a, b), s in summary.squares.items()}
        entry["flagged"] = summary.needs_help
        entry["order_pattern"] = summary.order_pattern
        children.append(kid)
        truths.append(populations.truth_of(kid))
        out.append(entry)
    metrics, _details = score(children, truths, out)
    return metrics


def shortfall(metrics: dict) -> float:
    """How far the figures are from the goals, added up (0: every goal met)."""
    total = 0.0
    for name, (comparison, goal) in GOALS.items():
        value = metrics.get(name)
        if value is None:
            continue
        if comparison == ">=":
            total += max(0.0, goal - value)
        else:
            total += max(0.0, value - goal) / 24  # children, on the shares' scale
    return total


GRID = {
    "not_yet_below": (0.45, 0.55, 0.65),
    "min_not_yet": (1, 2),
    "estimate_below": (0.35, 0.45, 0.55),
    "relax_days": (0.0, 2.0, 4.0),
    "known_above": (0.6, 0.7),
    "twin_weight": (0.5, 0.7),
}


def search(weeks: list[dict], module, base, grid=GRID):
    """Every combination of ``grid`` on every collected week: (loss, params, metrics) of
    the best, the worst week's metrics counting (a goal must hold on each seed)."""
    best = None
    names = list(grid)
    for values in itertools.product(*(grid[n] for n in names)):
        params = replace(base, **dict(zip(names, values, strict=True)))
        runs = [replay(week, module, params) for week in weeks]
        loss = max(shortfall(m) for m in runs)
        if best is None or loss < best[0]:
            best = (loss, params, runs)
    return best


def fit_bkt(weeks: list[dict]) -> dict:
    """pyBKT's fit of learn, prior and a guess and slip per kind of evidence."""
    import pandas as pd
    from pyBKT.models import Model

    rows = []
    for week in weeks:
        for child in week["children"]:
            for e in child["evidence"]:
                if e["context"] == "forced":
                    continue
                kind = {"warm-up": "typed", "missed": "missed"}.get(e["context"], "claim")
                rows.append(
                    {
                        "order_id": len(rows),
                        "user_id": f"{week['seed']}:{child['name']}:{e['a']}x{e['b']}",
                        "skill_name": "fact",
                        "correct": int(e["correct"]),
                        "evidence": kind,
                    }
                )
    frame = pd.DataFrame(rows)
    model = Model(seed=42, num_fits=5)
    model.fit(data=frame, multigs="evidence")
    return model.params().reset_index().to_dict("records")


def main(argv=None) -> int:
    from bench.evidence_week import TUNING_SEEDS

    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--seeds", default=f"{TUNING_SEEDS[0]}-{TUNING_SEEDS[9]}")
    parser.add_argument("--bkt", action="store_true", help="fit BKT with pyBKT")
    parser.add_argument("--search", action="store_true", help="search the thresholds")
    args = parser.parse_args(argv)
    first, _sep, last = args.seeds.partition("-")
    seeds = range(int(first), int(last or first) + 1)
    if any(seed not in TUNING_SEEDS for seed in seeds):
        raise SystemExit(f"tune on the tuning seeds only ({TUNING_SEEDS[0]}–{TUNING_SEEDS[-1]})")

    from bench.environment import setup_database

    setup_database()
    from classroom import knowledge

    module = populations.load(None)
    weeks = [collect(seed, module) for seed in seeds]
    base = knowledge.PARAMS
    for week in weeks:
        print(week["seed"], {k: round(v, 3) for k, v in replay(week, module, base).items() if v})
    if args.bkt:
        for row in fit_bkt(weeks):
            print(row)
    if args.search:
        loss, params, runs = search(weeks, module, base)
        print(f"best loss {loss:.3f}: {params}")
        for run in runs:
            print({k: round(v, 3) for k, v in run.items() if v is not None})
    return 0


if __name__ == "__main__":
    sys.exit(main())
