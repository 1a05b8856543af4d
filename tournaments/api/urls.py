from django.urls import path
from rest_framework.routers import DefaultRouter

from . import accounts, views, webhooks

router = DefaultRouter()
router.register("players", views.PlayerViewSet)
router.register("ladders", views.LadderViewSet)
router.register("tournaments", views.TournamentViewSet)
router.register("entries", views.EntryViewSet)
router.register("matches", views.MatchViewSet)
router.register("submissions", views.SubmissionViewSet, basename="resultsubmission")
router.register("leagues", views.LeagueViewSet)
router.register("tokens", views.TokenViewSet, basename="token")
router.register("seats", views.OnlineSeatViewSet, basename="seat")
router.register("webhooks", webhooks.WebhookViewSet, basename="webhook")

urlpatterns = [
    path("accounts/", accounts.AccountsView.as_view(), name="accounts"),
    path("session/", accounts.SessionView.as_view(), name="session"),
    *router.urls,
]
