"""Child sign-in: class code → name → three pictures (or a personal QR badge), switching child
on a shared Chromebook, and the teacher's login cards, badges, pictures, unlock and "end
sign-ins". The rules live on the models (classroom/models/signin.py); see
docs/classroom/child-sign-in.md."""

from django.conf import settings
from django.contrib import messages
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.shortcuts import redirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.utils.translation import pgettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods
from django.views.decorators.http import require_POST
from django.views.decorators.http import require_safe

from classroom.child_session import current_student
from classroom.child_session import sign_in_student
from classroom.child_session import sign_out_student
from classroom.languages import use_language
from classroom.models import PICTURES
from classroom.models import Classroom
from classroom.models import KnownDevice
from classroom.models import PictureTries
from classroom.models import SignInDevice
from classroom.models import Student
from classroom.models.signin import LOCKOUT_MINUTES
from classroom.models.signin import Verdict
from classroom.views.access import teacher_page
from classroom.views.responses import finish
from config.params import int_param
from config.params import safe_next
from config.qr import qr_svg
from config.throttle import client_network
from config.throttle import give_back
from config.throttle import reserve_code_try

# --- helpers ---------------------------------------------------------------------------------


def picture_choices(selected=()):
    selected = {str(i) for i in selected}
    return [
        {"index": i, "slug": slug, "word": picture_word(slug), "checked": str(i) in selected}
        for i, slug in enumerate(PICTURES)
    ]


def picture_word(slug: str) -> str:
    words = {
        "sun": pgettext("sign-in picture", "sun"),
        "moon": pgettext("sign-in picture", "moon"),
        "star": pgettext("sign-in picture", "star"),
        "cat": pgettext("sign-in picture", "cat"),
        "fish": pgettext("sign-in picture", "fish"),
        "tree": pgettext("sign-in picture", "tree"),
        "apple": pgettext("sign-in picture", "apple"),
        "boat": pgettext("sign-in picture", "boat"),
        "rocket": pgettext("sign-in picture", "rocket"),
    }
    return words.get(slug, slug)


def student_pictures(student):
    return [{"slug": slug, "word": picture_word(slug)} for slug in student.picture_slugs]


def class_for_code(code: str):
    """The active class of a code from the URL (404 otherwise) and whether the URL used the
    canonical spelling."""
    classroom = Classroom.find_for_signin(code)
    if classroom is None:
        raise Http404("no such class")
    return classroom, classroom.code == code


def signin_student(classroom, pk):
    """A child of this class who may sign in: another class's child or an archived child is
    not found."""
    return get_object_or_404(classroom.students_for_signin(), pk=pk)


# --- the child's side -------------------------------------------------------------------------


def too_many_codes(request, code: str = ""):
    """The class-code page answering 429: this network typed too many wrong codes."""
    ctx = {
        "code": code[:40],
        "error": _(
            "Too many wrong class codes were typed here. Wait ten minutes, or scan your "
            "class’s QR code."
        ),
        "student": current_student(request),
    }
    template = (
        "classroom/signin/join.html#code-form" if request.htmx else "classroom/signin/join.html"
    )
    return render(request, template, ctx, status=429)


class TooManyCodes(Exception):
    """This network has used up its wrong class codes for now."""


def lookup_class(request, code: str):
    """The active class of a typed or linked code, or None; a well-formed code that is not a
    class's counts against this network (``config.throttle``, kind "class"), and once the
    network has used up its tries every lookup raises ``TooManyCodes``, a right code too. A
    device some class has signed in on (``KnownDevice``) counts on its own instead, so wrong
    codes typed on new devices never stop the class's Chromebooks."""
    tried = reserve_code_try(request, "class", device=KnownDevice.known_key(request))
    if tried is None:
        raise TooManyCodes
    classroom = Classroom.find_for_signin(code)
    if classroom is not None or Classroom.normalize_code(code) is None:
        give_back(tried)  # a right code, or one a guesser would not send: not counted
    return classroom


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def join(request):
    """Step 0: the class code (the class QR code skips this page)."""
    code = ""
    error = ""
    status = 200
    if request.method == "POST":
        code = request.POST.get("code", "")[:40]
        try:
            classroom = lookup_class(request, code)
        except TooManyCodes:
            return too_many_codes(request, code)
        if classroom is not None:
            return finish(request, classroom.get_join_url())
        error = _("We could not find that class. Check the code on the board.")
        status = 422
    ctx = {"code": code, "error": error, "student": current_student(request)}
    template = (
        "classroom/signin/join.html#code-form" if request.htmx else "classroom/signin/join.html"
    )
    return render(request, template, ctx, status=status)


@never_cache
@require_safe
def join_class(request, code):
    """Step 1: tap your name."""
    try:
        classroom = lookup_class(request, code)
    except TooManyCodes:
        return too_many_codes(request, code)
    if classroom is None:
        ctx = {
            "code": code[:40],
            "error": _("We could not find that class. Check the code on the board."),
        }
        return render(request, "classroom/signin/join.html", ctx, status=404)
    if classroom.code != code:
        return redirect("classroom:join_class", classroom.code)
    use_language(request, classroom.school.language)
    students = list(classroom.students_for_signin())
    locked = locked_here(request, classroom, students)
    for s in students:
        s.locked_here = s.pk in locked
    response = render(
        request,
        "classroom/signin/class.html",
        {
            "classroom": classroom,
            "students": students,
            "student": current_student(request),
            # The keyboard starts on the first name that can be tapped, not the page's top.
            "first_open": next((s.pk for s in students if s.pk not in locked), None),
        },
    )
    SignInDevice.remember(request, response)
    return response


def locked_here(request, classroom, students) -> set[int]:
    """The children this device may not answer for now: locked out on this device, or stopped
    on devices the class has not used when this is one (models/signin.py)."""
    now = timezone.now()
    locked = set(
        PictureTries.objects.filter(
            student__classroom=classroom,
            device=SignInDevice.key_for(request),
            locked_until__gt=now,
        ).values_list("student_id", flat=True)
    )
    if not KnownDevice.is_known(request, classroom):
        locked |= {s.pk for s in students if s.is_locked_at(now)}
    return locked


def picture_answer(request) -> list[int] | None:
    """The three distinct picture indexes of a POST (ASCII digits only), or None."""
    raw = request.POST.getlist("pictures")[:10]
    chosen = [int_param(value, low=0, high=len(PICTURES) - 1) for value in raw]
    if len(chosen) != 3 or None in chosen or len(set(chosen)) != 3:
        return None
    return chosen


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def join_pictures(request, code, pk):
    """Step 2: tap your three pictures (any order). The device is slowed, then stopped, after
    wrong answers; five wrong in a row lock the child for a cool-off (models/signin.py)."""
    classroom, canonical = class_for_code(code)
    student = signin_student(classroom, pk)
    use_language(request, classroom.school.language)
    if request.method in ("GET", "HEAD") and not canonical:
        return redirect("classroom:join_pictures", classroom.code, student.pk)
    ctx = {"classroom": classroom, "student": student, "lockout_minutes": LOCKOUT_MINUTES}
    status = 200
    known = KnownDevice.is_known(request, classroom)
    if request.method in ("GET", "HEAD"):
        ctx["locked"] = student.lock_on(SignInDevice.key_for(request), known)
    elif (chosen := picture_answer(request)) is None:
        status = 422
        ctx["error"] = _("Tap three pictures, then “That’s me!”.")
    else:
        answer = student.answer_pictures(
            chosen, SignInDevice.key_for(request), known=known, network=client_network(request)
        )
        if answer.verdict is Verdict.SIGNED_IN:
            KnownDevice.signed_in(request, classroom)
            sign_in_student(request, student)
            response = finish(request, reverse("classroom:child_home"))
            SignInDevice.remember(request, response)
            return response
        if answer.verdict is Verdict.LOCKED:
            ctx["locked"] = answer.lock
            status = 403
        elif answer.verdict is Verdict.WRONG:
            ctx["error"] = _("Those are not your pictures. Try again!")
            status = 422
        else:
            ctx["slow_down"] = answer.verdict.value
            ctx["wait_seconds"] = answer.wait_seconds
            ctx["wait_minutes"] = -(-answer.wait_seconds // 60)
            status = 429
    ctx["pictures"] = picture_choices()
    template = (
        "classroom/signin/pictures.html#pictures-form"
        if request.htmx
        else "classroom/signin/pictures.html"
    )
    response = render(request, template, ctx, status=status)
    SignInDevice.remember(request, response)
    return response


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def join_badge(request, token):
    """The personal QR badge: GET shows one big "start" button (a link preview or a scanner
    that fetches the URL signs nobody in); the POST signs the child in. A badge the teacher
    printed is trusted even while the child's picture sign-in is locked."""
    student = get_object_or_404(
        Student.objects.active()
        .filter(classroom__archived_at__isnull=True)
        .select_related("classroom", "classroom__school"),
        badge_token=token,
    )
    use_language(request, student.classroom.school.language)
    if request.method == "POST":
        student.register_success(SignInDevice.key_for(request))
        KnownDevice.signed_in(request, student.classroom)
        sign_in_student(request, student)
        return finish(request, reverse("classroom:child_home"))
    return render(request, "classroom/signin/badge.html", {"badge_student": student})


@require_POST
def child_switch(request):
    """Sign this child out and show the names of the same class: the next child taps theirs."""
    student = current_student(request)
    if student is None:
        return finish(request, reverse("classroom:join"))
    code = student.classroom.code
    sign_out_student(request)
    return finish(request, reverse("classroom:join_class", args=[code]))


# --- the teacher's side ----------------------------------------------------------------------


def back_to_cards(request, classroom):
    """After a teacher action: the page that asked (a path of this site) or the login cards."""
    cards = reverse("classroom:login_cards", args=[classroom.pk])
    return finish(request, safe_next(request, cards))


def card_language(classroom) -> str:
    """The language of a class's printed cards: its school's (the children read them), else
    the page's. The page around them (the teacher's buttons) speaks the teacher's."""
    language = classroom.school.language
    return language if language in dict(settings.LANGUAGES) else translation.get_language()


def card_context(request, student, language: str):
    with translation.override(language):
        return {
            "card": student,
            "trouble": student.signin_trouble(),
            "card_language": language,
            "pictures": student_pictures(student),
            "badge_qr": qr_svg(
                request.build_absolute_uri(student.get_badge_url()),
                _("Personal sign-in badge of %(name)s") % {"name": student.name},
            ),
        }


def render_card(request, student):
    ctx = card_context(request, student, card_language(student.classroom)) | {
        "classroom": student.classroom,
        "join_root": request.build_absolute_uri(reverse("classroom:join")),
    }
    return render(request, "classroom/signin/cards.html#card", ctx)


@never_cache
@teacher_page
@require_safe
def login_cards(request, pk):
    """Printable A4 login cards (8 a page) with the class code and personal QR badges.
    ?student=<pk> prints one card; ?show=code shows the class code and QR for the projector."""
    classroom = get_object_or_404(
        Classroom.objects.for_teacher(request.user).select_related("school"), pk=pk
    )
    language = card_language(classroom)
    if request.GET.get("show") == "code":  # on the projector, for the children
        use_language(request, classroom.school.language)
    students = classroom.students_for_signin().prefetch_related("picture_tries")
    only = request.GET.get("student", "")
    if only:
        student_pk = int_param(only)
        if student_pk is None:
            raise Http404("no such child")
        students = students.filter(pk=student_pk)
        if not students:
            raise Http404("no such child")
    join_url = request.build_absolute_uri(classroom.get_join_url())
    ctx = {
        "classroom": classroom,
        "join_url": join_url,
        "join_root": request.build_absolute_uri(reverse("classroom:join")),
        "class_qr": qr_svg(join_url, _("QR code to join the class %(name)s") % {"name": classroom}),
        "only": bool(only),
        "lockout_minutes": LOCKOUT_MINUTES,
        "guessing": classroom.guessing(),
    }
    if request.GET.get("show") == "code":
        return render(request, "classroom/signin/class_code.html", ctx)
    ctx["cards"] = [card_context(request, s, language) for s in students]
    return render(request, "classroom/signin/cards.html", ctx)


def card_changed(request, student, message):
    """After a change to a child's card: for htmx the new card; else the message and the cards."""
    if request.htmx:
        return render_card(request, student)
    messages.success(request, message)
    return back_to_cards(request, student.classroom)


def teacher_student(request, pk):
    return get_object_or_404(
        Student.objects.for_teacher(request.user).select_related("classroom", "classroom__school"),
        pk=pk,
    )


@teacher_page
@require_POST
def student_badge_revoke(request, pk):
    student = teacher_student(request, pk)
    student.new_badge()
    return card_changed(
        request,
        student,
        _("%(name)s has a new badge. The old card no longer works: print the new one.")
        % {"name": student.name},
    )


@teacher_page
@require_POST
def student_pictures_new(request, pk):
    student = teacher_student(request, pk)
    student.new_pictures()
    message = _("%(name)s has three new pictures. Print the new card.") % {"name": student.name}
    return card_changed(request, student, message)


@teacher_page
@require_POST
def student_unlock(request, pk):
    student = teacher_student(request, pk)
    student.unlock()
    return card_changed(request, student, _("%(name)s can sign in again.") % {"name": student.name})


@teacher_page
@require_POST
def class_signins_end(request, pk):
    classroom = get_object_or_404(Classroom.objects.for_teacher(request.user), pk=pk)
    classroom.end_signins()
    messages.success(
        request,
        _("Every child of %(name)s is signed out. They sign in again with their pictures.")
        % {"name": classroom},
    )
    return back_to_cards(request, classroom)


@teacher_page
@require_POST
def class_signins_unlock(request, pk):
    """Unlock every child of the class with one button (after a flood of wrong answers)."""
    classroom = get_object_or_404(Classroom.objects.for_teacher(request.user), pk=pk)
    count = classroom.unlock_children()
    if count:
        message = ngettext(
            "%(count)s child of %(name)s can sign in again.",
            "%(count)s children of %(name)s can sign in again.",
            count,
        ) % {"count": count, "name": classroom}
    else:
        message = _("No child of %(name)s was locked.") % {"name": classroom}
    messages.success(request, message)
    return back_to_cards(request, classroom)
