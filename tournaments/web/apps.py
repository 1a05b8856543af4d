from django.apps import AppConfig


class WebConfig(AppConfig):
    """The pages' templates, static files, translations and commands; no models."""

    name = "tournaments.web"
    label = "web"
    verbose_name = "Pages"
