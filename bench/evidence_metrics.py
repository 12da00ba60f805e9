"""The ``evidence_week`` figures: what the teacher's pages said after the week (the bench's
output, one entry per child) scored against the population's truth. Pure Python.

Every figure is computed from the output and the children's ``truth`` (and, where the
population gives them, ``systematic_error`` and each wrong answer's mechanism); never from
the code being judged. A figure the population cannot support (no mechanisms given) is None.
"""

from __future__ import annotations

from collections import Counter

from bench.population import ORDERS
from bench.population import UNCLEAR
from bench.population import key

NOT_YET = "not_yet"
# The goals (issue: "Reports a teacher can trust"), each checked on every seed.
GOALS = {
    "not_yet_precision": (">=", 0.8),
    "not_yet_recall": (">=", 0.8),
    "not_yet_on_facts_nobody_fails": ("<=", 1.0),  # children in 24, the worst such fact
    "improvers_learned_shown": (">=", 0.75),  # 6 of 8, the worst improver
    "order_pattern_recall": (">=", 0.9),
    "main_error_right": (">=", 0.8),
    "kinds_agree": (">=", 0.9),
    "kinds_named": (">=", 0.8),
    "help_precision": (">=", 0.8),
    "help_recall": (">=", 0.8),
}


def ratio(num: float, den: float) -> float | None:
    return num / den if den else None


def passes(name: str, value) -> bool:
    comparison, goal = GOALS[name]
    if value is None:
        return False
    return value >= goal if comparison == ">=" else value <= goal


def score(children, truths, out: list[dict]) -> tuple[dict, dict]:
    """(figures, details) for one week: ``children`` and ``truths`` (``population.truth_of``)
    in the class's order, ``out`` the bench's entries of the same children."""
    hits = shown = weak = 0
    nobody_fails = [f for f in ORDERS if not any(f in t.weak for t in truths)]
    per_fact_not_yet = Counter()
    improvers, asym_named, asym_total, asym_false = [], 0, 0, 0
    main_right = main_total = 0
    agree = named = named_all = mechanised = total_wrong = 0
    confusions: Counter = Counter()
    flagged_right = flagged = needs = 0
    per_child = []
    for child, truth, entry in zip(children, truths, out, strict=True):
        facts = entry["facts"]
        mine = {f for f in ORDERS if facts.get(key(*f)) == NOT_YET}
        hits += len(mine & truth.weak)
        shown += len(mine)
        weak += len(truth.weak)
        for f in nobody_fails:
            per_fact_not_yet[f] += f in mine
        if len(truth.learned) >= 4:  # an improver: facts learned during the week
            still = {f for f in truth.learned if facts.get(key(*f)) == NOT_YET}
            improvers.append(1 - len(still) / len(truth.learned))
        if truth.order_asymmetric:
            asym_total += 1
            asym_named += bool(entry["order_pattern"])
        elif entry["order_pattern"]:
            asym_false += 1
        systematic = getattr(child, "systematic_error", None)
        if systematic:
            main_total += 1
            main_right += entry["main_error"] == systematic
        for wrong in entry["wrong_answers"]:
            total_wrong += 1
            mechanism = wrong.get("mechanism")
            is_named = wrong["kind"] != UNCLEAR
            named_all += is_named
            if mechanism is None:
                continue
            expected = UNCLEAR if mechanism == "random" else mechanism
            if mechanism != "random":
                mechanised += 1
                named += is_named
            if is_named:
                agree += wrong["kind"] == expected
                if wrong["kind"] != expected:
                    confusions[f"{mechanism}->{wrong['kind']}"] += 1
        needs += truth.needs_help
        flagged += bool(entry["flagged"])
        flagged_right += bool(entry["flagged"]) and truth.needs_help
        per_child.append(
            {
                "name": entry["name"],
                "kind": getattr(child, "kind", None),
                "weak": len(truth.weak),
                "not_yet": len(mine),
                "not_yet_right": len(mine & truth.weak),
                "states": dict(Counter(facts.values())),
                "needs_help": truth.needs_help,
                "flagged": bool(entry["flagged"]),
                "order_asymmetric": truth.order_asymmetric,
                "order_pattern": bool(entry["order_pattern"]),
                "systematic_error": systematic,
                "main_error": entry["main_error"],
            }
        )
    class_size = len(out) or 1
    worst = max(per_fact_not_yet.values(), default=0)
    with_mechanisms = any(w.get("mechanism") for e in out for w in e["wrong_answers"])
    named_kinds = sum(1 for e in out for w in e["wrong_answers"] if w.get("mechanism"))
    figures = {
        "not_yet_precision": ratio(hits, shown),
        "not_yet_recall": ratio(hits, weak),
        "not_yet_on_facts_nobody_fails": worst * 24 / class_size,
        "improvers_learned_shown": min(improvers) if improvers else None,
        "order_pattern_recall": ratio(asym_named, asym_total),
        "main_error_right": ratio(main_right, main_total),
        "kinds_agree": ratio(agree, named_kinds and (agree + sum(confusions.values())))
        if with_mechanisms
        else None,
        "kinds_named": ratio(named, mechanised) if with_mechanisms else None,
        "help_precision": ratio(flagged_right, flagged) if flagged else 0.0,
        "help_recall": ratio(flagged_right, needs),
    }
    details = {
        "children": per_child,
        "facts_nobody_fails": len(nobody_fails),
        "improvers": improvers,
        "order_asymmetric_children": asym_total,
        "order_pattern_false_positives": asym_false,
        "wrong_answers": total_wrong,
        "wrong_answers_named_all": ratio(named_all, total_wrong),
        "kind_confusions": dict(confusions.most_common(12)),
        "not_yet_shown": shown,
        "truly_weak": weak,
    }
    return figures, details
