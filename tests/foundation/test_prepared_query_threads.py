"""config.prepared.PreparedQuery from several threads at once: the SQL is the process's, each
thread runs it on its own connection. A module of its own: its test is transactional (the
threads' connections see committed rows only), which the module-wide ``world`` transaction of
test_prepared_query.py would block on PostgreSQL (a TRUNCATE under pending trigger events)."""

import threading

import pytest
from django.db import connection

from classroom.models import Student
from config.prepared import PreparedQuery


@pytest.mark.django_db(transaction=True)
def test_threads_share_the_sql_and_each_runs_its_own_query():
    query = PreparedQuery(lambda pk: Student.objects.filter(pk=pk), marker=-5)
    seen = []

    def run():
        try:
            seen.append(query.all(1))
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == [[], [], []]
