"""The answers nginx gives by itself (deploy/nginx.conf) are pages in the reader's language.

``manage.py edge_pages`` renders ``templates/edge/page.html`` for each status nginx makes (503
while the app server is away, 429 for too many connections from one address, 413 for a body
over the limit) in every language; nginx picks one by ``Accept-Language``. This test writes
the pages, starts nginx with the shipped file in front of an app server that is not there,
and reads each answer as a Spanish, an Italian and an English browser would."""

from __future__ import annotations

import http.client
import os
import pwd
import select
import socket
import subprocess
import time

import pytest
from django.core.management import call_command
from django.utils import translation
from django.utils.html import escape

from classroom.management.commands.edge_pages import STATUSES
from classroom.management.commands.edge_pages import page

from .test_slow_clients import free_port
from .test_slow_clients import nginx_binary
from .test_slow_clients import render

LANGUAGES = {"es-ES,es;q=0.9,en;q=0.5": "es", "it-IT,it;q=0.8": "it", "en-GB,en;q=0.9": "en"}


def test_the_pages_are_written_in_every_language_and_need_nothing_else(tmp_path):
    call_command("edge_pages", str(tmp_path))
    for language in ("en", "es", "it"):
        for status in STATUSES:
            html = (tmp_path / language / f"{status}.html").read_text()
            with translation.override(language):
                said = page(status)
            assert f'<html lang="{language}">' in html
            assert escape(said["title"]) in html and escape(said["text"]) in html
            # Nothing from elsewhere: the app that serves the rest may be the thing away.
            assert "src=" not in html and "<link" not in html and "://" not in html
    english = (tmp_path / "en" / "503.html").read_text()
    spanish = (tmp_path / "es" / "503.html").read_text()
    italian = (tmp_path / "it" / "503.html").read_text()
    assert len({english, spanish, italian}) == 3
    assert "data-outage" in spanish  # static/js/app.js reads it and sends the request again


def ask(port: int, method: str, path: str, *, language: str, body: bytes = b""):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"Accept-Language": language, "Host": "127.0.0.1"}
    if body:
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    conn.request(method, path, body=body or None, headers=headers)
    response = conn.getresponse()
    answer = response.status, dict(response.getheaders()), response.read().decode()
    conn.close()
    return answer


def until(request, status: int, seconds: float = 10.0):
    """Send ``request()`` until it answers ``status`` (nginx sees a connection open or close
    a moment after the client does); its last answer."""
    deadline = time.monotonic() + seconds
    answer = request()
    while answer[0] != status and time.monotonic() < deadline:
        time.sleep(0.05)
        answer = request()
    return answer


def held_then(port: int, request):
    """``request()`` while another connection holds a request whose body is still coming.

    The holder is opened afresh for each try: nginx may still count the previous request for
    a moment after answering it, and then refuses the holder itself (an answer on the holder)
    instead of holding it; such a try answers status 0 and ``until`` tries again."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as holder:
        holder.sendall(
            b"POST /join/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\n\r\ncode="
        )
        refused, _, _ = select.select([holder], [], [], 0.1)
        if refused:
            return 0, {}, ""
        return request()


def too_big(port: int, language: str):
    """A request that announces a body of 2 MB (over client_max_body_size) and sends none."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(
            b"POST /classes/1/roster/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            b"Content-Length: 2000000\r\nAccept-Language: " + language.encode() + b"\r\n\r\n"
        )
        response = http.client.HTTPResponse(conn)
        response.begin()
        return response.status, dict(response.getheaders()), response.read().decode()


@pytest.mark.slow
def test_nginx_answers_in_the_readers_language(tmp_path):
    nginx = nginx_binary()
    if nginx is None:
        pytest.skip("needs nginx: apt-get install nginx-light (.ci/run installs it)")
    pages = tmp_path / "edge"
    call_command("edge_pages", str(pages))
    prefix = tmp_path / "nginx"
    for folder in ("temp", "logs"):
        (prefix / folder).mkdir(parents=True)
    proxy_port, nobody = free_port(), free_port()  # nothing listens on `nobody`
    conf = render(
        {
            "NGINX_USER": pwd.getpwuid(os.getuid()).pw_name,
            "NGINX_LISTEN": f"127.0.0.1:{proxy_port}",
            "NGINX_PID": str(prefix / "nginx.pid"),
            "NGINX_TEMP": str(prefix / "temp"),
            "NGINX_LOGS": str(prefix / "logs"),
            "BALANCER": "127.0.0.1",
            "APP_PAGES": f"127.0.0.1:{nobody}",
            "APP_STREAMS": f"127.0.0.1:{nobody}",
            "NGINX_PAGES": str(pages),
        }
    )
    # One connection per address, so that the test reaches the limit with two.
    assert "limit_conn per_address 500;" in conf
    (prefix / "nginx.conf").write_text(conf.replace("per_address 500;", "per_address 1;"))
    proc = subprocess.Popen(
        [nginx, "-p", str(prefix), "-c", str(prefix / "nginx.conf"), "-g", "daemon off;"],
        stderr=(tmp_path / "nginx.err").open("w"),
    )
    try:
        for _ in range(100):
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", proxy_port)) == 0:
                    break
            time.sleep(0.05)
        else:
            pytest.fail((tmp_path / "nginx.err").read_text())
        for language, code in LANGUAGES.items():
            with translation.override(code):
                busy, away, big = page(429), page(503), page(413)

            def get(path, language=language):
                return ask(proxy_port, "GET", path, language=language)

            # The app server away: 503, Retry-After, the notice app.js reads. (With one
            # connection allowed, a request sent the moment the previous one was answered
            # may still find it counted, so each waits for its answer: ``until``.)
            status, headers, html = until(lambda: get("/play/new/"), 503)
            assert status == 503 and headers.get("Retry-After") == "5", (status, headers)
            assert f'lang="{code}"' in html and escape(away["text"]) in html
            assert headers.get("Content-Type") == "text/html; charset=utf-8"
            status, headers, html = until(
                lambda language=language: ask(
                    proxy_port, "POST", "/join/", language=language, body=b"code=ABCDEFG"
                ),
                503,
            )
            assert status == 503 and escape(away["title"]) in html
            # Too many connections from one address: a request whose body is still coming
            # holds the one allowed; the next is refused with the page.
            status, headers, html = until(
                lambda get=get: held_then(proxy_port, lambda: get("/")), 429
            )
            assert status == 429 and headers.get("Retry-After") == "10", (status, headers)
            assert f'lang="{code}"' in html and escape(busy["text"]) in html
            # A body over the limit: 413, refused on its length, never passed on.
            status, headers, html = until(
                lambda language=language: too_big(proxy_port, language), 413
            )
            assert status == 413 and "Retry-After" not in headers, (status, headers)
            assert f'lang="{code}"' in html and escape(big["text"]) in html
    finally:
        proc.terminate()
        proc.wait(timeout=10)
