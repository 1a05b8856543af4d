"""The WSGI entry point: what gunicorn serves in a deployment (docker/compose.yaml: every request
but the event streams, which go to uvicorn serving tournaments.asgi), and what ``manage.py
runserver`` serves.

An event stream is held open for up to STREAM_MAX_SECONDS, and a WSGI server gives each open
request one of its threads: gunicorn's fixed few (compose: 2 workers x 4) would all be held by
as many streams, and the site would answer nothing else. So where WSGI_STREAMS is false (set by
tournaments/gunicorn_conf.py for every gunicorn the documented way) a stream's path is refused
at once, 503, saying where the streams are served, before Django, a thread or the database is
spent on it. ``runserver`` and the tests' live server (a thread per connection, no pool to run
out of) keep serving the streams themselves (WSGI_STREAMS true, the default).
"""

import json
import os
import re

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournaments.settings")

django_application = get_wsgi_application()

# Without a broker, the tasks this process's requests send run in its background thread,
# and the periodic work beat would send runs there too (tournaments/embedded.py).
from django.conf import settings  # noqa: E402 - after Django is set up

from tournaments import embedded  # noqa: E402
from tournaments.api.errors import error_body  # noqa: E402
from tournaments.api.streams import STREAM_PATHS  # noqa: E402

embedded.serve()

STREAM = re.compile(STREAM_PATHS)
STREAMS_ELSEWHERE = "streams_elsewhere"


def streams_elsewhere() -> str:
    """Why a stream is refused here, and where it is served."""
    where = f" at {settings.STREAMS_URL}" if settings.STREAMS_URL else ""
    return (f"event streams are served by the site's ASGI server{where} (uvicorn serving tournaments.asgi), not by "
            "this WSGI server, each of whose threads a stream would hold: connect through the site's front, which "
            "sends the stream paths there (docker/nginx.conf), or poll GET /api/seats/?your_turn=true instead")


def application(environ, start_response):
    if not settings.WSGI_STREAMS and STREAM.match(environ.get("PATH_INFO", "")):
        body = json.dumps(error_body(streams_elsewhere(), 503, STREAMS_ELSEWHERE)).encode()
        start_response("503 Service Unavailable", [
            ("Content-Type", "application/json"), ("Content-Length", str(len(body))), ("Cache-Control", "no-store"),
        ])
        return [body]
    return django_application(environ, start_response)
