"""The classroom's answers to the games platform's permission questions (an authentication
backend that logs nobody in: ``BaseBackend.authenticate`` answers None).

``games.view_match`` on a match: a teacher may watch a game in which a child of one of their
classes has a seat (never any hand: the spectator's view is the engine's view of no seat).
Superusers hold every permission already (``User.has_perm``)."""

from django.contrib.auth.backends import BaseBackend

from games.models import Match


class TeacherWatchesBackend(BaseBackend):
    def has_perm(self, user_obj, perm, obj=None) -> bool:
        if perm != "games.view_match" or not isinstance(obj, Match):
            return False
        if not (user_obj.is_active and user_obj.is_authenticated):
            return False
        return obj.seats.filter(child_link__student__classroom__teacher=user_obj).exists()
