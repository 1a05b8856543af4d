"""Signing in and the organisers' screens (tournaments/web/organise.py), under the "web"
namespace: account/ for the person's own account, organise/ for the events they run."""

from django.urls import path

from . import organise

urlpatterns = [
    path("account/sign-in/", organise.SignInView.as_view(), name="sign-in"),
    path("account/sign-out/", organise.SignOutView.as_view(), name="sign-out"),
    path("account/sign-up/", organise.sign_up, name="sign-up"),
    path("account/tokens/", organise.api_tokens, name="tokens"),
    path("account/tokens/<int:pk>/revoke/", organise.api_token_revoke, name="token-revoke"),
    path("organise/", organise.my_tournaments, name="organise"),
    path("organise/new/", organise.tournament_new, name="organise-new"),
    path("organise/<int:pk>/", organise.tournament_organise, name="organise-tournament"),
    path("organise/<int:pk>/edit/", organise.tournament_edit, name="organise-edit"),
    path("organise/<int:pk>/delete/", organise.tournament_delete, name="organise-delete"),
    path("organise/<int:pk>/cancel/", organise.tournament_cancel, name="organise-cancel"),
    path("organise/<int:pk>/start/", organise.tournament_start, name="organise-start"),
    path("organise/<int:pk>/entries/person/", organise.enter_person, name="organise-enter-person"),
    path("organise/<int:pk>/entries/bot/", organise.enter_bot, name="organise-enter-bot"),
    path("organise/<int:pk>/entries/existing/", organise.enter_existing, name="organise-enter-existing"),
    path("organise/<int:pk>/entries/<int:entry>/withdraw/", organise.entry_withdraw, name="organise-withdraw"),
    path("organise/<int:pk>/organisers/", organise.organiser_add, name="organise-organiser-add"),
    path("organise/<int:pk>/organisers/<int:user>/remove/", organise.organiser_remove,
         name="organise-organiser-remove"),
    path("organise/<int:pk>/rounds/<int:number>/", organise.round_results, name="organise-round"),
    path("organise/tables/<int:match>/report/", organise.result_report, name="organise-report"),
    path("organise/results/<int:submission>/confirm/", organise.result_confirm, name="organise-confirm"),
    path("organise/results/<int:submission>/reject/", organise.result_reject, name="organise-reject"),
]
