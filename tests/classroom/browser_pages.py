"""What the classroom's browser tests share: a browser page of a signed-in child or grown-up."""

from browser_kit import session_cookie
from django.test import Client

VIEWPORT = {"width": 1366, "height": 768}


def teacher_session(user) -> str:
    """The session key of ``user`` logged in."""
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


def log_in(page, live_server, user) -> None:
    """The page's browser context logged in as ``user``."""
    page.context.add_cookies(session_cookie(live_server, teacher_session(user)))


def new_page(browser, live_server, session_key, *, touch=False, timeout=20_000):
    """A page in a new context that holds ``session_key``; ``page.console_errors`` collects the
    console's errors and the page's uncaught exceptions."""
    context = browser.new_context(viewport=VIEWPORT, has_touch=touch)
    context.add_cookies(session_cookie(live_server, session_key))
    page = context.new_page()
    page.set_default_timeout(timeout)
    page.console_errors = []
    page.on("console", lambda m: m.type == "error" and page.console_errors.append(m.text))
    page.on("pageerror", lambda e: page.console_errors.append(str(e)))
    return context, page
