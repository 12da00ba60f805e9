"""rosters views (work in progress)."""

urlpatterns = []
