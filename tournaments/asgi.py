"""The ASGI entry point: what uvicorn serves in a deployment (docker/compose.yaml), so that the
event streams of online matches hold their connections on the event loop, not a thread each.
The rest of the site runs as under WSGI (Django runs sync views in threads)."""

import asyncio
import os
import signal
import threading

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournaments.settings")

django_application = get_asgi_application()

# Without a broker, the tasks this process's requests send run in its background thread,
# and the periodic work beat would send runs there too (tournaments/embedded.py).
from tournaments import embedded, heap  # noqa: E402 - after Django is set up
from tournaments.api import streams  # noqa: E402

embedded.serve()

# The signals on which uvicorn stops gracefully.
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


def end_streams_on_stop() -> None:
    """At SIGTERM or SIGINT, end this process's event streams (tournaments.api.streams.stop_all)
    before passing the signal on to the server's own handler. A graceful stop waits for every
    open connection to close, and a stream's lasts up to STREAM_MAX_SECONDS: without this the
    server keeps its port and sends keep-alives for up to an hour. Called at the lifespan's
    startup, on the event loop, in the main thread (the only one signals reach), once uvicorn
    has put its handlers in place (which it takes back, these with them, when it exits)."""
    if threading.current_thread() is not threading.main_thread():
        return
    loop = asyncio.get_running_loop()
    for signum in STOP_SIGNALS:
        server_handler = signal.getsignal(signum)

        def on_stop(received, frame, server_handler=server_handler):
            # A signal handler may run in the middle of anything: the streams are stopped from
            # the loop, never from here (stop_all takes the events hub's lock).
            loop.call_soon_threadsafe(streams.stop_all)
            if callable(server_handler):
                server_handler(received, frame)

        signal.signal(signum, on_stop)


async def application(scope, receive, send):
    """Django's ASGI application, and the server's lifespan messages, which Django does not
    take: at startup the process's heap is settled (tournaments/heap.py) and its streams are set
    to end when the server is told to stop; at shutdown the embedded worker's clock stops."""
    if scope["type"] != "lifespan":
        return await django_application(scope, receive, send)
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            heap.settle()
            end_streams_on_stop()
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            embedded.stop_clock()  # no periodic work sent while the server stops
            await send({"type": "lifespan.shutdown.complete"})
            return
