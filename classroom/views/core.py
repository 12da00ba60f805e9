from django.http import JsonResponse
from django.shortcuts import render
from django.utils.cache import patch_vary_headers
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from classroom import health


@require_GET
def home(request):
    return render(request, "home.html")


@never_cache
@require_GET
def healthz(request):
    """Everything the site needs (for monitoring): database, cache, broker, a live worker.
    The public gets the status only; monitoring with ``Authorization: Bearer HEALTHZ_TOKEN``
    and staff also get each check and its detail (error texts name hosts and versions)."""
    if health.may_see_details(request):
        response = health_response(health.run_checks(), failed="error")
    else:
        healthy = all(check["ok"] for check in health.run_checks().values())
        body = {"status": "ok" if healthy else "error"}
        response = JsonResponse(body, status=200 if healthy else 503)
    patch_vary_headers(response, ["Authorization"])
    return response


@never_cache
@require_GET
def healthz_web(request):
    """What this web node needs to serve pages (for the load balancer): the database. A
    Redis outage only slows pages down (the cache answers misses) and a stopped worker only
    delays computer players and statistics, so neither takes a node out of service."""
    return health_response(health.run_checks(["database"]))


def health_response(checks, failed="fail"):
    healthy = all(check["ok"] for check in checks.values())
    body = {
        "status": "ok" if healthy else failed,
        "failing": [name for name, check in checks.items() if not check["ok"]],
        "checks": checks,
    }
    return JsonResponse(body, status=200 if healthy else 503)
