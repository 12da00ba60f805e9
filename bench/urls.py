"""The project's URLs plus the benchmark's bare baseline view (used via override_settings)."""

from django.urls import include
from django.urls import path

from bench import views

urlpatterns = [
    path("bench/bare-move/<str:public_id>/", views.bare_move, name="bench-bare-move"),
    path("", include("config.urls")),
]
