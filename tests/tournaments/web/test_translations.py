"""The Italian catalogue: the compiled django.mo is committed next to django.po (no gettext
needed to run the site), so these tests fail when the two disagree, when an entry has no
Italian, and when a string the pages translate is missing from the .po (docs/web.md says how
to update both)."""

from __future__ import annotations

import ast
import gettext
import re
from pathlib import Path

import pytest
from django.utils.translation.template import templatize

WEB = Path(__file__).resolve().parents[3] / "tournaments" / "web"
CATALOGUE = WEB / "locale" / "it" / "LC_MESSAGES"
CONTEXT = "\x04"  # gettext's separator of a context and its message


def _unquote(lines: list[str]) -> str:
    return "".join(ast.literal_eval(line) for line in lines)


def po_entries(path: Path) -> list[dict]:
    """The entries of a .po file: msgctxt, msgid, msgid_plural, msgstr (a list: one per plural
    form), and whether it is fuzzy. The header entry (empty msgid) is left out."""
    entries, entry, field = [], None, None
    for line in path.read_text(encoding="utf-8").splitlines() + [""]:
        line = line.strip()
        if not line:
            if entry and entry.get("msgid"):
                entries.append(entry)
            entry, field = None, None
            continue
        if entry is None:
            entry = {"msgctxt": None, "msgid_plural": None, "msgstr": {}, "fuzzy": False, "parts": {}}
        if line.startswith("#,") and "fuzzy" in line:
            entry["fuzzy"] = True
        if line.startswith("#"):
            continue
        match = re.match(r"(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?) (\".*\")$", line)
        if match:
            field = match[1]
            entry["parts"][field] = [match[3]]
        else:
            entry["parts"][field].append(line)
        for name, parts in entry["parts"].items():
            value = _unquote(parts)
            if name.startswith("msgstr"):
                entry["msgstr"][int(name[7:-1]) if "[" in name else 0] = value
            else:
                entry[name] = value
    return [{k: v for k, v in e.items() if k != "parts"} for e in entries]


@pytest.fixture(scope="module")
def entries() -> list[dict]:
    return po_entries(CATALOGUE / "django.po")


@pytest.fixture(scope="module")
def compiled() -> gettext.GNUTranslations:
    with open(CATALOGUE / "django.mo", "rb") as mo:
        return gettext.GNUTranslations(mo)


def test_every_entry_has_its_italian_and_none_is_fuzzy(entries):
    assert entries
    for entry in entries:
        assert not entry["fuzzy"], entry["msgid"]
        assert all(entry["msgstr"].values()) and entry["msgstr"], f"no Italian for {entry['msgid']!r}"


def test_the_compiled_catalogue_says_what_the_po_says(entries, compiled):
    for entry in entries:
        key = entry["msgid"] if entry["msgctxt"] is None else f"{entry['msgctxt']}{CONTEXT}{entry['msgid']}"
        if entry["msgid_plural"] is None:
            assert compiled._catalog.get(key) == entry["msgstr"][0], (
                f"django.mo is stale for {entry['msgid']!r}: run manage.py compilemessages (docs/web.md)")
        else:
            for form, text in entry["msgstr"].items():
                assert compiled._catalog.get((key, form)) == text, (
                    f"django.mo is stale for {entry['msgid']!r}: run manage.py compilemessages (docs/web.md)")


# --- every string the pages translate is in the catalogue ---------------------------------------

CALLS = {"gettext": 1, "gettext_lazy": 1, "_": 1, "pgettext": 2, "pgettext_lazy": 2, "ngettext": 2, "npgettext": 3}
STRING = r"""u?(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")"""  # templatize quotes with " a text holding a '"


def _from_templates() -> set[tuple[str | None, str]]:
    """(context, message) of each {% translate %} and {% blocktranslate %} of the templates,
    as Django's makemessages reads them."""
    found = set()
    for path in (WEB / "templates").rglob("*.html"):
        source = templatize(path.read_text(encoding="utf-8"))
        for name, args in re.findall(rf"\b(n?p?gettext)\(((?:{STRING})(?:, (?:{STRING}))*)", source):
            strings = [ast.literal_eval(s.lstrip("u")) for s in re.findall(STRING, args)]
            context = strings.pop(0) if name.startswith(("pgettext", "npgettext")) else None
            found.add((context, strings[0]))
    return found


def _from_python() -> set[tuple[str | None, str]]:
    found = set()
    for path in WEB.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in CALLS:
                strings = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
                if node.func.id.startswith(("pgettext", "npgettext")):
                    found.add((strings[0], strings[1]))
                elif strings:
                    found.add((None, strings[0]))
    return found


def test_every_string_the_pages_translate_is_in_the_catalogue(entries):
    catalogued = {(e["msgctxt"], e["msgid"]) for e in entries}
    used = _from_templates() | _from_python()
    assert len(used) > 100
    missing = sorted(used - catalogued, key=str)
    assert not missing, f"not in django.po (run makemessages, translate, compilemessages: docs/web.md): {missing}"
