"""Classroom URLs: each area's view module lists its own ``urlpatterns``."""

from classroom.views import accounts, child, core, reports, rosters, school, sessions, warmup

urlpatterns = [
    *core.urlpatterns,
    *accounts.urlpatterns,
    *rosters.urlpatterns,
    *child.urlpatterns,
    *sessions.urlpatterns,
    *warmup.urlpatterns,
    *school.urlpatterns,
    *reports.urlpatterns,
]
