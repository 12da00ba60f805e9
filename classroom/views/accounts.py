"""Grown-ups' accounts: sign-up (a school of one's own), joining a school by invite link,
log-in by e-mail, and the teacher's home page with their classes."""

import hashlib
from datetime import timedelta
from functools import wraps

from axes.utils import reset as axes_reset
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.core.exceptions import ValidationError
from django.db import connection
from django.db import transaction
from django.db.models import Count
from django.db.models import Q
from django.http import Http404
from django.shortcuts import redirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods
from django.views.decorators.http import require_safe

from classroom.forms import LOGIN_LOCKOUT_SECONDS
from classroom.forms import EmailLoginForm
from classroom.forms import GrownUpForm
from classroom.forms import SignupForm
from classroom.forms import resolve_login
from classroom.models import Classroom
from classroom.models import Invite
from classroom.models import Membership
from classroom.models import RateLimit
from classroom.models import School
from classroom.views.access import teacher_page
from classroom.views.responses import finish
from classroom.views.responses import render_page
from config.collation import by_name
from config.names import isolate
from config.params import LocalNextMixin
from config.throttle import client_address

User = get_user_model()


# --- helpers shared by the teacher's pages (accounts and rosters) ------------------------------
def membership_of(user):
    if not user.is_authenticated:
        return None
    return Membership.objects.select_related("school").filter(user=user).first()


def not_in_a_school(request, status=200):
    lines = [
        gettext(
            "Classes belong to a school. To run classes, open the invite link a school admin "
            "sent you while you are logged in, and join their school."
        )
    ]
    context = {"title": gettext("Not in a school yet"), "lines": lines}
    context["heading"] = gettext("You are not in a school yet")
    if request.user.is_staff:
        lines.append(gettext("As site staff you can manage everything from the admin site."))
        context |= {"link_url": "/admin/", "link_text": gettext("Open the admin site")}
    return render(request, "registration/notice.html", context, status=status)


def grown_up_session_expiry(request):
    """A grown-up's session ends when the browser closes, and the server forgets it after
    ``SESSION_COOKIE_AGE`` (a working day, settings.py) in any case: shared Chromebooks."""
    request.session.set_expiry(0)


def start_grown_up_session(request, user):
    """Log ``user`` in on a fresh session: a child signed in on this browser is signed out
    and the session key changes (no fixation)."""
    request.session.flush()
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    grown_up_session_expiry(request)


# --- logging in ---------------------------------------------------------------------------------
# Log-in lockout (django-axes, database handler; docs/classroom/accounts-and-rosters.md):
# LOGIN_FAILURE_LIMIT wrong passwords for one account, each within LOGIN_LOCKOUT_SECONDS of the
# previous one, lock that account's log-in for LOGIN_LOCKOUT_SECONDS (429 with a message); a
# password reset lifts it. The count is keyed on the account the typed name resolves to
# ("teacher", "Teacher" and "teacher@example.com" are one account), and on the typed name
# (case-folded) when no account matches. LoginView checks, compares and counts one account's
# guesses one at a time (login_lock), so parallel guesses cannot slip past the limit. The two
# numbers and resolve_login live with the log-in form in classroom/forms.py.


def login_key(typed: str) -> str:
    """What the lockout counts: the resolved account, else the typed name, case-folded."""
    typed = str(typed or "")[:254]
    return (resolve_login(typed) or typed.strip()).casefold()


def axes_username(request, credentials=None) -> str:
    """AXES_USERNAME_CALLABLE: django-axes counts failures under login_key."""
    typed = (credentials or {}).get("username")
    if typed is None:
        typed = request.POST.get("username", "") if request is not None else ""
    return login_key(typed)


def login_lock(key: str) -> None:
    """Inside a transaction: wait until no other request is checking this account's
    password, so that django-axes's check and count cannot interleave. PostgreSQL: a
    transaction-level advisory lock on the key; SQLite: its IMMEDIATE transactions already
    let one writer in at a time."""
    if connection.vendor == "postgresql":
        digest = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big", signed=True)
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [digest])


def one_guess_at_a_time(view):
    """A log-in view whose POST checks, compares and counts one account's guesses one at a
    time (``login_lock``), as ``LoginView.post`` does: for the Django admin's log-in, which
    django-axes also guards (config/urls.py)."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if request.method != "POST":
            return view(request, *args, **kwargs)
        with transaction.atomic():
            login_lock(login_key(request.POST.get("username", "")))
            return view(request, *args, **kwargs)

    return wrapped


def login_locked_out(request, original_response=None, credentials=None):
    """AXES_LOCKOUT_CALLABLE: our log-in page already answers 429 with the form and the
    message; anything else (the admin's log-in) gets the same message on a page of its own."""
    if original_response is not None and original_response.status_code == 429:
        return original_response
    return render(
        request,
        "registration/locked_out.html",
        {"minutes": LOGIN_LOCKOUT_SECONDS // 60},
        status=429,
    )


# --- Django's auth views, answering bad input with 422 -----------------------------------------
class Unprocessable:
    def form_invalid(self, form):
        return self.render_to_response(self.get_context_data(form=form), status=422)


class LoginView(LocalNextMixin, Unprocessable, auth_views.LoginView):
    authentication_form = EmailLoginForm

    def post(self, request, *args, **kwargs):
        with transaction.atomic():
            login_lock(login_key(request.POST.get("username", "")))
            return super().post(request, *args, **kwargs)

    def form_invalid(self, form):
        if getattr(self.request, "axes_locked_out", False):
            return self.render_to_response(self.get_context_data(form=form), status=429)
        return super().form_invalid(form)

    def get_default_redirect_url(self):
        """A school admin who teaches no class of a school that has classes lands on the
        school's page, not on an empty "My classes" (a teacher who has just started a school
        still lands there, to make the first class; a ``next`` address always wins)."""
        membership = membership_of(self.request.user)
        if (
            membership is not None
            and membership.is_admin
            and not Classroom.objects.for_teacher(self.request.user).active().exists()
            and Classroom.objects.filter(school=membership.school).active().exists()
        ):
            return reverse("classroom:school_dashboard")
        return super().get_default_redirect_url()

    def form_valid(self, form):
        if "student_id" in self.request.session:
            # A child was signed in on this device: the teacher starts a session of their own,
            # without the child's identity or the child's games.
            self.request.session.flush()
        response = super().form_valid(form)
        grown_up_session_expiry(self.request)
        return response


class LogoutView(LocalNextMixin, auth_views.LogoutView):
    """Django's log-out; a ``next`` address only when it is a path of this site."""


class PasswordChangeView(Unprocessable, auth_views.PasswordChangeView):
    pass


# Password-reset e-mails: at most RESET_PER_ADDRESS an hour to one e-mail address and
# RESET_PER_CLIENT an hour from one network address (RateLimit: counted in the database,
# under a row lock). Past either, 429 with a message and no e-mail.
RESET_PER_ADDRESS = 3
RESET_PER_CLIENT = 20
RESET_WINDOW = timedelta(hours=1)


class PasswordResetView(Unprocessable, auth_views.PasswordResetView):
    email_template_name = "registration/password_reset_email.txt"
    subject_template_name = "registration/password_reset_subject.txt"

    def form_valid(self, form):
        email = form.cleaned_data["email"].strip().casefold()
        allowed = RateLimit.hit(
            "reset-client", client_address(self.request), RESET_PER_CLIENT, RESET_WINDOW
        ) and RateLimit.hit("reset-address", email, RESET_PER_ADDRESS, RESET_WINDOW)
        if not allowed:
            form.add_error(
                None,
                ValidationError(
                    _(
                        "Too many password-reset e-mails were asked for. Look for the last "
                        "one in your inbox (and the spam folder), or try again in an hour."
                    ),
                    code="too_many",
                ),
            )
            return self.render_to_response(self.get_context_data(form=form), status=429)
        return super().form_valid(form)


class PasswordResetConfirmView(Unprocessable, auth_views.PasswordResetConfirmView):
    def form_valid(self, form):
        response = super().form_valid(form)
        axes_reset(username=login_key(self.user.get_username()))  # the lockout is lifted
        return response


# --- views -------------------------------------------------------------------------------------
SIGNUP = "classroom/accounts/signup.html"
INVITE = "classroom/accounts/invite.html"


@require_http_methods(["GET", "HEAD", "POST"])
def signup(request):
    if request.user.is_authenticated:
        return redirect("classroom:teacher_home")
    form = SignupForm(request.POST or None)
    if request.method == "POST":
        if not form.is_valid():
            return render_page(request, SIGNUP, "form", {"form": form}, status=422)
        with transaction.atomic():
            user = form.save()
            school = School.objects.create(
                name=form.cleaned_data["school_name"].strip(),
                timezone=form.cleaned_data["time_zone"],
                # The children's screens start in the language the teacher's browser asked for.
                language=translation.get_supported_language_variant(translation.get_language()),
            )
            Membership.objects.create(user=user, school=school, role=Membership.Role.ADMIN)
        start_grown_up_session(request, user)
        messages.success(
            request,
            gettext("Welcome! %(school)s is set up, and you are its school admin.")
            % {"school": isolate(school.name)},
        )
        return finish(request, reverse("classroom:teacher_home"))
    return render(request, SIGNUP, {"form": form})


def usable_invite(token, lock=False) -> Invite:
    """The invite behind a link, or 404 whatever the reason (used, revoked, expired, unknown)."""
    invites = Invite.objects.select_related("school")
    if lock:
        invites = invites.select_for_update()
    invite = invites.filter(token=token).first()
    if invite is None or not invite.is_usable:
        raise Http404
    return invite


@require_http_methods(["GET", "HEAD", "POST"])
def invite_accept(request, token):
    invite = usable_invite(token)
    membership = membership_of(request.user)
    context = {"invite": invite, "school": invite.school, "membership": membership}
    if membership is not None:
        # Already in a school (perhaps this one): one grown-up, one school.
        return render(request, INVITE, context, status=409 if request.method == "POST" else 200)
    form = None if request.user.is_authenticated else GrownUpForm(request.POST or None)
    context["form"] = form
    if request.method in ("GET", "HEAD"):
        return render(request, INVITE, context)
    if form is not None and not form.is_valid():
        return render_page(request, INVITE, "form", context, status=422)
    with transaction.atomic():
        invite = usable_invite(token, lock=True)  # one link makes one member
        user = form.save() if form is not None else request.user
        if Membership.objects.filter(user=user).exists():
            return render(request, INVITE, context, status=409)
        invite.accept(user)
    if form is not None:
        start_grown_up_session(request, user)
    messages.success(
        request, gettext("Welcome to %(school)s!") % {"school": isolate(invite.school.name)}
    )
    return finish(request, reverse("classroom:teacher_home"))


@teacher_page
@require_safe
def teacher_home(request):
    membership = membership_of(request.user)
    if membership is None:
        return not_in_a_school(request)
    classes = Classroom.objects.for_teacher(request.user).annotate(
        children=Count("students", filter=Q(students__archived_at__isnull=True))
    )
    classes = by_name(classes, translation.get_language())
    return render(
        request,
        "classroom/accounts/teacher_home.html",
        {
            "membership": membership,
            "school": membership.school,
            "active_classes": [c for c in classes if c.archived_at is None],
            "archived_classes": [c for c in classes if c.archived_at is not None],
        },
    )
