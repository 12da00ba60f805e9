"""school views (work in progress)."""

urlpatterns = []
