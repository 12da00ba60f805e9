"""The top bar's links, decided in Python (who is signed in, and as what)."""

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from classroom.child_session import current_student


def navigation(request) -> dict:
    user = getattr(request, "user", None)
    links = []
    if user is not None and user.is_authenticated:
        links.append((reverse("classroom:teacher_home"), _("My classes")))
        membership = getattr(user, "membership", None)
        if membership is not None and membership.is_admin:
            links.append((reverse("classroom:school_dashboard"), _("My school")))
        links.append(
            (
                reverse("password_change"),
                pgettext("top bar: link to change your password", "Password"),
            )
        )
        return {"nav_links": links, "nav_child": None}
    student = current_student(request) if hasattr(request, "session") else None
    if student is not None:
        return {
            "nav_links": [(reverse("classroom:child_home"), _("My page"))],
            "nav_child": student,
        }
    links = [
        (reverse("classroom:join"), _("Children: join your class")),
        (reverse("login"), _("Teacher log in")),
        (reverse("classroom:signup"), _("Sign up")),
    ]
    return {"nav_links": links, "nav_child": None}


def live(request) -> dict:
    """Whether this page is pushed to (its stream, docs/platform.md "Live updates") and the
    streams' timings: the live wall's and the waiting room's pollers read them."""
    from games.presenters import live_settings

    return {"live": live_settings(request)}
