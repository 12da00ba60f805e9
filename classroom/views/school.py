"""The school admin's pages: the dashboard, the school's settings, invite links and the
year-end archive.

Every view finds the school through the signed-in user's admin membership: anybody else
(a teacher, another school's admin, a superuser without a school) gets 404.
"""

from django.contrib import messages
from django.shortcuts import get_object_or_404
from django.shortcuts import redirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods
from django.views.decorators.http import require_POST
from django.views.decorators.http import require_safe

from classroom.forms import InviteForm
from classroom.forms import SchoolForm
from classroom.forms import zone_place
from classroom.languages import IN_A_SENTENCE
from classroom.models import Invite
from classroom.models import School
from classroom.models import Student
from classroom.models.school import GAMES_CHART_DAYS
from classroom.views.access import teacher_page
from classroom.views.responses import done
from classroom.views.responses import finish
from classroom.views.responses import render_page
from config.collation import by_name
from config.params import int_param


def admin_school(request) -> School:
    """The school this user runs as a school admin, or 404."""
    return get_object_or_404(School.objects.for_admin(request.user))


# --- the dashboard -------------------------------------------------------------------------

# The chart's drawing area, in SVG user units (the SVG scales to its box).
CHART_WIDTH = 1200
CHART_HEIGHT = 280
CHART_LEFT = 44  # room for the y-axis labels
CHART_RIGHT = 8
CHART_TOP = 28  # room for the y-axis title
CHART_BOTTOM = 70  # room for the day and month labels, and the axis title under them


def nice_ceiling(value: int) -> int:
    """The smallest of 1, 2, 4, 5, 10, 20, 40, 50, 100... that is at least ``value``; so the
    three y-axis ticks (0, half, top) are whole numbers."""
    if value <= 1:
        return 1
    step = 1
    while True:
        for factor in (1, 2, 4, 5):
            if step * factor >= value:
                return step * factor
        step *= 10


def games_chart(days: list[tuple]) -> dict:
    """Everything the template needs to draw the games-per-day bar chart."""
    top = nice_ceiling(max((n for _day, n in days), default=0))
    plot_w = CHART_WIDTH - CHART_LEFT - CHART_RIGHT
    plot_h = CHART_HEIGHT - CHART_TOP - CHART_BOTTOM
    slot = plot_w / max(len(days), 1)
    bar_w = slot * 0.7
    baseline = CHART_TOP + plot_h
    bars = []
    previous_month = None
    for i, (day, n) in enumerate(days):
        h = plot_h * n / top
        x = CHART_LEFT + i * slot + (slot - bar_w) / 2
        bars.append(
            {
                "day": day,
                "count": n,
                "x": round(x, 1),
                "y": round(baseline - h, 1),
                "w": round(bar_w, 1),
                "h": round(h, 1),
                "label_x": round(x + bar_w / 2, 1),
                "weekend": day.weekday() >= 5,
                "new_month": day.month != previous_month,
            }
        )
        previous_month = day.month
    ticks = [
        {"value": value, "y": round(baseline - plot_h * value / top, 1)}
        for value in sorted({0, top // 2, top})
    ]
    # The busiest day, when one day stands out: the only day with the most games, two or more.
    most = max((n for _day, n in days), default=0)
    busiest = next((d for d in days if d[1] == most), None)
    if most < 2 or sum(n == most for _day, n in days) > 1:
        busiest = None
    return {
        "width": CHART_WIDTH,
        "height": CHART_HEIGHT,
        "left": CHART_LEFT,
        "right": CHART_WIDTH - CHART_RIGHT,
        "top": CHART_TOP,
        "baseline": baseline,
        "day_label_y": baseline + 18,
        "month_label_y": baseline + 38,
        "axis_title_y": baseline + 62,
        "bars": bars,
        "ticks": ticks,
        "total": sum(n for _day, n in days),
        "busiest": busiest,
        "days": len(days),
        "first": days[0][0] if days else None,
        "last": days[-1][0] if days else None,
    }


@teacher_page
@require_safe
def school_dashboard(request):
    school = admin_school(request)
    classes = list(school.classes_with_counts())  # the archived: the most recent first
    context = {
        "school": school,
        "zone_place": zone_place(school.timezone),
        "staff": list(school.staff()),
        "active_classes": by_name(
            [c for c in classes if c.archived_at is None], translation.get_language()
        ),
        "archived_classes": [c for c in classes if c.archived_at is not None],
        "active": school.active_children(),
        "chart": games_chart(school.games_per_day()),
        "chart_days": GAMES_CHART_DAYS,
        "open_invites": Invite.objects.filter(school=school).usable().count(),
    }
    return render(request, "classroom/school/dashboard.html", context)


# --- the school's settings: name and time zone ------------------------------------------------
SETTINGS = "classroom/school/settings.html"


@teacher_page
@require_http_methods(["GET", "HEAD", "POST"])
def school_settings(request):
    school = admin_school(request)
    form = SchoolForm(request.POST or None, instance=school)
    if request.method in ("GET", "HEAD"):
        return render(request, SETTINGS, {"school": school, "form": form})
    if not form.is_valid():
        school.refresh_from_db()  # the page's title and header keep the saved name
        return render_page(request, SETTINGS, "form", {"school": school, "form": form}, 422)
    if not form.has_changed():
        return done(request, reverse("classroom:school_dashboard"), _("Nothing changed."))
    school = form.save()
    if "language" in form.changed_data:  # the children's lists in the new language's order
        Student.objects.filter(classroom__school=school).resort(school.language)
    return done(
        request,
        reverse("classroom:school_dashboard"),
        _("Saved: the school's time zone is %(zone)s, its children's screens speak %(language)s.")
        % {"zone": zone_place(school.timezone), "language": IN_A_SENTENCE[school.language]},
    )


# --- invites ---------------------------------------------------------------------------------


def invite_link(request, invite: Invite) -> str:
    return request.build_absolute_uri(invite.get_absolute_url())


def render_invites(request, school, *, form=None, new_invite=None, notice="", status=200):
    invites = list(
        Invite.objects.filter(school=school).select_related("created_by", "used_by")[:200]
    )
    open_invites = [i for i in invites if i.is_usable]
    for invite in open_invites:
        invite.link = invite_link(request, invite)
    if new_invite is not None:
        new_invite.link = invite_link(request, new_invite)
    context = {
        "school": school,
        "form": form or InviteForm(),
        "open_invites": open_invites,
        "closed_invites": [i for i in invites if not i.is_usable],
        "new_invite": new_invite,
        "notice": notice,
    }
    return render_page(request, "classroom/school/invites.html", "invites", context, status)


@teacher_page
@require_safe
def invite_list(request):
    school = admin_school(request)
    new_invite = None
    new_pk = int_param(request.GET.get("new", ""))
    if new_pk is not None:
        new_invite = Invite.objects.filter(school=school, pk=new_pk).usable().first()
    return render_invites(request, school, new_invite=new_invite)


@teacher_page
@require_POST
def invite_new(request):
    school = admin_school(request)
    form = InviteForm(request.POST)
    if not form.is_valid():
        return render_invites(request, school, form=form, status=422)
    invite = form.save(commit=False)
    invite.school = school
    invite.created_by = request.user
    invite.save()
    if request.htmx:
        return render_invites(request, school, new_invite=invite)
    return redirect(f"{reverse('classroom:invite_list')}?new={invite.pk}")


@teacher_page
@require_POST
def invite_revoke(request, pk):
    school = admin_school(request)
    invite = get_object_or_404(Invite.objects.filter(school=school), pk=pk)
    if invite.revoke():
        notice, status = _("The link was revoked: it no longer works."), 200
    else:
        notice, status = _("This link was already used or revoked: nothing changed."), 409
    if request.htmx:
        return render_invites(request, school, notice=notice, status=status)
    if status == 200:
        messages.success(request, notice)
    else:
        messages.error(request, notice)
    return redirect("classroom:invite_list")


# --- the year-end archive ------------------------------------------------------------------


def render_year_end(request, school, *, error="", notice="", status=200):
    classes = [
        c
        for c in by_name(school.classes_with_counts(), translation.get_language())
        if c.archived_at is None
    ]
    context = {
        "school": school,
        "classes": classes,
        "class_ids": ",".join(str(pk) for pk in sorted(c.pk for c in classes)),
        "error": error,
        "notice": notice,
    }
    return render_page(request, "classroom/school/year_end.html", "confirm", context, status)


@teacher_page
@require_http_methods(["GET", "HEAD", "POST"])
def school_year_end(request):
    school = admin_school(request)
    if request.method in ("GET", "HEAD"):
        return render_year_end(request, school)
    active_ids = sorted(school.classrooms.active().values_list("pk", flat=True))
    if not active_ids:
        messages.info(request, _("There are no active classes to archive."))
        return finish(request, reverse("classroom:school_dashboard"))
    if request.POST.get("confirm") != "yes":
        return render_year_end(
            request,
            school,
            error=_("Tick the box to confirm that the school year is over."),
            status=422,
        )
    shown = request.POST.get("classes", "")
    if shown != ",".join(str(pk) for pk in sorted(active_ids)):
        return render_year_end(
            request,
            school,
            notice=_("The list of classes changed while you were reading it. Check it again."),
            status=409,
        )
    archived = school.archive_active_classes()
    messages.success(
        request,
        ngettext(
            "%(count)d class archived. Its teacher can restore it from their classes page.",
            "%(count)d classes archived. Each teacher can restore theirs from their classes page.",
            archived,
        )
        % {"count": archived},
    )
    return finish(request, reverse("classroom:school_dashboard"))
