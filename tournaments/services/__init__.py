"""Everything that changes the service's state. One keyword-only function per change, named
``<thing>_<verb>``, each in one transaction; views, serializers, tasks and commands call these
and never write models themselves."""

from tournaments.errors import ServiceError  # noqa: F401
