from django.apps import AppConfig
from django.utils.translation import pgettext_lazy


class ClassroomConfig(AppConfig):
    name = "classroom"
    verbose_name = pgettext_lazy("app name", "Classroom")

    def ready(self):
        from django.conf import settings
        from django.db.models.signals import pre_save

        pre_save.connect(clean_user_names, sender=settings.AUTH_USER_MODEL, dispatch_uid="names")

        from games import signals

        from . import receivers

        signals.move_applied.connect(receivers.store_attempts, dispatch_uid="attempts")
        signals.match_changed.connect(receivers.update_stats_when_finished, dispatch_uid="stats")
        signals.bot_focus.connect(receivers.focus_facts_of, dispatch_uid="focus")
        signals.seats_taken.connect(receivers.link_child_seats, dispatch_uid="child-seats")
        from . import live

        signals.boards_published.connect(live.tell_the_walls, dispatch_uid="walls")

        from django.db.models.signals import pre_delete

        from .models import Student

        pre_delete.connect(receivers.delete_seats_of_child, sender=Student, dispatch_uid="seats")


def clean_user_names(sender, instance, **kwargs):
    """A grown-up's first and last name are typed names (config/names.py) on every way in:
    sign-up, invite and the Django admin's user page."""
    from config.names import clean_name

    for field in ("first_name", "last_name"):
        if hasattr(instance, field):
            setattr(instance, field, clean_name(getattr(instance, field)))
