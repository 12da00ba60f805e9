"""The answers the classroom's views share: a page (for htmx, one partial of it) and the
navigation after a successful POST."""

from urllib.parse import urlsplit

from django.contrib import messages
from django.shortcuts import redirect
from django.shortcuts import render
from django_htmx.http import HttpResponseClientRedirect
from django_htmx.http import HttpResponseClientRefresh


def render_page(request, template, partial, context, status=200):
    """The whole page, or for an htmx request only its ``partial`` block."""
    name = f"{template}#{partial}" if request.htmx and partial else template
    return render(request, name, context, status=status)


def finish(request, url):
    """After a successful POST: htmx navigates, a plain form redirects (POST/redirect/GET).
    To the page the browser is on with a new fragment ("#groups"), htmx's navigation would
    only scroll, not reload (and static/js/app.js holds back every later request of a page
    it thinks is being left): that page is reloaded instead."""
    if request.htmx:
        target, current = urlsplit(url), urlsplit(request.htmx.current_url_abs_path or "")
        if target.fragment and (target.path, target.query) == (current.path, current.query):
            return HttpResponseClientRefresh()
        return HttpResponseClientRedirect(url)
    return redirect(url)


def done(request, url, message):
    """A successful POST: its message for the next page, and on to ``url``."""
    messages.success(request, message)
    return finish(request, url)
