"""The school admin's pages: only a school admin of the school; everyone else 404, and
anybody not logged in as a grown-up (children included) is sent to the log-in page."""

from django.urls import reverse
from expected import LOGIN
from expected import everyone


def school_admins(**statuses):
    """Not logged in: 302 to log in. Teachers and a superuser without a school: 404."""
    return everyone(404) | LOGIN | statuses


ENTRIES = [
    {
        "name": "classroom:school_dashboard",
        "url": lambda w: reverse("classroom:school_dashboard"),
        "expect": school_admins(admin_a=200, admin_b=200),
    },
    {
        "name": "classroom:school_settings",
        "url": lambda w: reverse("classroom:school_settings"),
        "expect": school_admins(admin_a=200, admin_b=200),
    },
    {
        # Not a time zone: 422, nothing saved.
        "name": "classroom:school_settings",
        "method": "post",
        "url": lambda w: reverse("classroom:school_settings"),
        "data": lambda w: {"name": "Renamed", "timezone": "Mars/Olympus_Mons"},
        "expect": school_admins(admin_a=422, admin_b=422),
    },
    {
        "name": "classroom:invite_list",
        "url": lambda w: reverse("classroom:invite_list"),
        "expect": school_admins(admin_a=200, admin_b=200),
    },
    {
        "name": "classroom:invite_new",
        "method": "post",
        "url": lambda w: reverse("classroom:invite_new"),
        "data": lambda w: {"role": "head-teacher"},  # not a role: 422, nothing made
        "expect": school_admins(admin_a=422, admin_b=422),
    },
    {
        "name": "classroom:invite_new",
        "method": "post",
        "url": lambda w: reverse("classroom:invite_new"),
        "data": lambda w: {"role": "teacher", "note": "Ms Patel"},
        "expect": school_admins(admin_a=302, admin_b=302),
    },
    {
        # School A's invite: another school's admin gets 404.
        "name": "classroom:invite_revoke",
        "method": "post",
        "url": lambda w: reverse("classroom:invite_revoke", args=[w.invite_a.pk]),
        "expect": school_admins(admin_a=302),
    },
    {
        "name": "classroom:school_year_end",
        "url": lambda w: reverse("classroom:school_year_end"),
        "expect": school_admins(admin_a=200, admin_b=200),
    },
    {
        # Without the confirmation box: 422 and nothing archived. School B has no class:
        # nothing to archive, back to the overview.
        "name": "classroom:school_year_end",
        "method": "post",
        "url": lambda w: reverse("classroom:school_year_end"),
        "expect": school_admins(admin_a=422, admin_b=302),
    },
]
