"""child views (work in progress)."""

urlpatterns = []
