import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_home_page_loads_clean_in_chromium(page, live_server):
    response = page.goto(live_server.url + "/")
    assert response.status == 200
    page.wait_for_load_state("networkidle")
    assert page.locator("h1").first.is_visible()
    # htmx came from our own static files and initialised.
    assert page.evaluate("typeof window.htmx") == "object"
    assert page.console_errors == []
    assert page.foreign_requests == []
    # No horizontal scroll at 1366×768.
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    csp = response.headers.get("content-security-policy", "")
    assert "'unsafe-inline'" not in csp and "'unsafe-eval'" not in csp
