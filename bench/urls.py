"""The project's URLs plus the benchmarks' bare baseline views (used via override_settings)."""

from django.urls import include
from django.urls import path

import games.urls  # noqa: F401  (registers the public_id converter used below)
from bench import views

urlpatterns = [
    path("bench/bare-move/<public_id:public_id>/", views.bare_move, name="bench-bare-move"),
    path("bench/bare-board/<public_id:public_id>/", views.bare_board, name="bench-bare-board"),
    path("bench/bare-poll/<public_id:public_id>/", views.bare_poll, name="bench-bare-poll"),
    path("", include("config.urls")),
]
