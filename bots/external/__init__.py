"""External bots: anyone's program, in any language, playing through a small JSON protocol.

Two transports carry the same messages (docs/bots.md is the bot author's reference):

* ``subprocess`` (:mod:`bots.external.subprocess`): a command started once per match, in a
  sandbox where bubblewrap works; one JSON object per line on its stdin, one answer line on
  its stdout for each ``act``; stderr is captured (its tail is kept).
* ``http`` (:mod:`bots.external.http`): every message is POSTed as JSON to a URL; the answer
  to ``act`` is the body. That module also holds the public-address rule
  (:func:`host_may_be_public`), which ``public_only`` applies at every connection.

The messages, :class:`Limits`, the clock and :class:`ExternalBot`, which both transports
extend, are in :mod:`bots.external.protocol`. Breaking the protocol or a limit raises
:class:`BotFailure` (defined in :mod:`bots.base`), which the match runner turns into a
forfeit; it never stops a match.
"""

from __future__ import annotations

from ..base import BotFailure
from .http import HttpBot, PrivateAddress, host_may_be_public
from .protocol import PROTOCOL, ExternalBot, Limits
from .subprocess import SubprocessBot, bwrap_problem, bwrap_works

__all__ = [
    "PROTOCOL", "BotFailure", "ExternalBot", "HttpBot", "Limits", "PrivateAddress", "SubprocessBot",
    "bwrap_problem", "bwrap_works", "host_may_be_public",
]
