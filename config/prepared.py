"""Querysets whose SQL is made once and run again with a new value: for the two queries every
board request makes (the match with its seats, the signed-in child with class and school).

Why not the ORM each time: Django builds and compiles a queryset's SQL on every evaluation, and
for these small queries that costs more than the query itself. Measured with the benchmark this
module replaced (8 December 2026, PostgreSQL, same process, alternating): the child 2.29 ms
through the ORM against 0.89 ms prepared, the match with its seats 1.94 against 0.88 ms; the
load test's server CPU per child-minute rose from about 290 to 330-360 ms without it. No
maintained library caches a compiled queryset (Django has no prepared-query API), so this is
written here, with public names only (``make lint``'s private-name check):

- the SQL comes from ``QuerySet.values_list`` over every concrete field of the model and of
  each related model named (``related``), whose column order is the order asked for, made once
  per process with a marker value (``Query.sql_with_params``);
- each column is converted as the ORM converts it (``Field.get_col`` and the backend's and the
  field's ``get_db_converters``: dates on SQLite, JSON, booleans);
- the instances are the ORM's own (``Model.from_db``), linked as ``select_related`` links them
  (assigning the related object), so saving, related managers and refreshing behave as usual.

``tests/foundation/test_prepared_query.py`` compares every prepared query with its queryset,
field by field, on SQLite and PostgreSQL: a Django upgrade that changed any of this fails there.
Only the default database is prepared; another alias runs the queryset itself.
"""

from __future__ import annotations

from collections.abc import Callable

from django.db import DEFAULT_DB_ALIAS
from django.db import connections


class PreparedQuery:
    """``PreparedQuery(lambda v: Seat.objects.filter(match__public_id=v).order_by("number"),
    related=("match",), marker="~marker~")``: ``.all(value)`` returns the instances of
    ``build(value)`` with their ``related`` objects (foreign keys, as ``select_related``
    names them: ``"classroom"``, ``"classroom__school"``); ``.first(value)`` the first or None.

    ``marker`` is a value of the parameter's type that the query never meets (so that it can be
    found among the compiled parameters); ``build`` filters and orders, never slices."""

    def __init__(self, build: Callable, *, related: tuple[str, ...] = (), marker):
        self.build = build
        self.related = tuple(related)
        self.marker = marker
        self._compiled_by_vendor: dict[str, tuple] = {}

    def queryset(self, value):
        """What this query runs, through the ORM (another database alias, and the tests)."""
        return self.build(value).select_related(*self.related)

    def _plan(self) -> tuple:
        """The SQL, the marker's places and, per model, its fields' columns (made once per
        database vendor: the backend's converters differ)."""
        connection = connections[DEFAULT_DB_ALIAS]
        found = self._compiled_by_vendor.get(connection.vendor)
        if found is not None:
            return found
        queryset = self.build(self.marker)
        models = [("", queryset.model)]
        for path in self.related:
            owner = dict(models)["__".join(path.split("__")[:-1])]
            models.append((path, owner._meta.get_field(path.split("__")[-1]).related_model))
        paths, parts = [], []
        for path, model in models:
            fields = list(model._meta.concrete_fields)
            start = len(paths)
            paths += [f"{path}__{f.attname}" if path else f.attname for f in fields]
            converters = []
            for field in fields:
                column = field.get_col(model._meta.db_table)
                converters.append(
                    (
                        column,
                        connection.ops.get_db_converters(column)
                        + column.get_db_converters(connection),
                    )
                )
            parts.append((path, model, [f.attname for f in fields], start, converters))
        sql, params = queryset.values_list(*paths).query.sql_with_params()
        slots = [i for i, p in enumerate(params) if p == self.marker]
        if not slots:
            raise ValueError("the marker is not among the query's parameters")
        found = self._compiled_by_vendor[connection.vendor] = (sql, list(params), slots, parts)
        return found

    def all(self, value, using: str = DEFAULT_DB_ALIAS) -> list:
        if using != DEFAULT_DB_ALIAS:
            return list(self.queryset(value).using(using))
        sql, params, slots, parts = self._plan()
        params = list(params)
        for slot in slots:
            params[slot] = value
        connection = connections[using]
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        objects = []
        for row in rows:
            made: dict[str, object] = {}
            for path, model, names, start, converters in parts:
                values = []
                for offset, (column, funcs) in enumerate(converters):
                    value_ = row[start + offset]
                    for func in funcs:
                        value_ = func(value_, column, connection)
                    values.append(value_)
                pk = values[names.index(model._meta.pk.attname)]
                obj = None if pk is None else model.from_db(using, names, values)
                made[path] = obj
                owner_path, _, name = path.rpartition("__")
                if path and made[owner_path] is not None:
                    setattr(made[owner_path], name, obj)
            objects.append(made[""])
        return objects

    def first(self, value, using: str = DEFAULT_DB_ALIAS):
        objects = self.all(value, using)
        return objects[0] if objects else None
