"""The public pages: tournaments, standings, rounds, brackets, ladders and players, in Italian
and English, server-rendered from the same selectors as the API (docs/web.md)."""
