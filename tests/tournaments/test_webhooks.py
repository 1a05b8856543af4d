"""Webhooks (docs/api.md, "Webhooks"): an organiser's URL is told of a tournament's or a
league's events, each delivery signed, retried with backoff, logged with its answers,
replayable, and sent to public addresses only."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import signal
import threading
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from rest_framework.test import APIClient

from tournaments.models import Match, Tournament, Webhook, WebhookDelivery
from tournaments.services import webhooks
from tournaments.services.leagues import league_create, league_join, season_start
from tournaments.services.tokens import token_create

from ..bots.test_http_public_only import RESOLVED_NOT_PUBLIC, resolving
from .helpers import bot_players, fields, make_tournament, play_out
from .test_api import NOT_PUBLIC_URL_HOSTS, refused_as_not_public, url_at
from .test_workers import start_worker, stop, wait_for

pytestmark = [pytest.mark.django_db, pytest.mark.services]


class Receiver:
    """A webhook receiver on loopback: answers each POST with the next of ``statuses`` (the
    last one repeated) and keeps what it got. The ``hold``-th POST (counting from 1) is kept
    unanswered until ``release`` is set; ``holding`` is set once it has come. With ``location``,
    each answer sends that Location (a redirect, with a 3xx status); a GET (a redirect followed)
    is kept too, with an empty body."""

    def __init__(self, statuses=(200,), hold: int | None = None, location: str | None = None):
        self.statuses, self.got = list(statuses), []
        self.hold, self.holding, self.release = hold, threading.Event(), threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                outer.got.append((dict(self.headers), body))
                if len(outer.got) == outer.hold:
                    outer.holding.set()
                    outer.release.wait(60)
                self.answer()

            def do_GET(self):
                outer.got.append((dict(self.headers), b""))
                self.answer()

            def answer(self):
                code = outer.statuses[min(len(outer.got), len(outer.statuses)) - 1]
                self.send_response(code)
                if location is not None:
                    self.send_header("Location", location)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def events(self) -> list[dict]:
        return [json.loads(body) for _, body in self.got]

    def delivery_ids(self) -> list[str]:
        """The ``X-Mazziere-Delivery`` of each POST, in the order they came."""
        return [headers["X-Mazziere-Delivery"] for headers, _ in self.got]


@pytest.fixture
def receiver(settings):
    settings.HTTP_BOTS_ALLOWED_HOSTS = ["127.0.0.1"]  # a test's loopback receiver; nothing else private
    made = []

    def start(*statuses, hold=None, location=None):
        made.append(Receiver(statuses or (200,), hold, location))
        return made[-1]

    yield start
    for r in made:
        r.release.set()
        r.server.shutdown()
        r.server.server_close()


def organiser_of(tournament) -> APIClient:
    user = get_user_model().objects.create_user("olga")
    tournament.owner = user
    tournament.save(update_fields=["owner"])
    client = APIClient()
    client.force_login(user)
    return client


def subscribe(client, url, **target):
    answer = client.post("/api/webhooks/", {"url": url, "events": list(webhooks.EVENTS), **target}, format="json")
    assert answer.status_code == 201, answer.json()
    return answer.json()


def verified(secret: str, headers: dict, body: bytes) -> bool:
    expected = "sha256=" + hmac.new(secret.encode(), headers["X-Mazziere-Timestamp"].encode() + b"." + body,
                                    hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, headers["X-Mazziere-Signature"])


def test_an_organiser_hears_of_rounds_results_standings_and_the_end_each_signed(receiver):
    hook_receiver = receiver()
    tournament = make_tournament(bot_players(4), format="round_robin", format_config={}, slug="hooked")
    made = subscribe(organiser_of(tournament), hook_receiver.url, tournament=tournament.pk)
    assert len(made["secret"]) == 64
    play_out(tournament)
    assert webhooks.deliveries_send() > 0
    events = hook_receiver.events()
    kinds = [e["event"] for e in events]
    matches = Match.objects.filter(round__tournament=tournament)
    assert kinds.count("round.published") == tournament.rounds.count()
    assert kinds.count("match.finished") == matches.count()
    assert kinds.count("tournament.finished") == 1 and "standings.changed" in kinds
    finished = [e for e in events if e["event"] == "match.finished"]
    some = matches.get(pk=finished[0]["data"]["match"])
    assert finished[0]["data"]["scores"] == some.result.scores and finished[0]["tournament"] == tournament.pk
    for headers, body in hook_receiver.got:
        assert verified(made["secret"], headers, body)
        assert headers["X-Mazziere-Event"] == json.loads(body)["event"]
    assert len(set(hook_receiver.delivery_ids())) == len(events)
    assert not verified("another secret", *hook_receiver.got[0])
    # Everything delivered, each with its answer logged.
    rows = WebhookDelivery.objects.filter(webhook_id=made["id"])
    assert {r.status for r in rows} == {"delivered"} and all(r.log[-1]["status"] == 200 for r in rows)


def test_a_receiver_that_fails_twice_gets_the_event_on_the_third_try(receiver):
    hook_receiver = receiver(500, 503, 200)
    tournament = make_tournament(bot_players(4), format="round_robin", format_config={}, slug="flaky")
    made = subscribe(organiser_of(tournament), hook_receiver.url, tournament=tournament.pk)
    delivery = webhooks.webhook_ping(webhook=tournament.webhooks.get(pk=made["id"]))
    t0 = timezone.now()
    assert webhooks.deliveries_send(now=t0) == 1
    assert webhooks.deliveries_send(now=t0 + timedelta(seconds=5)) == 0  # not due before its backoff
    assert webhooks.deliveries_send(now=t0 + timedelta(seconds=11)) == 1
    assert webhooks.deliveries_send(now=t0 + timedelta(seconds=11 + 29)) == 0
    assert webhooks.deliveries_send(now=t0 + timedelta(seconds=11 + 31)) == 1
    delivery.refresh_from_db()
    assert delivery.status == "delivered" and delivery.attempts == 3
    assert [entry["status"] for entry in delivery.log] == [500, 503, 200]
    assert len(set(hook_receiver.delivery_ids())) == 1  # one delivery, tried three times
    assert webhooks.deliveries_send(now=t0 + timedelta(days=2)) == 0  # delivered: never again


def test_a_task_run_twice_or_a_dead_workers_claim_sends_nothing_twice(receiver):
    hook_receiver = receiver()
    tournament = make_tournament(bot_players(4), format="round_robin", format_config={}, slug="twice")
    made = subscribe(organiser_of(tournament), hook_receiver.url, tournament=tournament.pk)
    delivery = webhooks.webhook_ping(webhook=tournament.webhooks.get(pk=made["id"]))
    now = timezone.now()
    # A worker claims it and dies before sending: nobody sends it until its claim runs out...
    assert [d.pk for d in webhooks._claim([delivery.pk], now)] == [delivery.pk]
    assert webhooks.deliveries_send(delivery_ids=[delivery.pk], now=now + timedelta(seconds=1)) == 0
    # ...then it is sent once, and the task redelivered by the broker finds nothing to send.
    later = now + timedelta(seconds=webhooks.CLAIM_SECONDS + 1)
    assert webhooks.deliveries_send(delivery_ids=[delivery.pk], now=later) == 1
    assert webhooks.deliveries_send(delivery_ids=[delivery.pk], now=later) == 0
    assert webhooks.deliveries_send(now=later + timedelta(hours=1)) == 0
    assert len(hook_receiver.got) == 1


@pytest.mark.django_db(transaction=True)  # the worker process reads what this test commits
@pytest.mark.skipif(not os.environ.get("CELERY_BROKER_URL"),
                    reason="needs a broker and PostgreSQL: scripts/test-services runs this")
def test_a_worker_killed_while_it_posts_sends_nothing_it_recorded_again_and_the_rest_once(settings, receiver):
    # A real worker process on a queue of its own (the services leg's worker must not take the
    # task), killed with SIGKILL while the receiver holds the third of five deliveries unanswered.
    queue = settings.MATCH_QUEUE = f"webhooks-killed-{os.getpid()}"
    hook_receiver = receiver(hold=3)
    tournament = make_tournament(bot_players(4), format="round_robin", format_config={}, slug="killed")
    client = organiser_of(tournament)
    hooks = [subscribe(client, hook_receiver.url, tournament=tournament.pk)["id"] for _ in range(5)]
    worker = start_worker(f"{queue}@test", queue, HTTP_BOTS_ALLOWED_HOSTS="127.0.0.1")
    try:
        wait_for([f"{queue}@test"])
        with transaction.atomic():
            webhooks.notify_finished(tournament=tournament)  # five deliveries, sent by one task
        assert hook_receiver.holding.wait(60), "the worker did not post the third delivery"
        os.killpg(worker.pid, signal.SIGKILL)
    finally:
        stop(worker)
    hook_receiver.release.set()
    deliveries = list(WebhookDelivery.objects.filter(webhook__in=hooks).order_by("pk"))
    ids = [str(d.delivery_id) for d in deliveries]
    assert [d.status for d in deliveries] == ["delivered"] * 2 + ["sending"] * 3
    assert hook_receiver.delivery_ids() == ids[:3]

    # While the dead worker's claim holds, the beat (or the task redelivered) sends nothing...
    assert webhooks.deliveries_send() == 0
    # ...and once it has run out, the three left, each once.
    later = timezone.now() + timedelta(seconds=webhooks.CLAIM_SECONDS + 1)
    assert webhooks.deliveries_send(now=later) == 3
    assert webhooks.deliveries_send(now=later + timedelta(hours=1)) == 0
    # The one in flight when the worker died comes again under its delivery id, on which
    # receivers deduplicate (docs/api.md, "Webhooks"); the two recorded never again.
    assert hook_receiver.delivery_ids() == ids[:3] + ids[2:]
    sent = deliveries[:3] + deliveries[2:]
    assert all(verified(d.webhook.secret, h, body) for d, (h, body) in zip(sent, hook_receiver.got, strict=True))
    assert set(WebhookDelivery.objects.filter(webhook__in=hooks).values_list("status", flat=True)) == {"delivered"}


def test_a_change_rolled_back_tells_nothing():
    tournament = make_tournament(bot_players(4), format="round_robin", format_config={}, slug="rolled")
    organiser_of(tournament)
    webhooks.webhook_create(owner=tournament.owner, url="https://hooks.example.org/x", events=list(webhooks.EVENTS),
                            tournament=tournament)
    with pytest.raises(RuntimeError), transaction.atomic():
        webhooks.notify_finished(tournament=tournament)
        assert WebhookDelivery.objects.count() == 1
        raise RuntimeError("the change fails")
    assert WebhookDelivery.objects.count() == 0


def test_a_replayed_delivery_carries_the_same_event_under_a_new_delivery_id(receiver):
    hook_receiver = receiver()
    tournament = make_tournament(bot_players(4), format="round_robin", format_config={}, slug="replayed")
    client = organiser_of(tournament)
    made = subscribe(client, hook_receiver.url, tournament=tournament.pk)
    ping = client.post(f"/api/webhooks/{made['id']}/ping/")
    assert ping.status_code == 202 and ping.json()["event"] == "ping"
    webhooks.deliveries_send()
    listed = client.get(f"/api/webhooks/{made['id']}/deliveries/").json()["results"]
    assert listed[0]["status"] == "delivered" and listed[0]["log"][0]["answer"] == "ok"
    again = client.post(f"/api/webhooks/{made['id']}/deliveries/{listed[0]['id']}/redeliver/")
    assert again.status_code == 202
    webhooks.deliveries_send()
    (h1, b1), (h2, b2) = hook_receiver.got
    assert b1 == b2 and h1["X-Mazziere-Delivery"] != h2["X-Mazziere-Delivery"]


def test_private_addresses_are_refused_when_subscribing_and_when_sending(settings, receiver):
    tournament = make_tournament(bot_players(4), format="round_robin", format_config={}, slug="private")
    client = organiser_of(tournament)
    for url in ("http://localhost/hook", "http://10.0.0.8/hook", "http://[::1]/hook", "ftp://hooks.example.org/"):
        answer = client.post("/api/webhooks/", {"url": url, "events": ["match.finished"], "tournament": tournament.pk},
                             format="json")
        assert answer.status_code == 400 and "url" in fields(answer), url
    # Allowed when made, no longer when sent: every connection is checked again.
    hook_receiver = receiver()
    made = subscribe(client, hook_receiver.url, tournament=tournament.pk)
    settings.HTTP_BOTS_ALLOWED_HOSTS = []
    delivery = webhooks.webhook_ping(webhook=tournament.webhooks.get(pk=made["id"]))
    webhooks.deliveries_send()
    delivery.refresh_from_db()
    assert delivery.status == "pending" and "public" in delivery.log[0]["error"]
    assert hook_receiver.got == []


def test_every_spelling_of_an_address_off_the_public_internet_is_refused_for_a_webhook(settings):
    settings.HTTP_BOTS_ALLOWED_HOSTS = ["127.0.0.1"]  # listed: its other spellings are not
    tournament = make_tournament(bot_players(4), format="round_robin", format_config={}, slug="spelled")
    client = organiser_of(tournament)
    made = subscribe(client, "https://hooks.example.org/x", tournament=tournament.pk)
    for host in NOT_PUBLIC_URL_HOSTS:
        url = url_at(host, "/hook")
        answer = client.post("/api/webhooks/", {"url": url, "events": ["match.finished"], "tournament": tournament.pk},
                             format="json")
        assert answer.status_code == 400 and refused_as_not_public(fields(answer)["url"][0]), host
        changed = client.patch(f"/api/webhooks/{made['id']}/", {"url": url}, format="json")
        assert changed.status_code == 400 and refused_as_not_public(fields(changed)["url"][0]), host
    assert list(tournament.webhooks.values_list("url", flat=True)) == ["https://hooks.example.org/x"]


def test_a_failed_delivery_is_logged_in_the_receivers_terms_not_in_the_services(settings, monkeypatch, receiver):
    settings.HTTP_BOTS_ALLOWED_HOSTS = []
    tournament = make_tournament(bot_players(4), format="round_robin", format_config={}, slug="unsaid")
    client = organiser_of(tournament)
    hook = tournament.webhooks.get(pk=subscribe(client, "http://hooks.example/hook", tournament=tournament.pk)["id"])
    # A name that resolves into the service's network is refused at connection, and the log
    # does not say to which address: registering names would map that network.
    for address in [*RESOLVED_NOT_PUBLIC, "10.0.0.5"]:
        resolving(monkeypatch, "hooks.example", address)
        delivery = webhooks.webhook_ping(webhook=hook)
        webhooks.deliveries_send(delivery_ids=[delivery.pk])
        delivery.refresh_from_db()
        error = delivery.log[0]["error"]
        assert delivery.status == "pending" and "hooks.example" in error and "public" in error, address
        assert address not in error, error
        monkeypatch.undo()
    # A TLS failure says so, without the C source line OpenSSL's message carries.
    settings.HTTP_BOTS_ALLOWED_HOSTS = ["127.0.0.1"]
    plain = receiver()
    hook.url = plain.url.replace("http://", "https://")
    hook.save(update_fields=["url"])
    delivery = webhooks.webhook_ping(webhook=hook)
    webhooks.deliveries_send(delivery_ids=[delivery.pk])
    delivery.refresh_from_db()
    error = delivery.log[0]["error"]
    assert delivery.status == "pending" and error.startswith("TLS") and ".c" not in error and "_ssl" not in error


def test_a_receiver_that_redirects_is_not_followed_even_from_an_allowed_host(receiver):
    elsewhere = receiver()  # on 127.0.0.1 too, and the host is listed: the redirect is still not followed
    hook_receiver = receiver(302, location=elsewhere.url)
    tournament = make_tournament(bot_players(4), format="round_robin", format_config={}, slug="redirected")
    made = subscribe(organiser_of(tournament), hook_receiver.url, tournament=tournament.pk)
    delivery = webhooks.webhook_ping(webhook=tournament.webhooks.get(pk=made["id"]))
    webhooks.deliveries_send()
    assert elsewhere.got == [] and len(hook_receiver.got) == 1
    delivery.refresh_from_db()
    assert delivery.status == "pending" and delivery.log[0]["status"] == 302
    assert "redirect" in delivery.log[0]["error"]


def test_a_removed_co_organiser_loses_their_webhooks_on_the_event(receiver):
    hook_receiver = receiver()
    tournament = make_tournament(bot_players(4), format="round_robin", format_config={}, slug="removed")
    olga = organiser_of(tournament)
    cora = APIClient()
    cora.force_login(get_user_model().objects.create_user("cora"))
    assert olga.post(f"/api/tournaments/{tournament.pk}/organisers/", {"username": "cora"},
                     format="json").status_code == 201
    theirs = subscribe(cora, hook_receiver.url, tournament=tournament.pk)
    hers = subscribe(olga, hook_receiver.url, tournament=tournament.pk)
    webhooks.webhook_ping(webhook=Webhook.objects.get(pk=theirs["id"]))  # queued, not yet sent
    assert olga.delete(f"/api/tournaments/{tournament.pk}/organisers/cora/").status_code == 204
    assert not Webhook.objects.filter(pk=theirs["id"]).exists()
    assert cora.get("/api/webhooks/").json()["results"] == []
    assert cora.patch(f"/api/webhooks/{theirs['id']}/", {"active": True}, format="json").status_code == 404
    assert cora.post(f"/api/webhooks/{theirs['id']}/ping/").status_code == 404
    play_out(tournament)
    webhooks.deliveries_send()
    assert set(WebhookDelivery.objects.values_list("webhook_id", flat=True)) == {hers["id"]}
    assert len(hook_receiver.got) == WebhookDelivery.objects.count() > 0  # the owner's only


def test_a_co_organiser_removed_from_a_league_loses_their_webhooks_on_it_and_its_divisions(receiver):
    league = league_create(name="Lega", slug="lega-removed", game="sette_e_mezzo", table_size=3, division_size=5,
                           round_interval=timedelta(days=1), promote=1, relegate=1, options={"hands": 1})
    for player in bot_players(6):
        league_join(league=league, player=player)
    lea = get_user_model().objects.create_user("lea")
    league.owner = lea
    league.save(update_fields=["owner"])
    owner, cora = APIClient(), APIClient()
    owner.force_login(lea)
    cora.force_login(get_user_model().objects.create_user("cora"))
    assert owner.post(f"/api/leagues/{league.pk}/organisers/", {"username": "cora"}, format="json").status_code == 201
    season, _ = season_start(league=league)
    division = season.divisions.first()
    url = receiver().url
    subscribe(cora, url, league=league.pk)
    subscribe(cora, url, tournament=division.pk)
    kept = subscribe(owner, url, tournament=division.pk)
    assert owner.delete(f"/api/leagues/{league.pk}/organisers/cora/").status_code == 204
    assert list(Webhook.objects.values_list("pk", flat=True)) == [kept["id"]]


def test_a_webhook_whose_owner_no_longer_organises_its_event_is_told_nothing_and_cannot_be_changed(receiver):
    hook_receiver = receiver()
    tournament = make_tournament(bot_players(4), format="round_robin", format_config={}, slug="handed-over")
    olga = organiser_of(tournament)
    made = subscribe(olga, hook_receiver.url, tournament=tournament.pk)
    hook = Webhook.objects.get(pk=made["id"])
    queued = webhooks.webhook_ping(webhook=hook)
    # The tournament is handed to someone else (as the admin may): olga no longer organises it.
    tournament.owner = get_user_model().objects.create_user("nora")
    tournament.save(update_fields=["owner"])
    assert olga.patch(f"/api/webhooks/{hook.pk}/", {"url": "https://hooks.example.org/y"},
                      format="json").status_code == 403
    assert olga.post(f"/api/webhooks/{hook.pk}/ping/").status_code == 403
    assert olga.post(f"/api/webhooks/{hook.pk}/deliveries/{queued.pk}/redeliver/").status_code == 403
    webhooks.deliveries_send()
    queued.refresh_from_db()
    assert hook_receiver.got == [] and queued.status == "failed"
    assert "no longer organises" in queued.log[0]["error"]
    play_out(tournament)
    assert list(WebhookDelivery.objects.values_list("pk", flat=True)) == [queued.pk]  # told nothing new
    assert olga.delete(f"/api/webhooks/{hook.pk}/").status_code == 204  # but she may still delete it


def test_only_an_events_organisers_subscribe_and_each_account_sees_its_own(receiver):
    tournament = make_tournament(bot_players(4), format="round_robin", format_config={}, slug="mine")
    olga = organiser_of(tournament)
    made = subscribe(olga, receiver().url, tournament=tournament.pk)
    eve = APIClient()
    eve.force_login(get_user_model().objects.create_user("eve"))
    refused = eve.post("/api/webhooks/", {"url": "https://hooks.example.org/x", "events": ["match.finished"],
                                          "tournament": tournament.pk}, format="json")
    assert refused.status_code == 403
    assert eve.get("/api/webhooks/").json()["results"] == []
    for method in ("get", "delete"):
        assert getattr(eve, method)(f"/api/webhooks/{made['id']}/").status_code == 404
    assert eve.patch(f"/api/webhooks/{made['id']}/", {"active": False}, format="json").status_code == 404
    assert APIClient().get("/api/webhooks/").status_code == 401
    _, secret = token_create(user=tournament.owner, name="reader", scopes=["read"])
    reader = APIClient()
    reader.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert reader.post(f"/api/webhooks/{made['id']}/ping/").status_code == 403  # needs organise
    assert "secret" not in olga.get(f"/api/webhooks/{made['id']}/").json()  # shown once, when made
    assert olga.patch(f"/api/webhooks/{made['id']}/", {"active": False}, format="json").json()["active"] is False
    play_out(tournament)
    assert not WebhookDelivery.objects.exists()  # a paused webhook is told nothing
    assert olga.delete(f"/api/webhooks/{made['id']}/").status_code == 204


def test_a_leagues_webhook_hears_every_divisions_events(receiver):
    hook_receiver = receiver()
    league = league_create(name="Lega", slug="lega", game="sette_e_mezzo", table_size=3, division_size=5,
                           round_interval=timedelta(days=1), promote=1, relegate=1, options={"hands": 1})
    for player in bot_players(6):
        league_join(league=league, player=player)
    owner = get_user_model().objects.create_user("lea")
    league.organisers.add(owner)  # one who may follow it
    webhooks.webhook_create(owner=owner, url=hook_receiver.url, events=["round.published"], league=league)
    season, _ = season_start(league=league)
    webhooks.deliveries_send()
    divisions = {e["tournament"] for e in hook_receiver.events()}
    assert divisions == set(season.divisions.values_list("pk", flat=True)) and len(divisions) >= 1
    assert all(Tournament.objects.get(pk=t).season_id == season.pk for t in divisions)
