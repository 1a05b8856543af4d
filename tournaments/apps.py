from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    label = "tournaments"
    verbose_name = "Tournaments"
