"""Grown-ups' accounts: sign-up (a school of one's own), joining a school by invite link,
log-in by e-mail, and the teacher's home page with their classes."""

import hashlib
import ipaddress
import math
from datetime import timedelta
from functools import wraps

from axes.utils import reset as axes_reset
from django.conf import settings
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
from django.utils import timezone
from django.utils import translation
from django.utils.crypto import constant_time_compare
from django.utils.crypto import salted_hmac
from django.utils.decorators import method_decorator
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods
from django.views.decorators.http import require_safe

from classroom.forms import LOGIN_FAILURE_LIMIT
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
from config.throttle import network_of

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
# The log-in limits (docs/classroom/accounts-and-rosters.md, "The log-in limits"), on both
# log-in pages, ours (/accounts/login/) and the Django admin's (/admin/login/: config/urls.py):
# 1. Per client network (``network_address``): settings.LOGIN_ATTEMPTS_PER_ADDRESS attempts,
#    right or wrong, per LOGIN_ATTEMPTS_WINDOW, counted in the database (RateLimit) before the
#    form runs authenticate(); past it, 429 with Retry-After and no password hashed (Django hashes
#    one even for a name that matches no account).
# 2. Per account and network (django-axes, database handler): LOGIN_FAILURE_LIMIT wrong passwords
#    for one account from one network, each within LOGIN_LOCKOUT_SECONDS of the previous one,
#    lock that account's log-in from that network for LOGIN_LOCKOUT_SECONDS (429 with a message);
#    from any other network the right password works at once, so a stranger cannot lock a
#    teacher out. A password reset lifts it. The count is keyed on the account the typed name
#    resolves to ("teacher", "Teacher" and "teacher@example.com" are one account), and on the
#    typed name (case-folded) when no account matches. One account's guesses from one network are
#    checked, compared and counted one at a time (login_lock), so parallel guesses cannot slip
#    past the limit.
# 3. A browser where an account logged in before (``known_browser``) is spared 1 and 2 for
#    that account, up to LOGIN_FAILURE_LIMIT attempts per account and window: someone else on
#    the school's network can neither use up its attempts nor lock a teacher out for the
#    teacher's own browser.
# ``guarded_log_in`` puts them in front of a log-in view's POST. The numbers of 2 and
# resolve_login live with the log-in form in classroom/forms.py, those of 1 in config/settings.py.
NO_ADDRESS = "::"  # a request without a readable address: all such share one count


def network_address(request) -> str:
    """The client's network as the log-in limits count it (``config.throttle.network_of``:
    an IPv4 address, an IPv6 /64 as its first address), for django-axes too
    (AXES_CLIENT_IP_CALLABLE); a client with no usable address counts as ``NO_ADDRESS``."""
    network = network_of(client_address(request))
    try:
        ipaddress.ip_address(network)
    except ValueError:
        return NO_ADDRESS
    return network


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
    """Inside a transaction: wait until no other request is checking this key's password
    (an account from one network), so that django-axes's check and count cannot interleave.
    PostgreSQL: a transaction-level advisory lock on the key; SQLite: its IMMEDIATE
    transactions already let one writer in at a time."""
    if connection.vendor == "postgresql":
        digest = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big", signed=True)
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [digest])


def too_many(kind: str, value: str, limit: int, window: timedelta) -> int | None:
    """Count one more ``kind`` for ``value`` and return None; or, when the window already
    holds ``limit`` of them, count nothing and return the seconds until that window ends
    (RateLimit: a row per key and window, locked while it is checked and counted, so parallel
    requests cannot pass the limit; in the database, so it holds while the cache is down).
    Call it outside a transaction: the row stays locked until the outermost one ends."""
    if RateLimit.hit(kind, value, limit, window):
        return None
    start = (
        RateLimit.objects.filter(key=RateLimit.key_for(kind, value))
        .values_list("window_start", flat=True)
        .first()
    )
    if start is None:
        return 1
    return max(1, math.ceil((start + window - timezone.now()).total_seconds()))


def too_many_from(request, kind: str, limit: int, window: timedelta) -> int | None:
    """``too_many`` for the client's network."""
    return too_many(kind, network_address(request), limit, window)


def whole_minutes(seconds: int) -> int:
    return max(1, math.ceil(seconds / 60))


def too_many_log_ins(request):
    """Limit 1 above: None while this network may try again, else the 429 page."""
    seconds = too_many_from(
        request,
        "login-address",
        settings.LOGIN_ATTEMPTS_PER_ADDRESS,
        settings.LOGIN_ATTEMPTS_WINDOW,
    )
    if seconds is None:
        return None
    context = {"minutes": whole_minutes(seconds), "back_url": request.get_full_path()}
    response = render(request, "registration/too_many_log_ins.html", context, status=429)
    response["Retry-After"] = str(seconds)
    return response


# Known browsers (3 above). A browser's cookie holds a mark per account that logged in on it
# (an HMAC of the account's key and its password hash with the SECRET_KEY: it names nobody,
# nobody can make one without logging in, and a new password ends it), for the last
# KNOWN_ACCOUNTS accounts (shared Chromebooks). Its attempts
# for such an account pass the network's limit and are neither refused nor counted by the
# account's lockout from the network (AXES_WHITELIST_CALLABLE), at most LOGIN_FAILURE_LIMIT of
# them per account and window from all its browsers together (so copies of a cookie get no
# more); past that, the account's known browsers meet 1 and 2 like any other.
KNOWN_COOKIE = "mp_known_login"
KNOWN_ACCOUNTS = 5
KNOWN_AGE = 365 * 24 * 3600


def account_mark(key: str, password: str) -> str:
    """The browser's mark for the account ``key`` with its present ``password`` (its stored
    hash): a new password (a reset, a change) makes every earlier mark worthless."""
    digest = salted_hmac(
        "classroom.accounts.known-browser", f"{key}\0{password}", algorithm="sha256"
    )
    return digest.hexdigest()[:32]


def password_of(key: str) -> str | None:
    """The stored password hash of the account ``key`` (``login_key``'s resolved name), or
    None when no account has that name (or it has no usable password)."""
    user = User.objects.filter(username__iexact=key).order_by("pk").only("password").first()
    if user is None or not user.has_usable_password():
        return None
    return user.password


def known_marks(request) -> list[str]:
    return request.COOKIES.get(KNOWN_COOKIE, "").split(".")[:KNOWN_ACCOUNTS]


def known_browser(request, key: str) -> bool:
    """This browser logged the account ``key`` in before, with the password it has now, and
    the account's known-browser attempts of this window are not used up (this one is
    counted)."""
    marks = [m for m in known_marks(request) if m]
    if not key or not marks:
        return False
    password = password_of(key)
    if password is None:
        return False
    mark = account_mark(key, password)
    if not any(constant_time_compare(mark, known) for known in marks):
        return False
    return too_many("login-known", key, LOGIN_FAILURE_LIMIT, settings.LOGIN_ATTEMPTS_WINDOW) is None


def remember_browser(request, response, user) -> None:
    """After ``user`` logged in: this browser is known for the account (first of its marks)."""
    mark = account_mark(user.get_username().casefold(), user.password)
    marks = [mark, *(m for m in known_marks(request) if m and m != mark)]
    response.set_cookie(
        KNOWN_COOKIE,
        ".".join(marks[:KNOWN_ACCOUNTS]),
        max_age=KNOWN_AGE,
        httponly=True,
        samesite="Lax",
        secure=request.is_secure(),
    )


def axes_whitelisted(request, credentials=None) -> bool:
    """AXES_WHITELIST_CALLABLE: a known browser's attempt (``guarded_log_in`` decided it) is
    neither refused nor counted by the lockout of its network."""
    return getattr(request, "known_browser", False) is True


def guarded_log_in(view):
    """A log-in view whose POST first passes the network's limit (no password is hashed past
    it) unless it comes from a known browser of the account, then checks, compares and counts
    one account's guesses from one network at a time (``login_lock``) for django-axes:
    ``LoginView.post`` and the Django admin's log-in (config/urls.py), which share the
    network's count. A successful log-in makes the browser known for the account."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if request.method != "POST":
            return view(request, *args, **kwargs)
        key = login_key(request.POST.get("username", ""))
        request.known_browser = known_browser(request, key)
        if not request.known_browser:
            refused = too_many_log_ins(request)
            if refused is not None:
                return refused
        with transaction.atomic():
            login_lock(f"{key}|{network_address(request)}")
            response = view(request, *args, **kwargs)
        user = request.user
        if (
            response.status_code == 302
            and user.is_authenticated
            and user.get_username().casefold() == key
        ):
            remember_browser(request, response, user)
        return response

    return wrapped


def locked_out_page(request):
    """429: this account's log-in is locked from this network (limit 2)."""
    response = render(
        request,
        "registration/locked_out.html",
        {"minutes": LOGIN_LOCKOUT_SECONDS // 60},
        status=429,
    )
    response["Retry-After"] = str(LOGIN_LOCKOUT_SECONDS)
    return response


def login_locked_out(request, original_response=None, credentials=None):
    """AXES_LOCKOUT_CALLABLE: our log-in page already answers 429 with the form and the
    message; anything else (the admin's log-in) gets the same message on a page of its own."""
    if original_response is not None and original_response.status_code == 429:
        return original_response
    return locked_out_page(request)


# --- Django's auth views, answering bad input with 422 -----------------------------------------
class Unprocessable:
    def form_invalid(self, form):
        return self.render_to_response(self.get_context_data(form=form), status=422)


class LoginView(LocalNextMixin, Unprocessable, auth_views.LoginView):
    authentication_form = EmailLoginForm

    @method_decorator(guarded_log_in)
    def post(self, request, *args, **kwargs):
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form):
        if getattr(self.request, "axes_locked_out", False):
            response = self.render_to_response(self.get_context_data(form=form), status=429)
            response["Retry-After"] = str(LOGIN_LOCKOUT_SECONDS)
            return response
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


def too_many_signups(request, form):
    """A new account hashes its password and makes a school: settings.SIGNUPS_PER_ADDRESS
    per SIGNUPS_WINDOW from one client network (``too_many_from``), counted once the form is
    valid. Past it, 429 with the form and the reason (htmx swaps a 429 like a 422:
    templates/base.html)."""
    seconds = too_many_from(
        request, "signup-address", settings.SIGNUPS_PER_ADDRESS, settings.SIGNUPS_WINDOW
    )
    if seconds is None:
        return None
    minutes = whole_minutes(seconds)
    reason = ngettext(
        "Too many accounts were made from your network in the last hour. Try again in "
        "%(minutes)s minute.",
        "Too many accounts were made from your network in the last hour. Try again in "
        "%(minutes)s minutes.",
        minutes,
    ) % {"minutes": minutes}
    form.add_error(None, ValidationError(reason, code="too_many"))
    response = render_page(request, SIGNUP, "form", {"form": form}, status=429)
    response["Retry-After"] = str(seconds)
    return response


@require_http_methods(["GET", "HEAD", "POST"])
def signup(request):
    if request.user.is_authenticated:
        return redirect("classroom:teacher_home")
    form = SignupForm(request.POST or None)
    if request.method == "POST":
        if not form.is_valid():
            return render_page(request, SIGNUP, "form", {"form": form}, status=422)
        refused = too_many_signups(request, form)
        if refused is not None:
            return refused
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
