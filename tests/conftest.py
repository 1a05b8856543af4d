"""Fixtures shared by every test package. pytest-django configures Django from
DJANGO_SETTINGS_MODULE (pyproject.toml) before collection."""

import os

import pytest


@pytest.fixture
def broker_configured() -> bool:
    """True when tasks go through a real broker to worker processes (CELERY_BROKER_URL set,
    as in scripts/test-services); False when they run eagerly in the test process."""
    return bool(os.environ.get("CELERY_BROKER_URL"))


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Each test starts with an empty cache: the API's throttles count requests there, and one
    test's requests must not use up the next one's allowance."""
    from django.core.cache import cache, caches

    from tournaments.api.streams import open_streams
    from tournaments.online_reads import replays

    cache.clear()
    caches["local"].clear()  # answers kept under their state's key: ids are reused between tests
    replays.clear()  # the online matches' states this process keeps (ids are reused between tests)
    open_streams.clear()  # streams a test left unclosed count against nobody in the next
    yield


@pytest.fixture(autouse=True)
def _roomy_budgets(settings):
    """The API's request budgets (docs/api.md, "Limits") raised far beyond what a test sends:
    tests that check hidden information or play whole matches call in tight loops, as no client
    would. tests/tournaments/test_api_throttles.py sets the budgets it checks."""
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK,
                               "DEFAULT_THROTTLE_RATES": {scope: "1000000/minute" for scope in rates}}


@pytest.fixture(autouse=True)
def _tasks_in_the_caller(settings):
    """Tasks sent without a broker run at once in the test (Celery's eager mode), never in the
    embedded worker's thread (tournaments/embedded.py), which the live server's WSGI entry
    point would otherwise turn on; tests of the embedded worker turn it on themselves."""
    settings.EMBEDDED_WORKER = False
