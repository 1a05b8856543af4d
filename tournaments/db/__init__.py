"""The project's database backends (settings' ENGINE: tournaments/config.py)."""
