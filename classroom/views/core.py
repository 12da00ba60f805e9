from django.http import JsonResponse
from django.shortcuts import render
from django.urls import path
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from classroom import health


@require_GET
def home(request):
    return render(request, "home.html")


@never_cache
@require_GET
def healthz(request):
    checks = health.run_checks()
    healthy = all(check["ok"] for check in checks.values())
    body = {
        "status": "ok" if healthy else "fail",
        "failing": [name for name, check in checks.items() if not check["ok"]],
        "checks": checks,
    }
    return JsonResponse(body, status=200 if healthy else 503)


urlpatterns = [
    path("", home, name="home"),
    path("healthz", healthz, name="healthz"),
]
