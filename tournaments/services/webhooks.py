"""Webhooks (docs/api.md, "Webhooks"): an organiser's URL told of a tournament's or a league's
events — a round published, a match finished, the standings changed, the tournament finished.

An event is an outbox row per subscribed webhook (WebhookDelivery), written in the same
transaction as the change it tells of: a change rolled back tells nothing, a change committed
is never lost. The workers POST it (``deliveries_send``: sent once the transaction commits,
then retried by Celery beat with backoff), signed with the webhook's secret:

    X-Mazziere-Signature: sha256=<hex HMAC-SHA256(secret, "<X-Mazziere-Timestamp>." + body)>

Deliveries go to the workers of their own queue (WEBHOOK_QUEUE), so a slow receiver holds no
worker of matches or clocks. A run POSTs several at once, each POST bounded as a whole by
WEBHOOK_TIMEOUT_SECONDS, a receiver at most WEBHOOK_RECEIVER_CONNECTIONS at once, and a
receiver that is failing is sent its deliveries by the beat's sweep only, where it runs
(``deliveries_send``).
Each delivery is claimed just before its POST, for that POST's deadline and a margin, and its
outcome recorded as soon as it ends, each in its own transaction: a task run twice, or a sweep
running beside a task, sends nothing twice; only a worker killed (or stopped past the claim)
between the POST and the record leaves the claim to run out and the delivery is sent again (at
least once: receivers deduplicate on X-Mazziere-Delivery). URLs are held to the HTTP bots' rule: public addresses
only (HTTP_BOTS_ALLOWED_HOSTS lists exceptions), checked when a URL is set and at every
connection; redirects are not followed. A webhook is told of its event only while its owner may
follow it (tournaments.permissions.follows_webhooks): removing a co-organiser deletes their
webhooks on the event, and a delivery queued for an owner who lost the event is not sent.
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import json
import secrets
import time
import urllib.error
import urllib.request
import uuid
from collections import Counter
from collections.abc import Iterable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q, Window
from django.db.models.functions import RowNumber
from django.utils import timezone

from bots.external.http import REDIRECT_REFUSED, failure, opener
from tournaments import limits
from tournaments import permissions as rules
from tournaments.errors import ServiceError
from tournaments.models import League, Match, Round, Tournament, Webhook, WebhookDelivery

from . import dispatch
from .players import check_public_url, public_only

EVENTS = tuple(Webhook.Event.values)
PING = "ping"  # the test event a webhook's owner sends to check the receiver
WEBHOOKS_PER_ACCOUNT = 20
CLAIM_MARGIN = 20  # seconds a claim outlives its POST's deadline: time to record the outcome
# The wait before each retry (seconds): about a day in all, then the delivery has failed.
BACKOFF = (10, 30, 120, 600, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600)
MAX_ATTEMPTS = len(BACKOFF) + 1
SEND_BATCH = 100  # deliveries one run sends at most (the next beat sends the rest)
CLAIMED, BUSY, TAKEN = "claimed", "busy", "taken"  # what _claim found
_FAILURES = (OSError, http.client.HTTPException, ValueError)  # a POST's; URLError and TimeoutError are OSErrors
ANSWER_KEPT = 500  # characters of each answer kept in the delivery's log
UNFOLLOWED = "not sent: the webhook's owner no longer organises its event"
SIGNATURE_TOLERANCE = 300  # seconds: what docs/api.md tells receivers to accept


# --- subscriptions ----------------------------------------------------------------------------

def _check_url(url) -> str:
    limits.check_http_url(url, "url", "url")
    check_public_url(url, "url", "url", "webhooks are sent to the public internet only")
    return url


def _check_events(events) -> list[str]:
    if not isinstance(events, list) or not events or not all(isinstance(e, str) for e in events):
        raise ServiceError(f"events is a non-empty list of: {', '.join(EVENTS)}", "events")
    unknown = sorted(set(events) - set(EVENTS))
    if unknown:
        raise ServiceError(f"unknown event(s) {', '.join(unknown)}; events: {', '.join(EVENTS)}", "events")
    return sorted(set(events))


@transaction.atomic
def webhook_create(*, owner, url: str, events: list[str], tournament: Tournament | None = None,
                   league=None) -> Webhook:
    """Subscribe ``url`` to ``events`` of a tournament or of a league (the caller checked that
    ``owner`` organises it). At most WEBHOOKS_PER_ACCOUNT per account; the secret is drawn."""
    if (tournament is None) == (league is None):
        raise ServiceError("a webhook follows one tournament or one league", "tournament")
    url, events = _check_url(url), _check_events(events)
    if Webhook.objects.select_for_update().filter(owner=owner).count() >= WEBHOOKS_PER_ACCOUNT:
        raise ServiceError(f"at most {WEBHOOKS_PER_ACCOUNT} webhooks per account: delete one first", "url",
                           code="conflict")
    return Webhook.objects.create(owner=owner, url=url, events=events, tournament=tournament, league=league,
                                  secret=secrets.token_hex(32))


def webhook_update(*, webhook: Webhook, url: str | None = None, events: list[str] | None = None,
                   active: bool | None = None) -> Webhook:
    """Change a webhook's URL, events or whether it is active (an inactive one is told nothing)."""
    if url is not None:
        webhook.url = _check_url(url)
    if events is not None:
        webhook.events = _check_events(events)
    if active is not None:
        webhook.active = bool(active)
    webhook.save(update_fields=["url", "events", "active"])
    return webhook


def webhook_delete(*, webhook: Webhook) -> None:
    """Delete a webhook and its deliveries (the caller checked that its owner may)."""
    webhook.delete()


def webhooks_unfollowed_delete(*, owner, event) -> None:
    """Delete ``owner``'s webhooks on ``event`` (a league: and on its divisions) that they may
    no longer follow (rules.follows_webhooks), with their deliveries: what removing a
    co-organiser ends, in its transaction."""
    if isinstance(event, Tournament):
        on_event = Q(tournament=event)
    elif isinstance(event, League):
        on_event = Q(league=event) | Q(tournament__season__league=event)
    else:
        return  # a rating ladder has no webhooks
    Webhook.objects.filter(on_event, owner=owner).exclude(rules.follows_webhooks()).delete()


# --- events -----------------------------------------------------------------------------------

def _subscribed(tournament_ids: Iterable[int]) -> dict[int, list[Webhook]]:
    """The active webhooks following each tournament, directly or through its league, whose
    owner may follow it: one query (a league's webhook comes once for each of its divisions
    asked of)."""
    ids = set(tournament_ids)
    if not ids:
        return {}
    rows = (Webhook.objects.filter(rules.follows_webhooks(), active=True)
            .filter(Q(tournament_id__in=ids) | Q(league__seasons__divisions__id__in=ids))
            .annotate(division=F("league__seasons__divisions__id")).order_by("pk"))
    by_tournament: dict[int, list[Webhook]] = {}
    for hook in rows:
        tid = hook.tournament_id if hook.tournament_id in ids else hook.division
        if tid in ids:
            by_tournament.setdefault(tid, []).append(hook)
    return by_tournament


def _following(tournament: Tournament, event: str) -> list[Webhook]:
    """The active webhooks told of ``event`` of ``tournament``."""
    return [hook for hook in _subscribed([tournament.pk]).get(tournament.pk, []) if event in hook.events]


def _when(at: datetime) -> str:
    return at.isoformat().replace("+00:00", "Z")


def _event(kind: str, tournament_id: int | None, data: dict, at: datetime) -> dict:
    return {"id": str(uuid.uuid4()), "event": kind, "created_at": _when(at), "tournament": tournament_id, "data": data}


def _queue(pairs: list[tuple[Webhook, dict]]) -> None:
    """Write the deliveries (in the caller's transaction) and send them once it commits."""
    if not pairs:
        return
    now = timezone.now()
    rows = WebhookDelivery.objects.bulk_create(
        WebhookDelivery(webhook=hook, delivery_id=uuid.uuid4(), event_id=payload["id"], event=payload["event"],
                        payload=payload, next_attempt_at=now)
        for hook, payload in pairs
    )
    dispatch.send_webhooks([row.pk for row in rows])


def notify_results(*, finished: list[Match], results: dict[int, tuple[list, list]], closed: Iterable[Round]) -> None:
    """Events of recorded results (services.recording, in its transaction): ``match.finished``
    for each match, its scores and places when its outcome is public (not a duplicate round
    still being played), and ``standings.changed`` once per tournament."""
    by_tournament: dict[int, list[Match]] = {}
    for match in finished:
        by_tournament.setdefault(match.round.tournament_id, []).append(match)
    hooks = _subscribed(by_tournament)
    if not hooks:
        return
    now = timezone.now()
    closed_by_tournament = {}
    for rnd in closed:
        closed_by_tournament[rnd.tournament_id] = max(closed_by_tournament.get(rnd.tournament_id, 0), rnd.number)
    pairs = []
    for tid, matches in by_tournament.items():
        for hook in hooks.get(tid, ()):
            if Webhook.Event.MATCH_FINISHED in hook.events:
                for match in matches:
                    data = {"match": match.pk, "round": match.round.number, "table": match.table,
                            "url": f"/api/matches/{match.pk}/"}
                    if match.deal is None:  # a duplicate deal's result waits for its round's end
                        data["scores"], data["places"] = results[match.pk]
                    pairs.append((hook, _event(Webhook.Event.MATCH_FINISHED, tid, data, now)))
            if Webhook.Event.STANDINGS_CHANGED in hook.events:
                data = {"rounds_closed": closed_by_tournament.get(tid), "url": f"/api/tournaments/{tid}/standings/"}
                pairs.append((hook, _event(Webhook.Event.STANDINGS_CHANGED, tid, data, now)))
    _queue(pairs)


def notify_rounds(*, tournament: Tournament, rounds: Iterable[Round], matches: dict[int, list[int]]) -> None:
    """``round.published`` for rounds just made (services.rounds, in its transaction): each
    round's number and its matches (``matches``: round id -> match ids)."""
    hooks = _following(tournament, Webhook.Event.ROUND_PUBLISHED)
    if not hooks:
        return
    now = timezone.now()
    _queue([(hook, _event(Webhook.Event.ROUND_PUBLISHED, tournament.pk,
                          {"round": rnd.number, "matches": matches.get(rnd.pk, []),
                           "url": f"/api/tournaments/{tournament.pk}/rounds/"}, now))
            for rnd in rounds for hook in hooks])


def notify_finished(*, tournament: Tournament) -> None:
    """``tournament.finished`` (services.rounds.tournament_finish, in its transaction)."""
    hooks = _following(tournament, Webhook.Event.TOURNAMENT_FINISHED)
    now = timezone.now()
    _queue([(hook, _event(Webhook.Event.TOURNAMENT_FINISHED, tournament.pk,
                          {"url": f"/api/tournaments/{tournament.pk}/standings/"}, now)) for hook in hooks])


@transaction.atomic
def webhook_ping(*, webhook: Webhook) -> WebhookDelivery:
    """A ``ping`` delivery, for the owner to check the receiver and its signature check."""
    payload = _event(PING, webhook.tournament_id, {"webhook": webhook.pk}, timezone.now())
    _queue([(webhook, payload)])
    return webhook.deliveries.get(event_id=payload["id"])


@transaction.atomic
def delivery_redeliver(*, delivery: WebhookDelivery) -> WebhookDelivery:
    """Send a past delivery's event again, as a new delivery (a new X-Mazziere-Delivery, the
    same event id and body)."""
    _queue([(delivery.webhook, delivery.payload)])
    return delivery.webhook.deliveries.filter(event_id=delivery.event_id).order_by("-pk").first()


# --- sending ----------------------------------------------------------------------------------

def signature(secret: str, timestamp: str, body: bytes) -> str:
    """The X-Mazziere-Signature of ``body`` sent at ``timestamp``."""
    return "sha256=" + hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()


def claim_seconds() -> float:
    """How long a delivery is claimed for when its POST starts: the POST's deadline
    (WEBHOOK_TIMEOUT_SECONDS) and CLAIM_MARGIN to record its outcome. A claim run out
    unrecorded (its worker died, or stopped for that long) is sent again."""
    return settings.WEBHOOK_TIMEOUT_SECONDS + CLAIM_MARGIN


def _due(now: datetime) -> Q:
    """Deliveries due at ``now``: pending and due, or sending under a claim run out."""
    return (Q(status=WebhookDelivery.Status.PENDING, next_attempt_at__lte=now)
            | Q(status=WebhookDelivery.Status.SENDING, claimed_until__lte=now))


def _swept() -> bool:
    """Whether Celery beat sweeps the deliveries due (retry_webhooks): where there is a broker,
    the workers' deployment. On the embedded defaults nothing does."""
    return bool(settings.CELERY_BROKER_URL)


def _candidates(delivery_ids: list[int] | None, now: datetime) -> list[WebhookDelivery]:
    """The deliveries a run may send (of ``delivery_ids``, or any): due, at most SEND_BATCH,
    taken from each receiver in turn (every webhook's first due, then every one's second...),
    so that one receiver's backlog never fills a run. Given ``delivery_ids`` (the task sent
    for a change's events) where the beat sweeps, none of a failing receiver's (one with a
    delivery waiting for a retry): the sweep sends those, so a receiver that does not answer
    holds the sweep's worker, not the one of every change's events."""
    rows = WebhookDelivery.objects.filter(_due(now))
    if delivery_ids is not None:
        rows = rows.filter(pk__in=delivery_ids)
        if _swept():
            failing = WebhookDelivery.objects.filter(status=WebhookDelivery.Status.PENDING, attempts__gt=0)
            rows = rows.exclude(webhook_id__in=failing.values("webhook_id"))
    turn = Window(RowNumber(), partition_by=[F("webhook_id")], order_by=[F("next_attempt_at").asc(), F("pk").asc()])
    rows = rows.annotate(turn=turn).select_related("webhook").order_by("turn", "next_attempt_at", "pk")
    return list(rows[:SEND_BATCH])


def _claim(delivery: WebhookDelivery, now: datetime) -> str:
    """Claim ``delivery`` for its POST, for claim_seconds() from ``now``: CLAIMED; BUSY when
    its receiver already has WEBHOOK_RECEIVER_CONNECTIONS deliveries in flight (under live
    claims, any worker's); TAKEN when it is no longer due (sent, or held by another worker).
    The delivery's row is locked, then its webhook's while the deliveries in flight are
    counted, so that workers claiming for one receiver count one after another. In that order,
    as deleting a webhook deletes its deliveries first; FOR NO KEY UPDATE on the webhook, so
    that the outbox's inserts, which only reference it, go on meanwhile."""
    with transaction.atomic():
        due = WebhookDelivery.objects.select_for_update(skip_locked=True).filter(_due(now), pk=delivery.pk)
        if not list(due.values_list("pk")):
            return TAKEN
        list(Webhook.objects.select_for_update(no_key=True).filter(pk=delivery.webhook_id).values_list("pk"))
        in_flight = WebhookDelivery.objects.filter(
            webhook_id=delivery.webhook_id, status=WebhookDelivery.Status.SENDING, claimed_until__gt=now).count()
        if in_flight >= settings.WEBHOOK_RECEIVER_CONNECTIONS:
            return BUSY
        WebhookDelivery.objects.filter(pk=delivery.pk).update(
            status=WebhookDelivery.Status.SENDING, claimed_until=now + timedelta(seconds=claim_seconds()))
        return CLAIMED


def _post(delivery: WebhookDelivery) -> tuple[int | None, str, str]:
    """POST the delivery: (status code or None, the answer's start, the error), the whole
    exchange within WEBHOOK_TIMEOUT_SECONDS (bots.external.http's opener: a receiver trickling
    its answer is cut off then, as one that never answers, and it has failed). The error is in
    the receiver's terms (bots.external.http.failure): never a traceback, a file of ours, or
    the address a name resolved to. A redirect is an answer like any other not 2xx. Touches no
    database: it runs in a sender thread of :func:`deliveries_send`."""
    hook = delivery.webhook
    body = json.dumps(delivery.payload, separators=(",", ":")).encode()
    stamp = str(int(time.time()))
    try:
        request = urllib.request.Request(hook.url, data=body, method="POST", headers={
            "Content-Type": "application/json", "User-Agent": "Mazziere-Webhooks/1",
            "X-Mazziere-Event": delivery.event, "X-Mazziere-Delivery": str(delivery.delivery_id),
            "X-Mazziere-Timestamp": stamp, "X-Mazziere-Signature": signature(hook.secret, stamp, body)})
        with opener(public_only(limits.url_host(hook.url))).open(
                request, timeout=settings.WEBHOOK_TIMEOUT_SECONDS) as answer:
            return answer.status, answer.read(ANSWER_KEPT).decode("utf-8", "replace"), ""
    except urllib.error.HTTPError as exc:
        error = REDIRECT_REFUSED if 300 <= exc.code < 400 else ""
        try:
            return exc.code, exc.read(ANSWER_KEPT).decode("utf-8", "replace"), error
        except _FAILURES as late:  # its body not in time
            return exc.code, "", error or failure(late)[:ANSWER_KEPT]
    except _FAILURES as exc:
        return None, "", failure(exc)[:ANSWER_KEPT]


def _record(delivery: WebhookDelivery, code: int | None, answer: str, error: str, now: datetime,
            *, final: bool = False) -> None:
    """Log an attempt: a 2xx delivers it; otherwise it is tried again after BACKOFF, unless it
    was the last attempt or ``final`` (not to be tried again): then it has failed."""
    with transaction.atomic():
        row = WebhookDelivery.objects.select_for_update().filter(
            pk=delivery.pk, status=WebhookDelivery.Status.SENDING).first()
        if row is None:
            return
        row.attempts += 1
        row.log = [*row.log, {"at": _when(now), "status": code, "answer": answer,
                              "error": error}][-MAX_ATTEMPTS:]
        row.claimed_until = None
        if code is not None and 200 <= code < 300:
            row.status, row.delivered_at = WebhookDelivery.Status.DELIVERED, now
        elif final or row.attempts >= MAX_ATTEMPTS:
            row.status = WebhookDelivery.Status.FAILED
        else:
            row.status = WebhookDelivery.Status.PENDING
            row.next_attempt_at = now + timedelta(seconds=BACKOFF[row.attempts - 1])
        row.save(update_fields=["attempts", "log", "claimed_until", "status", "delivered_at", "next_attempt_at"])


def deliveries_send(*, delivery_ids: list[int] | None = None, now: datetime | None = None) -> int:
    """Send the deliveries due (of ``delivery_ids``, or any due: the beat's sweep) that a run
    may take (:func:`_candidates`). Up to WEBHOOK_SENDERS at once, each claimed just before
    its POST (:func:`_claim`), POSTed outside any transaction within WEBHOOK_TIMEOUT_SECONDS
    in all, and its outcome recorded as soon as it ends (:func:`_record`): a 2xx delivers it;
    anything else (an error status, no whole answer in time, a refused or private address) is
    retried after BACKOFF, and after MAX_ATTEMPTS it has failed. One run's deliveries for one
    receiver wait for its earlier ones while it has WEBHOOK_RECEIVER_CONNECTIONS in flight;
    those whose receiver is busy with another worker's are left to the sweep, and so is what
    is still unclaimed after WEBHOOK_TIMEOUT_SECONDS (a run ends within about twice that).
    A delivery whose webhook's owner may no longer follow its event is not sent: it has failed
    (UNFOLLOWED). ``now`` (the tests' clock) is the run's start. Returns how many were claimed."""
    started, base = time.monotonic(), now or timezone.now()

    def clock() -> datetime:
        return base + timedelta(seconds=time.monotonic() - started)

    waiting = _candidates(delivery_ids, base)
    if not waiting:
        return 0
    following = set(Webhook.objects.filter(rules.follows_webhooks(), pk__in={r.webhook_id for r in waiting})
                    .values_list("pk", flat=True))
    claimed, flying, ours = 0, {}, Counter()  # ours: this run's POSTs in flight, per webhook
    with ThreadPoolExecutor(max_workers=settings.WEBHOOK_SENDERS, thread_name_prefix="webhook-sender") as senders:
        while waiting or flying:
            if time.monotonic() - started >= settings.WEBHOOK_TIMEOUT_SECONDS:
                waiting = []  # no new claims: the rest is the sweep's
            later = []
            for row in waiting:
                hook = row.webhook_id
                if len(flying) >= settings.WEBHOOK_SENDERS or ours[hook] >= settings.WEBHOOK_RECEIVER_CONNECTIONS:
                    later.append(row)  # once one of ours ends
                    continue
                outcome = _claim(row, clock())
                if outcome == CLAIMED:
                    claimed += 1
                    if hook in following:
                        flying[senders.submit(_post, row)] = row
                        ours[hook] += 1
                    else:
                        _record(row, None, "", UNFOLLOWED, clock(), final=True)
                elif outcome == BUSY and ours[hook]:
                    later.append(row)
                # BUSY with another worker's deliveries, or TAKEN: theirs, then the sweep's
            waiting = later
            if flying:
                done, _ = wait(flying, return_when=FIRST_COMPLETED)
                for future in done:
                    row = flying.pop(future)
                    ours[row.webhook_id] -= 1
                    _record(row, *future.result(), clock())
    return claimed
