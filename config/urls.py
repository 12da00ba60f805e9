from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include
from django.urls import path
from django.urls import reverse_lazy
from django.utils.translation import gettext_lazy as _
from django.views.generic import RedirectView

from classroom.views import accounts

# The admin's log-in has our log-in's limits, and shares the network's count with it.
admin.site.login = accounts.guarded_log_in(admin.site.login)  # type: ignore[method-assign]


def notice(view, **context):
    """An auth view's "done" page: registration/notice.html with its words."""
    return view.as_view(template_name="registration/notice.html", extra_context=context)


# A database away outside a view answers 503 as in one (classroom/middleware.py); any other
# error, Django's 500 page.
handler500 = "classroom.middleware.server_error"

urlpatterns = [
    path("", include("classroom.urls")),
    path("", include("games.urls")),
    path("accounts/login/", accounts.LoginView.as_view(), name="login"),
    path("accounts/logout/", accounts.LogoutView.as_view(), name="logout"),
    path(
        "accounts/password/change/",
        accounts.PasswordChangeView.as_view(),
        name="password_change",
    ),
    path(
        "accounts/password/change/done/",
        notice(
            auth_views.PasswordChangeDoneView,
            heading=_("Password changed"),
            lines=[_("Your new password works from now on. You stay logged in on this computer.")],
            link_url=reverse_lazy("classroom:teacher_home"),
            link_text=_("Back to my classes"),
            link_primary=True,
        ),
        name="password_change_done",
    ),
    path("accounts/password/reset/", accounts.PasswordResetView.as_view(), name="password_reset"),
    path(
        "accounts/password/reset/sent/",
        notice(
            auth_views.PasswordResetDoneView,
            heading=_("Check your e-mail"),
            lines=[
                _(
                    "If an account uses that address, an e-mail with a link to choose a new "
                    "password is on its way. The link works once, for a few days."
                ),
                _(
                    "Nothing after a few minutes? Look in your spam folder, or check the address "
                    "you typed."
                ),
            ],
            link_url=reverse_lazy("login"),
            link_text=_("Back to log in"),
        ),
        name="password_reset_done",
    ),
    path(
        "accounts/password/reset/<uidb64>/<token>/",
        accounts.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "accounts/password/reset/done/",
        notice(
            auth_views.PasswordResetCompleteView,
            title=_("Password saved"),
            heading=_("Your new password is saved"),
            lines=[_("Log in with your e-mail address and your new password.")],
            link_url=reverse_lazy("login"),
            link_text=_("Log in"),
            link_primary=True,
        ),
        name="password_reset_complete",
    ),
    path("admin/", admin.site.urls),
    # Browsers ask for /favicon.ico whatever the page says.
    # (The plain static path: a manifest look-up here would need collectstatic before `check`.)
    path("favicon.ico", RedirectView.as_view(url=f"{settings.STATIC_URL}img/favicon.svg")),
]
