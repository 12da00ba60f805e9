"""A real Celery worker process consumes a task from the broker and writes to the database."""

import time
import uuid

import pytest

from classroom.models import WorkerHeartbeat
from classroom.tasks import heartbeat


def wait_for(predicate, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = predicate()
        if result:
            return result
        time.sleep(0.2)
    return None


def send_and_wait(queue):
    token = uuid.uuid4().hex
    heartbeat.apply_async(kwargs={"sent_at": token}, queue=queue)
    row = wait_for(lambda: WorkerHeartbeat.objects.filter(last_sent_at=token).first())
    assert row is not None, "the worker never wrote the task's row"
    assert row.hostname.startswith(queue)


def test_worker_consumes_task_and_writes_database(celery_worker, settings):
    send_and_wait(celery_worker)


def test_worker_consumes_task_from_redis(celery_worker, settings, redis_url):
    assert redis_url == settings.CELERY_BROKER_URL
    send_and_wait(celery_worker)


def test_worker_heartbeat_makes_healthz_green(celery_worker, client, settings):
    # The worker writes a heartbeat as soon as it is ready, without beat.
    assert wait_for(
        lambda: WorkerHeartbeat.objects.filter(hostname__startswith=celery_worker).exists()
    )
    settings.HEALTHZ_TOKEN = "t"  # a failure names the check
    response = client.get("/healthz", HTTP_AUTHORIZATION="Bearer t")
    assert response.status_code == 200, response.json()


@pytest.mark.django_db
def test_heartbeat_task_is_idempotent():
    heartbeat.apply(kwargs={"sent_at": "a"})
    heartbeat.apply(kwargs={"sent_at": "a"})
    assert WorkerHeartbeat.objects.count() == 1
