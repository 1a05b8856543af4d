"""Playing bot matches: a batch claimed (services.leases), each match played through
bots.runner with its seats' bots, and what was played recorded a flush at a time
(services.recording). The caller says what becomes of the matches those results open (the
next rounds): a worker keeps their first batch and sends the rest to the broker; a process
that plays a whole tournament itself (:func:`tournament_play_out`: a command in eager mode,
the tests, the benches) plays them all here.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from django.conf import settings

import bots
from bots import runner
from tournaments.errors import ServiceError
from tournaments.models import Result, Tournament
from tournaments.selectors import open_bot_matches

from . import dispatch
from .clocks import bot_policy
from .leases import Claim, ClaimStatus, Heartbeat, attempt_charge, leases_hand_back, leases_renew, matches_claim
from .online import online_matches_open
from .players import player_bot
from .recording import Outcome, matches_record_results
from .seeds import bot_seed

log = logging.getLogger(__name__)

OnPlayed = Callable[[int], None] | None
ShouldStop = Callable[[], bool] | None


def match_play(*, match_id: int, owner: str) -> Claim:
    """Claim a bot match, play it and record the result; the matches that opens go to the
    workers. Safe to call twice, or from two workers at once: the lease keeps them apart and
    the result is recorded only once."""
    return match_play_batch(match_ids=[match_id], owner=owner)[match_id]


def match_play_batch(*, match_ids: Sequence[int], owner: str, on_played: OnPlayed = None,
                     should_stop: ShouldStop = None, play_all: bool = False) -> dict[int, Claim]:
    """Claim bot matches, play those claimed in the order given, and record their results a
    flush at a time: whenever MATCH_FLUSH_SECONDS have passed since the last flush, and at the
    end. The leases of matches not yet played are renewed when half their time has gone, so a
    long batch keeps its matches and a dead worker's batch goes back after one lease.

    Returns each match's claim (a played match's is "finished", with the match as recorded).
    ``on_played(match_id)`` is called after each match is recorded (progress bars).

    The bot matches the recorded results open (the next rounds): a worker (``play_all``
    false) keeps their first batch, sized at the pace its matches have been taking
    (dispatch.split), and sends the rest to the broker; it plays on with the kept batch for at
    most one lease's time, then sends it too, so a task stays short and the broker never takes
    a long one for a lost one. With ``play_all`` (a process playing a whole tournament) they
    are all played here, none sent.

    ``should_stop()`` is asked before each match: once it says yes (the worker is told to shut
    down), the match in hand has been recorded, and the rest are handed back (status
    "handed_back": pending again and, for a worker, sent to the broker for another) at once."""
    claims: dict[int, Claim] = {}
    batch = list(dict.fromkeys(match_ids))
    play_on_until = time.monotonic() + settings.MATCH_LEASE_SECONDS
    while batch:
        played, opened = _play_batch(batch, owner, on_played, should_stop, play_all)
        claims.update(played)
        batch = [pk for pk in dict.fromkeys(opened) if pk not in claims]
        stopping = should_stop is not None and should_stop()
        if batch and (stopping or (not play_all and time.monotonic() > play_on_until)):
            if not play_all:
                dispatch.send(batch)  # outside any transaction: sent now
            break
    return claims


def _play_batch(match_ids: list[int], owner: str, on_played: OnPlayed, should_stop: ShouldStop,
                play_all: bool) -> tuple[dict[int, Claim], list[int]]:
    """Claim, play and record one batch. Returns the claims and the new matches to play next
    (all of those the results opened with ``play_all``; else the kept batch, the rest sent)."""
    claims = matches_claim(match_ids=match_ids, owner=owner)
    to_play = [pk for pk in match_ids if claims[pk].status == ClaimStatus.CLAIMED]
    if not to_play:
        return claims, []
    batch = _Batch(claims, to_play, owner, on_played, play_all)
    with batch.heartbeat:  # renews the leases from a thread while this plays
        for index, pk in enumerate(to_play):
            if should_stop is not None and should_stop():
                batch.hand_back(index)
                break
            if batch.renewal_due():
                batch.renew(index)
            if claims[pk].status == ClaimStatus.CLAIMED:
                batch.play(pk)
        batch.flush()
    return claims, batch.opened


class _Batch:
    """One claimed batch being played (:func:`_play_batch`): the matches played since the last
    flush, what a match has cost this worker so far, when the leases are next renewed, and
    the matches the recorded results opened."""

    def __init__(self, claims: dict[int, Claim], to_play: list[int], owner: str, on_played: OnPlayed,
                 play_all: bool) -> None:
        self.claims, self.to_play, self.owner = claims, to_play, owner
        self.on_played, self.play_all = on_played, play_all
        self.opened: list[int] = []
        self.played: list[Outcome] = []
        self.play_seconds, self.play_count = 0.0, 0  # what a match costs this worker: bots, engine, its record
        self.lease, self.flush_every = settings.MATCH_LEASE_SECONDS, settings.MATCH_FLUSH_SECONDS
        self.renew_at = time.monotonic() + self.lease / 2
        self.last_flush = time.monotonic()
        self.heartbeat = Heartbeat(owner, to_play)

    def flush(self) -> None:
        """Record the matches played since the last flush, and pass on the matches that opens."""
        if self.played:
            recorded, progress = matches_record_results(outcomes=self.played, source=Result.Source.ENGINE)
            self._pass_on(progress)
            for outcome in self.played:
                self.claims[outcome.match_id] = Claim(ClaimStatus.FINISHED, recorded[outcome.match_id])
                if self.on_played is not None:
                    self.on_played(outcome.match_id)
            self.heartbeat.progressed(done=[outcome.match_id for outcome in self.played])
            self.played.clear()
        self.last_flush = time.monotonic()

    def _pass_on(self, progress) -> None:
        """The matches recorded results opened: all played here (``play_all``), or a batch kept,
        sized at this worker's pace, and the rest sent to the broker."""
        if self.play_all:
            self.opened.extend(progress.to_play)
            # Online matches wait for people: opened here, their external bots sent on.
            more = online_matches_open(match_ids=list(progress.to_open))
            self.opened.extend(more.to_play)
            dispatch.move_online(more.to_move)
        else:
            split = dispatch.split(progress.to_play, pace=self.play_seconds / self.play_count, keep=True)
            dispatch.send_batches(split.rest)
            dispatch.open_online(progress.to_open)
            self.opened.extend(split.kept)

    def hand_back(self, index: int) -> None:
        """Told to stop: record what was played, and hand the matches from ``index`` on back
        (for a worker, sent to the broker for another)."""
        self.flush()
        left = [p for p in self.to_play[index:] if self.claims[p].status == ClaimStatus.CLAIMED]
        handed = leases_hand_back(match_ids=left, owner=self.owner)
        self.heartbeat.progressed(done=left)
        if not self.play_all:
            dispatch.send(handed)
        for given in handed:
            self.claims[given] = Claim(ClaimStatus.HANDED_BACK, self.claims[given].match)
        log.info("stopping: handed back %d match(es) for another worker", len(handed))

    def renewal_due(self) -> bool:
        return time.monotonic() >= self.renew_at

    def renew(self, index: int) -> None:
        """Half a lease has gone: record what was played, and renew the leases of the matches
        from ``index`` on; those lost meanwhile are another's ("busy")."""
        self.flush()
        left = self.to_play[index:]
        still_held = leases_renew(match_ids=left, owner=self.owner)
        for lost in set(left) - still_held:
            self.claims[lost] = Claim(ClaimStatus.BUSY, self.claims[lost].match)
        self.heartbeat.progressed(done=set(left) - still_held)
        self.renew_at = time.monotonic() + self.lease / 2

    def play(self, pk: int) -> None:
        """Play one claimed match; its outcome waits for the next flush (due now, if
        MATCH_FLUSH_SECONDS have passed since the last)."""
        match = self.claims[pk].match
        self.heartbeat.progressed()
        # A match whose earlier worker died holding it may be what killed it: it is played
        # alone, its play charged (and committed) first, so a match that kills every worker
        # is given up after MATCH_MAX_ATTEMPTS plays, and the innocent rest of that worker's
        # batch is never charged for plays that did not start.
        careful = match.interrupted > 0
        if careful:
            self.flush()
            attempt_charge(match=match, owner=self.owner)
        tournament = match.round.tournament
        players = _seat_bots(self.claims[pk], tournament.game)
        started = time.monotonic()
        try:
            outcome = runner.play_match(tournament.game, players, seed=match.seed, options=tournament.options,
                                        deck=match.deck, policy=bot_policy(len(players)))
        except Exception:
            # A bug, not a bot's fault (bots' failures are forfeits inside the runner): the
            # rest of the batch goes on; this match keeps its lease, no longer renewed, and
            # is played again once reclaim_matches finds the lease run out.
            self.heartbeat.progressed(done=[pk])
            if not careful:
                attempt_charge(match=match, owner=self.owner)
            log.exception("match %s could not be played (attempt %s)", pk, match.attempts)
            self.claims[pk] = Claim(ClaimStatus.FAILED, match)
            return
        self.played.append(_outcome(pk, outcome, charge=not careful))
        self.play_seconds += time.monotonic() - started
        self.play_count += 1
        if time.monotonic() - self.last_flush >= self.flush_every:
            self.flush()


def _seat_bots(claim: Claim, game: str) -> list:
    """Each seat's bot, seeded from the match's seed and its position; a player whose bot cannot
    be built gets one that fails at once (the runner forfeits the seat)."""
    players = []
    for seat in claim.seats:
        seed = bot_seed(claim.match.seed, seat.position)
        try:
            players.append(player_bot(seat.player, game=game, seed=seed))
        except ServiceError as exc:
            players.append(_unavailable_bot(game, seed, exc.message))
    return players


def _outcome(match_id: int, played, *, charge: bool) -> Outcome:
    """What the runner's outcome of a match records (services.recording)."""
    state = played.state
    return Outcome(
        match_id=match_id,
        scores=list(state.scores()),
        places=list(played.places),
        forfeits={seat: (f.reason, f.detail) for seat, f in played.forfeits.items()},
        record=state.to_json(),
        decisions=list(played.decisions),
        think_seconds=list(played.decision_time),
        charge=charge,
    )


def _unavailable_bot(game: str, seed: int, reason: str):
    """A bot that fails at its first decision, so the runner forfeits the seat (and plays it
    with the fallback bot) when a player's bot cannot be built."""
    class Unavailable(bots.Bot):
        def act(self, view):
            raise bots.BotFailure("unavailable", reason)

    bot = Unavailable(game=game, seed=seed)
    bot.name = "unavailable"
    return bot


@dataclass(frozen=True)
class PlayedOut:
    """Where :func:`tournament_play_out` stopped: how many matches it played, and the last claim
    of each match it asked for (failed or exhausted ones, and those others hold, say why
    it stopped before the tournament finished)."""

    played: int
    claims: dict[int, Claim]

    def with_status(self, status: ClaimStatus) -> list[int]:
        return sorted(pk for pk, claim in self.claims.items() if claim.status == status)


def tournament_play_out(*, tournament: Tournament, owner: str, on_played: OnPlayed = None,
                        should_stop: ShouldStop = None) -> PlayedOut:
    """Play a running tournament's bot matches in this process, round after round, until none
    is left that ``owner`` may play: the tournament finished, or what remains waits for
    people, for a round's hour, or for another worker's live lease; or a match failed or was
    given up (it is not played again here); or ``should_stop()`` said so (the match in hand
    recorded, the rest handed back). Matches leased to ``owner`` (a run of it killed half way)
    are claimed again at once. Nothing is sent to the broker: the matches its results open
    are played here too, those of another tournament included (a league's next season, when
    this was its last division to finish), since no worker would play them. The one loop that
    plays a tournament out: ``manage.py run_tournament`` in eager mode, the tests and the
    benches."""
    claims: dict[int, Claim] = {}
    played = 0

    def count(match_id: int) -> None:
        nonlocal played
        played += 1
        if on_played is not None:
            on_played(match_id)

    while not (should_stop is not None and should_stop()):
        playable, _ = open_bot_matches(tournament, owner)
        given_up = {pk for pk, claim in claims.items()
                    if claim.status in (ClaimStatus.FAILED, ClaimStatus.EXHAUSTED)}
        playable = [pk for pk in playable if pk not in given_up]
        if not playable:
            break
        before = played
        claims.update(match_play_batch(match_ids=playable, owner=owner, on_played=count, should_stop=should_stop,
                                       play_all=True))
        if played == before:
            break  # claimed elsewhere meanwhile, failed or given up: nothing more here
    return PlayedOut(played=played, claims=claims)
