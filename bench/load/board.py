"""What a simulated child reads on the MultipliPotion board partial, and its next move.

Only what the browser shows is used (the forms' fields, the card ids in the buttons and check
boxes of the child's own view); the card catalogue of the engine turns a card id into its
potion and monster, as the numbers printed on the card do for a child. No Django, no locust:
the load clients and the scale-out test both use it.
"""

from __future__ import annotations

import random
import re
import uuid

from games.multiplipotion.engine import MONSTER
from games.multiplipotion.engine import POTION

VERSION_RE = re.compile(r'id="board"[^>]*data-version="(\d+)"', re.S)
TOKEN_RE = re.compile(r"/poll/\?v=([^\"&]+)")
# The board's own poller (a family room's card has a poller of its own, every 10 s).
POLL_EVERY_RE = re.compile(r'hx-get="[^"]*/poll/\?v=[^"]*"[^>]*hx-trigger="every (\d+(?:\.\d+)?)s"')
HAND_RE = re.compile(r'name="card" value="([\w-]+)"')
POTION_RE = re.compile(r'name="potions" value="([\w-]+)" form="area-form"')
MONSTER_RE = re.compile(r'name="monster" value="([\w-]+)"')
TYPE_RE = re.compile(r'name="type" value="(\w+)"')
MOVE_ID_RE = re.compile(r'name="move_id" value="(\w+)"')
# A pushed page (docs/platform.md, "Live updates"): its stream, its board's safety poll and how
# long it waits for a heartbeat before it polls by itself.
STREAM_RE = re.compile(r'sse-connect="([^"]+)"')
SAFETY_RE = re.compile(r'hx-trigger="sse:changed, every (\d+)ms')
STALE_RE = re.compile(r'data-live-stale="(\d+)"')
LIVE_POLL_RE = re.compile(r'data-live-poll="(\d+(?:\.\d+)?)s"')


class Board:
    """What a child can read on the board partial (never more than the browser sees)."""

    def __init__(self, html: str):
        self.html = html
        version = VERSION_RE.search(html)
        self.version = int(version.group(1)) if version else None
        token = TOKEN_RE.search(html)
        self.token = token.group(1) if token else None
        every = POLL_EVERY_RE.search(html)
        # The poller's interval, as htmx reads it (1 s while someone else may move, 3 s on
        # this child's own turn).
        self.poll_s = float(every.group(1)) if every else 1.0
        # A pushed board's poller listens for "changed" on the page's stream. The stream's
        # address (and how long it waits for a heartbeat before polling by itself) is on the
        # play page, around the board (None on a board partial: it keeps the page's stream).
        self.pushed = SAFETY_RE.search(html) is not None
        stream = STREAM_RE.search(html)
        self.stream_url = stream.group(1).replace("&amp;", "&") if stream else None
        safety = SAFETY_RE.search(html)
        self.safety_s = int(safety.group(1)) / 1000 if safety else 30.0
        stale = STALE_RE.search(html)
        self.stale_s = int(stale.group(1)) / 1000 if stale else 20.0
        live_poll = LIVE_POLL_RE.search(html)
        if self.pushed and live_poll:
            self.poll_s = float(live_poll.group(1))
        self.my_turn = 'class="board is-my-turn"' in html
        self.over = 'class="result"' in html
        self.hand = HAND_RE.findall(html)
        self.types = set(TYPE_RE.findall(html))
        move_id = MOVE_ID_RE.search(html)
        self.move_id = move_id.group(1) if move_id else uuid.uuid4().hex

    def next_action(self, rng: random.Random) -> list[tuple[str, str]] | None:
        """The form fields of this child's next move, or None when it has none."""
        if not self.my_turn or self.over:
            return None
        if self.hand:
            return [("type", "place"), ("card", rng.choice(self.hand))]
        if "capture" in self.types:
            potions = POTION_RE.findall(self.html)
            monsters = MONSTER_RE.findall(self.html)
            claims = [
                (a, b, m)
                for i, a in enumerate(potions)
                for b in potions[i + 1 :]
                for m in monsters
                if POTION[a] * POTION[b] == MONSTER[m]
            ]
            if claims:
                a, b, m = rng.choice(claims)
                return [("type", "capture"), ("potions", a), ("potions", b), ("monster", m)]
        if "end_turn" in self.types:
            return [("type", "end_turn")]
        return None
