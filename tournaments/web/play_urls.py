"""The replay viewer and the play screen (tournaments/web/play.py), under the "web" namespace."""

from django.urls import path

from . import play

urlpatterns = [
    path("matches/<int:pk>/replay/", play.replay, name="replay"),
    path("matches/<int:pk>/seats/<int:position>/play/", play.play, name="play"),
    path("matches/<int:pk>/seats/<int:position>/play/state/", play.play_state, name="play-state"),
]
