"""The conversation with the external bots of online matches (their authors' programs: a
subprocess the workers run, or an HTTP endpoint they call), one decision at a time.

A worker asks an external bot outside any transaction (services.online.online_bots_move): the
bot is made for the decision, resumed where the match stands (its match id, its time bank),
handed the seat's view with its own copies of the legal actions (bots.table.view_for, as every
bot at every table), and closed. Its answer, or its failure, is then applied under the match's
lock by the rule of the table (bots.table.Table.answer).

An HTTP bot keeps the match between requests: it has ``start`` once and ``finish`` at the end,
with one match id throughout. A subprocess is started for each decision (``start``, then one
``act``): the match may wait for people for hours between its turns, and no process is kept
that long.
"""

from __future__ import annotations

import logging
import uuid

import bots
from bots.external import BotFailure
from bots.table import BY_BOT, view_for
from tournaments.errors import ServiceError
from tournaments.models import MatchAction, Seat
from tournaments.online_reads import OnlineTable

from .players import player_bot
from .seeds import derive_seed

log = logging.getLogger(__name__)


def bot_match_id(table: OnlineTable, position: int) -> str:
    """The match's id as an external bot at ``position`` knows it: the same at each of its
    decisions, unique to the match and the seat, and telling nothing of the deal."""
    match = table.match
    return uuid.uuid5(uuid.NAMESPACE_URL, f"mazziere:online:{match.pk}:{match.started_at.isoformat()}:{position}").hex


def external_bot(table: OnlineTable, position: int, *, started: bool) -> bots.Bot:
    """The external bot of the seat at ``position``, resumed where its match stands (a
    ServiceError if it cannot be made)."""
    seat = table.seats[position]
    bot = player_bot(seat.player, game=table.tournament.game, seed=derive_seed(table.match.seed, "online", position))
    bot.resume(position, match=bot_match_id(table, position), bank=seat.bank_left, started=started)
    return bot


def ask_bot(table: OnlineTable, position: int) -> tuple[object, BotFailure | None, float | None]:
    """Ask the external bot at ``position`` for its action: (the action, None, its bank left)
    or (None, why it failed, None)."""
    started = MatchAction.objects.filter(match=table.match, seat=position, by=BY_BOT).exists()
    view = view_for(table.state, position)
    bot = None
    try:
        bot = external_bot(table, position, started=started)
        if not bot.started:
            bot.start_match(position, view, players=len(table.seats), options=dict(table.state.options))
        action = bot.act(view)
    except BotFailure as exc:
        return None, exc, None
    except ServiceError as exc:
        return None, BotFailure("exception", exc.message), None
    except Exception as exc:
        # Ours, not the bot's: its owner reads the detail, so no traceback (our files) nor message;
        # the log keeps them.
        log.exception("match %s: asking the external bot at seat %s failed", table.match.pk, position)
        return None, BotFailure("exception", f"the service failed asking the bot ({type(exc).__name__})"), None
    finally:
        if bot is not None:
            bot.close()
    return action, None, bot.bank_left


def told_finish(seat: Seat) -> bool:
    """An external bot whose side of the match outlives a decision (HTTP), still playing at the
    end: it is sent ``finish``."""
    return seat.player.bot_kind == seat.player.BotKind.HTTP and not seat.forfeit_reason


def tell_finish(table: OnlineTable) -> None:
    """Send ``finish`` (its final view and the scores) to the match's HTTP bots still playing.
    A notice: what a bot answers, or whether it answers, changes nothing."""
    scores = list(table.state.scores())
    for seat in table.seats:
        if not told_finish(seat):
            continue
        try:
            bot = external_bot(table, seat.position, started=True)
            bot.finish_match(seat.position, table.state.view(seat.position), scores=scores)
        except Exception:  # noqa: BLE001 - the result is settled; a failing goodbye changes nothing
            pass
