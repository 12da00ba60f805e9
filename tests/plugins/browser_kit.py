"""What the browser tests share (imported, not a plugin: tests/plugins is on pytest's
pythonpath): reading and changing the board the way a person does, and a child's signed-in
session made on the server."""

from django.test import Client

# Reads a MultipliPotion board the way a child does and returns the capture to make, if any:
# [potion id, potion id, monster id], or null.
FIND_CAPTURE = """() => {
  const mine = [...document.querySelectorAll('.area-me label.slot-pick')].map(l => ({
    id: l.querySelector('input').value, v: +l.querySelector('.mp-potion b').textContent}));
  const monsters = [...document.querySelectorAll('.area-them button.slot-target')].map(b => ({
    id: b.value, v: +b.querySelector('.mp-monster b').textContent}));
  for (let i = 0; i < mine.length; i++) for (let j = i + 1; j < mine.length; j++)
    for (const m of monsters)
      if (mine[i].v * mine[j].v === m.v) return [mine[i].id, mine[j].id, m.id];
  return null;
}"""


def version(page) -> str:
    """The version of the board the page shows."""
    return page.locator("#board").get_attribute("data-version")


def act(page, click):
    """Click something on the board and wait until the new board is swapped in."""
    before = version(page)
    click()
    page.wait_for_function(
        "v => { const b = document.querySelector('#board'); return b && b.dataset.version !== v; }",
        arg=before,
    )


# htmx reports on the console every request it aborts: "htmx:afterRequest, <element>" then
# "htmx:sendAbort, <element>". A move or a teacher's button aborts a poll in flight on purpose
# (hx-sync="#board:replace", docs/platform.md "Live updates"), so those two are not errors. A
# failed request is still one: htmx reports it as htmx:sendError, htmx:timeout or
# htmx:responseError, which stay.
EXPECTED_CONSOLE = ("htmx:afterRequest, ", "htmx:sendAbort, ")


def record_errors(page, errors: list) -> None:
    """Append to ``errors`` the page's console errors (but htmx's report of an aborted poll) and
    uncaught exceptions."""

    def console(message):
        if message.type == "error" and not message.text.startswith(EXPECTED_CONSOLE):
            errors.append(message.text)

    page.on("console", console)
    page.on("pageerror", lambda e: errors.append(str(e)))


def session_cookie(live_server, session_key):
    return [{"name": "sessionid", "value": session_key, "url": live_server.url}]


def child_session(student) -> str:
    """The session key of ``student`` signed in (as the picture sign-in leaves it)."""
    session = Client().session
    session["student_id"] = student.pk
    session["signin_generation"] = student.classroom.signin_generation
    session["signin_key"] = student.signin_key
    session["player_key"] = f"browser-{student.pk}"
    session.save()
    return session.session_key


# What a page says: the lines of its visible text, each of its text nodes that is shown (a
# visually hidden one too: a screen reader says it), the charts' titles, the words of its
# attributes that people see or hear (a tooltip, a label, a placeholder) and its title.
PAGE_WORDS = """() => {
  const words = [document.title, ...document.body.innerText.split('\\n')];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const el = walker.currentNode.parentElement;
    if (el && (el.checkVisibility() || el.closest('svg title, svg desc')))
      words.push(walker.currentNode.textContent);
  }
  for (const el of document.body.querySelectorAll('[title], [aria-label], [placeholder], [alt]'))
    for (const name of ['title', 'aria-label', 'placeholder', 'alt'])
      if (el.hasAttribute(name)) words.push(el.getAttribute(name));
  return words.map(w => w.replace(/\\s+/g, ' ').trim()).filter(Boolean);
}"""


def page_words(page) -> list[str]:
    """The texts of the page people see or hear (PAGE_WORDS), once the page has loaded."""
    page.wait_for_load_state("load")
    return page.evaluate(PAGE_WORDS)


def capture_seen(page):
    """A capture the board offers (FIND_CAPTURE), made as a child makes it: tick the two
    potions, tap the monster. (potion a, potion b, monster), or None when there is none."""
    capture = page.evaluate(FIND_CAPTURE)
    if capture:
        a, b, monster = capture
        page.locator(f'label.slot-pick:has(input[value="{a}"])').click()
        page.locator(f'label.slot-pick:has(input[value="{b}"])').click()
        act(page, lambda: page.locator(f'button.slot-target[value="{monster}"]').click())
    return capture
