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
    window: str  # the latest-ten window as a JSON array, newest first ({cond}: which rows)
    merge: str  # the JSON object {0} with the keys of {1} set to {1}'s values (nulls kept)


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
    window=(
        "COALESCE(jsonb_agg(jsonb_build_array(id,"
        " (EXTRACT(EPOCH FROM created_at) * 1000000)::bigint, correct::int, response_ms,"
        " missed_capture::int, af, game_time) ORDER BY prk) FILTER (WHERE {cond}), '[]'::jsonb)"
    ),
    merge="({0} || {1})",
)
SQLITE = Dialect(
    median="MEDIAN({0})",  # registered in classroom.models.rebuild_sql
    to_int="CAST({0} AS INTEGER)",
    object_agg="json_group_object({0}, {1})",
    empty_object="'{}'",
    text="CAST({0} AS TEXT)",
    each="json_each({0})",
    each_value="CAST(e.value AS INTEGER)",
    least="MIN",  # with two arguments, SQLite's MIN and MAX are scalar functions
    greatest="MAX",
    # registered in classroom.models.rebuild_sql (SQLite 3.40 has no ORDER BY in aggregates)
    window=(
        "LATEST_WINDOW(prk, id, created_at, correct, response_ms, missed_capture, af,"
        " game_time) FILTER (WHERE {cond})"
    ),
    # json_patch would drop the keys set to null
    merge=(
        "(SELECT json_group_object(m.key, m.value) FROM ("
        "SELECT key, value FROM json_each({0})"
        " WHERE key NOT IN (SELECT key FROM json_each({1}))"
        " UNION ALL SELECT key, value FROM json_each({1})) m)"
    ),
)


def dialect(vendor: str) -> Dialect:
    return POSTGRESQL if vendor == "postgresql" else SQLITE


def _at_least(count: str, of: str, share: float) -> str:
    """``count / of >= share`` in integers (the share as the fraction it was written as)."""
    f = Fraction(str(share))
    return f"{count} * {f.denominator} >= {f.numerator} * {of}"


def state_case(
    n: str, right: str, speed: str, recent_omissions: str, accuracy_first: str, days: str
) -> str:
    """``diagnosis.mastery``'s decision as a CASE over the counts of the latest attempts (of
    a fact and its twin together): how many, how many right, the speed (median time of the
    right ones), missed captures among the latest five, accuracy-first ones, different days."""
    d = diagnosis

    def quick(limit):
        return f"({accuracy_first} > 0 OR {speed} <= {limit})"

    return (
        f"CASE WHEN {n} <= {d.EARLY} AND {right} = {n} THEN '{d.RIGHT_SO_FAR}' "
        f"WHEN {n} <= {d.EARLY} THEN '{d.WRONG_SO_FAR}' "
        f"WHEN {n} >= {d.MASTERED_MIN_ATTEMPTS} "
        f"AND {_at_least(right, n, d.MASTERED_ACCURACY)} "
        f"AND {recent_omissions} = 0 AND {days} >= {d.MASTERED_MIN_DAYS} "
        f"AND {quick(d.MASTERED_MEDIAN_MS)} THEN '{d.MASTERED}' "
        f"WHEN {n} >= {d.FLUENT_MIN_ATTEMPTS} "
        f"AND {_at_least(right, n, d.FLUENT_ACCURACY)} "
        f"AND {quick(d.FLUENT_MEDIAN_MS)} THEN '{d.FLUENT}' "
        f"ELSE '{d.LEARNING}' END"
    )


# A child's fact as one integer key, so the sort and the groupings compare one number instead
# of three: the child's id times 2**32, plus a times 2**16, plus b (a and b are small positive
# integers, below 2**15). A child's id must stay below 2**31 (``MAX_PACKED_STUDENT_ID``;
# ``FactStat.objects.rebuild_for`` refuses larger ones: PostgreSQL would raise an overflow
# error, SQLite would silently turn the key into a float). ``POOLED_FACT`` is the key of the
# fact and its twin together (the smaller number first); ``FORWARD``: 1 when the child named
# the fact smaller number first (a square too), 0 the other way round.
MAX_PACKED_STUDENT_ID = 2**31
PACKED_FACT = "student_id * 4294967296 + a * 65536 + b"
UNPACKED_FACT = "g.fact / 4294967296, (g.fact / 65536) %% 65536, g.fact %% 65536"


def _pooled_fact(d: Dialect) -> str:
    return f"student_id * 4294967296 + {d.least}(a, b) * 65536 + {d.greatest}(a, b)"


# Each order's figures, from the rows of one fact and its twin: (name, aggregate over the rows
# of that order, with {o} the order's condition). The orders' columns are taken side by side
# in one GROUP BY over the pooled key, in the order the ranking window delivers the rows.
def _order_columns(d: Dialect, recent: int) -> list[tuple[str, str]]:
    latest_right_time = f"CASE WHEN {{o}} AND rk <= {recent} AND correct THEN response_ms END"
    median = d.to_int.format(d.median.format(latest_right_time))
    columns = [
        ("n", "COUNT(*) FILTER (WHERE {o})"),
        ("right_n", "COUNT(*) FILTER (WHERE {o} AND correct)"),
        ("missed", "COUNT(*) FILTER (WHERE {o} AND unanswered)"),
        ("last_at", "MAX(CASE WHEN {o} THEN created_at END)"),
        ("med", median),
        ("latest", d.window.replace("{cond}", f"{{o}} AND rk <= {recent}")),
    ]
    columns += [
        (error_column(kind), f"COUNT(*) FILTER (WHERE {{o}} AND NOT correct AND kind = '{kind}')")
        for kind in diagnosis.ERROR_KINDS
    ]
    return columns


def fact_stats(vendor: str, t: dict, students: int, *, trends: bool = False) -> str:
    """INSERT the FactStat rows of ``students`` children (their ids follow as parameters,
    then — with ``trends`` — the children's scope and their school's time zone, then the
    school's time zone for the days of the state, then ``updated_at``). ``t``: the table
    names. Per fact as asked: counts over all attempts, the median time of the right answers
    among its latest ``RECENT``, wrong answers by kind and by answer. Per fact and its twin
    together (both orders' rows carry the same): the state and the figures that decide it
    over their latest ``RECENT`` (``diagnosis.mastery``; ranked newest first, ties by id).

    One sort serves every count: the children's attempts are read once (``batch``,
    materialised, only the columns the counts need, "accuracy first" and the source of the
    time already decided per attempt), ranked within each fact and its twin (a running count
    gives each order's own rank in the same window), and one ``GROUP BY`` over the ranked
    rows, which arrive in its order, takes each order's counts side by side and the pooled
    ones together; the school-local day is worked out only for the latest ten. Only the wrong
    answers by answer need a second, small grouping (of the wrong rows alone).

    ``trends`` (PostgreSQL only: a data-modifying CTE): the same statement also INSERTs the
    children's DailyTrend rows of every day, as ``DailyTrend.objects.rebuild_children`` does."""
    d = dialect(vendor)
    if trends and vendor != "postgresql":
        raise ValueError("the trend rows ride along on PostgreSQL only")
    ids = ", ".join(["%s"] * students)
    recent, no_omission_in = diagnosis.RECENT, diagnosis.MASTERED_NO_OMISSION_IN
    retrieval = ", ".join(f"'{c}'" for c in sorted(diagnosis.RETRIEVAL_CONTEXTS))

    def pick(name):
        return f"CASE WHEN g.fwd = 1 THEN g.{name}_f ELSE g.{name}_r END"

    kind_columns = ", ".join(error_column(kind) for kind in diagnosis.ERROR_KINDS)
    kind_values = ", ".join(pick(error_column(kind)) for kind in diagnosis.ERROR_KINDS)

    local_day = "LOCAL_DAY(created_at, %s)"  # registered in classroom.models.rebuild_sql
    if vendor == "postgresql":
        local_day = "(created_at AT TIME ZONE %s)::date"
    day_rows = _day_rows_sql(t) if trends else ""
    insert = f"""INSERT INTO {t["fact"]} (student_id, a, b, attempts, correct, omissions,
  median_ms, state, recent_attempts, recent_correct, recent_days, speed_ms, speed_from_game,
  {kind_columns}, wrong_answers, last_attempt_at, latest, updated_at)"""
    # With a data-modifying CTE the WITH must open the statement; otherwise the INSERT does
    # (SQLite's cursor counts the rows written only of a statement that starts with INSERT).
    head, tail = ("", insert) if trends else (insert, "")
    swapped = (  # the key of the fact the other way round
        "g.pooled / 4294967296 * 4294967296 + g.pooled %% 65536 * 65536"
        " + (g.pooled / 65536) %% 65536"
    )
    state = state_case("g.rn", "g.rc", "g.speed", "g.rom", "g.af_n", "g.days")
    grouped = _grouped_sql(d, recent, no_omission_in, local_day)
    return f"""{head}
WITH {_batch_sql(t, ids, retrieval, day_rows, d)}
), {_ranked_sql()}
), {grouped}
), wrong AS (
  SELECT fact, {d.object_agg.format(d.text.format("answer"), "n")} AS answers
  FROM (SELECT fact, answer, COUNT(*) AS n FROM batch
        WHERE NOT correct AND answer IS NOT NULL
        GROUP BY fact, answer) w
  GROUP BY fact
), facts AS (
  SELECT g.*, o.fwd, CASE WHEN o.fwd = 1 THEN g.pooled ELSE {swapped} END AS fact
  FROM pooled g JOIN (SELECT 1 AS fwd UNION ALL SELECT 0) o
    ON (o.fwd = 1 AND g.n_f > 0) OR (o.fwd = 0 AND g.n_r > 0)
){tail}
SELECT {UNPACKED_FACT}, {pick("n")}, {pick("right_n")}, {pick("missed")}, {pick("med")},
       {state}, g.rn, g.rc, g.days,
       CASE WHEN g.af_n = 0 THEN g.speed END,
       g.af_n = 0 AND g.quick_med IS NULL AND g.game_med IS NOT NULL,
       {kind_values}, COALESCE(w.answers, {d.empty_object}), {pick("last_at")},
       {pick("latest")}, %s
FROM facts g LEFT JOIN wrong w ON w.fact = g.fact
"""


def _batch_sql(t: dict, ids: str, retrieval: str, day_rows: str, d) -> str:
    """fact_stats' first step: the children's attempts, read once, with what the counts need."""
    return f"""batch AS MATERIALIZED (
  SELECT id, student_id, {PACKED_FACT} AS fact, {_pooled_fact(d)} AS pooled,
         CASE WHEN a <= b THEN 1 ELSE 0 END AS fwd, answer, correct, kind,
         context = 'missed' AS missed_capture, response_ms, created_at,
         CASE WHEN context IN ({retrieval}) THEN 0 ELSE 1 END AS game_time,
         CASE WHEN match_id IN (
           SELECT m.match_id FROM {t["session_match"]} m
           JOIN {t["assignment"]} g ON g.id = m.assignment_id WHERE g.accuracy_first)
         OR warm_up_id IN (
           SELECT w.id FROM {t["warmup"]} w WHERE NOT w.timed) THEN 1 ELSE 0 END AS af
  FROM {t["attempt"]} WHERE student_id IN ({ids}){day_rows}"""


def _ranked_sql() -> str:
    """fact_stats' second step: each attempt's rank within its fact and twin, newest first
    (``prk``), and within its own order (``rk``, from a running count)."""
    return """ranked AS (
  SELECT id, pooled, fwd, answer IS NULL AS unanswered, correct, kind, missed_capture,
         response_ms, created_at, af, game_time, prk,
         CASE WHEN fwd = 1 THEN fwd_seen ELSE prk - fwd_seen END AS rk
  FROM (
    SELECT id, pooled, fwd, answer, correct, kind, missed_capture, response_ms, created_at, af,
           game_time, ROW_NUMBER() OVER w AS prk, SUM(fwd) OVER w AS fwd_seen
    FROM batch
    WINDOW w AS (PARTITION BY pooled ORDER BY created_at DESC, id DESC
                 ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
  ) x"""


def _day_rows_sql(t: dict) -> str:
    """fact_stats' trend rows (PostgreSQL: a data-modifying CTE over the same batch)."""
    return f"""
), day_rows AS (
  INSERT INTO {t["trend"]} (scope, scope_id, day, attempts, correct)
  SELECT %s, student_id, (created_at AT TIME ZONE %s)::date, COUNT(*),
         COUNT(*) FILTER (WHERE correct)
  FROM batch GROUP BY 2, 3"""


def _grouped_sql(d, recent, no_omission_in, local_day) -> str:
    """fact_stats' third step: one GROUP BY over the ranked rows (each order's counts side by
    side, the pooled ones together), and the speed the state goes by."""
    per_order = ",\n    ".join(
        f"{sql.format(o=cond)} AS {name}_{tag}"
        for tag, cond in (("f", "fwd = 1"), ("r", "fwd = 0"))
        for name, sql in _order_columns(d, recent)
    )

    def recent_median(condition):
        return d.to_int.format(
            d.median.format(
                f"CASE WHEN prk <= {recent} AND correct AND {condition} THEN response_ms END"
            )
        )

    return f"""grouped AS (
  SELECT pooled,
    {per_order},
    COUNT(*) FILTER (WHERE prk <= {recent}) AS rn,
    COUNT(*) FILTER (WHERE prk <= {recent} AND correct) AS rc,
    COUNT(*) FILTER (WHERE prk <= {no_omission_in} AND missed_capture) AS rom,
    COUNT(*) FILTER (WHERE prk <= {recent} AND af = 1) AS af_n,
    COUNT(DISTINCT CASE WHEN prk <= {recent} THEN {local_day} END) AS days,
    {recent_median("game_time = 0")} AS quick_med,
    {recent_median("game_time = 1")} AS game_med
  FROM ranked GROUP BY pooled
), pooled AS (
  SELECT g.*, COALESCE(g.quick_med, g.game_med) AS speed FROM grouped g"""


def medians_key(f: str) -> str:
    """The key of a FactStat row (table alias ``f``) in its class's ``medians``:
    "child:a:b" (``incremental`` writes the same)."""
    return f"{f}.student_id || ':' || {f}.a || ':' || {f}.b"


def class_stats(vendor: str, t: dict, classes: int) -> str:
    """INSERT the ClassFactStat rows of ``classes`` classes (ids as parameters, then
    ``updated_at``), rolled up from the FactStat rows of their children (a fact and its twin
    together): sums; ``children`` with a row; ``struggling``: children whose (pooled) state
    of it is wrong so far or learning, each once; ``median_ms``: the median of the children's
    median times (each order once), which ``medians`` keeps (``medians_key``). The incremental
    path adds to these rows instead (``class_delta``)."""
    d = dialect(vendor)
    struggling = ", ".join(f"'{state}'" for state in diagnosis.STRUGGLING)
    ids = ", ".join(["%s"] * classes)
    median = d.to_int.format(d.median.format("median_ms"))
    lo, hi = f"{d.least}(f.a, f.b)", f"{d.greatest}(f.a, f.b)"
    each = d.each.format("r.wrong_answers")
    # The classes' rows are read once (``rows``) for both the sums and the wrong answers.
    return f"""
INSERT INTO {t["class"]} (classroom_id, a, b, attempts, correct, omissions, median_ms,
                          children, struggling, wrong_answers, medians, updated_at)
WITH rows AS MATERIALIZED (
  SELECT s.classroom_id, {lo} AS lo, {hi} AS hi, f.student_id, f.attempts, f.correct,
         f.omissions, f.median_ms, f.state, f.wrong_answers, {medians_key("f")} AS k
  FROM {t["fact"]} f JOIN {t["student"]} s ON s.id = f.student_id
  WHERE s.classroom_id IN ({ids})
), wrong AS (
  SELECT classroom_id, lo, hi, {d.object_agg.format("k", "n")} AS answers FROM (
    SELECT r.classroom_id, r.lo, r.hi, e.key AS k, SUM({d.each_value}) AS n
    FROM rows r, {each} e
    GROUP BY r.classroom_id, r.lo, r.hi, e.key) x
  GROUP BY classroom_id, lo, hi
), totals AS (
  SELECT classroom_id, lo, hi,
    SUM(attempts) AS n, SUM(correct) AS right_n, SUM(omissions) AS missed,
    {median} AS med, COUNT(DISTINCT student_id) AS children,
    COUNT(DISTINCT CASE WHEN state IN ({struggling}) THEN student_id END) AS struggling,
    {d.object_agg.format("k", "median_ms")} AS medians
  FROM rows GROUP BY classroom_id, lo, hi
)
SELECT g.classroom_id, g.lo, g.hi, g.n, g.right_n, g.missed, g.med, g.children, g.struggling,
       COALESCE(w.answers, {d.empty_object}), g.medians, %s
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


# --- the incremental path's upserts (classroom/models/incremental.py) -------------------------
def json_rows(vendor: str, columns: dict[str, str]) -> tuple[list[str], str]:
    """The rows of one parameter, a JSON array of objects (what the incremental path sends: one
    string, which the driver passes as it is, instead of a parameter per column and row whose
    adaptation cost more than the statement): the expressions of ``columns`` (name: SQL type)
    and the FROM item. PostgreSQL: ``jsonb_to_recordset``; SQLite: ``json_each``."""
    if vendor == "postgresql":
        kinds = ", ".join(f"{name} {kind}" for name, kind in columns.items())
        return [f"x.{name}" for name in columns], f"jsonb_to_recordset(%s::jsonb) AS x({kinds})"
    return [f"json_extract(x.value, '$.{name}')" for name in columns], "json_each(%s) AS x"


def fact_upsert(vendor: str, t: dict, columns: dict[str, str], updated: list[str]) -> str:
    """INSERT or update a child's FactStat rows from one JSON parameter (``json_rows``): the
    rows' ``columns`` (the key, student, a and b, first); ``updated``: the columns a known
    row takes. SQLite needs a WHERE before ON CONFLICT to read it apart from a join's ON."""
    values, source = json_rows(vendor, columns)
    sets = ", ".join(f"{c} = excluded.{c}" for c in updated)
    return (
        f"INSERT INTO {t['fact']} ({', '.join(columns)}) SELECT {', '.join(values)} "
        f"FROM {source} WHERE 1 = 1 "
        f"ON CONFLICT (student_id, a, b) DO UPDATE SET {sets}"
    )


CLASS_DELTA_COLUMNS = {
    "lo": "integer",
    "hi": "integer",
    "attempts": "integer",
    "correct": "integer",
    "omissions": "integer",
    "median_ms": "integer",
    "children": "integer",
    "struggling": "integer",
    "wrong_answers": "jsonb",
    "medians": "jsonb",
}


def claim_pending(t: dict) -> str:
    """PostgreSQL: the incremental path's first statement. It locks the child's row and their
    class's (a second task for the child, or a classmate's, waits here), marks the child's
    pending attempts applied and returns them with what the counts need ("accuracy first"
    decided per attempt, as ``fact_stats`` does), each with the class, the school and its
    time zone. Parameters: the child twice. Nothing returned: no child or nothing pending.

    The lock comes first: the attempts are joined to the locked row, so no attempt is
    updated before it is held. The statement's snapshot is older than a wait for the lock,
    but an attempt a task that held it marked meanwhile is read again before it is updated
    (PostgreSQL's rule for a row updated since) and, applied now, left out: counted once.
    The FactStat rows are read by the next statement, whose snapshot sees that task's."""
    accuracy_first = (
        f"EXISTS (SELECT 1 FROM {t['session_match']} m JOIN {t['assignment']} g"
        " ON g.id = m.assignment_id WHERE m.match_id = p.match_id AND g.accuracy_first)"
        f" OR EXISTS (SELECT 1 FROM {t['warmup']} w WHERE w.id = p.warm_up_id AND NOT w.timed)"
    )
    return f"""
WITH child AS MATERIALIZED (
  SELECT s.id, s.classroom_id, c.school_id, h.timezone
  FROM {t["student"]} s JOIN {t["classroom"]} c ON c.id = s.classroom_id
  JOIN {t["school"]} h ON h.id = c.school_id
  WHERE s.id = %s FOR UPDATE OF s, c
)
UPDATE {t["attempt"]} p SET stats_applied = true FROM child
WHERE p.student_id = %s AND NOT p.stats_applied AND p.student_id = child.id
RETURNING p.id, p.a, p.b, p.answer, p.correct, p.kind, p.context, p.response_ms, p.created_at,
  {accuracy_first} AS af, child.classroom_id, child.school_id, child.timezone
"""


def class_delta(vendor: str, t: dict, *, first: str = "") -> str:
    """Add one child's changes to their class's rows of the touched pooled facts. The counts,
    the children with a row, the children struggling (+1, 0 or −1 for this child, sent as
    now + 2 × before) and the wrong answers are added to the row; a new row takes them as
    they are. ``medians``, every child's median time of each order of the fact (null when
    the window holds no right answer), takes the child's entries, and the median of
    medians is taken again from it: no classmate's FactStat row is read (a new row's is the
    child's own, ``median_ms`` of the changes). Parameters: the
    changes as one JSON array (``CLASS_DELTA_COLUMNS``), the class, then ``updated_at``.
    The sums give what ``class_stats`` would, since every other change to a class's rows
    (a move, an archive, a deletion, a repair) rebuilds them; the equality is tested on
    random histories (tests/classroom/test_incremental_stats.py).

    ``first`` (PostgreSQL): data-modifying CTEs the same statement runs too, their
    parameters first."""
    d = dialect(vendor)
    values, source = json_rows(vendor, CLASS_DELTA_COLUMNS)
    named = ", ".join(f"{v} AS {c}" for v, c in zip(values, CLASS_DELTA_COLUMNS, strict=True))
    table = t["class"]
    sums = ("attempts", "correct", "omissions", "children")
    added = ", ".join(f"{c} = {table}.{c} + excluded.{c}" for c in sums)
    # struggling: now (0 or 1) + 2 × before (0 or 1), so the proposed row is never negative
    was = "excluded.struggling / 2"  # %% is one % once the driver has read the parameters
    added += f", struggling = {table}.struggling + excluded.struggling %% 2 - {was}"
    old, new = d.each.format(f"{table}.wrong_answers"), d.each.format("excluded.wrong_answers")
    merged = (
        f"(SELECT COALESCE({d.object_agg.format('k', 'n')}, {d.empty_object}) FROM ("
        f"SELECT e.key AS k, SUM({d.each_value}) AS n FROM ("
        f"SELECT key, value FROM {old} UNION ALL SELECT key, value FROM {new}) e "
        "GROUP BY e.key) z)"
    )
    medians = d.merge.format(f"{table}.medians", "excluded.medians")

    def median_of(obj):
        return (
            f"(SELECT {d.to_int.format(d.median.format(d.each_value))} FROM {d.each.format(obj)} e)"
        )

    insert = f"""INSERT INTO {table} (classroom_id, a, b, attempts, correct, omissions, median_ms,
                     children, struggling, wrong_answers, medians, updated_at)"""
    # A data-modifying CTE makes the WITH open the statement; otherwise the INSERT does
    # (SQLite's cursor counts the rows written only of a statement that starts with INSERT).
    head, tail = (f"WITH {first},", insert) if first else (f"{insert}\nWITH", "")
    return f"""
{head} x AS (SELECT {named} FROM {source})
{tail}
SELECT %s, x.lo, x.hi, x.attempts, x.correct, x.omissions, x.median_ms, x.children,
       x.struggling, x.wrong_answers, x.medians, %s
FROM x WHERE 1 = 1 ON CONFLICT (classroom_id, a, b) DO UPDATE SET {added},
  medians = {medians}, median_ms = {median_of(medians)}, wrong_answers = {merged},
  updated_at = excluded.updated_at
"""
