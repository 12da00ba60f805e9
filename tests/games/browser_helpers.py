"""Helpers of the browser tests of the games (imported, not fixtures)."""

from browser_kit import act
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

from games import registry
from games.models import Match

# The browser's language for each of the site's (Accept-Language).
LOCALES = {"en": "en-GB", "es": "es-ES", "it": "it-IT"}


def start_family_game(browser, live_server, slug, language="en"):
    """A game of ``slug`` for Ana and two computer players, set up from the Family-night page in
    a new browser context (1366×768, touch, the browser's language ``language``: en, es or
    it; the page's links and buttons are found by their names in it) that collects the page's
    script errors. Returns (context, page, errors, match)."""
    context = browser.new_context(
        viewport={"width": 1366, "height": 768}, has_touch=True, locale=LOCALES[language]
    )
    page = context.new_page()
    page.set_default_timeout(20_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    with translation.override(language):
        set_up = gettext("Set up %(name)s") % {"name": registry.get(slug).name}
        player_1 = gettext("Name of player %(n)s") % {"n": 1}
        start = gettext("Start the game")
    page.goto(live_server.url + reverse("games:family"))
    page.get_by_role("link", name=set_up).click()
    page.locator("label.choice-pill", has_text="3").first.click()
    page.get_by_label(player_1).fill("Ana")
    page.get_by_role("button", name=start).click()
    page.wait_for_selector("#board")
    match = Match.objects.latest("created_at")
    assert match.game == slug and match.seats.filter(kind="bot").count() == 2
    return context, page, errors, match


def page_and_state(page, match):
    """The page's HTML and the match's state *as that page shows it*. A computer player may
    move between reading the page and reading the match (a card given away is in another hand
    by then, though the page rightly showed it in the giver's), so this waits until the page
    and the match are at the same version."""
    for _ in range(50):
        html = page.content()
        match.refresh_from_db()
        if f'data-version="{match.version}"' in html:
            return html, match.engine.load(match.state)
        page.wait_for_timeout(200)
    raise AssertionError("the page never caught up with the match")


def assert_page_hides_the_others(page, match, me=0):
    """No other seat's private token (hand cards, secret choice, role) anywhere in the page,
    and every one of mine there. Returns the state checked."""
    html, state = page_and_state(page, match)
    for other in range(match.seats.count()):
        if other != me:
            leaked = [t for t in match.engine.private(state, other) if t in html]
            assert not leaked, (other, leaked)
    return html, state


WIDER_THAN_THE_WINDOW = """() => {
  const width = window.innerWidth;
  if (document.documentElement.scrollWidth <= width) return [];
  const wide = [];
  for (const el of document.body.querySelectorAll('*')) {
    const box = el.getBoundingClientRect();
    if (box.right > width + 0.5 && box.width > 0) {
      wide.push(`${el.tagName.toLowerCase()}.${[...el.classList].join('.')}`
                + ` right=${Math.round(box.right)} width=${Math.round(box.width)}`);
    }
  }
  return [`scrollWidth=${document.documentElement.scrollWidth} innerWidth=${width}`,
          ...wide.slice(0, 12)];
}"""


def wider_than_the_window(page) -> list[str]:
    """Empty when nothing scrolls sideways once the page has settled; otherwise the widths and
    the elements that stick out past the window's right edge, so a failure says what to fix.
    A board being swapped in (htmx's swapping and settling classes) is measured when the
    swap is done: up to two seconds for a page that still sticks out."""
    wide = []
    for _ in range(10):
        page.wait_for_function(
            "() => !document.querySelector('.htmx-swapping, .htmx-settling, .htmx-added')"
        )
        wide = page.evaluate(WIDER_THAN_THE_WINDOW)
        if not wide:
            return []
        page.wait_for_timeout(200)
    return wide


# --- a move of the person, by the board's CSS classes (the same in every language) ------------

# What the person taps in Munchkin, in this order of preference, when it is their move.
MUNCHKIN_PREFERENCE = [
    "button.mk-ready",
    "button.mk-play",  # put races, classes and items on the table
    "button.mk-kick",
    "button.mk-fight",
    "button.mk-loot",
    "button.mk-end_turn",
    "button.mk-roll",
    "button.mk-accept",
    "button.mk-pass",
    "button.mk-take",
    "button.mk-give",
    "button.mk-discard",
    "button.mk-decline",
]


def munchkin_move(page, plays_left=True) -> str | None:
    """Tap the first button of MUNCHKIN_PREFERENCE the board shows (cards onto the table only
    while ``plays_left``) and wait for the new board. The selector tapped, None: nothing."""
    for selector in MUNCHKIN_PREFERENCE:
        if selector == "button.mk-play" and not plays_left:
            continue
        button = page.locator(selector)
        if button.count():
            act(page, lambda b=button: b.first.click())
            return selector
    return None


def trono_move(page, phase) -> bool:
    """The person's move in Il Trono di Mortadella in ``phase`` (the board's data-phase): roll
    or keep, pick dice, take the first effect, and so on. False: a phase it does not know."""
    if phase == "roll":
        button = page.locator("button.tr-roll, button.tr-keep").first
        act(page, lambda b=button: b.click())
    elif phase == "choose":
        boxes = page.locator(".tr-die-pick input")
        need = 1 if page.locator(".tr-kept").count() else 3
        for i in range(need):
            boxes.nth(i).check()
        act(page, lambda: page.locator("button.tr-use").click())
    elif phase == "resolve":
        option = page.locator(".tr-effects button.tr-option").first
        act(page, lambda o=option: o.click())
    elif phase == "cancel":
        act(page, lambda: page.locator("button.tr-cancel").click())
    elif phase == "plague":
        act(page, lambda: page.locator(".tr-question button.tr-option").first.click())
    elif phase == "lombard":
        act(page, lambda: page.locator("button.tr-no_reroll").click())
    else:
        return False
    return True
