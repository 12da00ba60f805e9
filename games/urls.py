from django.urls import path

from games import stream
from games import views

app_name = "games"
urlpatterns = [
    path("family/", views.family, name="family"),
    path("family/join/", views.join_room, name="join_room"),
    path("family/<slug:slug>/new/", views.new_family, name="new_family"),
    path("play/new/", views.new_game, name="new"),
    path("play/<str:public_id>/", views.play, name="play"),
    path("play/<str:public_id>/move/", views.move, name="move"),
    path("play/<str:public_id>/poll/", views.poll, name="poll"),
    path("play/<str:public_id>/stream/", stream.stream, name="stream"),
    path("play/<str:public_id>/reveal/", views.reveal, name="reveal"),
    path("play/<str:public_id>/join/", views.join, name="join"),
    path("play/<str:public_id>/room/", views.room, name="room"),
    path("play/<str:public_id>/start/", views.start_room, name="start_room"),
    path("play/<str:public_id>/takeover/", views.take_over, name="take_over"),
    path("play/<str:public_id>/takeback/", views.take_back, name="take_back"),
    path("play/<str:public_id>/watch/", views.spectate, name="spectate"),
    path("play/<str:public_id>/replay/", views.replay, name="replay"),
]
