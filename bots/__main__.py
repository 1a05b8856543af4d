"""``python -m bots`` is the arena: ``python -m bots GAME BOT BOT ...`` (see bots/arena.py)."""

import sys

from .arena import main

sys.exit(main())
