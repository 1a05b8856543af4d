"""The Django project and app that runs tournaments on top of engine/ and bots/."""

# Load the Celery app with Django, so that @shared_task binds to it.
from tournaments.celery import app as celery_app

__all__ = ("celery_app",)
