"""The SQL of the statistics rebuilds (see docs/analytics.md, "How the numbers are rebuilt").

Each rebuild is one ``INSERT … SELECT``: the database ranks, counts, takes medians and builds
the JSON columns, and no row travels to Python. Counts are ``COUNT(*) FILTER (WHERE …)``
(PostgreSQL, SQLite 3.30+), which skips the rows it does not count instead of adding zeros.
The thresholds of ``classroom.diagnosis`` are written into the SQL from its constants, so the
pure functions stay the one definition of a state (tests compare the two on random evidence).
PostgreSQL and SQLite differ only in the few spellings of ``Dialect``.
"""

# ruff: noqa: S608 (the SQL is built from table names and constants; values are parameters)
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from classroom import diagnosis


def error_column(kind: str) -> str:
    """The FactStat column that counts the wrong answers of this kind."""
    return f"{kind}_errors"


@dataclass(frozen=True)
class Dialect:
    median: str  # an ordered median of {0}: both average the two middle values
    to_int: str  # a non-negative number cut down to an integer (Python's int())
    object_agg: str  # {0}: key, {1}: value → a JSON object
    empty_object: str
    text: str  # {0} as text (a JSON key)
    each: str  # the (key, value) rows of the JSON object column {0}
    each_value: str  # the value of those rows as an integer
    least: str  # the smaller of two numbers
    greatest: str


POSTGRESQL = Dialect(
    median="PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY {0})",
    to_int="FLOOR({0})::integer",
    object_agg="jsonb_object_agg({0}, {1})",
    empty_object="'{}'::jsonb",
    text="{0}::text",
    each="jsonb_each_text({0})",
    each_value="e.value::integer",
    least="LEAST",
    greatest="GREATEST",
)
SQLITE = Dialect(
    median="MEDIAN({0})",  # registered in classroom.models.analytics
    to_int="CAST({0} AS INTEGER)",
    object_agg="json_group_object({0}, {1})",
    empty_object="'{}'",
    text="CAST({0} AS TEXT)",
    each="json_each({0})",
    each_value="CAST(e.value AS INTEGER)",
    least="MIN",  # with two arguments, SQLite's MIN and MAX are scalar functions
    greatest="MAX",
)


def dialect(vendor: str) -> Dialect:
    return POSTGRESQL if vendor == "postgresql" else SQLITE


def _at_least(count: str, of: str, share: float) -> str:
    """``count / of >= share`` in integers (the share as the fraction it was written as)."""
    f = Fraction(str(share))
    return f"{count} * {f.denominator} >= {f.numerator} * {of}"


def state_case(n: str, right: str, median: str, recent_omissions: str, accuracy_first: str) -> str:
    """``diagnosis.mastery``'s decision as a CASE over the counts of the latest attempts."""
    d = diagnosis

    def quick(limit):
        return f"({accuracy_first} > 0 OR {median} <= {limit})"

    return (
        f"CASE WHEN {n} >= {d.MASTERED_MIN_ATTEMPTS} "
        f"AND {_at_least(right, n, d.MASTERED_ACCURACY)} "
        f"AND {recent_omissions} = 0 AND {quick(d.MASTERED_MEDIAN_MS)} THEN '{d.MASTERED}' "
        f"WHEN {n} >= {d.FLUENT_MIN_ATTEMPTS} "
        f"AND {_at_least(right, n, d.FLUENT_ACCURACY)} "
        f"AND {quick(d.FLUENT_MEDIAN_MS)} THEN '{d.FLUENT}' "
        f"ELSE '{d.LEARNING}' END"
    )


# A child's fact as one integer key, so the sort and the groupings compare one number instead
# of three: the child's id times 2**32, plus a times 2**16, plus b (a and b are small positive
# integers, below 2**15). A child's id must stay below 2**31 (``MAX_PACKED_STUDENT_ID``;
# ``FactStat.objects.rebuild_for`` refuses larger ones: PostgreSQL would raise an overflow
# error, SQLite would silently turn the key into a float).
MAX_PACKED_STUDENT_ID = 2**31
PACKED_FACT = "student_id * 4294967296 + a * 65536 + b"
UNPACKED_FACT = "g.fact / 4294967296, (g.fact / 65536) %% 65536, g.fact %% 65536"


def fact_stats(vendor: str, t: dict, students: int, *, trends: bool = False) -> str:
    """INSERT the FactStat rows of ``students`` children (their ids follow as parameters, then
    ``updated_at``). ``t``: the table names. Counts over all attempts; state and median over
    the latest ``RECENT`` (ranked newest first, ties by id); wrong answers by answer.

    One sort serves every count: the children's attempts are read once (``batch``,
    materialised, only the columns the counts need, "accuracy first" already decided per
    attempt), ranked within each fact, and one ``GROUP BY`` over the ranked rows, which
    arrive in its order, takes the all-time counts, the error kinds and the latest ten's
    together. Only the wrong answers by answer need a second, small grouping (of the wrong
    rows alone).

    ``trends`` (PostgreSQL only: a data-modifying CTE): the same statement also INSERTs the
    children's DailyTrend rows of every day, as ``DailyTrend.objects.rebuild_children`` does;
    two more parameters after the ids: the children's scope and their school's time zone."""
    d = dialect(vendor)
    if trends and vendor != "postgresql":
        raise ValueError("the trend rows ride along on PostgreSQL only")
    ids = ", ".join(["%s"] * students)
    recent, no_omission_in = diagnosis.RECENT, diagnosis.MASTERED_NO_OMISSION_IN
    kinds = ",\n    ".join(
        f"COUNT(*) FILTER (WHERE NOT correct AND kind = '{kind}') AS {error_column(kind)}"
        for kind in diagnosis.ERROR_KINDS
    )
    kind_columns = ", ".join(error_column(kind) for kind in diagnosis.ERROR_KINDS)
    kind_values = ", ".join(f"g.{error_column(kind)}" for kind in diagnosis.ERROR_KINDS)
    median = d.to_int.format(
        d.median.format(f"CASE WHEN rk <= {recent} AND correct THEN response_ms END")
    )
    day_rows = ""
    if trends:
        day_rows = f"""
), day_rows AS (
  INSERT INTO {t["trend"]} (scope, scope_id, day, attempts, correct)
  SELECT %s, student_id, (created_at AT TIME ZONE %s)::date, COUNT(*),
         COUNT(*) FILTER (WHERE correct)
  FROM batch GROUP BY 2, 3"""
    insert = f"""INSERT INTO {t["fact"]} (student_id, a, b, attempts, correct, omissions,
  median_ms, state, {kind_columns}, wrong_answers, last_attempt_at, updated_at)"""
    # With a data-modifying CTE the WITH must open the statement; otherwise the INSERT does
    # (SQLite's cursor counts the rows written only of a statement that starts with INSERT).
    head, tail = ("", insert) if trends else (insert, "")
    return f"""{head}
WITH batch AS MATERIALIZED (
  SELECT id, student_id, {PACKED_FACT} AS fact, answer, correct, kind,
         context = 'missed' AS missed_capture, response_ms, created_at,
         CASE WHEN match_id IN (
           SELECT m.id FROM {t["match"]} m JOIN {t["assignment"]} g ON g.id = m.assignment_id
           WHERE g.accuracy_first) THEN 1 ELSE 0 END AS af
  FROM {t["attempt"]} WHERE student_id IN ({ids}){day_rows}
), ranked AS (
  SELECT fact, answer IS NULL AS unanswered, correct, kind, missed_capture, response_ms,
         created_at, af,
         ROW_NUMBER() OVER (PARTITION BY fact ORDER BY created_at DESC, id DESC) AS rk
  FROM batch
), grouped AS (
  SELECT fact, COUNT(*) AS n,
    COUNT(*) FILTER (WHERE correct) AS right_n,
    COUNT(*) FILTER (WHERE unanswered) AS missed,
    MAX(created_at) AS last_at,
    COUNT(*) FILTER (WHERE rk <= {recent}) AS rn,
    COUNT(*) FILTER (WHERE rk <= {recent} AND correct) AS rc,
    {median} AS med,
    COUNT(*) FILTER (WHERE rk <= {no_omission_in} AND missed_capture) AS rom,
    COUNT(*) FILTER (WHERE rk <= {recent} AND af = 1) AS af_n,
    {kinds}
  FROM ranked GROUP BY fact
), wrong AS (
  SELECT fact, {d.object_agg.format(d.text.format("answer"), "n")} AS answers
  FROM (SELECT fact, answer, COUNT(*) AS n FROM batch
        WHERE NOT correct AND answer IS NOT NULL
        GROUP BY fact, answer) w
  GROUP BY fact
){tail}
SELECT {UNPACKED_FACT}, g.n, g.right_n, g.missed, g.med,
       {state_case("g.rn", "g.rc", "g.med", "g.rom", "g.af_n")},
       {kind_values}, COALESCE(w.answers, {d.empty_object}), g.last_at, %s
FROM grouped g LEFT JOIN wrong w ON w.fact = g.fact
"""


def class_stats(vendor: str, t: dict, classes: int) -> str:
    """INSERT the ClassFactStat rows of ``classes`` classes (ids as parameters, then
    ``updated_at``), rolled up from the FactStat rows of their children (a fact and its twin
    together): sums; ``children`` with a row; ``struggling``: children learning it in either
    order; ``median_ms``: the median of the children's median times (each order once)."""
    d = dialect(vendor)
    ids = ", ".join(["%s"] * classes)
    median = d.to_int.format(d.median.format("f.median_ms"))
    lo, hi = f"{d.least}(f.a, f.b)", f"{d.greatest}(f.a, f.b)"
    each = d.each.format("f.wrong_answers")
    return f"""
INSERT INTO {t["class"]} (classroom_id, a, b, attempts, correct, omissions, median_ms,
                          children, struggling, wrong_answers, updated_at)
WITH wrong AS (
  SELECT classroom_id, lo, hi, {d.object_agg.format("k", "n")} AS answers FROM (
    SELECT s.classroom_id, {lo} AS lo, {hi} AS hi, e.key AS k, SUM({d.each_value}) AS n
    FROM {t["fact"]} f JOIN {t["student"]} s ON s.id = f.student_id, {each} e
    WHERE s.classroom_id IN ({ids})
    GROUP BY s.classroom_id, {lo}, {hi}, e.key) x
  GROUP BY classroom_id, lo, hi
), totals AS (
  SELECT s.classroom_id, {lo} AS lo, {hi} AS hi,
    SUM(f.attempts) AS n, SUM(f.correct) AS right_n, SUM(f.omissions) AS missed,
    {median} AS med, COUNT(DISTINCT f.student_id) AS children,
    COUNT(DISTINCT CASE WHEN f.state = '{diagnosis.LEARNING}' THEN f.student_id END) AS struggling
  FROM {t["fact"]} f JOIN {t["student"]} s ON s.id = f.student_id
  WHERE s.classroom_id IN ({ids})
  GROUP BY s.classroom_id, {lo}, {hi}
)
SELECT g.classroom_id, g.lo, g.hi, g.n, g.right_n, g.missed, g.med, g.children, g.struggling,
       COALESCE(w.answers, {d.empty_object}), %s
FROM totals g LEFT JOIN wrong w
  ON w.classroom_id = g.classroom_id AND w.lo = g.lo AND w.hi = g.hi
"""


def trend_rollup(vendor: str, t: dict, scope: str, column: str, days: str) -> str:
    """INSERT the trend rows of a wider scope (a class or the school) from its children's
    rows of the same days: sums. Parameters: the children's scope, the school, then those of
    ``days`` (a condition on ``r.day``). ``column``: the SQL of the wider scope's id."""
    return f"""
INSERT INTO {t["trend"]} (scope, scope_id, day, attempts, correct)
SELECT '{scope}', {column}, r.day, SUM(r.attempts), SUM(r.correct)
FROM {t["trend"]} r JOIN {t["student"]} s ON s.id = r.scope_id
JOIN {t["classroom"]} c ON c.id = s.classroom_id
WHERE r.scope = %s AND c.school_id = %s {days}
GROUP BY {column}, r.day
"""
