"""The ASGI entry point: what uvicorn serves in a deployment (docker/compose.yaml), so that the
event streams of online matches hold their connections on the event loop, not a thread each.
The rest of the site runs as under WSGI (Django runs sync views in threads)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournaments.settings")

django_application = get_asgi_application()

# Without a broker, the tasks this process's requests send run in its background thread,
# and the periodic work beat would send runs there too (tournaments/embedded.py).
from tournaments import embedded, heap  # noqa: E402 - after Django is set up

embedded.serve()


async def application(scope, receive, send):
    """Django's ASGI application, and the server's lifespan messages, which Django does not
    take: at startup the process's heap is settled (tournaments/heap.py); at shutdown the
    embedded worker's clock stops."""
    if scope["type"] != "lifespan":
        return await django_application(scope, receive, send)
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            heap.settle()
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            embedded.stop_clock()  # no periodic work sent while the server stops
            await send({"type": "lifespan.shutdown.complete"})
            return
