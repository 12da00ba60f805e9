"""The per-worker separation of `make test` (tests/plugins/xdist_workers.py)."""

import pytest
import xdist_workers as plugin


def test_each_worker_gets_the_next_redis_database():
    assert plugin.worker_redis_url("redis://127.0.0.1:6379/0", 1) == "redis://127.0.0.1:6379/1"
    assert plugin.worker_redis_url("redis://h:6379", 2) == "redis://h:6379/2"
    assert plugin.worker_redis_url("redis://h/?db=3", 1) == "redis://h/?db=4"
    assert [plugin.redis_db(u) for u in ("redis://h/7", "redis://h?db=5", "redis://h")] == [7, 5, 0]


def test_each_worker_gets_its_own_slice_of_the_load_test_ports():
    assert plugin.worker_ports("8100-8199", 0, 2) == "8100-8149"
    assert plugin.worker_ports("8100-8199", 1, 2) == "8150-8199"
    with pytest.raises(pytest.UsageError):
        plugin.worker_ports("8100-8100", 0, 2)
