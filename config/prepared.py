"""Querysets compiled once and run again with a new value: for the few queries every board
request makes.

Django compiles a queryset to SQL each time it is evaluated. For a small query with
``select_related`` that costs more than the query itself: the child of a board request
(``current_student``: the child with its class and school) took 0.82 ms of CPU through the ORM
and 0.12 ms as the same SQL through a cursor; the match with its seats 0.9 ms against 0.13 ms
(docs/performance.md, "Load"). A ``PreparedQuery`` builds the queryset once per thread and
database with a marker value, keeps its SQL, parameters and compiler, and then runs that SQL
with the value in place of the marker, turning the rows into model instances as the ORM does
(its converters, ``from_db`` and the ``select_related`` populators). The instances are the
ORM's own: saving, related managers and refreshing behave as usual.

Only for querysets of model instances with ``select_related`` and simple filters, where the
value appears as a plain parameter (a primary key, a public id). Tests compare every prepared
query with its queryset on SQLite and PostgreSQL.

It reads Django 6.1's compiler internals (``klass_info``, ``select``, ``results_iter``,
``QuerySet._fetch_mode``, ``get_related_populators``). It stays because ``make bench`` shows it
matters (``prepared_seats_speedup``, ``prepared_child_speedup``: each query 2.6-6 times
faster, docs/performance.md); ``tests/foundation/test_prepared_query.py`` fails on any other
Django minor version until someone checks these internals again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial

from django.db import connections
from django.db.models.query import get_related_populators


class PreparedQuery:
    """``PreparedQuery(lambda v: Model.objects.filter(pk=v), marker=-1)``: ``.all(value)``
    returns the instances of ``build(value)``, ``.first(value)`` the first or None.

    ``marker`` is a value of the parameter's type that the query never meets (so that it can
    be found among the compiled parameters); ``build`` must order and slice as needed."""

    def __init__(self, build: Callable, *, marker):
        self.build = build
        self.marker = marker
        self._local = threading.local()

    def _compiled(self, using: str):
        cache = self._local.__dict__.setdefault("by_db", {})
        if using not in cache:
            queryset = self.build(self.marker).using(using)
            compiler = queryset.query.get_compiler(using=using)
            sql, params = compiler.as_sql()
            slots = [i for i, p in enumerate(params) if p == self.marker]
            if not slots:
                raise ValueError("the marker is not among the query's parameters")
            klass_info, select = compiler.klass_info, compiler.select
            fetch_mode = queryset._fetch_mode
            model = klass_info["model"]
            fields = klass_info["select_fields"]
            start, end = fields[0], fields[-1] + 1
            init_list = [f[0].target.attname for f in select[start:end]]
            from_db = partial(model.from_db, fetch_mode=fetch_mode)
            populators = get_related_populators(klass_info, select, using, fetch_mode)
            cache[using] = (compiler, sql, list(params), slots, from_db, init_list, start, end,
                            populators)  # fmt: skip
        return cache[using]

    def all(self, value, using: str = "default") -> list:
        compiler, sql, params, slots, from_db, init_list, start, end, populators = self._compiled(
            using
        )
        params = list(params)
        for slot in slots:
            params[slot] = value
        with connections[using].cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        objects = []
        for row in compiler.results_iter(results=[rows]):
            obj = from_db(using, init_list, row[start:end])
            for populator in populators:
                populator.populate(row, obj)
            objects.append(obj)
        return objects

    def first(self, value, using: str = "default"):
        objects = self.all(value, using)
        return objects[0] if objects else None
