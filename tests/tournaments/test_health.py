import pytest
from django.db import OperationalError


@pytest.mark.services
@pytest.mark.django_db
def test_healthz_is_ok_when_the_database_answers(client, broker_configured):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {
        "status": "ok",
        "database": "ok",
        "celery": "broker" if broker_configured else "eager",
    }


class _UnreachableDatabase:
    def cursor(self):
        raise OperationalError("connection refused")


def test_healthz_is_503_when_the_database_does_not_answer(client, monkeypatch):
    monkeypatch.setattr("tournaments.plain.connection", _UnreachableDatabase())  # plain.ping's
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["status"] == "unavailable"
    assert response.json()["database"] == "unreachable (OperationalError)"
