"""Who may open a page: the one access decorator of the grown-ups' pages."""

from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django_htmx.http import HttpResponseClientRedirect


def teacher_page(view):
    """Grown-ups only: anyone not logged in (a signed-in child too) goes to the log-in page.
    An htmx request (the wall polling after the log-in expired, say) gets a whole-page
    redirect there, not a log-in form swapped into a corner of the page. Which class or child
    is theirs is the view's own check (another teacher's answers 404)."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if not request.user.is_authenticated:
            login = redirect_to_login(request.get_full_path())
            if request.htmx:
                return HttpResponseClientRedirect(login["Location"])
            return login
        return view(request, *args, **kwargs)

    return wrapped
