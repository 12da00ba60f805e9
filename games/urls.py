"""The games' URLs; reversed as ``games:<name>``. A match's public id has a converter of its
exact shape (config/converters.py): any other path answers 404 before a view runs."""

from django.urls import path
from django.urls import register_converter

from config import converters
from games import stream
from games import views

register_converter(converters.PublicId, "public_id")

app_name = "games"
urlpatterns = [
    path("family/", views.family, name="family"),
    path("family/join/", views.join_room, name="join_room"),
    path("family/<slug:slug>/new/", views.new_family, name="new_family"),
    path("play/new/", views.new_game, name="new"),
    path("play/<public_id:public_id>/", views.play, name="play"),
    path("play/<public_id:public_id>/move/", views.move, name="move"),
    path("play/<public_id:public_id>/poll/", views.poll, name="poll"),
    path("play/<public_id:public_id>/stream/", stream.stream, name="stream"),
    path("play/<public_id:public_id>/reveal/", views.reveal, name="reveal"),
    path("play/<public_id:public_id>/join/", views.join, name="join"),
    path("play/<public_id:public_id>/room/", views.room, name="room"),
    path("play/<public_id:public_id>/start/", views.start_room, name="start_room"),
    path("play/<public_id:public_id>/takeover/", views.take_over, name="take_over"),
    path("play/<public_id:public_id>/takeback/", views.take_back, name="take_back"),
    path("play/<public_id:public_id>/watch/", views.spectate, name="spectate"),
    path("play/<public_id:public_id>/replay/", views.replay, name="replay"),
]
