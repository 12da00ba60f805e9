"""sessions views (work in progress)."""

urlpatterns = []
