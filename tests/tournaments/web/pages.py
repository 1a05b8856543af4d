"""Reading the pages as a visitor does: the text shown and the links, in page order."""

from __future__ import annotations

import html
import re

TAGS = re.compile(r"<[^>]+>")


def section(page: str, heading_id: str) -> str:
    """The part of a page from the heading with this id to the end of its <section>."""
    start = page.index(f'id="{heading_id}"')
    end = page.find("</section>", start)
    return page[start:end if end != -1 else None]


def text(page: str) -> str:
    """The page's visible words, one space between each (tags, scripts and styles dropped)."""
    page = re.sub(r"<(script|style|title|desc)\b.*?</\1>", " ", page, flags=re.S)
    return " ".join(html.unescape(TAGS.sub(" ", page)).split())


def ids(page: str, kind: str) -> list[int]:
    """The ids of the /kind/<id>/ links, in page order (e.g. kind="players")."""
    return [int(found) for found in re.findall(rf'href="/{kind}/(\d+)/"', page)]


def body(answer) -> str:
    assert answer.status_code == 200, answer.status_code
    return answer.content.decode()
