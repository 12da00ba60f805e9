"""accounts views (work in progress)."""

urlpatterns = []
