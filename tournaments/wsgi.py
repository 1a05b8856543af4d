import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournaments.settings")

application = get_wsgi_application()

# Without a broker, the tasks this process's requests send run in its background thread,
# and the periodic work beat would send runs there too (tournaments/embedded.py).
from tournaments import embedded  # noqa: E402 - after Django is set up

embedded.serve()
