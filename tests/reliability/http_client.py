"""One device talking to a server we started, over real HTTP: its session cookie (made in the
test database), its other cookies, form posts with the CSRF header. Used by the fault tests
and by stack_soak_driver.py (a script of its own, which imports it once Django is set up)."""

import urllib.error
import urllib.request
from http.cookies import SimpleCookie
from importlib import import_module
from urllib.parse import urlencode


class Browser:
    """``child``: signed in as that child; ``store``: the session backend the server reads."""

    def __init__(self, base: str, player_key: str, child=None, store="db", timeout=30):
        session = import_module(f"django.contrib.sessions.backends.{store}").SessionStore()
        session["player_key"] = player_key
        if child is not None:
            session["student_id"] = child.pk
            session["signin_generation"] = child.classroom.signin_generation
            session["signin_key"] = child.signin_key
        session.create()
        self.base = base
        self.timeout = timeout
        self.cookies = {"sessionid": session.session_key}

    def request(self, method: str, path: str, data=None, htmx=True) -> tuple[int, str]:
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        if htmx:
            headers["HX-Request"] = "true"
        payload = None
        if method == "POST":
            headers["X-CSRFToken"] = self.cookies.get("csrftoken", "")
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            payload = urlencode(data or {}, doseq=True).encode()
        request = urllib.request.Request(  # noqa: S310 (our own server on 127.0.0.1)
            self.base + path, data=payload, headers=headers, method=method
        )
        try:
            response = urllib.request.urlopen(request, timeout=self.timeout)  # noqa: S310
        except urllib.error.HTTPError as error:
            response = error
        self.headers = response.headers  # the last answer's (Retry-After: test_faults.py)
        for header in response.headers.get_all("Set-Cookie") or []:
            for name, morsel in SimpleCookie(header).items():
                self.cookies[name] = morsel.value
        return response.status, response.read().decode("utf-8", "replace")

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, data, **kw):
        return self.request("POST", path, data, **kw)
