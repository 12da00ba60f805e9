"""``heatmap_after_game_p95_ms`` under load (issue 23): during a load step, each game that ends,
from its end to the heatmap's rows counting it.

A game ends with the move that finishes it (``Match.finished_at``, stamped in that move's
transaction); its commit enqueues the worker's game-end task, which folds each child's new
attempts into the knowledge model's state in their ``FactStat`` rows, adds them to the day's
trend rows and marks the attempts ``stats_applied``, all in one transaction
(docs/analytics.md, "Pipeline"). So the heatmaps (the child's and the class's views read
those rows; the class map is counted from its children's at read time) show a game once none
of its attempts is left unapplied. The probe, a thread of the load run's process beside the
load generators, asks the database every ``interval`` seconds which games have ended and which
of them are still waiting; a game's time is from ``finished_at`` to the first poll that found
it counted (an overestimate by at most ``interval``, the poll's own time included). Two
indexed queries a poll: the matches by ``(status, changed_at)`` and the attempts of the
waiting games by their match."""

from __future__ import annotations

import datetime as dt
import threading


class HeatmapProbe(threading.Thread):
    """Start it at a step's start, ``stop()`` it at the end; ``figures(counted_from)``."""

    def __init__(self, *, interval: float = 0.1, drain_s: float = 15.0):
        super().__init__(name="heatmap-probe", daemon=True)
        self.interval, self.drain_s = interval, drain_s
        self.stopping = threading.Event()
        self.ended: dict[int, dt.datetime] = {}  # match id -> finished_at (games with attempts)
        self.waiting: set[int] = set()
        self.seen_ms: dict[int, float] = {}  # match id -> ms from its end to being counted
        self.without_attempts = 0
        self.error: BaseException | None = None
        self.since = self.now()

    def run(self) -> None:
        from django.db import connection

        try:
            while not self.stopping.wait(self.interval):
                self.poll()
            # The games that ended just before the step's end: the worker may still be on them.
            deadline = self.now() + dt.timedelta(seconds=self.drain_s)
            while self.waiting and self.now() < deadline:
                self.poll(new_games=False)
                self.stopping.wait(self.interval)
        except BaseException as exc:  # reported with the figures; the step goes on
            self.error = exc
        finally:
            connection.close()

    @staticmethod
    def now() -> dt.datetime:
        from django.utils import timezone

        return timezone.now()

    def poll(self, *, new_games: bool = True) -> None:
        from classroom.models import Attempt
        from games.models import Match

        if new_games:
            found = dict(
                # A finished match's changed_at is its finished_at (the move that ended it).
                Match.objects.filter(
                    status=Match.Status.FINISHED, changed_at__gte=self.since
                ).values_list("pk", "finished_at")
            )
            new = {pk: at for pk, at in found.items() if pk not in self.ended and at is not None}
            with_attempts = set(
                Attempt.objects.filter(match_id__in=new).values_list("match_id", flat=True)
            )
            self.without_attempts += len(new) - len(with_attempts & new.keys())
            for pk in with_attempts:
                self.ended[pk] = new[pk]
                self.waiting.add(pk)
        if not self.waiting:
            return
        still = set(
            Attempt.objects.filter(match_id__in=self.waiting, stats_applied=False).values_list(
                "match_id", flat=True
            )
        )
        seen_at = self.now()
        for pk in self.waiting - still:
            self.seen_ms[pk] = (seen_at - self.ended[pk]).total_seconds() * 1000
        self.waiting = still

    def stop(self, timeout: float | None = None) -> None:
        self.stopping.set()
        self.join(timeout if timeout is not None else self.drain_s + 30)

    def figures(self, counted_from: dt.datetime | None = None) -> dict:
        """The games that ended from ``counted_from`` on (after the ramp-up), their p50/p95 in
        ms, and those the worker had not counted by the end of the drain."""
        from bench.load.run import percentile

        keep = [pk for pk, at in self.ended.items() if counted_from is None or at >= counted_from]
        ms = [self.seen_ms[pk] for pk in keep if pk in self.seen_ms]
        return {
            "games": len(keep),
            "counted": len(ms),
            "not_counted": len(keep) - len(ms),
            "p50_ms": percentile(ms, 50),
            "p95_ms": percentile(ms, 95),
            "max_ms": max(ms) if ms else None,
            "poll_interval_ms": self.interval * 1000,
            "games_without_attempts": self.without_attempts,
            "error": repr(self.error) if self.error else None,
        }
