from django.urls import include, path

from . import views

app_name = "web"

urlpatterns = [
    path("", views.home, name="home"),
    path("ladders/", views.ladders, name="ladders"),
    path("ladders/<int:pk>/", views.ladder, name="ladder"),
    path("players/<int:pk>/", views.player, name="player"),
    path("tournaments/", views.tournaments, name="tournaments"),
    path("tournaments/<int:pk>/", views.tournament, name="tournament"),
    path("tournaments/<int:pk>/progress/", views.tournament_progress, name="tournament-progress"),
    path("tournaments/<int:pk>/rounds/<int:number>/", views.round_tables, name="round"),
    path("tournaments/<int:pk>/rounds/<int:number>/pairings/", views.pairings, name="pairings"),
    path("matches/<int:pk>/", views.match, name="match"),
    path("", include("tournaments.web.play_urls")),  # replays and the play screen
    path("", include("tournaments.web.organise_urls")),  # signing in and the organisers' screens
]
