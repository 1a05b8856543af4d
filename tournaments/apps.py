from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    label = "tournaments"
    verbose_name = "Tournaments"

    def ready(self) -> None:
        # Register the Celery tasks in every process, not only in workers (Celery's
        # autodiscovery runs when a worker starts): a web request or a command sends bot
        # matches by task name (services.dispatch), and in eager mode plays them through it.
        from tournaments import tasks  # noqa: F401
