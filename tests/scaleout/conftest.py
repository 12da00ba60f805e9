"""Fixtures of the scale-out and load tests: production servers (bench/load/stack.py) on this
run's test database and Redis, and a browser: stdlib HTTP, cookies kept by hand (the
production cookies are Secure; the servers are reached on plain HTTP with
``X-Forwarded-Proto: https``, as behind the TLS proxy), htmx headers, CSRF as htmx sends it."""

from __future__ import annotations

import http.client
import os
import re
from dataclasses import dataclass
from dataclasses import field
from urllib.parse import urlencode
from urllib.parse import urlsplit
from urllib.parse import urlunsplit

import pytest


def server_database_url() -> str:
    """DATABASE_URL pointing another process at this run's test database; through PgBouncer
    (transaction pooling) when SCALEOUT_PGBOUNCER=host:port is set (docs/deploy.md)."""
    from django.db import connection

    parts = urlsplit(os.environ["DATABASE_URL"])
    parts = parts._replace(path=f"/{connection.settings_dict['NAME']}")
    pgbouncer = os.environ.get("SCALEOUT_PGBOUNCER", "")
    if pgbouncer:
        user = parts.netloc.rpartition("@")[0]
        parts = parts._replace(netloc=f"{user}@{pgbouncer}" if user else pgbouncer)
    return urlunsplit(parts)


def server_env() -> dict[str, str]:
    env = {"DATABASE_URL": server_database_url()}
    if os.environ.get("SCALEOUT_PGBOUNCER"):
        env["DISABLE_SERVER_SIDE_CURSORS"] = "true"
    return env


@dataclass
class Answer:
    status: int
    headers: dict
    text: str
    server: str

    @property
    def redirect(self) -> str:
        return self.headers.get("hx-redirect", "")


@dataclass
class Browser:
    """One child's Chromebook."""

    name: str
    cookies: dict = field(default_factory=dict)
    served_by: dict = field(default_factory=dict)

    def request(self, base: str, method: str, path: str, fields=None, htmx=True) -> Answer:
        parts = urlsplit(base)
        headers = {"X-Forwarded-Proto": "https", "Host": parts.netloc}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if htmx:
            headers["HX-Request"] = "true"
        body = None
        if method == "POST":
            body = urlencode(fields or [], doseq=True)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            headers["Origin"] = f"https://{parts.netloc}"
            headers["X-CSRFToken"] = self.cookies.get("csrftoken", "")
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            text = response.read().decode()
            for raw in response.headers.get_all("Set-Cookie") or []:
                name, _, rest = raw.partition("=")
                value = rest.split(";", 1)[0]
                if value in {"", '""'} or "max-age=0" in raw.lower():
                    self.cookies.pop(name.strip(), None)
                else:
                    self.cookies[name.strip()] = value
            answer = Answer(
                response.status,
                {k.lower(): v for k, v in response.getheaders()},
                text,
                base,
            )
        finally:
            conn.close()
        self.served_by[base] = self.served_by.get(base, 0) + 1
        if answer.status >= 500:
            raise AssertionError(f"{self.name}: {method} {path} on {base} -> {answer.status}")
        return answer

    @staticmethod
    def match_id(url: str) -> str:
        found = re.search(r"/play/(\w+)/", url)
        assert found, url
        return found.group(1)

    def sign_in(self, base: str, code: str, student) -> None:
        page = f"/join/{code}/{student.pk}/"
        assert self.request(base, "GET", page, htmx=False).status == 200
        answer = self.request(
            base, "POST", page, [("pictures", p) for p in student.pictures.split(",")]
        )
        assert answer.status == 200 and answer.redirect == "/me/", (answer.status, answer.text)


# --- fixtures -------------------------------------------------------------------------------


@pytest.fixture
def browser_for():
    """browser_for("Ada") -> a new Browser."""
    return Browser


@pytest.fixture
def production_servers(postgres, redis_url, transactional_db, tmp_path):
    """production_servers(web_servers=2) -> a context manager starting uvicorn servers and a
    Celery worker on this run's test database and Redis (bench/load/stack.py)."""
    from bench.load.stack import production_stack

    def start(web_servers: int = 1, **web_kw):
        return production_stack(
            tmp_path / "logs",
            web_servers=web_servers,
            env_extra=server_env(),
            **web_kw,
        )

    return start
