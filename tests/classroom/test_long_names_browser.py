"""Long names in chromium (issue 24, item 3): on the name picker, the login cards (printed
too) and the live wall a name wraps between its words and is written smaller when long; no
word is broken in two and nothing spills over a card's border."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from classroom.models import Classroom
from classroom.models import Membership
from classroom.models import School
from classroom.models import Student

from .browser_pages import new_page
from .browser_pages import teacher_session

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NAMES = ["Maximilianus", "Anna-Sophia Maximiliana", "Bartholomew Alexander", "Ada", "Wolfgang"]

# Each word of the element's text: the number of boxes it is drawn in (more than one: broken).
BROKEN_WORDS = """el => {
  const broken = [];
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    for (const m of node.textContent.matchAll(/\\S+/g)) {
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
      if (tops.size > 1) broken.push(m[0]);
    }
  }
  return broken;
}"""
SPILLS = "el => el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1"


@pytest.fixture
def long_names_class():
    school = School.objects.create(name="Hillside")
    user = get_user_model().objects.create_user("maria", "maria@example.com", "pw-123456789")
    Membership.objects.create(user=user, school=school)
    classroom = Classroom.objects.create(school=school, teacher=user, name="3 Owls")
    for name in NAMES:
        Student.objects.create(classroom=classroom, name=name)
    return classroom, user


def broken_words(page, selector):
    return [w for el in page.locator(selector).all() for w in el.evaluate(BROKEN_WORDS)]


@pytest.mark.parametrize("width", [1366, 390])
def test_the_name_picker_never_breaks_a_word(browser, live_server, long_names_class, width):
    classroom, _user = long_names_class
    context = browser.new_context(viewport={"width": width, "height": 800}, has_touch=True)
    page = context.new_page()
    page.goto(live_server.url + reverse("classroom:join_class", args=[classroom.code]))
    assert page.locator(".name-btn").count() == len(NAMES)
    assert broken_words(page, ".name-btn") == []
    assert not any(b.evaluate(SPILLS) for b in page.locator(".name-btn").all())
    assert page.locator(".name-text.name-longer, .name-text.name-long").count() >= 3
    page.screenshot(path=f"/tmp/long_names_picker_{width}.png", full_page=True)
    context.close()


def test_login_cards_keep_long_names_inside_their_border_on_screen_and_on_paper(
    browser, live_server, long_names_class
):
    classroom, user = long_names_class
    context, page = new_page(browser, live_server, teacher_session(user))
    page.goto(live_server.url + reverse("classroom:login_cards", args=[classroom.pk]))
    for media in ("screen", "print"):
        page.emulate_media(media=media)
        assert broken_words(page, ".login-card-name") == [], media
        assert not any(c.evaluate(SPILLS) for c in page.locator(".login-card").all()), media
    page.screenshot(path="/tmp/long_names_cards.png", full_page=True)
    context.close()
