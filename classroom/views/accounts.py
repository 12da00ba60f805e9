"""Grown-ups' accounts: sign-up (a school of one's own), joining a school by invite link,
log-in by e-mail, and the teacher's home page with their classes."""

import hashlib

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model, login, password_validation
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Q
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import path, reverse
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET, require_http_methods
from django_htmx.http import HttpResponseClientRedirect

from classroom.models import Classroom, Invite, Membership, School
from config.throttle import client_address

User = get_user_model()


# --- helpers shared by the teacher's pages (accounts and rosters) ------------------------------
def render_page(request, template, partial, context, status=200):
    """The whole page, or for an htmx request only its ``partial`` block."""
    name = f"{template}#{partial}" if request.htmx and partial else template
    return render(request, name, context, status=status)


def finish(request, url):
    """After a successful POST: htmx navigates, a plain form redirects (POST/redirect/GET)."""
    if request.htmx:
        return HttpResponseClientRedirect(url)
    return redirect(url)


def membership_of(user):
    if not user.is_authenticated:
        return None
    return Membership.objects.select_related("school").filter(user=user).first()


def not_in_a_school(request, status=200):
    return render(request, "classroom/accounts/no_school.html", status=status)


def start_grown_up_session(request, user):
    """Log ``user`` in on a fresh session: a child signed in on this browser is signed out
    and the session key changes (no fixation)."""
    request.session.flush()
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")


# --- forms -------------------------------------------------------------------------------------
class EmailLoginForm(AuthenticationForm):
    """Log in with the e-mail address (the username of every grown-up who signed up) or a
    plain username (the demo users "teacher" and "head")."""

    username = forms.CharField(
        label=_("E-mail address or user name"),
        max_length=254,
        widget=forms.TextInput(
            attrs={"autofocus": True, "autocomplete": "username", "inputmode": "email"}
        ),
    )

    # Set by LoginView while this username has failed too often from this address: the
    # password is then not even checked.
    locked_out = False

    def clean(self):
        if self.locked_out:
            raise ValidationError(
                _(
                    "Too many wrong passwords for this account. Wait %(minutes)s minutes and "
                    "try again, or reset your password."
                ),
                code="locked_out",
                params={"minutes": LOGIN_LOCKOUT_SECONDS // 60},
            )
        raw = (self.cleaned_data.get("username") or "").strip()
        if "@" in raw:
            user = User.objects.filter(username__iexact=raw).first()
            if user is None:
                matches = list(User.objects.filter(email__iexact=raw)[:2])
                user = matches[0] if len(matches) == 1 else None
            if user is not None:
                raw = user.get_username()
        self.cleaned_data["username"] = raw
        return super().clean()


class GrownUpForm(forms.Form):
    first_name = forms.CharField(
        label=_("First name"),
        max_length=150,
        widget=forms.TextInput(attrs={"autocomplete": "given-name"}),
    )
    last_name = forms.CharField(
        label=_("Last name"),
        max_length=150,
        widget=forms.TextInput(attrs={"autocomplete": "family-name"}),
    )
    email = forms.EmailField(
        label=_("E-mail address"),
        max_length=150,
        help_text=_("You log in with it, and a forgotten password is reset through it."),
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
    password1 = forms.CharField(
        label=_("Password"),
        strip=False,
        help_text=_("At least 8 characters, not only digits, not a common password."),
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    password2 = forms.CharField(
        label=_("Password again"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean_email(self):
        email = self.cleaned_data["email"].strip().lower()
        if User.objects.filter(Q(username__iexact=email) | Q(email__iexact=email)).exists():
            raise ValidationError(
                _(
                    "There is already an account with this e-mail address: log in instead, "
                    "or reset your password from the log-in page."
                ),
                code="taken",
            )
        return email

    def clean(self):
        data = super().clean()
        p1, p2 = data.get("password1"), data.get("password2")
        if p1 and p2 and p1 != p2:
            self.add_error("password2", _("The two passwords are not the same."))
        elif p1:
            email = data.get("email") or ""
            candidate = User(
                username=email,
                email=email,
                first_name=data.get("first_name", ""),
                last_name=data.get("last_name", ""),
            )
            try:
                password_validation.validate_password(p1, candidate)
            except ValidationError as error:
                self.add_error("password1", error)
        return data

    def save(self):
        data = self.cleaned_data
        return User.objects.create_user(
            username=data["email"],
            email=data["email"],
            password=data["password1"],
            first_name=data["first_name"].strip(),
            last_name=data["last_name"].strip(),
        )


class SignupForm(GrownUpForm):
    school_name = forms.CharField(
        label=_("Your school's name"),
        max_length=120,
        widget=forms.TextInput(attrs={"autocomplete": "organization"}),
    )

    field_order = ["first_name", "last_name", "email", "school_name", "password1", "password2"]


# --- Django's auth views, answering bad input with 422 -----------------------------------------
class Unprocessable:
    def form_invalid(self, form):
        return self.render_to_response(self.get_context_data(form=form), status=422)


# Log-in lockout: LOGIN_FAILURE_LIMIT wrong passwords for one username from one address, each
# within LOGIN_LOCKOUT_SECONDS of the previous one, lock that pair out for LOGIN_LOCKOUT_SECONDS
# (429 with a message). Counted in the cache (Redis in production: every web node shares it).
LOGIN_FAILURE_LIMIT = 10
LOGIN_LOCKOUT_SECONDS = 15 * 60


def login_failure_key(request, username: str) -> str:
    who = f"{username.strip().lower()}|{client_address(request)}"
    return "login-failures:" + hashlib.sha256(who.encode()).hexdigest()


class LoginView(Unprocessable, auth_views.LoginView):
    authentication_form = EmailLoginForm

    def failure_key(self) -> str:
        return login_failure_key(self.request, str(self.request.POST.get("username", ""))[:254])

    def get_form(self, form_class=None):
        form = super().get_form(form_class)
        if self.request.method == "POST":
            form.locked_out = cache.get(self.failure_key(), 0) >= LOGIN_FAILURE_LIMIT
        return form

    def form_invalid(self, form):
        if form.locked_out:
            return self.render_to_response(self.get_context_data(form=form), status=429)
        key = self.failure_key()
        cache.set(key, cache.get(key, 0) + 1, LOGIN_LOCKOUT_SECONDS)
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
            return reverse("school_dashboard")
        return super().get_default_redirect_url()

    def form_valid(self, form):
        cache.delete(self.failure_key())
        if "student_id" in self.request.session:
            # A child was signed in on this device: the teacher starts a session of their own,
            # without the child's identity or the child's games.
            self.request.session.flush()
        return super().form_valid(form)


class PasswordChangeView(Unprocessable, auth_views.PasswordChangeView):
    pass


class PasswordResetView(Unprocessable, auth_views.PasswordResetView):
    email_template_name = "registration/password_reset_email.txt"
    subject_template_name = "registration/password_reset_subject.txt"


class PasswordResetConfirmView(Unprocessable, auth_views.PasswordResetConfirmView):
    pass


# --- views -------------------------------------------------------------------------------------
SIGNUP = "classroom/accounts/signup.html"
INVITE = "classroom/accounts/invite.html"


@require_http_methods(["GET", "POST"])
def signup(request):
    if request.user.is_authenticated:
        return redirect("teacher_home")
    form = SignupForm(request.POST or None)
    if request.method == "POST":
        if not form.is_valid():
            return render_page(request, SIGNUP, "form", {"form": form}, status=422)
        with transaction.atomic():
            user = form.save()
            school = School.objects.create(name=form.cleaned_data["school_name"].strip())
            Membership.objects.create(user=user, school=school, role=Membership.Role.ADMIN)
        start_grown_up_session(request, user)
        messages.success(
            request,
            gettext("Welcome! %(school)s is set up, and you are its school admin.")
            % {"school": school.name},
        )
        return finish(request, reverse("teacher_home"))
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


@require_http_methods(["GET", "POST"])
def invite_accept(request, token):
    invite = usable_invite(token)
    membership = membership_of(request.user)
    context = {"invite": invite, "school": invite.school, "membership": membership}
    if membership is not None:
        # Already in a school (perhaps this one): one grown-up, one school.
        return render(request, INVITE, context, status=409 if request.method == "POST" else 200)
    form = None if request.user.is_authenticated else GrownUpForm(request.POST or None)
    context["form"] = form
    if request.method == "GET":
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
    messages.success(request, gettext("Welcome to %(school)s!") % {"school": invite.school.name})
    return finish(request, reverse("teacher_home"))


@login_required
@require_GET
def teacher_home(request):
    membership = membership_of(request.user)
    if membership is None:
        return not_in_a_school(request)
    classes = Classroom.objects.for_teacher(request.user).annotate(
        children=Count("students", filter=Q(students__archived_at__isnull=True))
    )
    with timezone.override(membership.school.zone):  # "archived 16 Dec", the school's day
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


urlpatterns = [
    path("signup/", signup, name="signup"),
    path("invite/<str:token>/", invite_accept, name="invite_accept"),
    path("teacher/", teacher_home, name="teacher_home"),
]
