from django.http import JsonResponse
from django.shortcuts import render
from django.utils.cache import patch_vary_headers
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from classroom import health


@require_safe
def home(request):
    return render(request, "home.html")


@never_cache
@require_safe
def healthz(request):
    """Everything the site needs (for monitoring): database, cache, broker, a live worker."""
    return health_response(request, health.run_checks(), failed="error")


@never_cache
@require_safe
def healthz_web(request):
    """What this web node needs to serve pages (for the load balancer): the database. A
    Redis outage only slows pages down (the cache answers misses) and a stopped worker only
    delays computer players and statistics, so neither takes a node out of service."""
    return health_response(request, health.run_checks(["database"]))


def health_response(request, checks, failed="fail"):
    """Up (200) or down (503). Outsiders get the status only; monitoring with
    ``Authorization: Bearer HEALTHZ_TOKEN`` and staff also get each check and its detail (the
    error texts name hosts, ports and versions)."""
    healthy = all(check["ok"] for check in checks.values())
    body: dict = {"status": "ok" if healthy else failed}
    if health.may_see_details(request):
        body["failing"] = [name for name, check in checks.items() if not check["ok"]]
        body["checks"] = checks
    response = JsonResponse(body, status=200 if healthy else 503)
    patch_vary_headers(response, ["Authorization"])
    return response
