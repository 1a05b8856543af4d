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
import time
import uuid
from collections import Counter
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, transaction
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
    is kept too, with an empty body. Each answer comes ``delay`` seconds after its POST;
    ``most`` is the most POSTs it held at once."""

    def __init__(self, statuses=(200,), hold: int | None = None, location: str | None = None, delay: float = 0.0):
        self.statuses, self.got = list(statuses), []
        self.hold, self.holding, self.release = hold, threading.Event(), threading.Event()
        self.lock, self.in_flight, self.most = threading.Lock(), 0, 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                with outer.lock:
                    outer.got.append((dict(self.headers), body))
                    outer.in_flight += 1
                    outer.most = max(outer.most, outer.in_flight)
                    held = len(outer.got) == outer.hold
                if held:
                    outer.holding.set()
                    outer.release.wait(60)
                outer.release.wait(delay)
                with outer.lock:
                    outer.in_flight -= 1
                self.answer()

            def do_GET(self):
                outer.got.append((dict(self.headers), b""))
                self.answer()

            def answer(self):
                code = outer.statuses[min(len(outer.got), len(outer.statuses)) - 1]
                try:
                    self.send_response(code)
                    if location is not None:
                        self.send_header("Location", location)
                    self.send_header("Content-Length", "2")
                    self.end_headers()
                    self.wfile.write(b"ok")
                except OSError:
                    pass  # the sender gave up waiting

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


class Trickler:
    """A receiver on loopback that answers 200 a byte at a time, one every ``every`` seconds:
    the whole answer from its status line on, or (``body_only``) the body after the headers.
    From the ``healthy_from``-th POST on it answers at once."""

    ANSWER = b"HTTP/1.0 200 OK\r\nContent-Length: 10\r\n\r\n0123456789"

    def __init__(self, every: float, body_only: bool = False, healthy_from: int | None = None):
        self.got, self.release = [], threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                outer.got.append((dict(self.headers), self.rfile.read(int(self.headers["Content-Length"]))))
                answer, at_once = Trickler.ANSWER, b""
                if healthy_from is not None and len(outer.got) >= healthy_from:
                    answer, at_once = b"", Trickler.ANSWER
                elif body_only:
                    at_once, answer = answer[:-10], answer[-10:]
                try:
                    self.wfile.write(at_once)
                    for byte in answer:
                        self.wfile.write(bytes([byte]))
                        if outer.release.wait(every):
                            return
                except OSError:
                    pass  # cut off: the sender gave up on us

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"


@pytest.fixture
def receiver(settings):
    settings.HTTP_BOTS_ALLOWED_HOSTS = ["127.0.0.1"]  # a test's loopback receiver; nothing else private
    made = []

    def start(*statuses, hold=None, location=None, delay=0.0, trickle=None, body_only=False, healthy_from=None):
        if trickle is not None:
            made.append(Trickler(trickle, body_only, healthy_from))
        else:
            made.append(Receiver(statuses or (200,), hold, location, delay))
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
    assert webhooks._claim(delivery, now) == webhooks.CLAIMED
    assert webhooks.deliveries_send(delivery_ids=[delivery.pk], now=now + timedelta(seconds=1)) == 0
    # ...then it is sent once, and the task redelivered by the broker finds nothing to send.
    later = now + timedelta(seconds=webhooks.claim_seconds() + 1)
    assert webhooks.deliveries_send(delivery_ids=[delivery.pk], now=later) == 1
    assert webhooks.deliveries_send(delivery_ids=[delivery.pk], now=later) == 0
    assert webhooks.deliveries_send(now=later + timedelta(hours=1)) == 0
    assert len(hook_receiver.got) == 1


@pytest.mark.django_db(transaction=True)  # the worker process reads what this test commits
@pytest.mark.skipif(not os.environ.get("CELERY_BROKER_URL"),
                    reason="needs a broker and PostgreSQL: scripts/test-services runs this")
def test_a_worker_killed_while_it_posts_sends_nothing_it_recorded_again_and_the_rest_once(settings, receiver):
    # A real worker process on a queue of its own (the services leg's worker must not take the
    # task), killed with SIGKILL while the receiver holds the third of five deliveries it was
    # sent at once unanswered, the other four answered and recorded.
    queue = settings.WEBHOOK_QUEUE = f"webhooks-killed-{os.getpid()}"
    hook_receiver = receiver(hold=3)
    tournament = make_tournament(bot_players(4), format="round_robin", format_config={}, slug="killed")
    client = organiser_of(tournament)
    hooks = [subscribe(client, hook_receiver.url, tournament=tournament.pk)["id"] for _ in range(5)]
    deliveries = WebhookDelivery.objects.filter(webhook__in=hooks)
    worker = start_worker(f"{queue}@test", queue, HTTP_BOTS_ALLOWED_HOSTS="127.0.0.1", WEBHOOK_QUEUE=queue)
    try:
        wait_for([f"{queue}@test"])
        with transaction.atomic():
            webhooks.notify_finished(tournament=tournament)  # five deliveries, sent by one task
        assert hook_receiver.holding.wait(60), "the worker did not post the third delivery"
        deadline = time.monotonic() + 60
        while deliveries.filter(status="delivered").count() < 4:
            assert time.monotonic() < deadline, "the four answered were not recorded"
            time.sleep(0.05)
        os.killpg(worker.pid, signal.SIGKILL)
    finally:
        stop(worker)
    hook_receiver.release.set()
    held = hook_receiver.delivery_ids()[2]
    assert sorted(hook_receiver.delivery_ids()) == sorted(map(str, deliveries.values_list("delivery_id", flat=True)))
    assert dict(deliveries.values_list("delivery_id", "status")) == {
        uuid.UUID(d): "sending" if d == held else "delivered" for d in hook_receiver.delivery_ids()}

    # While the dead worker's claim holds, the beat (or the task redelivered) sends nothing...
    assert webhooks.deliveries_send() == 0
    # ...and once it has run out, the one in flight when the worker died, once.
    later = timezone.now() + timedelta(seconds=webhooks.claim_seconds() + 1)
    assert webhooks.deliveries_send(now=later) == 1
    assert webhooks.deliveries_send(now=later + timedelta(hours=1)) == 0
    # It comes again under its delivery id, on which receivers deduplicate (docs/api.md,
    # "Webhooks"); the four recorded never again.
    assert Counter(hook_receiver.delivery_ids()) == {d: 2 if d == held else 1 for d in hook_receiver.delivery_ids()}
    secrets = dict(Webhook.objects.filter(pk__in=hooks).values_list("deliveries__delivery_id", "secret"))
    assert all(verified(secrets[uuid.UUID(h["X-Mazziere-Delivery"])], h, body) for h, body in hook_receiver.got)
    assert set(deliveries.values_list("status", flat=True)) == {"delivered"}


@pytest.mark.django_db(transaction=True)  # two runs, each its own connection, see each other's claims
@pytest.mark.skipif(connection.vendor != "postgresql",
                    reason="two threads writing at once: SQLite's shared in-memory test database locks whole tables")
def test_twelve_deliveries_due_at_once_to_a_receiver_answering_in_9_s_arrive_once_each(settings, receiver, monkeypatch):
    # The defect: a run claimed its whole batch for 60 s from one `now`, then POSTed it in turn;
    # past 60 s the beat's sweep claimed the rest again, and 6 of the 12 arrived twice.
    slow = receiver(delay=9)
    tournament = make_tournament(bot_players(4), format="round_robin", format_config={}, slug="nine-seconds")
    hook = Webhook.objects.get(pk=subscribe(organiser_of(tournament), slow.url, tournament=tournament.pk)["id"])
    sent = []  # the task's message, sent by hand below (on the embedded defaults it would run at the commit)
    monkeypatch.setattr(webhooks.dispatch, "send_webhooks", sent.extend)
    for _ in range(12):
        webhooks.webhook_ping(webhook=hook)
    assert len(sent) == 12
    done = threading.Event()

    def the_task():
        try:
            webhooks.deliveries_send(delivery_ids=sent)
        finally:
            connection.close()

    def the_beat():  # Celery beat's sweep, every second, all along
        try:
            while not done.is_set():
                webhooks.deliveries_send()
                done.wait(1)
        finally:
            connection.close()

    runs = [threading.Thread(target=the_task), threading.Thread(target=the_beat)]
    for run in runs:
        run.start()
    try:
        deadline = time.monotonic() + 240
        while hook.deliveries.exclude(status="delivered").exists():
            assert time.monotonic() < deadline, "not all delivered"
            time.sleep(0.2)
    finally:
        done.set()
        for run in runs:
            run.join(120)
    ids = slow.delivery_ids()
    assert len(ids) == 12 and Counter(ids).most_common(1)[0][1] == 1, Counter(ids).most_common(3)
    assert set(hook.deliveries.values_list("attempts", flat=True)) == {1}
    # No more at once than a receiver is sent by all the workers together.
    assert slow.most <= settings.WEBHOOK_RECEIVER_CONNECTIONS


@pytest.mark.parametrize("body_only", [False, True], ids=["the-whole-answer", "the-body"])
def test_a_receiver_that_trickles_its_answer_is_cut_off_at_the_deadline_and_tried_again(settings, receiver, body_only):
    # The defect: a receiver sending a byte every 3 s held its worker for its whole answer
    # (each read was bounded by the timeout, not the answer) and was recorded delivered.
    settings.WEBHOOK_TIMEOUT_SECONDS = 5
    trickler = receiver(trickle=3, body_only=body_only, healthy_from=2)
    tournament = make_tournament(bot_players(4), format="round_robin", format_config={}, slug="trickled")
    made = subscribe(organiser_of(tournament), trickler.url, tournament=tournament.pk)
    delivery = webhooks.webhook_ping(webhook=Webhook.objects.get(pk=made["id"]))
    t0, began = timezone.now(), time.monotonic()
    assert webhooks.deliveries_send(now=t0) == 1
    took = time.monotonic() - began
    assert 5 <= took < 6.5, took
    delivery.refresh_from_db()
    assert delivery.status == "pending" and delivery.attempts == 1
    assert delivery.log[0]["status"] is None and delivery.log[0]["error"] == "no answer in time"
    # Retried after its backoff as after any failure: this time the receiver answers at once.
    assert webhooks.deliveries_send(now=t0 + timedelta(seconds=5)) == 0
    assert webhooks.deliveries_send(now=t0 + timedelta(seconds=webhooks.BACKOFF[0] + 7)) == 1
    delivery.refresh_from_db()
    assert delivery.status == "delivered" and delivery.attempts == 2 and len(trickler.got) == 2


def test_a_failing_receiver_is_sent_its_new_events_by_the_sweep_not_by_each_changes_task(receiver, broker_configured):
    # With workers (a broker, and Celery beat's sweep), a receiver whose delivery waits for a
    # retry holds the sweep only: the task sent for each change's events sends it nothing (or
    # one that does not answer would hold the worker of every change's events for
    # WEBHOOK_TIMEOUT_SECONDS). On the embedded defaults nothing sweeps: the task sends it all.
    failing = receiver(500, 200)
    tournament = make_tournament(bot_players(4), format="round_robin", format_config={}, slug="failing")
    hook = Webhook.objects.get(pk=subscribe(organiser_of(tournament), failing.url, tournament=tournament.pk)["id"])
    first = webhooks.webhook_ping(webhook=hook)
    assert webhooks.deliveries_send(delivery_ids=[first.pk]) == 1  # answered 500: failing
    second = webhooks.webhook_ping(webhook=hook)
    if not broker_configured:
        assert webhooks.deliveries_send(delivery_ids=[second.pk]) == 1 and len(failing.got) == 2
        return
    assert webhooks.deliveries_send(delivery_ids=[second.pk]) == 0
    assert len(failing.got) == 1
    assert webhooks.deliveries_send() == 1  # the sweep: the new one at once, the first after its backoff
    second.refresh_from_db()
    assert second.status == "delivered"
    assert webhooks.deliveries_send(now=timezone.now() + timedelta(seconds=webhooks.BACKOFF[0] + 1)) == 1
    first.refresh_from_db()
    assert first.status == "delivered" and first.attempts == 2
    # In good standing again: a change's task sends at once.
    third = webhooks.webhook_ping(webhook=hook)
    assert webhooks.deliveries_send(delivery_ids=[third.pk]) == 1


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
        webhooks.deliveries_send()  # the sweep: the receiver is failing after the first
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
    webhooks.deliveries_send()
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
