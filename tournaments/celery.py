"""The Celery application. Workers start with `celery -A tournaments worker`."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournaments.settings")

app = Celery("tournaments")
# Every Celery setting is a Django setting with the CELERY_ prefix (see tournaments/config.py).
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
