"""Plain-SQL rows (tournaments.plain): the statements a move runs on every request must give the
code the same objects the ORM would, on SQLite and on PostgreSQL alike."""

from __future__ import annotations

import ast
import re
from datetime import UTC, timedelta
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from tournaments import plain
from tournaments.models import ApiToken, Match, MatchAction, Tournament
from tournaments.services.players import player_create
from tournaments.services.tokens import token_create, token_find

from .helpers import bot_players, make_tournament

pytestmark = [pytest.mark.django_db, pytest.mark.services]


def fields_of(instance) -> dict:
    return {f.attname: getattr(instance, f.attname) for f in type(instance)._meta.concrete_fields}


def read(model, alias: str, pk: int):
    columns = plain.Columns(model, alias)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {columns.select} FROM {plain.table(model)} {alias} WHERE {alias}.id = %s", [pk])
        return columns.make(cursor.fetchone())


def test_a_row_read_in_plain_sql_is_the_instance_the_orm_makes():
    # JSON fields (objects, lists, null), a duration, datetimes, booleans and nulls: every kind
    # of column a converter must turn back into what the field holds.
    tournament = make_tournament(bot_players(4), options={"hands": 2}, round_interval=timedelta(hours=2, seconds=3),
                                 starts_at=timezone.now() + timedelta(days=1), online=True, move_seconds=60)
    Tournament.objects.filter(pk=tournament.pk).update(tiebreaks=["buchholz"], points_by_place=[3, 1, 0, 0])
    orm = Tournament.objects.get(pk=tournament.pk)

    plain = read(Tournament, "t", tournament.pk)

    assert type(plain) is Tournament and not plain._state.adding
    assert fields_of(plain) == fields_of(orm)
    assert plain.round_interval == timedelta(hours=2, seconds=3) and plain.options == {"hands": 2}


def test_a_token_found_in_plain_sql_carries_its_user_and_only_a_live_token_is_found():
    owner = get_user_model().objects.create_user("ada")
    bot = player_create(name="ada-bot", kind="bot", bot_kind="remote", owner=owner)
    row, secret = token_create(user=owner, name="laptop", scopes=["read", "play"], bot=bot)

    found = token_find(secret)

    assert fields_of(found) | {"last_used_at": None} == fields_of(ApiToken.objects.get(pk=row.pk)) | {"last_used_at": None}
    assert found.user == owner and found.user.username == "ada" and found.scopes == ["read", "play"]
    assert token_find(secret[:-1] + ("A" if secret[-1] != "A" else "B")) is None  # one character off
    get_user_model().objects.filter(pk=owner.pk).update(is_active=False)
    assert token_find(secret) is None  # its user deactivated


def test_a_row_inserted_in_plain_sql_reads_back_through_the_orm_and_its_constraints_hold():
    tournament = make_tournament(bot_players(4))
    from tournaments.services.tournaments import tournament_start

    tournament_start(tournament=tournament)
    match = Match.objects.filter(round__tournament=tournament).first()
    at = timezone.now()
    values = {"match_id": match.pk, "seq": 0, "seat": 1, "action": {"type": "stake", "amount": 3}, "by": "seat",
              "idempotency_key": "k-1", "created_at": at}

    plain.insert(MatchAction, values)

    stored = MatchAction.objects.get(match=match, seq=0)
    assert (stored.seat, stored.action, stored.by, stored.idempotency_key, stored.created_at) == (
        1, {"type": "stake", "amount": 3}, "seat", "k-1", at)
    with pytest.raises(IntegrityError), transaction.atomic():
        plain.insert(MatchAction, {**values, "seq": 1})  # the same seat's Idempotency-Key again
    with pytest.raises(IntegrityError), transaction.atomic():
        plain.insert(MatchAction, {**values, "idempotency_key": ""})  # the same number again


def test_a_row_updated_in_plain_sql_changes_that_row_only():
    tournament = make_tournament(bot_players(8), table_size=4)
    from tournaments.services.tournaments import tournament_start

    tournament_start(tournament=tournament)
    first, second = Match.objects.filter(round__tournament=tournament).order_by("table")[:2]
    deadline = timezone.now() + timedelta(seconds=90)

    changed = plain.update(Match, first.pk, {"awaiting_seat": 2, "deadline_at": deadline, "awaiting_since": None})

    assert changed == 1
    first.refresh_from_db(), second.refresh_from_db()
    assert (first.awaiting_seat, first.deadline_at, first.awaiting_since) == (2, deadline, None)
    assert (second.awaiting_seat, second.deadline_at) == (None, None)
    assert plain.update(Match, 10**9, {"awaiting_seat": 1}) == 0


def test_a_partly_read_row_holds_each_value_in_its_own_field_whatever_order_they_come_in():
    tournament = make_tournament(bot_players(4))
    from tournaments.services.tournaments import tournament_start

    tournament_start(tournament=tournament)
    match = Match.objects.filter(round__tournament=tournament).first()

    partial = plain.partial(Match, {"finished_at": None, "status": "running", "round_id": match.round_id, "id": match.pk})

    assert (partial.pk, partial.status, partial.finished_at, partial.round_id) == (match.pk, "running", None,
                                                                                   match.round_id)
    assert partial.seed == match.seed  # a field left out is read when touched, as with only()


def _prepared_statements() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [row[0] for row in cursor.fetchall()]


def test_on_postgresql_a_plain_statement_is_prepared_once_and_an_orm_query_never():
    """tournaments/db/postgresql/base.py: the server plans a plain statement once per
    connection; the ORM's queries stay bound in the client (no statement kept for them)."""
    if connection.vendor != "postgresql":
        pytest.skip("prepared statements are PostgreSQL's (the services leg)")
    tournament = make_tournament(bot_players(4))
    sql = f"SELECT {plain.column(Tournament, 'name')} FROM {plain.table(Tournament)} WHERE id = %s"
    names = []
    for _ in range(3):
        with plain.cursor() as cursor:
            cursor.execute(sql, [tournament.pk])
            names.append(cursor.fetchone()[0])
    list(Tournament.objects.filter(name__startswith="orm-only-query"))

    kept = _prepared_statements()
    assert names == [tournament.name] * 3
    assert [s for s in kept if "WHERE id = $1" in s and plain.table(Tournament) in s] != []
    assert not [s for s in kept if "orm-only-query" in s or "LIKE" in s]


def test_a_plain_statement_is_in_the_query_log_and_its_errors_are_djangos(django_assert_num_queries):
    with django_assert_num_queries(1) as captured, plain.cursor() as cursor:
        cursor.execute(f"SELECT COUNT(*) FROM {plain.table(Tournament)} WHERE id = %s", [0])
        assert cursor.fetchone()[0] == 0
    assert plain.table(Tournament) in captured.captured_queries[0]["sql"]
    with pytest.raises(IntegrityError), transaction.atomic(), plain.cursor() as cursor:
        cursor.execute(f"INSERT INTO {plain.table(Tournament)} (id) VALUES (%s)", [1])  # NOT NULL columns left out


def test_timestamps_read_on_postgresql_are_the_values_and_zone_djangos_own_loader_gives():
    """The backend reads timestamptz with psycopg's own loader when the sessions are in UTC;
    Django's loader (the one it would use) gives the same aware values."""
    if connection.vendor != "postgresql":
        pytest.skip("the loader is the PostgreSQL backend's (the services leg)")

    from django.db.backends.postgresql.psycopg_any import register_tzloader

    from tournaments.db.postgresql.base import UtcTimestamptzLoader

    texts = ["2026-11-28 02:19:26.556489+00", "1999-12-31 23:59:59+05:30", "2026-03-29 01:30:00.000001-11"]
    sql = "SELECT " + ", ".join(["%s::timestamptz"] * len(texts))
    connection.ensure_connection()
    ours = connection.connection.cursor()
    assert connection.connection.adapters.get_loader(1184, 0) is UtcTimestamptzLoader
    ours.execute(sql, texts)
    djangos = connection.connection.cursor()
    register_tzloader(UTC, djangos)
    djangos.execute(sql, texts)

    read, expected = ours.fetchone(), djangos.fetchone()
    assert read == expected and all(value.tzinfo is UTC for value in read)
    assert read[1].isoformat() == "1999-12-31T18:29:59+00:00"
    made = make_tournament(bot_players(4))
    read_back = Tournament.objects.get(pk=made.pk).created_at  # through the ORM
    assert read_back == made.created_at and read_back.tzinfo is UTC


# --- hand-written SQL lives in tournaments/plain.py alone -----------------------------------------

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("tournaments", "engine", "bots")
# What a hand-written statement looks like: its text (a string or an f-string's fixed parts) or
# the calls that run one. A docstring may name a statement; the code may not.
SQL_TEXT = re.compile(r"\b(SELECT\b.+\bFROM|SELECT\s+\d|INSERT\s+INTO|UPDATE\b.+\bSET|DELETE\s+FROM|"
                      r"FOR\s+(NO\s+KEY\s+)?UPDATE|(CREATE|ALTER|DROP)\s+(TABLE|INDEX)|TRUNCATE|VACUUM)\b")
SQL_CALLS = {"execute", "executemany", "callproc", "raw", "extra", "cursor"}  # execute(): with a statement
ALLOWED = {
    "tournaments/plain.py",
}


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def raw_sql(source: str) -> list[tuple[int, str]]:
    """Where ``source`` writes or runs a statement by hand: (line, what)."""
    tree = ast.parse(source)
    docstrings = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SQL_CALLS \
                and (node.args or node.func.attr == "cursor"):  # a Redis pipeline's execute() takes none
            found.append((node.lineno, f".{node.func.attr}(...)"))
        elif isinstance(node, ast.Name | ast.Attribute | ast.alias) and "RawSQL" in (
                getattr(node, "id", ""), getattr(node, "attr", ""), getattr(node, "name", "")):
            found.append((node.lineno, "RawSQL"))
        elif isinstance(node, ast.JoinedStr):
            text = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
            if SQL_TEXT.search(text):
                found.append((node.lineno, text[:60]))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings \
                and SQL_TEXT.search(node.value):
            found.append((node.lineno, node.value[:60]))
    return found


def _modules():
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path.relative_to(ROOT).as_posix(), path.read_text()


def test_no_module_but_plain_writes_or_runs_sql_by_hand():
    found = {name: hits for name, source in _modules() if name not in ALLOWED and (hits := raw_sql(source))}
    assert found == {}, "hand-written SQL belongs in tournaments/plain.py (a named function, names quoted)"


def test_no_module_puts_a_table_name_into_a_statement_unquoted():
    """A table's name goes into a statement through plain.table (connection.ops.quote_name),
    never as ``Model._meta.db_table`` itself."""
    unquoted = [(name, node.lineno) for name, source in _modules() for node in ast.walk(ast.parse(source))
                if isinstance(node, ast.FormattedValue) and isinstance(node.value, ast.Attribute)
                and node.value.attr == "db_table"]
    assert unquoted == []


@pytest.mark.parametrize("source", [
    'cursor.execute("SELECT 1")',
    'sql = f"SELECT {a} FROM {b} WHERE id = %s"',
    'Match.objects.raw("...")',
    'from django.db.models.expressions import RawSQL',
    'with connection.cursor() as c: pass',
    'q = "UPDATE t SET a = 1"',
])
def test_the_scan_finds_each_kind_of_hand_written_sql(source):
    assert raw_sql(source)


def test_the_scan_leaves_prose_and_redis_pipelines_alone():
    assert raw_sql('def f():\n    """Reads one row: SELECT a FROM b."""\n    pipe.incr(k).execute()\n'
                   '    return "select the players from the list"') == []
