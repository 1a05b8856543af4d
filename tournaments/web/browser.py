"""The browser the pages are tested and photographed with: Debian's Chromium, driven by
Playwright's Python package (a test dependency). Playwright's own browser downloads are never
used (``playwright install`` fetches from outside): it launches the system's executable."""

from __future__ import annotations

import os
from pathlib import Path

try:  # only the browser tests and `make screenshots` need it
    from playwright.sync_api import Browser, Playwright, sync_playwright
except ImportError:  # pragma: no cover - depends on the installation
    Browser = Playwright = sync_playwright = None

# Debian's package (`apt-get install chromium`); MAZZIERE_CHROMIUM names another executable.
CHROMIUM = Path(os.environ.get("MAZZIERE_CHROMIUM", "/usr/bin/chromium"))


def missing() -> str | None:
    """Why no browser can be launched here, or None."""
    if sync_playwright is None:
        return "the playwright package is not installed (pip install -e '.[test]')"
    if not CHROMIUM.exists():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    return None


def launch(playwright: Playwright) -> Browser:
    """Headless Chromium; no sandbox, which needs privileges a container rarely has."""
    return playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox"])
