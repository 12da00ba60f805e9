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


def test_the_console_check_lets_an_aborted_poll_through_and_nothing_else(page, live_server):
    """A move aborts a poll in flight on purpose, and htmx reports it on the console; the browser
    tests take that report as expected (browser_kit.record_errors), and every other error still
    counts."""
    page.goto(live_server.url + "/")
    page.wait_for_load_state("networkidle")
    # An htmx request aborted in flight, as hx-sync="#board:replace" does to a poll.
    aborted = page.evaluate(
        """() => new Promise(done => {
            const el = document.createElement('div');
            el.setAttribute('hx-get', '/?aborted');
            el.setAttribute('hx-swap', 'none');
            document.body.append(el);
            htmx.process(el);
            const abort = () => htmx.trigger(el, 'htmx:abort');
            el.addEventListener('htmx:beforeSend', () => setTimeout(abort));
            let aborted = false;
            el.addEventListener('htmx:sendAbort', () => { aborted = true; });
            el.addEventListener('htmx:afterRequest', () => setTimeout(() => done(aborted), 100));
            htmx.trigger(el, 'click');
        })"""
    )
    assert aborted
    assert page.console_errors == []
    page.evaluate("() => console.error('htmx:sendError, [object HTMLElement]')")
    page.evaluate("() => setTimeout(() => { throw new Error('broken script'); })")
    page.wait_for_timeout(200)
    assert page.console_errors[0] == "htmx:sendError, [object HTMLElement]"
    assert "broken script" in page.console_errors[1]
